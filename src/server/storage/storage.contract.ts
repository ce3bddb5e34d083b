// The behaviour every Storage backend owes the registry and the watch cache,
// run against each real backend (sqlite.test.ts, etcd.test.ts). Revisions are
// checked relative to the store's revision when a test starts: a fresh etcd
// starts at 1 and a shared one is wherever other tests left it.
import { afterEach, describe, expect, it } from 'vitest';
import { StorageError, type Storage, type StorageErrorCode, type StorageEvent } from './storage.ts';

export interface ContractBackend {
  /** A store over an empty keyspace of its own (under `/registry/`). */
  open(opts?: { maxValueBytes?: number }): Promise<Storage>;
  /** Resolves once every write made so far has been delivered to subscribers. */
  settle(s: Storage): Promise<void>;
}

export async function expectCode(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(StorageError);
  expect((err as StorageError).code).toBe(code);
  return err as StorageError;
}

const v = (n: number | string) => JSON.stringify({ n });
const K = (k: string) => '/registry' + k;

export function storageContract(name: string, backend: ContractBackend): void {
  const opened: Storage[] = [];
  const open = async (opts?: { maxValueBytes?: number }) => {
    const s = await backend.open(opts);
    opened.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  describe(`${name}: single keys`, () => {
    it('creates, gets, updates and deletes, each write a new revision', async () => {
      const s = await open();
      const base = await s.currentRevision();
      expect(await s.get(K('/a'))).toBeUndefined();
      const r1 = await s.create(K('/a'), v(1));
      expect(r1).toBe(base + 1);
      expect(await s.get(K('/a'))).toEqual({ key: K('/a'), value: v(1), modRevision: r1, createRevision: r1 });
      const r2 = await s.update(K('/a'), v(2), r1);
      expect(r2).toBe(base + 2);
      expect(await s.get(K('/a'))).toEqual({ key: K('/a'), value: v(2), modRevision: r2, createRevision: r1 });
      const r3 = await s.delete(K('/a'), r2);
      expect(r3).toBe(base + 3);
      expect(await s.get(K('/a'))).toBeUndefined();
      expect(await s.currentRevision()).toBe(r3);
    });

    it('keeps values as the exact strings given', async () => {
      const s = await open();
      const raw = '{"b":1,  "a":"\u00e9\ud83d\ude00", "big":12345678901234567890}';
      await s.create(K('/raw'), raw);
      expect((await s.get(K('/raw')))!.value).toBe(raw);
    });

    it('rejects a second create with AlreadyExists carrying the current object', async () => {
      const s = await open();
      const r1 = await s.create(K('/a'), v(1));
      const err = await expectCode(s.create(K('/a'), v(2)), 'AlreadyExists');
      expect(err.current?.value).toBe(v(1));
      expect(await s.currentRevision()).toBe(r1);
    });

    it('rejects a stale update or delete with Conflict carrying the current object', async () => {
      const s = await open();
      const r1 = await s.create(K('/a'), v(1));
      const r2 = await s.update(K('/a'), v(2), r1);
      let err = await expectCode(s.update(K('/a'), v(3), r1), 'Conflict');
      expect(err.current).toEqual({ key: K('/a'), value: v(2), modRevision: r2, createRevision: r1 });
      err = await expectCode(s.delete(K('/a'), r1), 'Conflict');
      expect(err.current?.modRevision).toBe(r2);
      expect((await s.get(K('/a')))!.value).toBe(v(2));
      expect(await s.currentRevision()).toBe(r2);
    });

    it('gives NotFound for updating or deleting a missing or deleted key', async () => {
      const s = await open();
      await expectCode(s.update(K('/nope'), v(1), 1), 'NotFound');
      await expectCode(s.delete(K('/nope'), 1), 'NotFound');
      const r1 = await s.create(K('/a'), v(1));
      const r2 = await s.delete(K('/a'), r1);
      await expectCode(s.update(K('/a'), v(2), r2), 'NotFound');
      await expectCode(s.delete(K('/a'), r2), 'NotFound');
    });

    it('recreates a deleted key as a new incarnation', async () => {
      const s = await open();
      const r1 = await s.create(K('/a'), v(1));
      await s.delete(K('/a'), r1);
      const r3 = await s.create(K('/a'), v(3));
      expect(await s.get(K('/a'))).toEqual({ key: K('/a'), value: v(3), modRevision: r3, createRevision: r3 });
      const r4 = await s.update(K('/a'), v(4), r3);
      expect(await s.get(K('/a'))).toEqual({ key: K('/a'), value: v(4), modRevision: r4, createRevision: r3 });
    });

    it('rejects values over the size limit with TooLarge', async () => {
      const s = await open({ maxValueBytes: 100 });
      await expectCode(s.create(K('/a'), 'x'.repeat(200)), 'TooLarge');
      const r = await s.create(K('/a'), 'x');
      await expectCode(s.update(K('/a'), 'x'.repeat(200), r), 'TooLarge');
      expect((await s.get(K('/a')))!.value).toBe('x');
    });
  });

  describe(`${name}: list`, () => {
    async function fill(s: Storage): Promise<number> {
      let rev = 0;
      for (const k of ['/r/b/2', '/r/a/1', '/r/b/1', '/r/a/2', '/r/c/1', '/rx/1', '/q/1']) rev = await s.create(K(k), v(k));
      return rev;
    }
    const keys = (items: { key: string }[]) => items.map((o) => o.key.slice('/registry'.length));

    it('lists the keys under a prefix in key order', async () => {
      const s = await open();
      const rev = await fill(s);
      const all = await s.list(K('/r/'));
      expect(keys(all.items)).toEqual(['/r/a/1', '/r/a/2', '/r/b/1', '/r/b/2', '/r/c/1']);
      expect(all).toMatchObject({ revision: rev, more: false, remaining: 0 });
      expect(keys((await s.list(K('/r/b/'))).items)).toEqual(['/r/b/1', '/r/b/2']);
      expect((await s.list(K('/'))).items).toHaveLength(7);
      expect((await s.list(K('/none/'))).items).toEqual([]);
    });

    it('shows the latest value of each key and leaves out deleted keys', async () => {
      const s = await open();
      await fill(s);
      const a1 = (await s.get(K('/r/a/1')))!;
      const r = await s.update(K('/r/a/1'), v('new'), a1.modRevision);
      await s.delete(K('/r/b/1'), (await s.get(K('/r/b/1')))!.modRevision);
      const res = await s.list(K('/r/'));
      expect(keys(res.items)).toEqual(['/r/a/1', '/r/a/2', '/r/b/2', '/r/c/1']);
      expect(res.items[0]).toEqual({ key: K('/r/a/1'), value: v('new'), modRevision: r, createRevision: a1.createRevision });
    });

    it('pages with limit and startKey, counting what remains', async () => {
      const s = await open();
      const rev = await fill(s);
      const p1 = await s.list(K('/r/'), { limit: 2 });
      expect(keys(p1.items)).toEqual(['/r/a/1', '/r/a/2']);
      expect(p1).toMatchObject({ more: true, remaining: 3, revision: rev });
      const p2 = await s.list(K('/r/'), { limit: 2, startKey: K('/r/b/1'), revision: p1.revision });
      expect(keys(p2.items)).toEqual(['/r/b/1', '/r/b/2']);
      expect(p2).toMatchObject({ more: true, remaining: 1 });
      const p3 = await s.list(K('/r/'), { limit: 2, startKey: K('/r/c/1'), revision: p1.revision });
      expect(keys(p3.items)).toEqual(['/r/c/1']);
      expect(p3).toMatchObject({ more: false, remaining: 0 });
      expect(await s.list(K('/r/'), { limit: 5 })).toMatchObject({ more: false, remaining: 0 });
    });

    it('reads a consistent snapshot at a revision: page 2 does not see later writes', async () => {
      const s = await open();
      await fill(s);
      const p1 = await s.list(K('/r/'), { limit: 2 });
      await s.create(K('/r/b/0'), v('late'));
      await s.update(K('/r/b/2'), v('changed'), (await s.get(K('/r/b/2')))!.modRevision);
      await s.delete(K('/r/c/1'), (await s.get(K('/r/c/1')))!.modRevision);
      await s.delete(K('/r/b/1'), (await s.get(K('/r/b/1')))!.modRevision);
      await s.create(K('/r/b/1'), v('reborn'));
      const p2 = await s.list(K('/r/'), { limit: 10, startKey: K('/r/a/3'), revision: p1.revision });
      expect(p2.revision).toBe(p1.revision);
      expect(p2.items.map((o) => o.value)).toEqual([v('/r/b/1'), v('/r/b/2'), v('/r/c/1')]);
      const now = await s.list(K('/r/'), { startKey: K('/r/a/3') });
      expect(now.items.map((o) => o.value)).toEqual([v('late'), v('reborn'), v('changed')]);
    });

    it('reads an older revision, and the latest for a revision not written yet', async () => {
      const s = await open();
      const r1 = await s.create(K('/r/a'), v(1));
      const r2 = await s.create(K('/r/b'), v(2));
      expect(keys((await s.list(K('/r/'), { revision: r1 })).items)).toEqual(['/r/a']);
      const future = await s.list(K('/r/'), { revision: r2 + 1000 });
      expect(future.revision).toBe(r2);
      expect(future.items).toHaveLength(2);
    });

    it('matches the prefix exactly, also for keys with non-ASCII characters, in code point order', async () => {
      const s = await open();
      for (const k of ['/p/a', '/p/\u00ff', '/p/\u0100', '/p/\u{1F600}', '/p/\uffff', '/p0', '/p', '/o']) await s.create(K(k), '1');
      expect(keys((await s.list(K('/p/'))).items)).toEqual(['/p/a', '/p/\u00ff', '/p/\u0100', '/p/\uffff', '/p/\u{1F600}']);
      const page = await s.list(K('/p/'), { startKey: K('/p/\u0100'), limit: 2 });
      expect(keys(page.items)).toEqual(['/p/\u0100', '/p/\uffff']);
      expect(page).toMatchObject({ more: true, remaining: 1 });
    });
  });

  describe(`${name}: events and compaction`, () => {
    it('returns events since a revision in order with their types and previous values', async () => {
      const s = await open();
      const base = await s.currentRevision();
      const r1 = await s.create(K('/a'), v(1));
      const r2 = await s.create(K('/b'), v(2));
      const r3 = await s.update(K('/a'), v(3), r1);
      const r4 = await s.delete(K('/b'), r2);
      const r5 = await s.create(K('/b'), v(5));
      expect((await s.eventsSince(base)).events).toEqual<StorageEvent[]>([
        { type: 'create', key: K('/a'), value: v(1), revision: r1 },
        { type: 'create', key: K('/b'), value: v(2), revision: r2 },
        { type: 'update', key: K('/a'), value: v(3), prevValue: v(1), revision: r3 },
        { type: 'delete', key: K('/b'), value: v(2), prevValue: v(2), revision: r4 },
        { type: 'create', key: K('/b'), value: v(5), revision: r5 },
      ]);
      expect((await s.eventsSince(r3)).events.map((e) => e.revision)).toEqual([r4, r5]);
      expect(await s.eventsSince(r5)).toEqual({ events: [], revision: r5, more: false });
    });

    it('reads events in pages of revisions, of the keys under a prefix', async () => {
      const s = await open();
      const base = await s.currentRevision();
      const wanted: [string, number][] = [];
      for (let i = 0; i < 5; i++) {
        wanted.push([K(`/pa/a/${i}`), await s.create(K(`/pa/a/${i}`), v(i))]);
        await s.create(K(`/pa/b/${i}`), v(i));
      }
      const got: [string, number][] = [];
      let pages = 0;
      for (let from = base, more = true; more; pages++) {
        const page = await s.eventsSince(from, { prefix: K('/pa/a/'), revisions: 4 });
        expect(page.revision - from).toBeGreaterThan(0);
        expect(page.revision - from).toBeLessThanOrEqual(4);
        for (const e of page.events) expect(e.revision > from && e.revision <= page.revision).toBe(true);
        got.push(...page.events.map((e): [string, number] => [e.key, e.revision]));
        ({ revision: from, more } = page);
      }
      expect(got).toEqual(wanted);
      // Ten revisions, four a page.
      expect(pages).toBeGreaterThanOrEqual(3);
      expect((await s.eventsSince(base, { prefix: K('/pa/') })).events).toHaveLength(10);
    });

    it('compacts history: reads and events at or after the compacted revision work, older ones are Expired', async () => {
      const s = await open();
      const a1 = await s.create(K('/k/a'), v('a1'));
      const a2 = await s.update(K('/k/a'), v('a2'), a1);
      const b1 = await s.create(K('/k/b'), v('b1'));
      await s.delete(K('/k/b'), b1);
      const c1 = await s.create(K('/k/c'), v('c1'));
      const a3 = await s.update(K('/k/a'), v('a3'), a2);
      const d1 = await s.create(K('/k/d'), v('d1'));
      const d2 = await s.delete(K('/k/d'), d1);

      await s.compact(c1);
      expect(await s.compactedRevision()).toBe(c1);
      const at = await s.list(K('/k/'), { revision: c1 });
      expect(at.items.map((o) => o.value)).toEqual([v('a2'), v('c1')]);
      expect((await s.list(K('/k/'))).items.map((o) => o.value)).toEqual([v('a3'), v('c1')]);
      expect((await s.eventsSince(c1)).events).toEqual<StorageEvent[]>([
        { type: 'update', key: K('/k/a'), value: v('a3'), prevValue: v('a2'), revision: a3 },
        { type: 'create', key: K('/k/d'), value: v('d1'), revision: d1 },
        { type: 'delete', key: K('/k/d'), value: v('d1'), prevValue: v('d1'), revision: d2 },
      ]);
      await expectCode(s.list(K('/k/'), { revision: c1 - 1 }), 'Expired');
      await expectCode(s.eventsSince(c1 - 1), 'Expired');
      // Compacting backwards changes nothing; live keys and guarded writes go on.
      await s.compact(a1);
      expect(await s.compactedRevision()).toBe(c1);
      await expectCode(s.update(K('/k/a'), v('x'), a2), 'Conflict');
      const a4 = await s.update(K('/k/a'), v('a4'), a3);
      expect((await s.get(K('/k/a')))!.modRevision).toBe(a4);
      expect(await s.create(K('/k/b'), v('b2'))).toBeGreaterThan(a4);
    });

    it('delivers each committed write to subscribers once, in revision order', async () => {
      const s = await open();
      await s.create(K('/before'), v(0));
      await backend.settle(s);
      const got: StorageEvent[] = [];
      const unsubscribe = s.subscribe((events) => got.push(...events));
      const r1 = await s.create(K('/a'), v(1));
      const r2 = await s.update(K('/a'), v(2), r1);
      await expectCode(s.update(K('/a'), v(3), r1), 'Conflict'); // no event for a failed write
      const r3 = await s.delete(K('/a'), r2);
      await backend.settle(s);
      expect(got).toEqual<StorageEvent[]>([
        { type: 'create', key: K('/a'), value: v(1), revision: r1 },
        { type: 'update', key: K('/a'), value: v(2), prevValue: v(1), revision: r2 },
        { type: 'delete', key: K('/a'), value: v(2), prevValue: v(2), revision: r3 },
      ]);
      // Writes made from inside a listener are delivered after the current batch, to everyone.
      const second: number[] = [];
      s.subscribe((events) => second.push(...events.map((e) => e.revision)));
      let reaction: Promise<number> | undefined;
      s.subscribe((events) => {
        if (!reaction && events.some((e) => e.key === K('/trigger'))) reaction = s.create(K('/reaction'), v('r'));
      });
      const t = await s.create(K('/trigger'), v('t'));
      await backend.settle(s);
      const r = await reaction!;
      await backend.settle(s);
      expect(got.map((e) => e.revision)).toEqual([r1, r2, r3, t, r]);
      expect(second).toEqual([t, r]);
      unsubscribe();
      await s.create(K('/after'), v(0));
      await backend.settle(s);
      expect(got).toHaveLength(5);
      expect(second).toHaveLength(3);
    });
  });
}
