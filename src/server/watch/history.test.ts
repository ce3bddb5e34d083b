// The watch cache's history keeps a window for each resource: one resource's
// churn (5000 kubelets renewing Leases) does not push out another's events; the
// windows share one bound, which the busiest give up their oldest events to keep.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SqliteStorage } from '../storage/sqlite.ts';
import { TooOldError, WatchCache, type CacheEvent } from './cache.ts';
import { fairShare, WatchHistory } from './history.ts';

const event = (resource: string, revision: number): CacheEvent => ({
  type: 'MODIFIED',
  key: `${resource}default/o${revision}`,
  object: { key: `${resource}default/o${revision}`, object: { metadata: { name: `o${revision}` } }, revision },
  revision,
});
const revisions = (events: CacheEvent[] | undefined) => events?.map((e) => e.revision);

const leases = '/registry/coordination.k8s.io/leases/';
const pods = '/registry/core/pods/';

it("keeps each resource's events in a window of its own, the busiest giving up theirs first", () => {
  // At most 9 in all (cut back once past 10).
  const h = new WatchHistory(9);
  h.reset(10);
  h.push(pods, event(pods, 11));
  h.push(pods, event(pods, 12));
  for (let r = 13; r < 40; r++) h.push(leases, event(leases, r));
  // The pods kept both of theirs; the Leases kept the rest of the nine, their newest.
  expect(revisions(h.since(10, pods))).toEqual([11, 12]);
  expect(revisions(h.since(11, pods))).toEqual([12]);
  expect(h.since(10, leases)).toBeUndefined();
  expect(h.startOf(leases)).toBeGreaterThanOrEqual(30);
  expect(h.startOf(leases)).toBeLessThan(33);
  expect(revisions(h.since(32, leases))).toEqual([33, 34, 35, 36, 37, 38, 39]);
  // A resource with no events yet holds every event since the start (none).
  expect(h.since(10, '/registry/core/nodes/')).toEqual([]);
  // Across resources: whole only from the newest start, in revision order.
  expect(h.since(h.startOf(leases) - 1, undefined)).toBeUndefined();
  h.push(pods, event(pods, 40));
  expect(revisions(h.since(35, undefined))).toEqual([36, 37, 38, 39, 40]);
  h.reset(40);
  expect(h.since(39, pods)).toBeUndefined();
  expect(h.since(40, pods)).toEqual([]);
});

it('shares the bound so that windows under their share keep everything and those over it keep the same', () => {
  expect(fairShare([2, 27], 9)).toBe(7);
  expect(fairShare([100, 5000, 3000], 3000)).toBe(1450);
  expect(fairShare([10, 20], 100)).toBe(20);
  expect(fairShare([], 100)).toBe(0);
  const h = new WatchHistory(3000);
  let r = 0;
  // Three resources at different rates: 1, 10 and 30 events in every 41.
  const nodes = '/registry/core/nodes/';
  for (let round = 0; round < 500; round++) {
    h.push(nodes, event(nodes, ++r));
    for (let i = 0; i < 10; i++) h.push(pods, event(pods, ++r));
    for (let i = 0; i < 30; i++) h.push(leases, event(leases, ++r));
  }
  // The nodes kept all 500 of theirs; the pods and the Leases cut to the same share of the rest,
  // within the eighth the bound may be passed by before it is cut back.
  expect(revisions(h.since(0, nodes))).toHaveLength(500);
  const podsKept = revisions(h.since(h.startOf(pods), pods))!.length;
  const leasesKept = revisions(h.since(h.startOf(leases), leases))!.length;
  expect(podsKept).toBeGreaterThanOrEqual(1250);
  expect(leasesKept).toBeGreaterThanOrEqual(1250);
  expect(500 + podsKept + leasesKept).toBeLessThanOrEqual(3000 + 375);
  // What a window kept is its newest, every one after its start.
  expect(revisions(h.since(h.startOf(pods), pods))!.at(-1)).toBe(r - 30);
});

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it("lets a pods watch resume from before another resource's churn, from the cache alone", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-history-'));
  const storage = SqliteStorage.open(path.join(dir, 'db.sqlite'));
  const cache = await WatchCache.start(storage, { historySize: 50 });
  try {
    const value = (name: string) => JSON.stringify({ metadata: { name, namespace: 'default' } });
    const from = cache.revision;
    for (let i = 0; i < 3; i++) await storage.create(`${pods}default/p${i}`, value(`p${i}`));
    // 200 Lease writes: four times what the history keeps.
    const renewed = await Promise.all(Array.from({ length: 200 }, (_, i) => storage.create(`${leases}default/l${i}`, value(`l${i}`))));
    expect(await cache.waitFor(Math.max(...renewed))).toBe(true);
    // The store's history is gone, so what the watches get comes from the cache's windows.
    await storage.compact(cache.revision);
    const seen: string[] = [];
    const stop = await cache.watchFrom(from, { prefix: pods, deliver: (e) => void seen.push(`${e.type} ${e.object.object.metadata.name}`) });
    stop();
    expect(seen).toEqual(['ADDED p0', 'ADDED p1', 'ADDED p2']);
    // The Leases' own window no longer reaches back that far.
    await expect(cache.watchFrom(from, { prefix: leases, deliver: () => {} })).rejects.toBeInstanceOf(TooOldError);
  } finally {
    cache.stop();
    await storage.close();
  }
});
