// The informer over a real server's watch cache: the objects there are, a
// slice a turn, then the events held meanwhile, then live events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until } from '../testing.ts';
import { inform } from './informer.ts';
import type { CacheEvent, CachedObject } from './cache.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
});
afterAll(() => s.stop());

const CM = '/api/v1/namespaces/default/configmaps';
const PREFIX = '/registry/core/configmaps/';
const mine = (key: string) => key.startsWith(`${PREFIX}default/inf-`);
const create = async (name: string) => expect((await s.api(CM, { method: 'POST', body: { metadata: { name } } })).status).toBe(201);

describe('inform', () => {
  it('hands over the objects there are, then the events that came during the walk, in order, then live ones', async () => {
    for (let i = 0; i < 6; i++) await create(`inf-${i}`);
    const seen: string[] = [];
    let visits = 0;
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let slices = 0;
    const informer = inform(s.cache, {
      list: [[PREFIX, (c: CachedObject) => (visits++, mine(c.key) && seen.push(`list ${c.object.metadata.name}`))]],
      watch: [[PREFIX, (e: CacheEvent) => mine(e.key) && seen.push(`${e.type} ${e.object.object.metadata.name}`)]],
      perTurn: 2,
      betweenSlices: () => (++slices === 1 ? held : new Promise((r) => setImmediate(r))),
    });
    try {
      // The walk is held after its first slice while objects are written.
      await create('inf-new');
      expect((await s.api(`${CM}/inf-0`, { method: 'DELETE' })).status).toBe(200);
      expect(visits).toBe(2);
      expect(seen.some((x) => !x.startsWith('list '))).toBe(false);
      letGo();
      expect(await informer.synced).toBe(true);
      const listed = seen.filter((x) => x.startsWith('list ')).map((x) => x.slice(5));
      // Met as they were when the walk came to them: the one created meanwhile is listed too, and
      // inf-0 only if the walk came to it before it went.
      expect(listed.filter((n) => n !== 'inf-0')).toEqual(['inf-1', 'inf-2', 'inf-3', 'inf-4', 'inf-5', 'inf-new']);
      // After the whole list, the held events in the order they happened.
      expect(seen.slice(listed.length)).toEqual(['ADDED inf-new', 'DELETED inf-0']);
      expect(slices).toBe(Math.floor(visits / 2));
      await create('inf-live');
      await until(() => seen.at(-1), (x) => x === 'ADDED inf-live', 'the live event');
    } finally {
      informer.stop();
    }
    await create('inf-after-stop');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).not.toContain('ADDED inf-after-stop');
  });

  it('ends unsynced when stopped during the walk, handing over nothing more', async () => {
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const seen: string[] = [];
    const informer = inform(s.cache, {
      list: [[PREFIX, (c: CachedObject) => seen.push(c.key)]],
      watch: [[PREFIX, (e: CacheEvent) => seen.push(e.key)]],
      perTurn: 1,
      betweenSlices: () => held,
    });
    informer.stop();
    letGo();
    expect(await informer.synced).toBe(false);
    expect(seen).toHaveLength(1);
  });
});
