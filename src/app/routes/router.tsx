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

/**
 * Where the app is mounted: `/` when our server serves it, `/static/` under
 * `kubectl proxy --www=dist` (its default prefix). Read off the URL of the
 * bundle itself (`<mount>assets/<chunk>.js`); app paths (`/nodes`) are
 * relative to it everywhere else in the app.
 */
export const mountPath = (() => {
  const m = /^(.*\/)assets\/[^/]+$/.exec(new URL(import.meta.url).pathname);
  return m && typeof window !== 'undefined' ? m[1] : '/';
})();

/** The browser URL of an app path. */
export const hrefOf = (to: string) => (to.startsWith('/') ? mountPath + to.slice(1) : to);

/** The app path of the current browser URL. */
export const appPath = () => {
  const p = window.location.pathname;
  return p.startsWith(mountPath) ? `/${p.slice(mountPath.length)}` : p;
};

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  const message = guard?.();
  if (message && !window.confirm(message)) return;
  if (opts.replace) history.replaceState(null, '', hrefOf(to));
  else history.pushState(null, '', hrefOf(to));
  notify();
}

const snapshot = () => appPath() + window.location.search;

export function useLocation(): { pathname: string; search: URLSearchParams; href: string } {
  const href = useSyncExternalStore((l) => (listeners.add(l), () => listeners.delete(l)), snapshot);
  const url = new URL(href, 'http://x');
  return { pathname: url.pathname, search: url.searchParams, href };
}

/** Reads and writes one query parameter, replacing history (filters do not pile up in Back). */
export function useSearchParam(name: string): [string, (v: string) => void] {
  const { search } = useLocation();
  const set = (v: string) => {
    const params = new URLSearchParams(window.location.search);
    if (v) params.set(name, v);
    else params.delete(name);
    const q = params.toString();
    navigate(appPath() + (q ? `?${q}` : ''), { replace: true });
  };
  return [search.get(name) ?? '', set];
}

/** Builds a path keeping the current namespace choice (after the path's own query, which wins). */
export function withSearch(path: string, keep: string[] = ['ns']): string {
  const cur = new URLSearchParams(window.location.search);
  const at = path.indexOf('?');
  const out = new URLSearchParams(at < 0 ? '' : path.slice(at + 1));
  for (const k of keep) {
    const v = cur.get(k);
    if (v && !out.has(k)) out.set(k, v);
  }
  const q = out.toString();
  const base = at < 0 ? path : path.slice(0, at);
  return q ? `${base}?${q}` : base;
}

export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const click = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={hrefOf(to)} onClick={click} {...rest} />;
}
