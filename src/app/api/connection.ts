// Connection settings (API base URL and bearer token), kept in localStorage,
// defaulting to the origin that served the page.
import { useSyncExternalStore } from 'react';
import type { Connection } from './client.ts';

const KEY = 'kw.connection';
const listeners = new Set<() => void>();

function read(): Connection {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Connection> | null;
    if (saved?.baseUrl) return { baseUrl: saved.baseUrl, token: saved.token || undefined };
  } catch {
    /* a damaged entry falls back to the default */
  }
  return { baseUrl: window.location.origin };
}

let current = read();

export function getConnection(): Connection {
  return current;
}

export function setConnection(next: Connection) {
  current = { baseUrl: next.baseUrl.trim().replace(/\/+$/, '') || window.location.origin, token: next.token?.trim() || undefined };
  localStorage.setItem(KEY, JSON.stringify(current));
  listeners.forEach((l) => l());
}

export function resetConnection() {
  localStorage.removeItem(KEY);
  current = read();
  listeners.forEach((l) => l());
}

export function subscribeConnection(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useConnection(): Connection {
  return useSyncExternalStore(subscribeConnection, getConnection);
}

/** A key that changes whenever the connection does, for query keys. */
export const connectionKey = (c: Connection) => `${c.baseUrl}|${c.token ? 'token' : ''}`;
