// Routes: `/` overview, `/settings`, `/access` (who may do what), `/<plural>` lists and
// `/<plural>[/<namespace>]/<name>` details, for every kind the app shows.
import { Layout } from '../components/Layout.tsx';
import { ListPage } from '../features/resources/ListPage.tsx';
// Eager: a draft handed over by another page (a reachability fix) is taken as the editor first renders.
import { EditPage } from '../features/edit/EditPage.tsx';
import { appPath, useLocation } from './router.tsx';
import { lazy, Suspense, useCallback, useMemo, useState, type ReactNode } from 'react';
import { isAppPage, type AppPage } from '../../lib/approutes.ts';
import { servedKey, useDiscovery } from '../api/hooks.ts';
import { accessViews, allViews, detailLists, later, ownerLink, preload, primaryViews, supportingViews, viewForPlural } from './views.tsx';
import { DetailLists } from './detaillists.tsx';
import { objectListOfAddress } from './readahead.ts';
import type { KindView } from '../features/resources/types.ts';
import { detailPath } from '../features/resources/types.ts';

// Only the list pages are in the first bundle (a list is where a big cluster is
// first opened); every other page is loaded on its first visit.
const Overview = later(() => import('../features/overview/Overview.tsx').then((m) => m.Overview));
const Settings = later(() => import('../features/settings/Settings.tsx').then((m) => m.Settings));
const DetailPage = later(() => import('../features/resources/DetailPage.tsx').then((m) => m.DetailPage));
const EventsPage = later(() => import('../features/events/EventsPage.tsx').then((m) => m.EventsPage));
const EventsSection = later(() => import('../features/events/EventsSection.tsx').then((m) => m.EventsSection));
// The reachability views bring their worker.
const ReachabilityPage = lazy(() => import('../features/reachability/ReachabilityPage.tsx'));
const AccessPage = lazy(() => import('../features/access/AccessPage.tsx'));

// One entry per page in APP_PAGES (src/lib/approutes.ts), which the server also reads to answer deep links.
const PAGES: Record<AppPage, () => ReactNode> = {
  settings: () => <Settings />,
  access: () => <Suspense fallback={<div className="empty">Loading…</div>}><AccessPage /></Suspense>,
  reachability: () => <Suspense fallback={<div className="empty">Loading…</div>}><ReachabilityPage /></Suspense>,
  events: () => <EventsPage objectLink={eventObjectLink} />,
};

/** The detail page of an event's object: matched by kind alone, as a kubelet's node events carry no apiVersion. */
function eventObjectLink(kind: string, _apiVersion: string, namespace: string | undefined, name: string): string | undefined {
  const v = allViews.find((x) => x.kind.kind === kind);
  return v ? detailPath(v.kind, { metadata: { namespace, name } }) : undefined;
}

/**
 * A detail page, with the lists its kind's page reads (views.tsx, detailLists) started from here,
 * as soon as the object is known; its Events section waits until they are read. The page is the
 * same element until then, so the lists' updates do not draw it again from here.
 */
function DetailRoute({ view, namespace, name }: { view: KindView; namespace?: string; name: string }) {
  const lists = detailLists.get(view.kind);
  const [settled, setSettled] = useState(!lists);
  const onSettled = useCallback(() => setSettled(true), []);
  const page = useMemo(
    () => <DetailPage view={view} namespace={namespace} name={name} ownerLink={ownerLink} events={(object) => <EventsSection kind={view.kind} object={object} after={!settled} />} />,
    [view, namespace, name, settled],
  );
  return (
    <>
      {lists && !settled && <DetailLists kind={view.kind} namespace={namespace} name={name} lists={lists} onSettled={onSettled} />}
      {page}
    </>
  );
}

// A detail page's code is asked for as the app starts, beside its object's first page (readahead.ts),
// not once React gets to it.
const detailAddress = typeof window !== 'undefined' ? objectListOfAddress(appPath()) : undefined;
if (detailAddress) {
  preload(DetailPage);
  preload(EventsSection);
  preload(viewForPlural(detailAddress.kind.plural)?.Details);
}

function usePage() {
  const { pathname, search } = useLocation();
  const namespace = search.get('ns') || undefined;
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const served = useDiscovery().data?.resources;
  if (parts.length === 0) return { fill: false, node: <Overview namespace={namespace} /> };
  if (isAppPage(parts[0]) && parts.length === 1) return { fill: false, node: PAGES[parts[0]]() };
  // /new/<plural> and /edit/<plural>[/<namespace>]/<name>: the editor.
  if ((parts[0] === 'new' || parts[0] === 'edit') && viewForPlural(parts[1] ?? '')) {
    const v = viewForPlural(parts[1])!;
    if (parts[0] === 'new') return { fill: false, node: <EditPage key={`new-${v.kind.plural}`} view={v} namespace={namespace} /> };
    const [ns, name] = v.kind.scope === 'Namespaced' ? [parts[2], parts[3]] : [undefined, parts[2]];
    if (name) return { fill: false, node: <EditPage key={`edit-${parts.join('/')}`} view={v} namespace={ns} name={name} /> };
  }
  const view = viewForPlural(parts[0]);
  if (view && served && !served.has(servedKey(view.kind))) {
    return {
      fill: false,
      node: (
        <div className="alert warn">
          This server does not serve {view.label.toLowerCase()} ({view.kind.group ? `${view.kind.group}/${view.kind.version}` : view.kind.version} {view.kind.plural}).
        </div>
      ),
    };
  }
  if (view) {
    const namespaced = view.kind.scope === 'Namespaced';
    if (parts.length === 1) return { fill: true, node: <ListPage key={view.kind.plural} view={view} namespace={namespace} /> };
    // Keyed by the object: another object's page starts its own lists.
    if (namespaced && parts.length === 3) return { fill: false, node: <DetailRoute key={pathname} view={view} namespace={parts[1]} name={parts[2]} /> };
    if (!namespaced && parts.length === 2) return { fill: false, node: <DetailRoute key={pathname} view={view} name={parts[1]} /> };
  }
  return {
    fill: false,
    node: (
      <div className="alert info">
        Nothing lives at <code>{pathname}</code>.
      </div>
    ),
  };
}

export function App() {
  const page = usePage();
  return (
    <Layout primary={primaryViews} supporting={supportingViews} access={accessViews} fill={page.fill}>
      {page.node}
    </Layout>
  );
}
