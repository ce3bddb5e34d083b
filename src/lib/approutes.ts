// The shape of the web app's URLs, shared by the app's router and the server
// that answers deep links with index.html: `/`, the app's own pages, the
// editor (`/new/<plural>`, `/edit/<plural>[/<namespace>]/<name>`) and the
// resource pages (`/<plural>[/<namespace>]/<name>`). Anything else is not an
// app page, so the server answers it with a 404 Status as kube-apiserver does
// (`/metrics`, `/debug/pprof`, `/livez/etcd`), not with the app.

/** Pages of the app that are not about one kind (the app's router has one view per entry). */
export const APP_PAGES = ['settings', 'reachability', 'access', 'events'] as const;
export type AppPage = (typeof APP_PAGES)[number];
export const isAppPage = (segment: string | undefined): segment is AppPage => (APP_PAGES as readonly string[]).includes(segment ?? '');
/** Editor prefixes: `/new/<plural>` and `/edit/<plural>/…`. */
export const EDITOR_PREFIXES = ['new', 'edit'] as const;

export interface RoutedKind {
  plural: string;
  scope: 'Namespaced' | 'Cluster';
}

/**
 * Whether `path` (decoded, leading `/`) can be a page of the app, given the
 * kinds it has views for. Generous where the app itself answers (a namespaced
 * list or detail path of a known kind), strict on the first segment.
 */
export function isAppPath(path: string, kinds: readonly RoutedKind[]): boolean {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return true;
  if (isAppPage(parts[0])) return parts.length === 1;
  const editor = (EDITOR_PREFIXES as readonly string[]).includes(parts[0]);
  const kind = kinds.find((k) => k.plural === (editor ? parts[1] : parts[0]));
  if (!kind) return false;
  const rest = parts.length - (editor ? 2 : 1);
  const max = kind.scope === 'Namespaced' ? 2 : 1;
  if (editor && parts[0] === 'new') return rest === 0;
  if (editor) return rest === max;
  return rest === 0 || rest === max;
}
