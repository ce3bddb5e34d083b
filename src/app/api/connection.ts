// Saved connections (name, API base URL, bearer token), kept in
// localStorage; one of them is current. The default is the server that
// served the page. A token handed over in the URL fragment (`#token=…`, as
// the server prints the app's address) is stored as the token of the
// connection to this origin and removed from the address bar at once, so it
// stays out of history, bookmarks and screen shares.
import { useSyncExternalStore } from 'react';
import type { Connection } from './client.ts';

export interface SavedConnection extends Connection {
  id: string;
  name: string;
}

interface Stored {
  current: string;
  connections: SavedConnection[];
}

const KEY = 'kw.connections';
/** The single connection of earlier versions, read once and carried over. */
const LEGACY_KEY = 'kw.connection';
const listeners = new Set<() => void>();

const origin = () => window.location.origin;
const normaliseUrl = (url: string) => url.trim().replace(/\/+$/, '') || origin();
const newId = () => Math.random().toString(36).slice(2, 10);

function defaultConnection(): SavedConnection {
  return { id: 'this-server', name: 'This server', baseUrl: origin() };
}

function read(): Stored {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Stored> | null;
    const connections = (saved?.connections ?? []).filter((c): c is SavedConnection => !!c && typeof c.id === 'string' && typeof c.baseUrl === 'string');
    if (connections.length) {
      const current = connections.some((c) => c.id === saved?.current) ? saved!.current! : connections[0].id;
      return { current, connections: connections.map((c) => ({ ...c, name: c.name || c.baseUrl, token: c.token || undefined })) };
    }
    const legacy = JSON.parse(localStorage.getItem(LEGACY_KEY) ?? 'null') as Partial<Connection> | null;
    if (legacy?.baseUrl) return { current: 'this-server', connections: [{ ...defaultConnection(), baseUrl: legacy.baseUrl, token: legacy.token || undefined }] };
  } catch {
    /* a damaged entry falls back to the default */
  }
  return { current: 'this-server', connections: [defaultConnection()] };
}

let state = read();
let current = state.connections.find((c) => c.id === state.current)!;

function write(next: Stored) {
  state = next;
  current = state.connections.find((c) => c.id === state.current) ?? state.connections[0];
  localStorage.setItem(KEY, JSON.stringify(state));
  localStorage.removeItem(LEGACY_KEY);
  listeners.forEach((l) => l());
}

/** The token in a URL fragment such as `#token=abc` (other fragment parameters are kept). */
export function tokenFromFragment(hash: string): { token?: string; rest: string } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const token = params.get('token') ?? undefined;
  params.delete('token');
  const rest = params.toString();
  return { token: token || undefined, rest: rest ? `#${rest}` : '' };
}

/**
 * Takes a `#token=…` handed over in the address: it becomes the token of the
 * connection to this origin (made current), and leaves the address bar.
 */
export function adoptFragmentToken() {
  const { token, rest } = tokenFromFragment(window.location.hash);
  if (!token) return;
  history.replaceState(history.state, '', window.location.pathname + window.location.search + rest);
  const here = state.connections.find((c) => c.baseUrl === origin());
  const connections = here
    ? state.connections.map((c) => (c === here ? { ...c, token } : c))
    : [...state.connections, { ...defaultConnection(), id: state.connections.some((c) => c.id === 'this-server') ? newId() : 'this-server', token }];
  write({ current: (here ?? connections[connections.length - 1]).id, connections });
}

if (typeof window !== 'undefined') adoptFragmentToken();

export function getConnection(): SavedConnection {
  return current;
}

export function savedConnections(): SavedConnection[] {
  return state.connections;
}

/** Changes the current connection's URL or token (the Settings form, the sign-in form). */
export function setConnection(next: Connection & { name?: string }) {
  const updated: SavedConnection = {
    ...current,
    name: next.name?.trim() || current.name,
    baseUrl: normaliseUrl(next.baseUrl),
    token: next.token?.trim() || undefined,
  };
  write({ ...state, connections: state.connections.map((c) => (c.id === current.id ? updated : c)) });
}

/** Saves a new connection and makes it current; returns its id. */
export function addConnection(next: Connection & { name: string }): string {
  const id = newId();
  const saved: SavedConnection = { id, name: next.name.trim() || normaliseUrl(next.baseUrl), baseUrl: normaliseUrl(next.baseUrl), token: next.token?.trim() || undefined };
  write({ current: id, connections: [...state.connections, saved] });
  return id;
}

export function selectConnection(id: string) {
  if (state.connections.some((c) => c.id === id)) write({ ...state, current: id });
}

/** Forgets a saved connection; the last one left is reset to this server instead. */
export function removeConnection(id: string) {
  const connections = state.connections.filter((c) => c.id !== id);
  if (!connections.length) return resetConnection();
  write({ current: state.current === id ? connections[0].id : state.current, connections });
}

/** Forgets every saved connection: back to this server without a token. */
export function resetConnection() {
  localStorage.removeItem(KEY);
  localStorage.removeItem(LEGACY_KEY);
  state = read();
  current = state.connections[0];
  listeners.forEach((l) => l());
}

export function subscribeConnection(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useConnection(): SavedConnection {
  return useSyncExternalStore(subscribeConnection, getConnection);
}

export function useSavedConnections(): SavedConnection[] {
  return useSyncExternalStore(subscribeConnection, savedConnections);
}

/** FNV-1a of the token: cache keys tell users apart without holding their tokens. */
function tokenHash(token: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

/**
 * A key that changes whenever the connection does, for query keys: two
 * saved connections to one server with different tokens never share cached
 * data.
 */
export const connectionKey = (c: Connection) => `${c.baseUrl}|${c.token ? tokenHash(c.token) : ''}`;
