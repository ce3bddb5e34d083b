// A list's index by uid, made ahead of its first change in idle time, a part
// at a time; one made while the list changed is not taken.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import type { IdleTime } from './idletime.ts';
import { IndexedItems } from './watch.ts';

const pod = (i: number, rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'default', uid: `u${i}`, resourceVersion: rv } });

/** Idle time the test hands out one step at a time. */
function steps() {
  const waiting: (() => void)[] = [];
  let taken = 0;
  const idle: IdleTime = { room: () => new Promise<void>((r) => waiting.push(r)), took: () => void taken++, has: () => true };
  /** Lets the waiting step run (if one waits after a few microtasks). */
  const next = async () => {
    for (let k = 0; k < 10 && !waiting.length; k++) await null;
    waiting.shift()?.();
    await null;
  };
  return { idle, next, taken: () => taken };
}

describe('IndexedItems.prepare', () => {
  it('indexes a list a part per idle step, so that its first change finds the object it replaces', async () => {
    const items = Array.from({ length: 25 }, (_, i) => pod(i));
    const index = new IndexedItems();
    const s = steps();
    const done = index.prepare(items, s.idle, 10);
    for (let i = 0; i < 3; i++) await s.next();
    await done;
    expect(s.taken()).toBe(3);
    expect(index.items).toBe(items);
    const change = index.apply(new Map([['u7', pod(7, '2')]]));
    expect(change?.removed).toEqual([items[7]]);
    expect(index.items).toHaveLength(25);
    expect(index.items[7].metadata.resourceVersion).toBe('2');
  });

  it('is finished, not begun again, when the list is reset to the same items while it is made', async () => {
    const items = Array.from({ length: 25 }, (_, i) => pod(i));
    const index = new IndexedItems();
    const s = steps();
    const done = index.prepare(items, s.idle, 10);
    await s.next();
    index.reset(items);
    expect(index.items).toBe(items);
    expect(index.has('u24')).toBe(true);
    for (let i = 0; i < 3; i++) await s.next();
    await done;
    expect(s.taken()).toBe(1);
    expect(index.apply(new Map([['u24', pod(24, '2')]]))?.removed).toEqual([items[24]]);
  });

  it('is not taken when the list was reset or changed while it was made', async () => {
    const before = Array.from({ length: 5 }, (_, i) => pod(i));
    const after = Array.from({ length: 25 }, (_, i) => pod(i));
    for (const meanwhile of ['reset', 'apply'] as const) {
      const index = new IndexedItems();
      index.reset(before);
      const s = steps();
      const done = index.prepare(after, s.idle, 10);
      await s.next();
      if (meanwhile === 'reset') index.reset(before);
      else index.apply(new Map([['u1', pod(1, '2')]]));
      const now = index.items;
      for (let i = 0; i < 3; i++) await s.next();
      await done;
      expect(index.items).toBe(now);
      expect(index.has('u20')).toBe(false);
    }
  });
});
