// A replica whose watch cache is behind a storage other replicas write too
// (etcd, busy): what it reads without a resourceVersion and what it writes
// are judged against the storage, not its stale cache, as kube-apiserver's
// GET and GuaranteedUpdate are. The storage here is SQLite seen as shared,
// with its events held back from the cache while the test says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configMapKind } from '../../kinds/configmap.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { Client } from '../client.ts';
import { SqliteStorage } from '../storage/sqlite.ts';
import type { Storage, StorageEvent } from '../storage/storage.ts';
import { WatchCache } from '../watch/cache.ts';
import { Store } from './store.ts';

let dir: string;
let inner: SqliteStorage;
let cache: WatchCache;
let store: Store;
let client: Client;
/** Event batches the cache has not been given yet; undefined while events flow. */
let held: (() => void)[] | undefined;

const hold = () => (held ??= []);
function release() {
  const batches = held ?? [];
  held = undefined;
  for (const deliver of batches) deliver();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-shared-'));
  inner = SqliteStorage.open(join(dir, 'state.db'));
  const shared = new Proxy(inner, {
    get(target, p) {
      if (p === 'shared') return true;
      if (p === 'subscribe') {
        return (listener: (events: StorageEvent[]) => void) => target.subscribe((events) => (held ? held.push(() => listener(events)) : listener(events)));
      }
      const v = Reflect.get(target, p);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Storage;
  cache = await WatchCache.start(shared);
  store = new Store(configMapKind, shared, cache, () => undefined);
  client = new Client(new Map([[configMapKind, store]]));
});
afterAll(async () => {
  release();
  cache.stop();
  await inner.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What another replica writes: straight into the storage, at the revision it read. */
async function writeElsewhere(o: KubeObject, data: Record<string, string>): Promise<string> {
  const { resourceVersion, ...metadata } = o.metadata;
  const key = store.keyFor(o.metadata.namespace, o.metadata.name!);
  return String(await inner.update(key, JSON.stringify({ ...o, metadata, data }), Number(resourceVersion)));
}

it('a GET without resourceVersion reads the storage when the cache is behind it', async () => {
  const created = await client.create(configMapKind, { metadata: { name: 'read', namespace: 'default' }, data: { v: '1' } });
  hold();
  const rv = await writeElsewhere(created, { v: '2' });
  expect(store.get('default', 'read').data).toEqual({ v: '1' });
  // The API's GET (the storage's revision is ahead of the cache's) and the elector's read (always the storage's).
  const got = (await store.getAt('default', 'read', undefined)).object;
  const latest = await client.getLatest(configMapKind, 'default', 'read');
  for (const o of [got, latest]) {
    expect(o.data).toEqual({ v: '2' });
    expect(o.metadata.resourceVersion).toBe(rv);
  }
  await expect(store.getAt('default', 'nowhere', undefined)).rejects.toMatchObject({ code: 404 });
  await expect(client.getLatest(configMapKind, 'default', 'nowhere')).rejects.toMatchObject({ code: 404 });
  release();
});

it('an update at the resourceVersion the storage holds succeeds though the cache has an older one', async () => {
  const created = await client.create(configMapKind, { metadata: { name: 'precondition', namespace: 'default' }, data: { v: '1' } });
  hold();
  const rv = await writeElsewhere(created, { v: '2' });
  const updated = await client.update(
    configMapKind,
    'default',
    'precondition',
    (o) => {
      o.metadata.resourceVersion = rv;
      (o as any).data = { v: '3' };
    },
    undefined,
    { returnWhenStored: true },
  );
  expect(updated.data).toEqual({ v: '3' });
  expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
  // A resourceVersion the storage has moved past is still a conflict.
  await expect(
    client.update(configMapKind, 'default', 'precondition', (o) => void (o.metadata.resourceVersion = rv), undefined, { returnWhenStored: true }),
  ).rejects.toMatchObject({ code: 409 });
  release();
  await cache.waitFor(Number(updated.metadata.resourceVersion));
  expect(store.get('default', 'precondition').data).toEqual({ v: '3' });
});

it('a read-modify-write computed from the stale cache is computed again from the stored object: nothing written elsewhere is lost', async () => {
  const created = await client.create(configMapKind, { metadata: { name: 'merge', namespace: 'default' }, data: { a: '1' } });
  hold();
  await writeElsewhere(created, { a: '1', b: '2' });
  const seen: unknown[] = [];
  const updated = await client.update(
    configMapKind,
    'default',
    'merge',
    (o) => {
      seen.push({ ...(o as any).data });
      (o as any).data = { ...(o as any).data, c: '3' };
    },
    undefined,
    { returnWhenStored: true },
  );
  // First against the cache's object, then, the storage refusing it, against the storage's.
  expect(seen).toEqual([{ a: '1' }, { a: '1', b: '2' }]);
  expect(updated.data).toEqual({ a: '1', b: '2', c: '3' });
  release();
});

it('a delete whose preconditions hold in the storage, not in the cache, deletes', async () => {
  const created = await client.create(configMapKind, { metadata: { name: 'gone', namespace: 'default' }, data: { v: '1' } });
  hold();
  const rv = await writeElsewhere(created, { v: '2' });
  const deleting = client.delete(configMapKind, 'default', 'gone', { preconditions: { resourceVersion: rv } });
  // The deletion waits for the cache to apply it; the cache gets the events once the delete is in the storage.
  setTimeout(release, 200);
  const { deleted } = await deleting;
  expect(deleted).toBe(true);
  expect(await inner.get(store.keyFor('default', 'gone'))).toBeUndefined();
});

it('a list in pages read from the storage, the cache behind it, continues: the token names a revision only the storage has', async () => {
  for (const name of ['page-a', 'page-b']) await client.create(configMapKind, { metadata: { name, namespace: 'default' }, data: { v: '1' } });
  hold();
  const rv = Number(await writeElsewhere(store.get('default', 'page-a'), { v: '2' }));
  const query = { labelSelector: [], fieldSelector: [], limit: 1, watch: false, allowWatchBookmarks: false, hasSelectors: false };
  const first = await store.list('default', query);
  expect(first.resourceVersion).toBe(rv);
  const token = JSON.parse(Buffer.from(first.continueToken!, 'base64url').toString());
  const rest: string[] = [];
  for (let t: { rv: number; start: string } | undefined = token; t; ) {
    const page = await store.list('default', { ...query, continueToken: t });
    rest.push(...page.items.map((c) => c.object.metadata.name!));
    t = page.continueToken ? JSON.parse(Buffer.from(page.continueToken, 'base64url').toString()) : undefined;
  }
  expect([first.items[0].object.metadata.name, ...rest]).toContain('page-b');
  // A revision past the storage's own is still refused.
  await expect(store.list('default', { ...query, continueToken: { rv: rv + 1000, start: token.start } })).rejects.toMatchObject({ code: 400 });
  release();
});

it('an object created through another replica, not yet in the cache, can be updated and deleted at once', async () => {
  hold();
  const key = store.keyFor('default', 'elsewhere');
  const rv = await inner.create(key, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-12-03T00:00:00Z' }, data: { v: '1' } }));
  expect(store.peek('default', 'elsewhere')).toBeUndefined();
  const updated = await client.update(configMapKind, 'default', 'elsewhere', (o) => void ((o as any).data = { v: '2' }), undefined, { returnWhenStored: true });
  expect(updated.data).toEqual({ v: '2' });
  expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(rv);
  const deleting = client.delete(configMapKind, 'default', 'elsewhere', { preconditions: { uid: 'u-1' } });
  setTimeout(release, 200);
  expect((await deleting).deleted).toBe(true);
  expect(await inner.get(key)).toBeUndefined();
});
