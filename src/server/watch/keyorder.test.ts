// The cache's key-ordered list kept up by merging changes: on random changes
// it always equals a fresh sort, a list handed out never changes, and only
// the first list (or one after too many changes) sorts every object.
import { describe, expect, it } from 'vitest';
import { KeyOrder } from './keyorder.ts';
import type { CachedObject } from './cache.ts';
import { seededRandom } from '../../lib/random.ts';

const object = (key: string, revision: number): CachedObject => ({ key, revision, object: { metadata: { name: key } } as any });
const keysOf = (list: readonly CachedObject[]) => list.map((c) => `${c.key}@${c.revision}`);

describe('KeyOrder', () => {
  it('lists what a fresh sort lists after any changes, sorting every object only the first time', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const next = seededRandom(seed);
      const objects = new Map<string, CachedObject>();
      const order = new KeyOrder();
      let sorts = 0;
      const all = () => (sorts++, objects.values());
      let revision = 0;
      const keyOf = () => `/registry/core/events/ns-${Math.floor(next() * 5)}/e-${Math.floor(next() * 3000).toString(36)}`;
      for (let i = 0; i < 2000; i++) {
        const k = keyOf();
        objects.set(k, object(k, ++revision));
      }
      let held = order.list(all);
      for (let step = 0; step < 20; step++) {
        const before = keysOf(held);
        for (let n = Math.floor(next() * 200); n > 0; n--) {
          const k = next() < 0.5 && objects.size ? [...objects.keys()][Math.floor(next() * objects.size)] : keyOf();
          if (next() < 0.3) {
            // Some of these keys were never there, or were created since the last list.
            objects.delete(k);
            order.changed(k, undefined);
          } else {
            const c = object(k, ++revision);
            objects.set(k, c);
            order.changed(k, c);
          }
        }
        const list = order.list(all);
        expect(keysOf(list)).toEqual(keysOf([...objects.values()].sort((a, b) => (a.key < b.key ? -1 : 1))));
        // The list handed out before is as it was.
        expect(keysOf(held)).toEqual(before);
        held = list;
      }
      expect(sorts).toBe(1);
    }
  });

  it('sorts again once the changes are past a quarter of the objects, and after forget()', () => {
    const objects = new Map<string, CachedObject>();
    for (let i = 0; i < 8000; i++) objects.set(`k${i}`, object(`k${i}`, 1));
    const order = new KeyOrder();
    let sorts = 0;
    const all = () => (sorts++, objects.values());
    order.list(all);
    for (let i = 0; i < 2001; i++) order.changed(`k${i}`, object(`k${i}`, 2));
    for (let i = 0; i < 2001; i++) objects.set(`k${i}`, object(`k${i}`, 2));
    expect(order.list(all).filter((c) => c.revision === 2)).toHaveLength(2001);
    expect(sorts).toBe(2);
    order.forget();
    order.list(all);
    expect(sorts).toBe(3);
  });
});
