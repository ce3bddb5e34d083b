// The data hooks of the app: one list query per kind and namespace kept live
// by its shared watch, objects read from those lists, discovery, and the
// overall connection health. Query keys are built here and nowhere else.
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { escapeValue } from '../../lib/fieldselector.ts';
import { hashKey, useQueries, useQuery, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { kinds } from '../../kinds/registry.ts';
import { api, isForbidden, isRefusal, kubeFetch, listPath, selecting, type Connection, type KubeList, type Selection } from './client.ts';
import { connectionKey, useConnection } from './connection.ts';
import { ListWatch, keepNewest, tellViewsNow, uidOf, type ListChange, type ListState, type Newest, type WatchHealth } from './watch.ts';
import { firstPages } from './firstpages.ts';
import { readListPage, type ListPage } from './wire.ts';
import { idleTime } from './idletime.ts';
import { dropManagedFields } from './unmanaged.ts';

export const queryKeys = {
  /** `selection`: only the objects it selects (a list of its own, e.g. one DaemonSet's pods, one object's events). */
  list: (conn: Connection, kind: KindDefinition, namespace?: string, selection?: Selection, newest?: Newest) => {
    const key = ['list', connectionKey(conn), kind.group, kind.plural, namespace ?? ''];
    const selected = selectionKey(selection);
    if (selected || newest) key.push(selected);
    if (newest) key.push(`newest=${newest.max}`);
    return key as readonly string[];
  },
  object: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string) => ['object', connectionKey(conn), kind.group, kind.plural, namespace ?? '', name] as const,
  discovery: (conn: Connection) => ['discovery', connectionKey(conn)] as const,
};

/**
 * The first page is small (a few screens), so the first rows show at once; the rest comes in
 * pages of 2,000: 10,000-item pages left ~400 MB of text and objects in use before a collection
 * at 50,000 pods (158 MB with 2,000, the same 131 MB after it; bench/scale-app.ts).
 */
export const FIRST_PAGE = 100;
/** The size of the later pages (a setting, so that tests read a list of a few hundred in many pages). */
export const listPaging = { next: 2_000 };

/** A selection as a query key has it: its query string, '' for the whole list. */
const selectionKey = (s?: Selection) => new URLSearchParams({ ...selecting(s), ...(s?.managedFields && { managedFields: 'kept' }) }).toString();

/** The address of a list's first page (also sent early, see routes/readahead.ts). */
export const firstPagePath = (kind: KindDefinition, namespace?: string, selection?: Selection) => listPath(kind, namespace, { limit: String(FIRST_PAGE), ...selecting(selection) });

/** A list's items are shown again once this share of them is new since they were last shown (and when complete). */
const SHOW_GROWTH = 1 / 8;
/** A part due to be shown waits for idle time at most this long, ms. */
const SHOW_WAIT_MS = 500;
async function fetchList(
  conn: Connection,
  kind: KindDefinition,
  namespace?: string,
  onPage?: (partial: ListState) => void,
  selection?: Selection,
  newest?: Newest,
  before?: readonly KubeObject[],
): Promise<ListState> {
  // Paged as kubectl lists (limit and continue, one consistent revision for all
  // pages): a first page draws the first rows of a 50,000-pod list while
  // the rest is read; the watch then continues from the list's revision.
  // Later pages are read and cut into runs of items in the wire worker
  // (wire.ts) as their bytes arrive; the next page is asked for as soon as
  // this one's metadata (its continue token) is in, so it arrives while this
  // one is parsed. The main thread parses a run at a time in its idle time
  // (idletime.ts), so a list scrolled while it loads keeps its frames. Items go into
  // one growing array; the views are shown a copy of it only when it has grown
  // by a share (SHOW_GROWTH), so the copies of a list of n items add up to a
  // few n, not n per page.
  const first = await firstPages.read<KubeList>(conn, firstPagePath(kind, namespace, selection));
  const resourceVersion = first.metadata.resourceVersion ?? '';
  const keep = selection?.managedFields === true;
  const held = heldBefore(before);
  let items: KubeObject[] = first.items.map((o) => held(keep ? o : dropManagedFields(o)));
  let shown: readonly KubeObject[] = [];
  // Items only grow at the end and a trim keeps their order, so those shown and still kept are the
  // first `shownKept` of them and the rest are new since. What a trim let go of those shown is told as
  // removed: the views take a trimmed list as a change too, not as a new list to derive afresh
  // (at 228,000 events, telling old from new anew at each part shown took 1 s of the page's load).
  let shownKept = 0;
  let letGo: KubeObject[] = [];
  const trim = (slack?: number) => {
    let stillShown = shownKept;
    const kept = keepNewest(items, newest!, slack, (i) => i < shownKept && (letGo.push(items[i]), stillShown--));
    if (kept !== items) ((items = kept as KubeObject[]), (shownKept = stillShown));
  };
  const changeSinceShown = (): ListChange => ({ from: shown, removed: letGo, added: items.slice(shownKept) });
  // From the first page on, a list says how many objects the server holds (remainingItemCount, which
  // the server tells for a list without selectors), so that its pages are shown as a part of that.
  // A list kept to its newest (watch.ts, Newest) counts what it lets go, and keeps saying it.
  let read = items.length;
  let total = first.metadata.remainingItemCount !== undefined ? read + first.metadata.remainingItemCount : undefined;
  const pagePath = (token: string) => listPath(kind, namespace, { limit: String(listPaging.next), continue: token, ...selecting(selection) });
  const idle = idleTime();
  let next = first.metadata.continue ? readListPage(conn, pagePath(first.metadata.continue), keep) : undefined;
  // A part is shown in idle time too, when the idle period has room for what the last one took (its
  // views' render included), or else once SHOW_WAIT_MS have passed: the rows grow while the user scrolls.
  let showCost = 0;
  let shownAt = performance.now();
  // A list kept to its newest is shown again after it let some go too: the newest read so far replace
  // those shown, or else they would stay as the first pages left them until the whole list is read.
  const maybeShow = async () => {
    const fresh = items.length - shownKept;
    if (!next || (!letGo.length && (!fresh || fresh < items.length * SHOW_GROWTH))) return;
    if (shown.length && !idle.has(showCost) && performance.now() - shownAt < SHOW_WAIT_MS) return;
    const t0 = performance.now();
    // Each part shown as a change to the last, so views add it to what they derived.
    const now = items.slice();
    const change = changeSinceShown();
    tellViewsNow(() => onPage?.({ items: now, resourceVersion, partial: true, change, total, read }));
    letGo = [];
    shown = now;
    shownKept = now.length;
    // The views render in the microtask the show queued, before this goes on.
    await null;
    shownAt = performance.now();
    showCost = shownAt - t0;
  };
  while (next) {
    await maybeShow();
    let page: ListPage;
    try {
      page = await next;
    } catch (e) {
      // 410: the revision was compacted between pages; one unpaged list from the watch cache instead.
      if ((e as { code?: number }).code !== 410) throw e;
      return fetchAll(conn, kind, namespace, selection, newest, held);
    }
    const token = page.metadata.continue;
    next = token ? readListPage(conn, pagePath(token), keep) : undefined;
    // A failure of the page read ahead is taken when it is awaited, not reported as unhandled meanwhile.
    next?.catch(() => undefined);
    for (let run; (run = await page.nextRun()); ) {
      await idle.room();
      const t0 = performance.now();
      for (const parsed of run()) {
        items.push(held(parsed));
        read++;
      }
      if (newest) trim();
      idle.took(performance.now() - t0);
      await maybeShow();
    }
  }
  // The complete list adds what was read since the last part shown (views that saw them go on from there).
  // One kept to its newest is exactly those: what was read since the last trim may be older.
  if (newest) {
    total = read;
    trim(1);
  }
  return { items, resourceVersion, change: changeSinceShown(), total: newest ? total : undefined };
}

/** One unpaged list (resourceVersion=0: kube-apiserver answers it from its watch cache). */
async function fetchAll(conn: Connection, kind: KindDefinition, namespace: string | undefined, selection: Selection | undefined, newest: Newest | undefined, held: (o: KubeObject) => KubeObject): Promise<ListState> {
  const page: KubeList = await api.list(conn, kind, namespace, { resourceVersion: '0', ...selecting(selection) });
  const resourceVersion = page.metadata.resourceVersion ?? '';
  const items = page.items.map((o) => held(selection?.managedFields ? o : dropManagedFields(o)));
  return newest ? { items: keepNewest(items, newest, 1), resourceVersion, total: items.length } : { items, resourceVersion };
}

// ---- watches and their health --------------------------------------------

/** Watches by query client, then by query key: each cache has its own. */
const watchesByClient = new WeakMap<QueryClient, Map<string, ListWatch>>();
const watchId = (key: QueryKey) => JSON.stringify(key);
const watches = new Set<ListWatch>();
const healthListeners = new Set<() => void>();
let lastListError = false;
const notifyHealth = () => healthListeners.forEach((l) => l());

/**
 * A field selector no object matches (no name holds a slash): the watch's probe asks its list for
 * nothing, to hear whether and how the server answers. Asked for one item instead, a server that
 * keeps what a paged list was cut from (ours, for its continue token) kept the whole list for it.
 */
const NO_OBJECT = 'metadata.name=/';

function watchFor(qc: QueryClient, conn: Connection, kind: KindDefinition, namespace?: string, selection?: Selection, newest?: Newest): ListWatch {
  const key = queryKeys.list(conn, kind, namespace, selection, newest);
  const id = watchId(key);
  let byKey = watchesByClient.get(qc);
  if (!byKey) watchesByClient.set(qc, (byKey = new Map()));
  let w = byKey.get(id);
  if (!w) {
    const reads = {
      list: listQueryFn(qc, conn, kind, namespace, selection, newest),
      probe: () => reported(api.list(conn, kind, namespace, selecting({ ...selection, fieldSelector: [selection?.fieldSelector, NO_OBJECT].filter(Boolean).join(',') }))),
    };
    w = new ListWatch(qc, key, conn, kind, namespace, reads, notifyHealth, selection, newest);
    byKey.set(id, w);
    watches.add(w);
  }
  return w;
}

/**
 * The list query's function (useList's, and its watch's relist): the list read in pages, its pages
 * shown as they come. A list read again (after a 410) keeps the objects it holds that are unchanged.
 */
function listQueryFn(qc: QueryClient, conn: Connection, kind: KindDefinition, namespace?: string, selection?: Selection, newest?: Newest) {
  const key = queryKeys.list(conn, kind, namespace, selection, newest);
  return () => {
    const current = qc.getQueryData<ListState>(key);
    return reported(fetchList(conn, kind, namespace, showPages(qc, key), selection, newest, current && !current.partial ? current.items : undefined));
  };
}

/**
 * For a list read again: an object read at the resourceVersion of the one held before is that one,
 * and the copy just parsed goes at once. Else a relist of 55,000 pods held two copies of them until
 * it ended (431-550 MB of heap), and the views derived every row again. (A server upgraded meanwhile
 * may add defaulted fields to an object at the same resourceVersion; those show at its next change.)
 */
function heldBefore(before?: readonly KubeObject[]): (o: KubeObject) => KubeObject {
  if (!before?.length) return (o) => o;
  const byUid = new Map<string, KubeObject>();
  for (const o of before) byUid.set(uidOf(o), o);
  return (o) => {
    const held = byUid.get(uidOf(o));
    return held && o.metadata.resourceVersion && held.metadata.resourceVersion === o.metadata.resourceVersion ? held : o;
  };
}

/** Shows the pages of a list as they arrive, while the list has no complete state yet; its watch may start from their revision (ListWatch.listing). */
const showPages = (qc: QueryClient, key: QueryKey) => (partial: ListState) => {
  const current = qc.getQueryData<ListState>(key);
  if (current && !current.partial) return;
  qc.setQueryData<ListState>(key, partial);
  watchesByClient.get(qc)?.get(watchId(key))?.listing(partial.resourceVersion);
};

/** A list request's answer; whether the server answered is told to the connection indicator. */
async function reported<T>(answer: Promise<T>): Promise<T> {
  try {
    const s = await answer;
    if (lastListError) ((lastListError = false), notifyHealth());
    return s;
  } catch (e) {
    // Offline is a server that does not answer (or fails); a refusal (401, 403) or a
    // missing resource is an answer, shown where it happens, not as a dead connection.
    const code = (e as { code?: number }).code ?? 0;
    if (!lastListError && (code === 0 || code >= 500)) ((lastListError = true), notifyHealth());
    throw e;
  }
}

/** The worst health of the watches in use: one dead watch is worth showing. */
export function overallHealth(): WatchHealth {
  const active = [...watches].filter((w) => w.inUse && !w.refused);
  if (lastListError || active.some((w) => w.health === 'offline')) return 'offline';
  if (active.some((w) => w.health === 'reconnecting')) return 'reconnecting';
  if (active.some((w) => w.health === 'live')) return 'live';
  return 'connecting';
}

export function useWatchHealth(): WatchHealth {
  return useSyncExternalStore((l) => (healthListeners.add(l), () => healthListeners.delete(l)), overallHealth);
}

/** Stops every watch (when the connection settings change). */
export function stopAllWatches(qc?: QueryClient) {
  for (const w of watches) w.stop();
  watches.clear();
  if (qc) watchesByClient.delete(qc);
  lastListError = false;
  notifyHealth();
}

// ---- hooks -----------------------------------------------------------------

const NO_ITEMS: readonly KubeObject[] = [];

/**
 * The live list of a kind, in one namespace or all (namespace undefined); with `selection`, of
 * the objects it selects only (listed and watched so: the others' events never arrive); with `newest`,
 * kept to the newest of them (`data.total` says how many there are). `data.change` says what the
 * last update changed.
 */
export function useList(kind: KindDefinition, namespace?: string, selection?: Selection, newest?: Newest) {
  const conn = useConnection();
  const qc = useQueryClient();
  const ns = kind.scope === 'Namespaced' ? namespace : undefined;
  const options = listOptions(qc, conn, kind, ns, selection, newest);
  const query = useQuery(options);
  useEffect(
    () => watching(qc, conn, [{ kind, namespace: ns, selection }], newest),
    // The list by its key, not by the identity of `selection` (new on each render) and `newest`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [qc, conn, kind, ns, hashKey(options.queryKey)],
  );
  return listResult(query);
}

/** A list as useLists is given it. */
export interface ListRef {
  kind: KindDefinition;
  namespace?: string;
  selection?: Selection;
}

/**
 * Live lists as many as `lists` names, each as useList gives it: for a set of lists a view learns
 * it needs as it goes (a plan's pace: the pods of the DaemonSets whose rollouts it draws on).
 */
export function useLists(lists: readonly ListRef[]) {
  const conn = useConnection();
  const qc = useQueryClient();
  const refs = lists.map((l) => ({ ...l, namespace: l.kind.scope === 'Namespaced' ? l.namespace : undefined }));
  const options = refs.map((l) => listOptions(qc, conn, l.kind, l.namespace, l.selection));
  const queries = useQueries({ queries: options });
  useEffect(
    () => watching(qc, conn, refs),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [qc, conn, hashKey(options.map((o) => o.queryKey))],
  );
  return queries.map(listResult);
}

const REFUSAL_KEPT_MS = 10_000;

/** A list's query (useList's and useLists'), asked for at once when not in the cache yet. */
function listOptions(qc: QueryClient, conn: Connection, kind: KindDefinition, ns?: string, selection?: Selection, newest?: Newest) {
  const queryKey = queryKeys.list(conn, kind, ns, selection, newest);
  const state = qc.getQueryState(queryKey);
  const options = {
    queryKey,
    queryFn: listQueryFn(qc, conn, kind, ns, selection, newest),
    staleTime: Infinity,
    gcTime: 60_000,
    // A list's state is new (or not) by identity: structural sharing would compare 50,000 objects deeply per update.
    structuralSharing: false,
    refetchOnWindowFocus: false,
    // Once more after a failure, but not after a refusal the same request would get again (401, 403; 404: the kind is not served).
    retry: (failures: number, e: unknown) => failures < 1 && !isRefusal(e),
    // Nor asked for again by every view that mounts on it just after (a DaemonSet page has six on
    // the nodes); a refusal some time old is, as the access may have been granted since.
    retryOnMount: !(state?.status === 'error' && isRefusal(state.error) && Date.now() - state.errorUpdatedAt < REFUSAL_KEPT_MS),
  };
  // A list not in the cache yet is asked for as the page renders, not once it is committed and
  // its effects run: the first page is on its way while the page's DOM is made (a first visit
  // draws the whole app, ~50-150 ms on two busy cores). The same query; useQuery joins the fetch.
  if (!state) void qc.prefetchQuery(options);
  return options;
}

/** Keeps the lists' watches while a view uses them (an effect's body; gives its cleanup). */
function watching(qc: QueryClient, conn: Connection, lists: readonly ListRef[], newest?: Newest) {
  const ws = lists.map((l) => watchFor(qc, conn, l.kind, l.namespace, l.selection, newest));
  for (const w of ws) w.acquire();
  return () => {
    for (const w of ws) w.release();
  };
}

/** A list query as the views read it. */
function listResult<Q extends { data?: ListState; isSuccess: boolean }>(query: Q) {
  // The cache's own array (typed mutable for the views that pass it on as KubeObject[]): never changed in place.
  const items = (query.data?.items ?? NO_ITEMS) as KubeObject[];
  /** Later pages of the first list are still being read. */
  const partial = query.data?.partial === true;
  /** Read whole: what a view judges once (a plan, orphans, a budget) waits for this, not for the first page. */
  const whole = query.isSuccess && !partial;
  return { ...query, items, partial, whole, total: query.data?.total, read: query.data?.read };
}

/** One object's own list: the field selector of its name (every kind has it). */
export const byName = (name: string): Selection => ({ fieldSelector: `metadata.name=${escapeValue(name)}` });

/**
 * One object, read from a live list: a whole list already cached (all namespaces, or the
 * object's) answers at once; else the object's own list (byName), listed and watched alone: a
 * pod's page read its namespace's 50,000 pods (159 MB) to show one. Chosen once, as the page
 * mounts (a whole list read later may be partial, without the object yet). A user who may get
 * the object but not list its kind (RBAC grants them apart) reads it alone, polled, instead.
 * With `managedFields`, the object keeps its metadata.managedFields, which lists drop: it is read
 * from its own list.
 */
export function useObject(kind: KindDefinition, namespace: string | undefined, name: string, opts: { managedFields?: boolean } = {}) {
  const conn = useConnection();
  const qc = useQueryClient();
  const [from] = useState<{ namespace?: string; selection?: Selection }>(() => {
    if (opts.managedFields) return { namespace, selection: { ...byName(name), managedFields: true } };
    if (kind.scope === 'Namespaced' && qc.getQueryData(queryKeys.list(conn, kind, undefined)) !== undefined) return {};
    if (qc.getQueryData(queryKeys.list(conn, kind, namespace)) !== undefined) return { namespace };
    return { namespace, selection: byName(name) };
  });
  const list = useList(kind, from.namespace, from.selection);
  const listRefused = isForbidden(list.error);
  const keep = opts.managedFields === true;
  const alone = useQuery({
    // Without managedFields too, as from a list.
    queryKey: [...queryKeys.object(conn, kind, namespace, name), keep ? 'managedFields' : ''],
    queryFn: () => api.get(conn, kind, namespace, name).then((o) => (keep ? o : dropManagedFields(o))),
    enabled: listRefused,
    refetchInterval: 10_000,
    retry: false,
  });
  const object = useMemo(
    () => list.items.find((o) => o.metadata.name === name && (kind.scope === 'Cluster' || o.metadata.namespace === namespace)),
    [list.items, name, namespace, kind.scope],
  );
  if (listRefused) return { ...list, object: alone.data, error: alone.error, isPending: alone.isPending };
  return { ...list, object };
}

export interface Discovery {
  /** `group/version/plural` of every resource the server serves. */
  resources: Set<string>;
}

export const servedKey = (k: KindDefinition) => `${k.group}/${k.version}/${k.plural}`;

/** Which of our kinds the server offers; a missing kind is shown as unavailable. */
export function useDiscovery() {
  const conn = useConnection();
  return useQuery({
    queryKey: queryKeys.discovery(conn),
    queryFn: async (): Promise<Discovery> => {
      await firstPages.idle();
      const groupVersions = [...new Set(kinds.map((k) => (k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`)))];
      const resources = new Set<string>();
      await Promise.all(
        groupVersions.map(async (path) => {
          try {
            const list = await kubeFetch<{ groupVersion: string; resources: { name: string }[] }>(conn, path);
            const [group, version] = list.groupVersion.includes('/') ? list.groupVersion.split('/') : ['', list.groupVersion];
            for (const r of list.resources) if (!r.name.includes('/')) resources.add(`${group}/${version}/${r.name}`);
          } catch (e) {
            if ((e as { code?: number }).code !== 404) throw e;
          }
        }),
      );
      return { resources };
    },
    staleTime: 5 * 60_000,
    retry: 1,
  });
}

// Access answers live with the other access reviews; re-exported for the pages that gate actions.
export { useCanI } from './access.ts';

/**
 * Changes the connection (switch, sign in, edit): every watch stops and the
 * cache empties first, so nothing fetched as one user is shown as another.
 */
export function useChangeConnection() {
  const qc = useQueryClient();
  return (change: () => void) => {
    stopAllWatches(qc);
    qc.clear();
    change();
  };
}
