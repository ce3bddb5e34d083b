// Live watches without selectors share one feed per prefix (watch.ts): the
// cache offers each event once, framed once, to all of them. These check what
// a client sees across the moment a watch joins the feed (after its replay or
// its initial list), while writes keep coming: every event once, in order;
// that watches with a selector or asking for Table rows still get their own
// events; and that a watch ending leaves the others, and a later one, alone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
});
afterAll(() => s.stop());

const path = '/api/v1/namespaces/feed/configmaps';
const write = (i: number) => s.api(path, { method: 'POST', body: { metadata: { name: `cm-${i}`, labels: { odd: String(i % 2 === 1) } }, data: { i: String(i) } } });

it('gives every watch each event once, in order, across its joining the feed while writes go on', async () => {
  expect((await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'feed' } } })).status).toBe(201);
  const start = Number((await s.api(path)).body.metadata.resourceVersion);
  const N = 120;
  const url = (q: string) => `${s.url}${path}?watch=1&${q}`;
  const watches: Promise<any[]>[] = [];
  const all = (n: number) => (events: any[]) => events.length >= n;
  // Two live from the start, one with a selector, one as Table rows.
  watches.push(readWatch(url(`resourceVersion=${start}`), all(N)));
  watches.push(readWatch(url(`resourceVersion=${start}`), all(N)));
  const odd = readWatch(url(`resourceVersion=${start}&labelSelector=odd%3Dtrue`), all(N / 2));
  const table = readWatch(url(`resourceVersion=${start}`), all(N), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const revisionOf = new Map<string, number>();
  for (let i = 0; i < N; i += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => write(i + k)));
    for (const r of batch) revisionOf.set(r.body.metadata.name, Number(r.body.metadata.resourceVersion));
    // Joining mid-stream: one replays the history from the start, one lists first (initial ADDED events, then live).
    if (i === 30) watches.push(readWatch(url(`resourceVersion=${start}`), all(N)));
    if (i === 60) watches.push(readWatch(url('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'), (ev) => ev.filter((e) => e.type !== 'BOOKMARK').length >= N));
  }
  const revisions = [...revisionOf.values()].sort((a, b) => a - b);
  const names = Array.from({ length: N }, (_, i) => `cm-${i}`).sort();
  const [a, b, replayed, listed] = await Promise.all(watches);
  // From a resourceVersion: every write's event once, in the order of the revisions.
  for (const events of [a, b, replayed]) expect(events.map((e) => Number(e.object.metadata.resourceVersion))).toEqual(revisions);
  // Listed first: the initial events (in key order) up to the bookmark that ends them, then the rest live, in revision order; each object once.
  const end = listed.findIndex((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true');
  expect(end).toBeGreaterThan(0);
  const live = listed.slice(end + 1).filter((e) => e.type !== 'BOOKMARK').map((e) => Number(e.object.metadata.resourceVersion));
  expect(live).toEqual(revisions.slice(revisions.length - live.length));
  expect(listed.filter((e) => e.type !== 'BOOKMARK').map((e) => e.object.metadata.name).sort()).toEqual(names);
  const odds = await odd;
  // The odd ones, in the order the storage committed them (etcd may commit a batch's concurrent writes in any order).
  const oddNames = Array.from({ length: N / 2 }, (_, i) => `cm-${2 * i + 1}`);
  expect(odds.map((e) => e.object.metadata.name)).toEqual(oddNames.sort((x, y) => revisionOf.get(x)! - revisionOf.get(y)!));
  const rows = await table;
  expect(rows.length).toBe(N);
  expect(rows.every((e) => e.object.kind === 'Table' && e.object.rows.length === 1)).toBe(true);
});

it('keeps the other watches going when one ends, and starts afresh for a watch after the last has ended', async () => {
  const from = Number((await s.api(path)).body.metadata.resourceVersion);
  const url = `${s.url}${path}?watch=1&resourceVersion=${from}`;
  // The first stops after one event; the second reads on.
  const short = readWatch(url, (ev) => ev.length >= 1);
  const long = readWatch(url, (ev) => ev.length >= 3);
  await new Promise((r) => setTimeout(r, 100));
  await s.api(`${path}/cm-0`, { method: 'DELETE' });
  expect((await short).map((e) => e.type)).toEqual(['DELETED']);
  await new Promise((r) => setTimeout(r, 100));
  await s.api(`${path}/cm-1`, { method: 'DELETE' });
  await s.api(`${path}/cm-2`, { method: 'PATCH', body: { data: { i: 'two' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  expect((await long).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['DELETED cm-0', 'DELETED cm-1', 'MODIFIED cm-2']);
  // Every watch of the prefix has ended: a new one gets the events after its resourceVersion, and only those.
  await new Promise((r) => setTimeout(r, 100));
  const after = Number((await s.api(path)).body.metadata.resourceVersion);
  const next = readWatch(`${s.url}${path}?watch=1&resourceVersion=${after}`, (ev) => ev.length >= 1);
  await new Promise((r) => setTimeout(r, 100));
  await s.api(`${path}/cm-3`, { method: 'DELETE' });
  expect((await next).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['DELETED cm-3']);
});
