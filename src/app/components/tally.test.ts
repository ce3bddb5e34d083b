// A tally kept from a list's changes is the tally counted afresh.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import { IndexedItems } from '../api/watch.ts';
import { tally, type Tally } from './tally.ts';

const event = (i: number, reason: string, rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}`, uid: `u${i}`, resourceVersion: rv }, reason } as KubeObject);
const reasonOf = (o: KubeObject) => String((o as { reason?: string }).reason ?? '');

describe('tally', () => {
  it('keeps counts and values from changes as a count afresh would, and says when values come and go', () => {
    const list = new IndexedItems();
    list.reset([event(1, 'Pulled'), event(2, 'Pulled'), event(3, 'Started'), event(4, '')]);
    let t: Tally = tally(undefined, list.items, undefined, reasonOf);
    expect(t.values).toEqual(['Pulled', 'Started']);
    const steps: Map<string, KubeObject | undefined>[] = [
      new Map([['u3', event(3, 'Started', '2')]]), // same value: the same values array
      new Map([['u3', undefined]]), // Started goes
      new Map([['u5', event(5, 'Killing')], ['u1', event(1, 'BackOff', '2')]]),
      new Map([['u2', undefined], ['u6', event(6, 'Pulled')]]),
    ];
    for (const updates of steps) {
      const before = t;
      const change = list.apply(updates)!;
      t = tally(t, list.items, change, reasonOf);
      const fresh = tally(undefined, list.items, undefined, reasonOf);
      expect(t.values).toEqual(fresh.values);
      expect(Object.fromEntries(t.counts)).toEqual(Object.fromEntries(fresh.counts));
      if (updates.has('u3') && updates.get('u3')) expect(t.values).toBe(before.values);
    }
    expect(t.values).toEqual(['BackOff', 'Killing', 'Pulled']);
  });

  it('counts afresh when the change does not lead from the items it counted', () => {
    const a = [event(1, 'Pulled')];
    const b = [event(2, 'Killing')];
    const t = tally(tally(undefined, a, undefined, reasonOf), b, { from: [], removed: [], added: b }, reasonOf);
    expect(t.values).toEqual(['Killing']);
    expect(t.counts.get('Pulled')).toBeUndefined();
  });

  it('counts an object under each of its values (a node Ready and cordoned), from changes as afresh', () => {
    const node = (i: number, parts: string[], rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}`, uid: `u${i}`, resourceVersion: rv }, parts } as KubeObject);
    const partsOf = (o: KubeObject) => (o as unknown as { parts: string[] }).parts;
    const list = new IndexedItems();
    list.reset([node(1, ['Ready']), node(2, ['Ready', 'SchedulingDisabled']), node(3, ['NotReady'])]);
    let t = tally(undefined, list.items, undefined, partsOf);
    expect(Object.fromEntries(t.counts)).toEqual({ Ready: 2, SchedulingDisabled: 1, NotReady: 1 });
    for (const updates of [
      new Map([['u1', node(1, ['Ready', 'SchedulingDisabled'], '2')]]), // cordoned
      new Map([['u2', node(2, ['NotReady', 'SchedulingDisabled'], '2')]]), // lost
      new Map([['u3', undefined]]),
    ]) {
      const change = list.apply(updates)!;
      t = tally(t, list.items, change, partsOf);
      expect(Object.fromEntries(t.counts)).toEqual(Object.fromEntries(tally(undefined, list.items, undefined, partsOf).counts));
    }
    expect(Object.fromEntries(t.counts)).toEqual({ Ready: 1, SchedulingDisabled: 2, NotReady: 1 });
    expect(t.values).toEqual(['NotReady', 'Ready', 'SchedulingDisabled']);
  });
});
