// A small history-API router: every view and filter lives in the URL so a
// link can be shared. Paths are matched by the route table in routes.tsx.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

/** Blocks navigation while it returns a message (unsaved changes). */
let guard: (() => string | undefined) | undefined;
export function setNavigationGuard(g: typeof guard) {
  guard = g;
}

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  const message = guard?.();
  if (message && !window.confirm(message)) return;
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
}

const snapshot = () => window.location.pathname + window.location.search;

export function useLocation(): { pathname: string; search: URLSearchParams; href: string } {
  const href = useSyncExternalStore((l) => (listeners.add(l), () => listeners.delete(l)), snapshot);
  const url = new URL(href, 'http://x');
  return { pathname: url.pathname, search: url.searchParams, href };
}

/** Reads and writes one query parameter, replacing history (filters do not pile up in Back). */
export function useSearchParam(name: string): [string, (v: string) => void] {
  const { search } = useLocation();
  const set = (v: string) => {
    const url = new URL(window.location.href);
    if (v) url.searchParams.set(name, v);
    else url.searchParams.delete(name);
    navigate(url.pathname + url.search, { replace: true });
  };
  return [search.get(name) ?? '', set];
}

/** Builds a path keeping the current namespace choice. */
export function withSearch(path: string, keep: string[] = ['ns']): string {
  const cur = new URLSearchParams(window.location.search);
  const out = new URLSearchParams();
  for (const k of keep) {
    const v = cur.get(k);
    if (v) out.set(k, v);
  }
  const q = out.toString();
  return q ? `${path}?${q}` : path;
}

export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={click} {...rest} />;
}
