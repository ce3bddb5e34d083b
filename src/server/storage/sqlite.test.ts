import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIST_PAGE, SqliteStorage, compareKeys, prefixEnd } from './sqlite.ts';
import { StorageError, type StorageErrorCode, type StorageEvent } from './storage.ts';
import { storageContract } from './storage.contract.ts';

let dir: string;
let file: string;
const opened: SqliteStorage[] = [];

function open(opts?: Parameters<typeof SqliteStorage.open>[1]): SqliteStorage {
  const s = SqliteStorage.open(file, opts);
  opened.push(s);
  return s;
}

async function storageError(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StorageError);
    return err as StorageError;
  }
  throw new Error('expected a StorageError');
}

async function expectCode(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  const err = await storageError(p);
  expect(err.code).toBe(code);
  return err;
}

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const v = (n: number | string) => JSON.stringify({ n });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-'));
  file = path.join(dir, 'state.db');
});

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

storageContract('SqliteStorage', {
  open: async (opts) => open(opts),
  settle: async () => undefined, // delivery is synchronous, inside the write
});

describe('SqliteStorage: key order', () => {
  it('bounds a prefix by the least greater string, in UTF-8 byte (code point) order', () => {
    expect(prefixEnd('/p/')).toBe('/p0');
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('a\ud7ff')).toBe('a\ue000');
    expect(compareKeys('\uffff', '\u{1F600}')).toBeLessThan(0);
  });

  it('lists a page of many revisions without a sort, from the index, reading only the newest row of each key', async () => {
    const s = open();
    // Leases renewed many times over, not yet compacted, and a deleted key among them.
    const revs = new Map<string, number>();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 30; i++) {
        const key = `/registry/leases/l${String(i).padStart(2, '0')}`;
        const value = `{"r":${round}}`;
        revs.set(key, await (round ? s.update(key, value, revs.get(key)!) : s.create(key, value)));
      }
    }
    await s.delete('/registry/leases/l03', revs.get('/registry/leases/l03')!);
    const page = await s.list('/registry/leases/', { limit: 5 });
    expect(page.items.map((i) => i.key)).toEqual(['l00', 'l01', 'l02', 'l04', 'l05'].map((n) => `/registry/leases/${n}`));
    expect(page.items.every((i) => i.value === '{"r":19}')).toBe(true);
    expect(page.remaining).toBe(24);
    const db = new Database(file, { readonly: true });
    try {
      for (const [name, sql] of Object.entries(LIST_PAGE)) {
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ lo: '/registry/', hi: '/registry0', rev: 1_000, limit: 5 }) as { detail: string }[];
        const steps = plan.map((p) => p.detail);
        // A sort would read every key of the range before the LIMIT could stop it.
        expect(steps.some((d) => /TEMP B-TREE/.test(d)), `${name}: ${steps.join('; ')}`).toBe(false);
        expect(steps.some((d) => /COVERING INDEX kine_name_id/.test(d)), `${name}: ${steps.join('; ')}`).toBe(true);
        expect(steps.some((d) => /INTEGER PRIMARY KEY/.test(d)), `${name}: ${steps.join('; ')}`).toBe(true);
      }
    } finally {
      db.close();
    }
  });
});

describe('SqliteStorage: events and compaction', () => {
  it('compacts history but keeps the latest row of every live key', async () => {
    const s = open();
    const a1 = await s.create('/k/a', v('a1'));
    const a2 = await s.update('/k/a', v('a2'), a1);
    const b1 = await s.create('/k/b', v('b1'));
    await s.delete('/k/b', b1); // tombstone at 4
    const c1 = await s.create('/k/c', v('c1'));
    const a3 = await s.update('/k/a', v('a3'), a2); // 6
    const d1 = await s.create('/k/d', v('d1'));
    const d2 = await s.delete('/k/d', d1); // 8, above the compaction point

    await s.compact(5);
    expect(await s.compactedRevision()).toBe(5);
    expect(await s.currentRevision()).toBe(8);

    // At the compacted revision itself the state is still readable.
    const at5 = await s.list('/k/', { revision: 5 });
    expect(at5.items.map((o) => [o.key, o.value])).toEqual([
      ['/k/a', v('a2')],
      ['/k/c', v('c1')],
    ]);
    const now = await s.list('/k/');
    expect(now.items.map((o) => [o.key, o.value])).toEqual([
      ['/k/a', v('a3')],
      ['/k/c', v('c1')],
    ]);
    // Events after the compacted revision keep their previous values.
    expect((await s.eventsSince(5)).events).toEqual<StorageEvent[]>([
      { type: 'update', key: '/k/a', value: v('a3'), prevValue: v('a2'), revision: a3 },
      { type: 'create', key: '/k/d', value: v('d1'), revision: d1 },
      { type: 'delete', key: '/k/d', value: v('d1'), prevValue: v('d1'), revision: d2 },
    ]);

    // Only the rows needed remain: a@2 (current at 5), c@5, and everything above 5.
    const raw = new Database(file, { readonly: true });
    const ids = raw.prepare('SELECT id FROM kine ORDER BY id').pluck().all();
    raw.close();
    expect(ids).toEqual([a2, c1, a3, d1, d2]);

    // Compacting everything still keeps live keys, and writes go on from the right revision.
    await s.compact(100);
    expect(await s.compactedRevision()).toBe(8);
    expect((await s.list('/k/')).items.map((o) => o.value)).toEqual([v('a3'), v('c1')]);
    await expectCode(s.update('/k/a', v('x'), a2), 'Conflict');
    expect(await s.update('/k/a', v('a4'), a3)).toBe(9);
    expect(await s.create('/k/d', v('d2'))).toBe(10);
    expect(await s.create('/k/b', v('b2'))).toBe(11);
  });

  it('compacts a long history in steps on the writer thread, writes going on meanwhile, and ends where one step would', async () => {
    const s = open();
    const n = 3000;
    const created = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`/k/${i}`, v(i))));
    const updated = await Promise.all(created.map((rev, i) => s.update(`/k/${i}`, v(-i), rev)));
    await s.delete('/k/0', updated[0]);
    const last = await s.currentRevision();
    // A write asked for while the compaction runs is committed too (between its steps or after it).
    const [, during] = await Promise.all([s.compact(last), s.create('/during', v(1))]);
    expect(during).toBe(last + 1);
    expect(await s.compactedRevision()).toBe(last);
    const raw = new Database(file, { readonly: true });
    const ids = raw.prepare('SELECT id FROM kine ORDER BY id').pluck().all();
    raw.close();
    // Only each live key's latest row: the updates but the deleted key's (its tombstone is gone too).
    expect(ids).toEqual([...updated.slice(1), during].sort((a, b) => a - b));
  });

  it('delivers each committed write to subscribers once, in revision order', async () => {
    const s = open();
    await s.create('/before', v(0));
    const got: StorageEvent[] = [];
    const batches: number[] = [];
    const unsubscribe = s.subscribe((events) => {
      batches.push(events.length);
      got.push(...events);
    });
    const r1 = await s.create('/a', v(1));
    expect(got.map((e) => e.revision)).toEqual([r1]); // synchronously, before create resolved
    const r2 = await s.update('/a', v(2), r1);
    await expectCode(s.update('/a', v(3), r1), 'Conflict'); // no event for a failed write
    const r3 = await s.delete('/a', r2);
    expect(got).toEqual<StorageEvent[]>([
      { type: 'create', key: '/a', value: v(1), revision: r1 },
      { type: 'update', key: '/a', value: v(2), prevValue: v(1), revision: r2 },
      { type: 'delete', key: '/a', value: v(2), prevValue: v(2), revision: r3 },
    ]);
    // Writes made from inside a listener are delivered after the current batch, to everyone.
    const second: number[] = [];
    s.subscribe((events) => second.push(...events.map((e) => e.revision)));
    let reacted = false;
    s.subscribe((events) => {
      if (!reacted && events.some((e) => e.key === '/trigger')) {
        reacted = true;
        void s.create('/reaction', v('r'));
      }
    });
    const t = await s.create('/trigger', v('t'));
    expect(got.map((e) => e.revision)).toEqual([r1, r2, r3, t, t + 1]);
    expect(second).toEqual([t, t + 1]);
    unsubscribe();
    await s.create('/after', v(0));
    expect(got).toHaveLength(5);
    expect(batches.every((n) => n === 1)).toBe(true);
  });
});

describe('SqliteStorage: the writer thread', () => {
  it('fails the writes of a writer thread that dies with Unavailable, delivers what it committed, and starts a new one', async () => {
    const s = open();
    const got: number[] = [];
    s.subscribe((events) => got.push(...events.map((e) => e.revision)));
    const first = await s.create('/a', v(1));
    s.crashWriterForTest();
    // The thread commits this group, then dies before it answers: the writers cannot know whether it happened.
    const writes = [s.create('/b', v(1)), s.update('/a', v(2), first)];
    for (const w of writes) await expectCode(w, 'Unavailable');
    // A new thread takes the next write; the events of the group that was committed all the same come first.
    const next = await s.create('/c', v(1));
    expect(next).toBe(first + 3);
    expect(got).toEqual([first, first + 1, first + 2, first + 3]);
    expect((await s.list('/')).items.map((o) => o.key)).toEqual(['/a', '/b', '/c']);
  });

  it('refuses alone, as a StorageError, a write the database fails in the middle of a group', async () => {
    const s = open();
    const got: number[] = [];
    s.subscribe((events) => got.push(...events.map((e) => e.revision)));
    const db = new Database(file);
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON kine WHEN NEW.name = '/bad' BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END`);
    db.close();
    const results = await Promise.allSettled([s.create('/a', v(1)), s.create('/bad', v(1)), s.create('/c', v(1))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const err = (results[1] as PromiseRejectedResult).reason as StorageError;
    expect(err).toBeInstanceOf(StorageError);
    expect(err.code).toBe('Unavailable');
    expect(err.message).toContain('refused by a trigger');
    expect(got).toEqual([1, 2]);
    expect(await s.get('/bad')).toBeUndefined();
    expect((await s.get('/c'))?.modRevision).toBe(2);
  });
});

describe('SqliteStorage: the file', () => {
  it('keeps data, revisions and the compacted revision across close and reopen', async () => {
    const s = open();
    const r1 = await s.create('/a', v(1));
    const r2 = await s.update('/a', v(2), r1);
    const r3 = await s.create('/b', v(3));
    await s.delete('/b', r3);
    await s.compact(2);
    await s.close();

    const t = open();
    expect(await t.currentRevision()).toBe(4);
    expect(await t.compactedRevision()).toBe(2);
    expect(await t.get('/a')).toEqual({ key: '/a', value: v(2), modRevision: r2, createRevision: r1 });
    expect(await t.get('/b')).toBeUndefined();
    expect(await t.create('/c', v(5))).toBe(5);
    // Revisions are never reused, even after the newest row (a tombstone) was compacted away.
    await t.delete('/c', 5);
    await t.compact(6);
    await t.close();
    const u = open();
    expect(await u.currentRevision()).toBe(6);
    expect(await u.create('/d', v(7))).toBe(7);
  });

  it('a second instance on the same file sees the first one’s writes through a polling subscription', async () => {
    const a = open();
    const b = open({ pollIntervalMs: 20 });
    const got: StorageEvent[] = [];
    b.subscribe((events) => got.push(...events));
    const r1 = await a.create('/x', v(1));
    const r2 = await a.update('/x', v(2), r1);
    await waitFor(() => got.length >= 2);
    expect(got.map((e) => [e.type, e.revision])).toEqual([
      ['create', r1],
      ['update', r2],
    ]);
    // b's own write after a's foreign one: both delivered once, in order.
    const r3 = await a.create('/y', v(3));
    const r4 = await b.update('/x', v(4), r2);
    expect(got.map((e) => e.revision)).toEqual([r1, r2, r3, r4]);
    await new Promise((r) => setTimeout(r, 100));
    expect(got.map((e) => e.revision)).toEqual([r1, r2, r3, r4]);
    // Events read back from the log and events known at commit are the same.
    expect(got).toEqual((await a.eventsSince(0)).events);
    expect((await a.get('/x'))!.value).toBe(v(4));
  });

  it('lets only one of two instances append after the same revision', async () => {
    const a = open();
    const b = open();
    const r1 = await a.create('/k', v(1));
    await expectCode(b.create('/k', v(1)), 'AlreadyExists');
    // Both read revision r1, both try to write its successor.
    const seenByA = (await a.get('/k'))!.modRevision;
    const seenByB = (await b.get('/k'))!.modRevision;
    expect(seenByA).toBe(r1);
    expect(seenByB).toBe(r1);
    const results = await Promise.allSettled([a.update('/k', v('a'), seenByA), b.update('/k', v('b'), seenByB)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as StorageError).code).toBe('Conflict');

    // The unique (name, prev_revision) index itself refuses a second successor,
    // whoever writes it: here a raw connection that skips the check.
    const raw = new Database(file);
    expect(() =>
      raw
        .prepare(
          `INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value) VALUES ('/k', 0, 0, ?, ?, '{}')`,
        )
        .run(r1, r1),
    ).toThrow(/UNIQUE constraint failed/);
    raw.close();
    expect(await a.currentRevision()).toBe(2);
  });

  it('runs concurrent writers in two processes without losing or duplicating a revision', async () => {
    // Two child processes each do 300 read-modify-write increments of one counter.
    const { spawn } = await import('node:child_process');
    const s = open({ pollIntervalMs: 20 });
    await s.create('/counter', '0');
    const seen: number[] = [];
    s.subscribe((events) => seen.push(...events.map((e) => e.revision)));
    const script = `
      import fs from 'node:fs';
      import { SqliteStorage } from ${JSON.stringify(path.resolve('src/server/storage/sqlite.ts'))};
      const s = SqliteStorage.open(process.argv[2]);
      // Start together, so that the writers really overlap.
      while (!fs.existsSync(process.argv[3])) await new Promise((r) => setTimeout(r, 2));
      let done = 0;
      while (done < 300) {
        const cur = await s.get('/counter');
        try { await s.update('/counter', String(Number(cur.value) + 1), cur.modRevision); done++; }
        catch (err) { if (err.code !== 'Conflict') throw err; }
      }
      await s.close();
    `;
    const scriptFile = path.join(dir, 'writer.mts');
    fs.writeFileSync(scriptFile, script);
    const run = () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', scriptFile, file, goFile], { stdio: 'inherit' });
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited with ${code}`))));
      });
    const goFile = path.join(dir, 'go');
    const done = Promise.all([run(), run()]);
    setTimeout(() => fs.writeFileSync(goFile, ''), 1500);
    await done;
    expect((await s.get('/counter'))!.value).toBe('600');
    expect(await s.currentRevision()).toBe(601);
    // This process, polling, saw every foreign revision once and in order.
    await waitFor(() => seen.length >= 600);
    expect(seen).toEqual(Array.from({ length: 600 }, (_, i) => i + 2));
  });
});
