// Which first page to send early (api/firstpages.ts): the one of the list the
// address shows, or on a detail page the one its object is read from, as soon
// as the app's code starts to run. Imported first by main.tsx, so the request
// is on the wire while React and the pages are evaluated and the first render
// is made.
import { getConnection } from '../api/connection.ts';
import { firstPages } from '../api/firstpages.ts';
import { byName, firstPagePath } from '../api/hooks.ts';
import { appPath } from './router.tsx';
import { viewForPlural } from './views.tsx';
import { isAppPage } from '../../lib/approutes.ts';

/** The kind and namespace of a list page's address (`/pods?ns=web`), else undefined. */
export function listOfAddress(path: string, search: string) {
  const parts = path.split('/').filter(Boolean);
  if (parts.length !== 1 || isAppPage(parts[0])) return undefined;
  const kind = viewForPlural(decodeURIComponent(parts[0]))?.kind;
  if (!kind) return undefined;
  const namespace = (kind.scope === 'Namespaced' && new URLSearchParams(search).get('ns')) || undefined;
  return { kind, namespace };
}

/**
 * The list a detail page's object is read from (`/daemonsets/web/agent`: the DaemonSet `agent`
 * of `web`, by name, as hooks.ts useObject reads it when nothing is cached, as at the app's
 * start), else undefined. Its page's other lists follow from the object (App.tsx, DetailRoute).
 */
export function objectListOfAddress(path: string) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length < 2 || isAppPage(parts[0])) return undefined;
  const kind = viewForPlural(parts[0])?.kind;
  if (!kind || parts.length !== (kind.scope === 'Namespaced' ? 3 : 2)) return undefined;
  return { kind, namespace: kind.scope === 'Namespaced' ? parts[1] : undefined, name: parts[parts.length - 1] };
}

if (typeof window !== 'undefined') {
  const list = listOfAddress(appPath(), window.location.search);
  const object = objectListOfAddress(appPath());
  if (list) firstPages.sendEarly(getConnection(), firstPagePath(list.kind, list.namespace));
  else if (object) firstPages.sendEarly(getConnection(), firstPagePath(object.kind, object.namespace, byName(object.name)));
}
