// Group commit in the SQLite store: writes asked for in one turn of the event
// loop share one transaction (one fsync), each still refused or accepted on
// its own, and their events reach subscribers together, in revision order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SqliteStorage } from './sqlite.ts';
import { StorageError } from './storage.ts';

let dir: string;
let s: SqliteStorage;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-groupcommit-'));
  s = SqliteStorage.open(path.join(dir, 'db.sqlite'));
});
afterEach(async () => {
  await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('commits the writes of one turn together, each accepted or refused on its own', async () => {
  const first = await s.create('/k/a', '{"v":0}');
  const batches: number[][] = [];
  s.subscribe((events) => batches.push(events.map((e) => e.revision)));
  const results = await Promise.allSettled([
    s.create('/k/b', '{"v":1}'),
    s.update('/k/a', '{"v":2}', first + 100), // a stale expectation: refused alone
    s.update('/k/a', '{"v":3}', first),
    s.create('/k/c', '{"v":4}'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect(((results[1] as PromiseRejectedResult).reason as StorageError).code).toBe('Conflict');
  const revs = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value);
  expect(revs).toEqual([first + 1, first + 2, first + 3]);
  // One transaction: one delivery of its three events.
  expect(batches).toEqual([revs]);
  expect((await s.get('/k/a'))?.value).toBe('{"v":3}');
});

it('a write that a listener makes commits before the writes that caused it resolve', async () => {
  const seen: string[] = [];
  s.subscribe((events) => {
    for (const e of events) {
      seen.push(e.key);
      if (e.key === '/k/trigger') void s.create('/k/reaction', '{}');
    }
  });
  await s.create('/k/trigger', '{}');
  expect(seen).toEqual(['/k/trigger', '/k/reaction']);
});

it('acknowledges and delivers a write only once the log is synced, which runs off the event loop', async () => {
  const file = path.join(dir, 'synced.sqlite');
  const syncs: { file: string; done: () => void }[] = [];
  const held = SqliteStorage.open(file, {
    syncWal: (wal) => new Promise<void>((done) => syncs.push({ file: wal, done })),
  });
  try {
    const delivered: number[] = [];
    held.subscribe((events) => delivered.push(...events.map((e) => e.revision)));
    let acknowledged = false;
    const first = held.create('/k/a', '{"v":1}').then((rev) => ((acknowledged = true), rev));
    // Committed (on the writer thread, once it has started), its sync asked for, and the event loop free meanwhile.
    while (syncs.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(syncs.map((s) => s.file)).toEqual([`${file}-wal`]);
    expect(acknowledged).toBe(false);
    expect(delivered).toEqual([]);
    // Readers see the store as of before the unsynced transaction.
    expect(await held.currentRevision()).toBe(0);
    expect(await held.get('/k/a')).toBeUndefined();
    // Writes asked for while the sync runs wait for it, then commit as the next group.
    const second = held.create('/k/b', '{"v":2}');
    const third = held.create('/k/c', '{"v":3}');
    await new Promise((r) => setTimeout(r, 20));
    expect(syncs).toHaveLength(1);
    syncs[0].done();
    const rev = await first;
    expect((await held.get('/k/a'))?.value).toBe('{"v":1}');
    expect(delivered).toEqual([rev]);
    while (syncs.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(syncs).toHaveLength(2);
    syncs[1].done();
    expect(await Promise.all([second, third])).toEqual([rev + 1, rev + 2]);
    expect(delivered).toEqual([rev, rev + 1, rev + 2]);
    expect(await held.currentRevision()).toBe(rev + 2);
  } finally {
    for (const s of syncs) s.done();
    await held.close();
  }
});

it('refuses a write whose log sync failed', async () => {
  const failing = SqliteStorage.open(path.join(dir, 'failing.sqlite'), { syncWal: async () => Promise.reject(new Error('EIO: sync failed')) });
  try {
    await expect(failing.create('/k/a', '{}')).rejects.toThrow('EIO');
  } finally {
    await failing.close();
  }
});

it('refuses the writes of a group whose fsync on the writer thread failed, then goes on', async () => {
  const delivered: number[] = [];
  s.subscribe((events) => delivered.push(...events.map((e) => e.revision)));
  const before = await s.create('/k/before', '{}');
  s.failNextSyncForTest();
  const failed = s.create('/k/a', '{}');
  await expect(failed).rejects.toThrow('EIO');
  // In the log all the same: delivered, and the next writes are acknowledged.
  expect(delivered).toEqual([before, before + 1]);
  expect(await s.create('/k/b', '{}')).toBe(before + 2);
});

it('sends a group while the one before it is unanswered, and settles them in order', async () => {
  // No commit interval: a write asked for in each of 20 turns is 20 groups, most sent before the ones before them are answered.
  const pipelined = SqliteStorage.open(path.join(dir, 'pipelined.sqlite'), { commitIntervalMs: 0 });
  const settledOrder: string[] = [];
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    writes.push(pipelined.create(`/k/${i}`, '{}').then((rev) => settledOrder.push(`${i}@${rev}`)));
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(writes);
  await pipelined.close();
  const revs = settledOrder.map((x) => Number(x.split('@')[1]));
  expect(revs).toEqual([...revs].sort((a, b) => a - b));
  expect(settledOrder.map((x) => x.split('@')[0])).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
});

/** Two writes at once (the second comes while the first waits), so the store counts its writers concurrent; the first one's revision. */
async function twoAtOnce(store: SqliteStorage): Promise<number> {
  const [first] = await Promise.all([store.create('/k/a', '{}'), store.create('/k/a2', '{}')]);
  return first;
}

it('holds writes of concurrent writers asked for one by one within the commit interval and sends them as one group; a write after a quiet spell goes at once', async () => {
  // Far longer than the writes below take to ask for, even on a loaded machine.
  const held = SqliteStorage.open(path.join(dir, 'interval.sqlite'), { commitIntervalMs: 2000 });
  const batches: number[][] = [];
  held.subscribe((events) => batches.push(events.map((e) => e.revision)));
  // No group was sent before: these go at the end of their turn (or the test times out).
  const first = await twoAtOnce(held);
  const later: Promise<number>[] = [];
  let resolved = 0;
  for (const k of ['b', 'c', 'd']) {
    later.push(held.create(`/k/${k}`, '{}').then((rev) => (resolved++, rev)));
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(resolved).toBe(0);
  expect(batches).toEqual([[first, first + 1]]);
  // Then one transaction: one delivery of the three.
  expect(await Promise.all(later)).toEqual([first + 2, first + 3, first + 4]);
  expect(batches).toEqual([[first, first + 1], [first + 2, first + 3, first + 4]]);
  // Closing sends what it holds rather than refusing it.
  const last = held.create('/k/e', '{}');
  await held.close();
  expect(await last).toBe(first + 5);
});

it('does not hold the writes of a lone client writing one object after another', async () => {
  // An interval no test waits out: a write held for it never resolves (the test times out).
  const held = SqliteStorage.open(path.join(dir, 'lone.sqlite'), { commitIntervalMs: 600_000 });
  try {
    const batches: number[][] = [];
    held.subscribe((events) => batches.push(events.map((e) => e.revision)));
    const revs: number[] = [];
    for (const k of ['a', 'b', 'c', 'd', 'e']) revs.push(await held.create(`/k/${k}`, '{}'));
    // Each its own group: nothing else waited or was in flight when it came.
    expect(batches).toEqual(revs.map((r) => [r]));
  } finally {
    await held.close();
  }
});

it('sends the writes waiting for the commit interval as soon as there are enough for a group', async () => {
  // An interval no test waits out: the writes below go only once four of them wait (or the test times out).
  const held = SqliteStorage.open(path.join(dir, 'groupsize.sqlite'), { commitIntervalMs: 600_000, commitGroupSize: 4 });
  try {
    const batches: number[][] = [];
    held.subscribe((events) => batches.push(events.map((e) => e.revision)));
    const first = await twoAtOnce(held);
    const later: Promise<number>[] = [];
    for (const k of ['b', 'c', 'd', 'e']) {
      later.push(held.create(`/k/${k}`, '{}'));
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(later)).toEqual([first + 2, first + 3, first + 4, first + 5]);
    expect(batches).toEqual([[first, first + 1], [first + 2, first + 3, first + 4, first + 5]]);
  } finally {
    await held.close();
  }
});

it('holds heartbeats longer than other writes, and sends them along with the next other write', async () => {
  // A heartbeats' interval no test waits out, and none for other writes.
  const held = SqliteStorage.open(path.join(dir, 'heartbeats.sqlite'), { commitIntervalMs: 0, heartbeatPrefixes: ['/hb/'], heartbeatIntervalMs: 600_000 });
  try {
    const batches: number[][] = [];
    held.subscribe((events) => batches.push(events.map((e) => e.revision)));
    const first = await twoAtOnce(held);
    const beats: Promise<number>[] = [];
    let resolved = 0;
    for (const k of ['a', 'b', 'c']) {
      beats.push(held.create(`/hb/${k}`, '{}').then((rev) => (resolved++, rev)));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(resolved).toBe(0);
    expect(batches).toEqual([[first, first + 1]]);
    // Another write goes at once (no interval for it), the heartbeats in its group.
    const other = held.create('/k/other', '{}');
    expect(await other).toBe(first + 5);
    expect(await Promise.all(beats)).toEqual([first + 2, first + 3, first + 4]);
    expect(batches).toEqual([[first, first + 1], [first + 2, first + 3, first + 4, first + 5]]);
  } finally {
    await held.close();
  }
});

it('keeps the log bounded under writes that never pause', async () => {
  const file = path.join(dir, 'sustained.sqlite');
  const busy = SqliteStorage.open(file);
  try {
    const value = JSON.stringify({ pad: 'x'.repeat(16 * 1024) });
    // Writers that never let the store go idle: each write asks for the next at once.
    let written = 0;
    const writer = async (w: number) => {
      for (let i = 0; written < 40 * 1024 * 1024; i++) {
        await busy.create(`/k/${w}/${i}`, value);
        written += value.length;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(20 * 1024 * 1024);
  } finally {
    await busy.close();
  }
});

it('checkpoints the log as it grows, on the writer thread between commits, keeping it bounded', async () => {
  const file = path.join(dir, 'checkpointed.sqlite');
  const big = SqliteStorage.open(file);
  // A checkpoint that fails (or a writer thread that cannot start) says so with a warning: none here.
  const warn = vi.spyOn(console, 'warn');
  try {
    const value = JSON.stringify({ pad: 'x'.repeat(64 * 1024) });
    for (let round = 0; round < 16; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => big.create(`/k/${round}/${i}`, value)));
    }
    // 10 MB written: the database file has them (a checkpoint copied them there) while the store is open.
    for (let i = 0; i < 100 && fs.statSync(file).size < 4 * 1024 * 1024; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(16 * 1024 * 1024);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('checkpoint'))).toEqual([]);
  } finally {
    warn.mockRestore();
    await big.close();
  }
  const again = SqliteStorage.open(file);
  try {
    expect((await again.list('/k/')).items).toHaveLength(160);
  } finally {
    await again.close();
  }
});
