// What a write hands the watch cache: the object it stored, which the cache
// keeps (not a parse of the stored JSON), frozen, as every reader shares it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configMapKind } from '../../kinds/configmap.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { jsonOf, watchFrame } from '../watch/encodings.ts';
import { StorageError } from '../storage/storage.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ controllers: false });
});
afterAll(() => server.stop());

const store = () => server.client.store(configMapKind);

it('keeps the object a create or an update stored, frozen, and gives the writer that object', async () => {
  const created = await server.client.create(configMapKind, { metadata: { name: 'kept', namespace: 'default' }, data: { a: '1' } });
  const cached = store().peek('default', 'kept')!;
  expect(created).toBe(cached.object);
  expect(Object.isFrozen(created.metadata)).toBe(true);
  // A writer changing what it got back changes nothing the cache's readers see.
  expect(() => ((created as any).data.a = '2')).toThrow(TypeError);
  expect(JSON.parse(JSON.stringify(cached.object))).toEqual({ ...JSON.parse(JSON.stringify(created)), data: { a: '1' } });

  const updated = await server.client.update(configMapKind, 'default', 'kept', (o) => Object.assign(o, { data: { a: '3' }, immutable: undefined }));
  expect(updated).toBe(store().peek('default', 'kept')!.object);
  // The kept object is what parsing the stored JSON gives: a member set to undefined is not there at all.
  expect(Object.keys(updated)).not.toContain('immutable');
  expect(updated.metadata.resourceVersion).toBe(String(store().peek('default', 'kept')!.revision));
  const res = await server.api('/api/v1/namespaces/default/configmaps/kept');
  expect(res.body.data).toEqual({ a: '3' });
  expect(res.body.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
});

it('keeps a parse of the stored JSON when the write failed or another write stored something else', async () => {
  const s = store();
  const first = await server.client.create(configMapKind, { metadata: { name: 'raced', namespace: 'default' }, data: { a: '1' } });
  // Two updates from the same revision: one wins, the other conflicts and is retried against the winner.
  // Which one wins is the storage's to decide (SQLite takes them in order, etcd may not).
  const results = await Promise.all(
    ['x', 'y'].map((a) => s.update('default', 'raced', { ...JSON.parse(JSON.stringify(first)), data: { a } }, { dryRun: false, warnings: [] }).catch((e) => e)),
  );
  const winner = results.find((r) => !(r instanceof Error));
  expect(results.filter((r) => r instanceof Error).map((e: any) => e.code)).toEqual([409]);
  // The loser's object is not the cache's (it was never stored); the winner's JSON is.
  expect(s.peek('default', 'raced')!.object.data).toEqual(winner.data);
  await server.client.update(configMapKind, 'default', 'raced', (o) => void ((o as any).data = { a: 'z' }));
  expect(s.peek('default', 'raced')!.object.data).toEqual({ a: 'z' });
});

it("hands the watch cache its writes' JSON with the revision spliced in, equal to the object's own", async () => {
  const s = store();
  const frames: Buffer[] = [];
  const created = await server.client.create(configMapKind, { metadata: { name: 'spliced', namespace: 'default', annotations: { city: 'zürich' } }, data: { a: '1' } });
  // Right after the write, the cache holds the text it framed or nothing (a text nobody framed is not kept).
  const after = s.peek('default', 'spliced')!;
  expect(after.json).toBeUndefined();
  expect(jsonOf(after)).toBe(JSON.stringify(created));
  // A watcher's frame of an update, a status-like write and a graceful delete are the object's own JSON, byte for byte.
  const stop = await s.watch('default', { labelSelector: [], fieldSelector: [], limit: 0, watch: true, allowWatchBookmarks: false, hasSelectors: false, resourceVersion: Number(created.metadata.resourceVersion) }, {
    event: (type, c) => void frames.push(watchFrame(type, c)),
    bookmark: () => {},
    error: (e) => void frames.push(Buffer.from(String(e))),
  });
  const updated = await server.client.update(configMapKind, 'default', 'spliced', (o) => void ((o as any).data = { a: '2', b: '東京' }));
  await server.client.update(configMapKind, 'default', 'spliced', (o) => void ((o as any).metadata.finalizers = ['example.com/hold']));
  const deleting = await s.delete('default', 'spliced', { dryRun: false }, { dryRun: false, warnings: [] });
  expect(deleting.deleted).toBe(false);
  await server.client.update(configMapKind, 'default', 'spliced', (o) => void delete (o as any).metadata.finalizers);
  stop();
  const events = frames.map((f) => f.toString());
  expect(events.length).toBe(4);
  expect(events[0]).toBe(`{"type":"MODIFIED","object":${JSON.stringify(updated)}}\n`);
  expect(JSON.parse(events[2]).object.metadata.deletionTimestamp).toBeTruthy();
  expect(JSON.parse(events[3]).type).toBe('DELETED');
  for (const e of events) expect(Buffer.byteLength(e)).toBe(Buffer.from(e).length);
});

it('answers a deletion with the last state at its revision, without changing the cached object', async () => {
  const s = store();
  await server.client.create(configMapKind, { metadata: { name: 'gone', namespace: 'default' }, data: { a: '1' } });
  const before = s.peek('default', 'gone')!.object;
  const { object, deleted } = await s.delete('default', 'gone', { dryRun: false }, { dryRun: false, warnings: [] });
  expect(deleted).toBe(true);
  expect(Number(object.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
  expect(object.data).toEqual({ a: '1' });
  expect(before.metadata.resourceVersion).not.toBe(object.metadata.resourceVersion);
  expect(s.peek('default', 'gone')).toBeUndefined();
});

it('answers a write that loses every retry to other writers with a 409 Conflict Status, not a 500', async () => {
  await server.client.create(configMapKind, { metadata: { name: 'contended', namespace: 'default' }, data: { a: '1' } });
  const storage = server.storage;
  const update = storage.update;
  let tries = 0;
  // Every update refused, as if another writer always got through first.
  storage.update = async (key) => {
    tries++;
    throw new StorageError('Conflict', `${key} has been modified`, await storage.get(key));
  };
  try {
    const res = await server.api('/api/v1/namespaces/default/configmaps/contended', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { data: { a: '2' } },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Conflict', details: { name: 'contended', kind: 'configmaps' } });
    expect(res.body.message).toContain('Operation cannot be fulfilled on configmaps "contended"');
    expect(tries).toBeGreaterThan(10);
  } finally {
    storage.update = update;
  }
  expect(store().peek('default', 'contended')!.object.data).toEqual({ a: '1' });
});

it('reads a list at an older revision from storage a page at a time, the event loop let go between, counting only what ends a page', async () => {
  // 1,100 objects: three reads of the store's pages (500) for the whole list.
  for (let i = 0; i < 1100; i += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => server.client.create(configMapKind, { metadata: { name: `old-${String(i + j).padStart(4, '0')}`, namespace: 'default' }, data: { v: 'before' } })));
  }
  const at = await server.api('/api/v1/namespaces/default/configmaps?labelSelector=!absent');
  const want = at.body.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
  const rv = at.body.metadata.resourceVersion;
  // The cache moves on: a list at `rv` is read from storage.
  await server.client.update(configMapKind, 'default', 'old-0000', (o) => Object.assign(o, { data: { v: 'after' } }));
  const storage = server.storage;
  const list = storage.list;
  const reads: { limit?: number; uncounted?: boolean }[] = [];
  storage.list = (prefix, opts) => (reads.push({ limit: opts?.limit, uncounted: opts?.uncounted }), list.call(storage, prefix, opts));
  let turns = 0;
  let done = false;
  const turn = () => (turns++, done || setImmediate(turn));
  try {
    const exact = `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`;
    setImmediate(turn);
    const whole = await server.api(exact);
    done = true;
    expect(whole.body.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(want);
    expect(whole.body.items.find((o: any) => o.metadata.name === 'old-0000').data).toEqual({ v: 'before' });
    expect(reads).toEqual([
      { limit: 500, uncounted: true },
      { limit: 500, uncounted: true },
      { limit: 500, uncounted: true },
    ]);
    expect(turns).toBeGreaterThanOrEqual(3);

    // A page of 700: a read of 500 that cannot end it, then one of 200 that counts what is left.
    reads.length = 0;
    const first = await server.api(`${exact}&limit=700`);
    expect(reads).toEqual([
      { limit: 500, uncounted: true },
      { limit: 200, uncounted: false },
    ]);
    expect(first.body.metadata.remainingItemCount).toBe(want.length - 700);
    const rest = await server.api(`/api/v1/namespaces/default/configmaps?limit=700&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect([...first.body.items, ...rest.body.items].map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(want);
    expect(rest.body.metadata.continue).toBeUndefined();
  } finally {
    storage.list = list;
  }
}, 60_000);
