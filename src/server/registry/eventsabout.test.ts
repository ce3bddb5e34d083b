// The events about one object, as `kubectl describe` and the app's Events
// sections ask for them (fieldSelector=involvedObject.name=…, with its kind,
// namespace and uid): answered from the watch cache's index of Events by
// involvedObject.name, and watched through its trigger. Here, over HTTP, that
// the answers are still exactly the selector's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
  await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'other' } } });
});
afterAll(async () => {
  await s.stop();
});

const event = (name: string, kind: string, about: string, reason = 'Seen', namespace?: string) => ({
  metadata: { name },
  involvedObject: { kind, name: about, ...(namespace ? { namespace } : {}), uid: `uid-${kind}-${about}` },
  reason,
  message: `${reason} ${kind}/${about}`,
  type: 'Normal',
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
  count: 1,
  source: { component: 'test' },
});
const create = async (ns: string, ...args: Parameters<typeof event>) => {
  const r = await s.api(`/api/v1/namespaces/${ns}/events`, { method: 'POST', body: event(...args) });
  expect(r.status).toBe(201);
  return r.body;
};
const names = (list: any) => list.items.map((e: any) => `${e.metadata.namespace}/${e.metadata.name}`);
const selector = (s: string) => `fieldSelector=${encodeURIComponent(s)}`;

it("lists an object's events by its name, with its kind, namespace and uid, in every namespace or one, and in pages", async () => {
  await create('default', 'n1.a', 'Node', 'web-1');
  await create('default', 'n1.b', 'Node', 'web-1', 'Rebooted');
  await create('default', 'p1.a', 'Pod', 'web-1', 'Started', 'default');
  await create('other', 'p1.b', 'Pod', 'web-1', 'Started', 'other');
  await create('default', 'n2.a', 'Node', 'web-2');

  const list = async (path: string, sel: string) => names((await s.api(`${path}?${selector(sel)}`)).body);
  expect(await list('/api/v1/events', 'involvedObject.name=web-1')).toEqual(['default/n1.a', 'default/n1.b', 'default/p1.a', 'other/p1.b']);
  // What `kubectl describe node web-1` asks.
  expect(await list('/api/v1/events', 'involvedObject.kind=Node,involvedObject.uid=uid-Node-web-1,involvedObject.name=web-1,involvedObject.namespace=')).toEqual(['default/n1.a', 'default/n1.b']);
  // And `kubectl describe pod -n other web-1`.
  expect(await list('/api/v1/namespaces/other/events', 'involvedObject.name=web-1,involvedObject.namespace=other,involvedObject.uid=uid-Pod-web-1')).toEqual(['other/p1.b']);
  expect(await list('/api/v1/events', 'involvedObject.name=web-1,reason!=Seen')).toEqual(['default/n1.b', 'default/p1.a', 'other/p1.b']);
  expect(await list('/api/v1/events', 'involvedObject.name=nothing')).toEqual([]);
  // Not by the index: every event tested, as before.
  expect(await list('/api/v1/events', 'involvedObject.name!=web-1')).toEqual(['default/n2.a']);

  const first = (await s.api(`/api/v1/events?${selector('involvedObject.name=web-1')}&limit=3`)).body;
  expect(names(first)).toEqual(['default/n1.a', 'default/n1.b', 'default/p1.a']);
  const rest = (await s.api(`/api/v1/events?${selector('involvedObject.name=web-1')}&limit=3&continue=${first.metadata.continue}`)).body;
  expect(names(rest)).toEqual(['other/p1.b']);
  expect(rest.metadata.continue).toBeFalsy();

  // Kept current: a deleted event leaves, and one whose object changed (core v1 allows it) moves.
  expect((await s.api('/api/v1/namespaces/default/events/n1.a', { method: 'DELETE' })).status).toBe(200);
  const moved = (await s.api('/api/v1/namespaces/default/events/n1.b', { method: 'PATCH', body: { involvedObject: { name: 'web-2' } }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
  expect(moved.status).toBe(200);
  expect(await list('/api/v1/events', 'involvedObject.name=web-1')).toEqual(['default/p1.a', 'other/p1.b']);
  expect(await list('/api/v1/events', 'involvedObject.name=web-2')).toEqual(['default/n1.b', 'default/n2.a']);
});

it("watches an object's events: its new and changed events come, an event moved away leaves as DELETED, others never come", async () => {
  const rv = (await s.api('/api/v1/events?limit=1')).body.metadata.resourceVersion;
  const watching = readWatch(`${s.url}/api/v1/events?watch=1&resourceVersion=${rv}&${selector('involvedObject.name=watched')}`, (ev) => ev.length >= 4);
  await create('default', 'w.other', 'Node', 'not-watched');
  await create('default', 'w.1', 'Node', 'watched');
  await create('other', 'w.2', 'Pod', 'watched', 'Started', 'other');
  expect((await s.api('/api/v1/namespaces/default/events/w.1', { method: 'PATCH', body: { count: 2 }, headers: { 'Content-Type': 'application/merge-patch+json' } })).status).toBe(200);
  expect((await s.api('/api/v1/namespaces/other/events/w.2', { method: 'PATCH', body: { involvedObject: { name: 'elsewhere' } }, headers: { 'Content-Type': 'application/merge-patch+json' } })).status).toBe(200);
  const events = (await watching).map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name} ${e.object.involvedObject.name}`);
  expect(events).toEqual(['ADDED default/w.1 watched', 'ADDED other/w.2 watched', 'MODIFIED default/w.1 watched', 'DELETED other/w.2 watched']);

  // From the start: the object's events now, as ADDED, until the bookmark that ends them.
  const initial = await readWatch(
    `${s.url}/api/v1/events?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&${selector('involvedObject.name=watched')}`,
    (ev) => ev.at(-1).type === 'BOOKMARK',
  );
  expect(initial.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`)).toEqual(['ADDED w.1', 'BOOKMARK ']);
});
