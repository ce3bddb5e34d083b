// The watch cache applies a group commit's events a slice at a time: a large
// group (a rollout's hundreds of writes, each offered to every watcher) does
// not hold the event loop for one long turn, so requests are read in between;
// every watcher still gets every event once, in revision order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../storage/sqlite.ts';
import type { EventsOptions, StorageEvent, SubscriberHooks } from '../storage/storage.ts';
import { listEverything, WatchCache } from './cache.ts';

let dir: string;
let storage: SqliteStorage;
let cache: WatchCache;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-cache-'));
  storage = SqliteStorage.open(path.join(dir, 'db.sqlite'));
  cache = await WatchCache.start(storage);
});
afterEach(async () => {
  cache.stop();
  await storage.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Counts the turns of the event loop that other work gets, from now until
 * stop(); each turn first busies the loop for `busyMs` (other work filling it).
 */
function countTurns(busyMs = 0) {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    const until = performance.now() + busyMs;
    while (performance.now() < until);
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => void (running = false) };
}

/** 5000 creates asked for in one turn, which commit as one group whose events storage delivers at once; resolves once the cache applied them. */
async function writeOneGroup(prefix: string): Promise<number[]> {
  const value = JSON.stringify({ metadata: { name: 'x' }, data: { filler: 'x'.repeat(2000) } });
  const revisions = await Promise.all(Array.from({ length: 5000 }, (_, i) => storage.create(`${prefix}default/c${i}`, value)));
  expect(await cache.waitFor(Math.max(...revisions))).toBe(true);
  return revisions;
}

it("applies one group commit's events over several turns of the event loop, every one in order", async () => {
  const prefix = '/registry/core/configmaps/';
  const delivered: { revision: number; turn: number }[] = [];
  const turns = countTurns();
  await cache.watchFrom(cache.revision, { prefix, deliver: (e) => delivered.push({ revision: e.revision, turn: turns.now() }) });
  const revisions = await writeOneGroup(prefix);
  turns.stop();
  expect(delivered.map((d) => d.revision)).toEqual([...revisions].sort((a, b) => a - b));
  // Other work ran between the slices of the one group.
  expect(new Set(delivered.map((d) => d.turn)).size).toBeGreaterThan(1);
  expect(cache.list(prefix)).toHaveLength(5000);
}, 60_000);

it('catches up within a few turns when other work fills every turn of the event loop', async () => {
  const prefix = '/registry/core/configmaps/';
  const at: number[] = [];
  // Other work of 10 ms in every turn: the cache's 5 ms slices alone would take dozens of turns for 5000 events.
  const turns = countTurns(10);
  await cache.watchFrom(cache.revision, { prefix, deliver: () => at.push(turns.now()) });
  await writeOneGroup(prefix);
  turns.stop();
  expect(at).toHaveLength(5000);
  // Events that waited 20 ms are applied in the next turn, however many.
  expect(at[at.length - 1] - at[0]).toBeLessThanOrEqual(3);
}, 60_000);

it('takes progress from the storage only once the events before it are applied', async () => {
  const prefix = '/registry/core/configmaps/';
  // A storage that, after each group it delivers, tells progress up to the group's last revision
  // (as etcd does after writes outside the prefix): the cache has queued most of the group then.
  const subscribe = storage.subscribe.bind(storage);
  const store = Object.create(storage, {
    subscribe: {
      value: (listener: (events: StorageEvent[]) => void, also: SubscriberHooks = {}) =>
        subscribe((events) => {
          listener(events);
          also.progress?.(events[events.length - 1].revision);
        }),
    },
  });
  const told = await WatchCache.start(store);
  try {
    const delivered: number[] = [];
    await told.watchFrom(told.revision, { prefix, deliver: (e) => delivered.push(e.revision) });
    const value = JSON.stringify({ metadata: { name: 'x' }, data: { filler: 'x'.repeat(2000) } });
    const revisions = await Promise.all(Array.from({ length: 5000 }, (_, i) => storage.create(`${prefix}default/c${i}`, value)));
    expect(await told.waitFor(Math.max(...revisions))).toBe(true);
    expect(delivered).toEqual([...revisions].sort((a, b) => a - b));
    expect(told.list(prefix)).toHaveLength(5000);
  } finally {
    told.stop();
  }
}, 60_000);

it('takes progress told while it lists (etcd tells it once) after the listing, not before', async () => {
  // A storage that, as etcd, tells progress for the revisions of keys outside its prefix instead of their events.
  const foreign = '/registry/foreign/';
  const subscribe = storage.subscribe.bind(storage);
  const list = storage.list.bind(storage);
  let outside = 0;
  const store = Object.create(storage, {
    subscribe: {
      value: (listener: (events: StorageEvent[]) => void, also: SubscriberHooks = {}) =>
        subscribe((events) => {
          const own = events.filter((e) => !e.key.startsWith(foreign));
          if (own.length) listener(own);
          const last = events[events.length - 1];
          if (last.key.startsWith(foreign)) also.progress?.(last.revision);
        }),
    },
    // A key outside the prefix is written while the cache reads its first page.
    list: {
      value: async (prefix: string, opts: object) => {
        const page = await list(prefix, opts);
        if (!outside) outside = await storage.create(`${foreign}x`, '{}');
        return page;
      },
    },
  });
  const told = await WatchCache.start(store);
  try {
    expect(outside).toBeGreaterThan(0);
    expect(told.revision).toBe(outside);
    expect(told.list(foreign)).toEqual([]);
  } finally {
    told.stop();
  }
});

/**
 * The storage as etcd is when it compacted a revision before this replica's watch saw it: `key`
 * (held at data.v '1') is updated to '2' during a listing once `armed()` says so, its event never
 * delivered, and the subscriber told `lost`; that listing's page comes back `delayMs` later.
 */
async function losingStore(key: string, armed: () => boolean, delayMs = 0) {
  const value = (v: string) => JSON.stringify({ metadata: { name: key.split('/').pop() }, data: { v } });
  await storage.create(key, value('1'));
  let hooks: SubscriberHooks = {};
  let dropping = false;
  let lostAt = 0;
  const subscribe = storage.subscribe.bind(storage);
  const list = storage.list.bind(storage);
  const store = Object.create(storage, {
    subscribe: {
      value: (listener: (events: StorageEvent[]) => void, also: SubscriberHooks = {}) => {
        hooks = also;
        return subscribe((events) => {
          const kept = dropping ? events.filter((e) => e.key !== key) : events;
          if (kept.length) listener(kept);
        });
      },
    },
    list: {
      value: async (prefix: string, opts: object) => {
        const page = await list(prefix, opts);
        if (armed()) {
          dropping = true;
          const current = await storage.get(key);
          lostAt = await storage.update(key, value('2'), current!.modRevision);
          hooks.lost?.();
          await new Promise((r) => setTimeout(r, delayMs));
        }
        return page;
      },
    },
  });
  return { store, lose: () => hooks.lost?.(), lostAt: () => lostAt };
}

it('lists the store again when events are lost while it first lists (a reload beside the listing was overwritten by it)', async () => {
  // The loss comes while the cache reads its first page, and the page comes back only after a reload would have read the store again.
  let first = true;
  const losing = await losingStore('/registry/core/configmaps/default/held', () => first && !(first = false), 100);
  const told = await WatchCache.start(losing.store);
  try {
    expect(losing.lostAt()).toBeGreaterThan(0);
    expect(told.revision).toBeGreaterThanOrEqual(losing.lostAt());
    expect(told.list('/registry/core/configmaps/').map((c) => c.object.data)).toEqual([{ v: '2' }]);
  } finally {
    told.stop();
  }
});

it('reads the store once more when events are lost again while it reloads', async () => {
  // The first loss comes once the cache runs, the second during the reload's listing.
  let armed = false;
  const losing = await losingStore('/registry/core/configmaps/default/again', () => armed && !(armed = false));
  const told = await WatchCache.start(losing.store);
  try {
    armed = true;
    losing.lose();
    const data = () => told.list('/registry/core/configmaps/').map((c) => c.object.data);
    for (let i = 0; i < 100 && (data()[0] as { v?: string } | undefined)?.v !== '2'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(data()).toEqual([{ v: '2' }]);
  } finally {
    told.stop();
  }
});

it('tells a watcher that follows reloads what the reload changed (an in-process informer), and ends the others', async () => {
  const prefix = '/registry/core/configmaps/default/';
  const value = (name: string, v: string) => JSON.stringify({ metadata: { name }, data: { v } });
  for (const name of ['kept', 'changed', 'gone']) await storage.create(prefix + name, value(name, '1'));
  // The store as etcd is when it compacted what this replica's watch had not seen: events dropped, then `lost`.
  let hooks: SubscriberHooks = {};
  let dropping = false;
  const subscribe = storage.subscribe.bind(storage);
  const store = Object.create(storage, {
    subscribe: {
      value: (listener: (events: StorageEvent[]) => void, also: SubscriberHooks = {}) => {
        hooks = also;
        return subscribe((events) => void (dropping || listener(events)));
      },
    },
  });
  const told = await WatchCache.start(store);
  try {
    const followed: string[] = [];
    const describe = (type: string, key: string, data: unknown, previous: unknown) => `${type} ${key.slice(prefix.length)} ${JSON.stringify(data)} from ${JSON.stringify(previous ?? null)}`;
    told.watchLive({ prefix, followsReloads: true, deliver: (e) => followed.push(describe(e.type, e.key, e.object.object.data, e.previous?.data)) });
    let ended = 0;
    const others: string[] = [];
    told.watchLive({ prefix, deliver: (e) => others.push(e.key), expire: () => ended++ });

    dropping = true;
    await storage.update(prefix + 'changed', value('changed', '2'), (await storage.get(prefix + 'changed'))!.modRevision);
    await storage.delete(prefix + 'gone', (await storage.get(prefix + 'gone'))!.modRevision);
    await storage.create(prefix + 'new', value('new', '1'));
    dropping = false;
    hooks.lost?.();
    for (let i = 0; i < 100 && followed.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect([...followed].sort()).toEqual([
      'ADDED new {"v":"1"} from null',
      'DELETED gone {"v":"1"} from {"v":"1"}',
      'MODIFIED changed {"v":"2"} from {"v":"1"}',
    ]);
    expect(ended).toBe(1);
    expect(others).toEqual([]);
    // Then live events, as before.
    await storage.create(prefix + 'later', value('later', '1'));
    for (let i = 0; i < 100 && followed.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(followed[3]).toBe('ADDED later {"v":"1"} from null');
    expect(others).toEqual([]);
  } finally {
    told.stop();
  }
});

it("replays a watch older than its window from the store's history a page of revisions a turn, with what was written meanwhile once", async () => {
  const pods = '/registry/core/pods/default/';
  const leases = '/registry/coordination.k8s.io/leases/kube-node-lease/';
  const create = (prefix: string, name: string) => storage.create(prefix + name, JSON.stringify({ metadata: { name } }));
  // Between the replay's first and second page, pods are written and the cache applies them: the
  // later pages have them, and so has the cache's buffer of what came during the replay.
  let during: number[] = [];
  const eventsSince = storage.eventsSince.bind(storage);
  const store = Object.create(storage, {
    eventsSince: {
      value: async (from: number, opts: EventsOptions) => {
        const page = await eventsSince(from, opts);
        if (!during.length) {
          during = await Promise.all(Array.from({ length: 5 }, (_, i) => create(pods, `during${i}`)));
          expect(await small.waitFor(Math.max(...during))).toBe(true);
        }
        return page;
      },
    },
  });
  const small = await WatchCache.start(store, { historySize: 50 });
  try {
    const from = small.revision;
    const written: number[] = [];
    // 3,000 revisions, one in three a pod's: the watch's past is three pages of the store's history.
    for (let i = 0; i < 1000; i += 100) {
      const round = Array.from({ length: 100 }, (_, j) => [create(pods, `p${i + j}`), create(leases, `a${i + j}`), create(leases, `b${i + j}`)]);
      written.push(...(await Promise.all(round.map(([pod]) => pod))));
      await Promise.all(round.flat());
    }
    expect(await small.waitFor(await storage.currentRevision())).toBe(true);
    const delivered: { revision: number; turn: number }[] = [];
    const turns = countTurns();
    await small.watchFrom(from, { prefix: pods, deliver: (e) => delivered.push({ revision: e.revision, turn: turns.now() }) });
    turns.stop();
    expect(during).toHaveLength(5);
    expect(delivered.map((d) => d.revision)).toEqual([...written, ...during].sort((a, b) => a - b));
    // Three pages of the store's history at least, each in a turn of its own.
    expect(new Set(delivered.map((d) => d.turn)).size).toBeGreaterThanOrEqual(3);
  } finally {
    small.stop();
  }
}, 60_000);

it('stops a replay from the store once its client has gone, and registers nothing', async () => {
  const pods = '/registry/core/pods/default/';
  const pages: number[] = [];
  const eventsSince = storage.eventsSince.bind(storage);
  const store = Object.create(storage, {
    eventsSince: { value: (from: number, opts: EventsOptions) => (pages.push(from), eventsSince(from, opts)) },
  });
  const small = await WatchCache.start(store, { historySize: 50 });
  try {
    const from = small.revision;
    for (let i = 0; i < 3000; i += 300) await Promise.all(Array.from({ length: 300 }, (_, j) => storage.create(`${pods}p${i + j}`, JSON.stringify({ metadata: { name: `p${i + j}` } }))));
    expect(await small.waitFor(await storage.currentRevision())).toBe(true);
    let delivered = 0;
    let gone = false;
    const stop = await small.watchFrom(from, { prefix: pods, deliver: () => ((delivered += 1), (gone = true)), gone: () => gone });
    // The first page was read and delivered; the client went during it, so no other page was read.
    expect(pages).toEqual([from]);
    expect(delivered).toBe(1000);
    const last = await storage.create(`${pods}after`, JSON.stringify({ metadata: { name: 'after' } }));
    expect(await small.waitFor(last)).toBe(true);
    expect(delivered).toBe(1000);
    stop();
  } finally {
    small.stop();
  }
}, 60_000);

it('reads the whole store in pages at the first page’s revision (listEverything)', async () => {
  for (let i = 0; i < 25; i++) await storage.create(`/registry/core/configmaps/default/c${String(i).padStart(2, '0')}`, JSON.stringify({ i }));
  const reads: { limit?: number; revision?: number; uncounted?: boolean }[] = [];
  const list = storage.list.bind(storage);
  const counted = Object.create(storage, {
    list: {
      value: async (prefix: string, opts: { limit?: number; revision?: number; startKey?: string; uncounted?: boolean } = {}) => {
        reads.push({ limit: opts.limit, revision: opts.revision, uncounted: opts.uncounted });
        const page = await list(prefix, opts);
        // A write lands between pages: the later pages still read the first page's revision.
        if (reads.length === 1) await storage.create('/registry/core/configmaps/default/c99', '{}');
        return page;
      },
    },
  });
  const pages: number[][] = [];
  const revision = await listEverything(counted, (items) => pages.push(items.map((o) => JSON.parse(o.value).i)), 10);
  // Each page handed over as it is read, in key order, c99 (written after the first page) in none.
  expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
  expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i));
  expect(reads.length).toBe(3);
  // Never counting the keys after a page (SQLite walks them all to count: a restart at 60,000 pods took 70 s, not 22).
  expect(reads.every((r) => r.limit === 10 && r.uncounted)).toBe(true);
  expect(reads.slice(1).every((r) => r.revision === revision)).toBe(true);
});

describe('indexed by a field, as kubelets list and watch the pods of their node', () => {
  const prefix = '/registry/core/pods/';
  const nodeOf = (o: any) => o.spec?.nodeName ?? '';
  const pod = (name: string, nodeName?: string) => JSON.stringify({ metadata: { name, namespace: name.split('.')[0] }, spec: nodeName ? { nodeName } : {} });
  const names = (cs: { object: any }[] | undefined) => cs?.map((c) => `${c.object.metadata.namespace}/${c.object.metadata.name}`);

  it('offers a watcher with a trigger only the events of objects with its value, before or after', async () => {
    const offered: Record<string, string[]> = { a: [], b: [], '': [], all: [] };
    const watch = (value: string) => cache.watchFrom(cache.revision, { prefix, trigger: { field: 'spec.nodeName', value, read: nodeOf }, deliver: (e) => void offered[value].push(`${e.type} ${e.object.object.metadata.name}`) });
    await Promise.all([watch('a'), watch('b'), watch('')]);
    await cache.watchFrom(cache.revision, { prefix, deliver: (e) => void offered.all.push(`${e.type} ${e.object.object.metadata.name}`) });
    const p1 = await storage.create(`${prefix}x/x.p1`, pod('x.p1'));
    await storage.create(`${prefix}x/x.p2`, pod('x.p2', 'b'));
    const bound = await storage.update(`${prefix}x/x.p1`, pod('x.p1', 'a'), p1);
    const last = await storage.delete(`${prefix}x/x.p1`, bound);
    expect(await cache.waitFor(last)).toBe(true);
    expect(offered.all).toEqual(['ADDED x.p1', 'ADDED x.p2', 'MODIFIED x.p1', 'DELETED x.p1']);
    // The bind is offered to the watchers of both values, the unscheduled ('') and node a's.
    expect(offered['']).toEqual(['ADDED x.p1', 'MODIFIED x.p1']);
    expect(offered.a).toEqual(['MODIFIED x.p1', 'DELETED x.p1']);
    expect(offered.b).toEqual(['ADDED x.p2']);
  });

  it('lists by the field from an index kept current through creates, updates, deletes and a namespace prefix', async () => {
    cache.indexBy(prefix, 'spec.nodeName', nodeOf);
    expect(cache.listBy(prefix, 'metadata.labels', 'x')).toBeUndefined();
    const rev: Record<string, number> = {};
    for (const [name, node] of [['y.p3', 'a'], ['x.p1', 'a'], ['x.p2', 'b'], ['y.p4', undefined]] as const) rev[name] = await storage.create(`${prefix}${name.split('.')[0]}/${name}`, pod(name, node));
    rev['y.p4'] = await storage.update(`${prefix}y/y.p4`, pod('y.p4', 'a'), rev['y.p4']);
    const last = await storage.delete(`${prefix}x/x.p2`, rev['x.p2']);
    await cache.waitFor(last);
    expect(names(cache.listBy(prefix, 'spec.nodeName', 'a'))).toEqual(['x/x.p1', 'y/y.p3', 'y/y.p4']);
    expect(names(cache.listBy(`${prefix}y/`, 'spec.nodeName', 'a'))).toEqual(['y/y.p3', 'y/y.p4']);
    expect(names(cache.listBy(prefix, 'spec.nodeName', 'b'))).toEqual([]);
    expect(names(cache.listBy(prefix, 'spec.nodeName', ''))).toEqual([]);
    // Against a scan of every pod.
    expect(names(cache.listBy(prefix, 'spec.nodeName', 'a'))).toEqual(names(cache.list(prefix).filter((c) => nodeOf(c.object) === 'a')));
  });
});

describe('managed fields shared between cached objects', () => {
  const entry = (manager: string, fieldsV1: object) => ({ manager, operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 });
  const pod = (name: string, entries: object[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', managedFields: entries }, spec: { nodeName: name } });
  const spec = () => ({ 'f:spec': { 'f:nodeName': {}, 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } });
  const status = () => ({ 'f:status': { 'f:phase': {} } });

  it("gives objects with equal FieldsV1 values one object for them, whether the cache parsed the object or was handed it, and keeps each object's JSON", async () => {
    const prefix = '/registry/core/pods/default/';
    // Stored by someone else: parsed by the cache.
    const a = pod('a', [entry('kubectl', spec()), entry('kubelet', status())]);
    const b = pod('b', [entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:phase': {}, 'f:podIP': {} } })]);
    await cache.waitFor(await storage.create(`${prefix}a`, JSON.stringify(a)));
    await cache.waitFor(await storage.create(`${prefix}b`, JSON.stringify(b)));
    // Written by this server: the object handed to the cache is the one kept.
    const c = pod('c', [entry('kubectl', spec()), entry('kubelet', status())]);
    const value = JSON.stringify(c);
    cache.expect(`${prefix}c`, value, c as never);
    await cache.waitFor(await storage.create(`${prefix}c`, value));
    const fields = (name: string) => (cache.get(`${prefix}${name}`)!.object.metadata.managedFields as { fieldsV1: object }[]).map((e) => e.fieldsV1);
    const [[a0, a1], [b0, b1], [c0, c1]] = [fields('a'), fields('b'), fields('c')];
    expect(a0).toBe(b0);
    expect(a0).toBe(c0);
    expect(a1).toBe(c1);
    expect(b1).not.toBe(a1);
    expect(b1).toEqual({ 'f:status': { 'f:phase': {}, 'f:podIP': {} } });
    for (const [name, o] of [['a', a], ['b', b], ['c', c]] as const) expect(JSON.parse(JSON.stringify(cache.get(`${prefix}${name}`)!.object))).toEqual({ ...o, metadata: { ...o.metadata, resourceVersion: expect.any(String) } });
    // An update keeping a manager's fields keeps the value it had; the same fields in another order are another value (its JSON keeps its order).
    const b2 = pod('b', [entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:podIP': {}, 'f:phase': {} } })]);
    await cache.waitFor(await storage.update(`${prefix}b`, JSON.stringify(b2), cache.get(`${prefix}b`)!.revision));
    const [b20, b21] = fields('b');
    expect(b20).toBe(b0);
    expect(b21).not.toBe(b1);
    expect(JSON.stringify(cache.get(`${prefix}b`)!.object)).toContain('"f:status":{"f:podIP":{},"f:phase":{}}');
  });
});
