// Incremental sorting against sorting from scratch, over random watch-like
// changes: replaced objects (new sort key or not), additions, deletions;
// told what changed (the list's ListChange, through a filter) or not.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import { IndexedItems, type ListChange } from '../api/watch.ts';
import { filterRows, type FilteredRows } from './filteredRows.ts';
import { sortRows, type SortedRows } from './sortedRows.ts';

const pod = (i: number, node: number, rv: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${i}`, namespace: `ns-${i % 7}`, uid: `uid-${i}`, resourceVersion: String(rv) },
  spec: { nodeName: `node-${node}` },
});
const byNode = (o: KubeObject) => (o.spec as { nodeName: string }).nodeName;

function fromScratch(items: KubeObject[], desc: boolean): string[] {
  return sortRows(undefined, items, byNode, desc).rows.map((o) => o.metadata.uid!);
}

describe('sortRows', () => {
  for (const desc of [false, true]) {
    it(`keeps the order a full sort gives across small and large changes (${desc ? 'descending' : 'ascending'})`, () => {
      let seed = desc ? 7 : 3;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      let items = Array.from({ length: 400 }, (_, i) => pod(i, rand(30), 1));
      let next = 400;
      let state: SortedRows | undefined;
      let incremental = 0;
      for (let round = 0; round < 60; round++) {
        const changes = round % 10 === 9 ? 200 : 1 + rand(8);
        items = [...items];
        for (let c = 0; c < changes; c++) {
          const op = rand(3);
          if (op === 0) items.splice(rand(items.length), 1);
          else if (op === 1) items.push(pod(next++, rand(30), round));
          else {
            const i = rand(items.length);
            const o = items[i];
            // A replaced object: the same uid, maybe another node.
            items[i] = { ...o, metadata: { ...o.metadata, resourceVersion: String(round + 2) }, spec: rand(2) ? { nodeName: `node-${rand(30)}` } : o.spec };
          }
        }
        const prevRows = state?.rows;
        state = sortRows(state, items, byNode, desc);
        if (prevRows && state.rows === prevRows && changes < 16) incremental++;
        expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(items, desc));
      }
      expect(incremental).toBeGreaterThan(30);
    });
  }

  it('sorts afresh when the sort changes', () => {
    const items = [pod(1, 3, 1), pod(2, 1, 1), pod(3, 2, 1)];
    const asc = sortRows(undefined, items, byNode, false);
    expect(asc.rows.map(byNode)).toEqual(['node-1', 'node-2', 'node-3']);
    expect(sortRows(asc, items, byNode, true).rows.map(byNode)).toEqual(['node-3', 'node-2', 'node-1']);
    const byName = (o: KubeObject) => o.metadata.name!;
    expect(sortRows(asc, items, byName, false).rows.map(byName)).toEqual(['p-1', 'p-2', 'p-3']);
  });

  it('computes an unchanged object\'s sort key once', () => {
    let calls = 0;
    const counted = (o: KubeObject) => (calls++, byNode(o));
    const items = Array.from({ length: 100 }, (_, i) => pod(i, i % 10, 1));
    let state = sortRows(undefined, items, counted, false);
    const first = calls;
    const changed = [...items];
    changed[5] = { ...items[5], spec: { nodeName: 'node-0' } };
    state = sortRows(state, changed, counted, false);
    expect(first).toBe(100);
    expect(calls - first).toBe(1);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(changed, false));
  });

  it('follows a filter that narrows the rows to a few and widens them again', () => {
    const items = Array.from({ length: 300 }, (_, i) => pod(i, (i * 7) % 30, 1));
    let state = sortRows(undefined, items, byNode, false);
    const few = items.filter((o) => o.metadata.name!.endsWith('7'));
    state = sortRows(state, few, byNode, false);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(few, false));
    // One of the few replaced, one more shown: the incremental path, from the narrowed index.
    const next = [...few.slice(1), { ...few[0], spec: { nodeName: 'node-0' } }, items[1]];
    state = sortRows(state, next, byNode, false);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(next, false));
    state = sortRows(state, items, byNode, false);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(items, false));
  });

  it('follows the list\'s changes through a filter without going over the list', () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const list = new IndexedItems();
    list.reset(Array.from({ length: 2000 }, (_, i) => pod(i, rand(30), 1)));
    let next = 2000;
    let matchCalls = 0;
    const evenNode = (o: KubeObject) => Number(byNode(o).slice(5)) % 2 === 0;
    const onEvenNodes = (o: KubeObject) => (matchCalls++, evenNode(o));
    let filtered: FilteredRows | undefined;
    let state: SortedRows | undefined;
    let keyCalls = 0;
    const counted = (o: KubeObject) => (keyCalls++, byNode(o));
    filtered = filterRows(filtered, list.items, undefined, onEvenNodes);
    state = sortRows(state, filtered.items, counted, false, filtered.change);
    for (let round = 0; round < 80; round++) {
      // A watch flush: a few (or, every tenth, many) objects replaced, added, deleted.
      const updates = new Map<string, KubeObject | undefined>();
      const changes = round % 10 === 9 ? 300 : 1 + rand(6);
      for (let c = 0; c < changes; c++) {
        const op = rand(3);
        const o = list.items[rand(list.items.length)];
        if (op === 0) updates.set(o.metadata.uid!, undefined);
        else if (op === 1) {
          const n = pod(next++, rand(30), round);
          updates.set(n.metadata.uid!, n);
        } else updates.set(o.metadata.uid!, { ...o, metadata: { ...o.metadata, resourceVersion: String(round + 2) }, spec: { nodeName: `node-${rand(30)}` } });
      }
      const change: ListChange | undefined = list.apply(updates);
      const before = keyCalls;
      const matchedBefore = matchCalls;
      filtered = filterRows(filtered, list.items, change, onEvenNodes);
      state = sortRows(state, filtered.items, counted, false, filtered.change);
      // Keys only for the objects the flush brought, never a pass over the rows.
      expect(keyCalls - before).toBeLessThanOrEqual(changes);
      expect(matchCalls - matchedBefore).toBeLessThanOrEqual(changes);
      expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(list.items.filter(evenNode), false));
      expect(new Set(filtered.items).size).toBe(filtered.items.length);
    }
  });

  it('reports what a step replaced, for the rows that flash', () => {
    const list = new IndexedItems();
    list.reset(Array.from({ length: 100 }, (_, i) => pod(i, i % 10, 1)));
    let state = sortRows(undefined, list.items, byNode, false);
    const moved = { ...list.items[3], spec: { nodeName: 'node-9' } };
    const change = list.apply(new Map([[moved.metadata.uid!, moved]]));
    state = sortRows(state, list.items, byNode, false, change);
    expect(state.removed.map((o) => o.metadata.uid)).toEqual(['uid-3']);
    expect(state.added).toEqual([moved]);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(list.items as KubeObject[], false));
  });

  it('puts a flush of status changes in their rows, however many, without going over the rows', () => {
    // A rollout's flush: hundreds of pods replaced with their place unchanged, and a few moved, added, deleted.
    const list = new IndexedItems();
    list.reset(Array.from({ length: 3000 }, (_, i) => pod(i, i % 40, 1)));
    let state = sortRows(undefined, list.items, byNode, false);
    let next = 3000;
    for (let round = 0; round < 5; round++) {
      const updates = new Map<string, KubeObject | undefined>();
      for (let k = 0; k < 300; k++) {
        const o = list.items[(round * 577 + k * 7) % list.items.length];
        updates.set(o.metadata.uid!, { ...o, metadata: { ...o.metadata, resourceVersion: String(round + 2) } });
      }
      const moved = list.items[round];
      updates.set(moved.metadata.uid!, { ...moved, spec: { nodeName: `node-${39 - round}` } });
      updates.set(list.items[100 + round].metadata.uid!, undefined);
      // Odd rounds: a wave of new pods too, and one deleted and made again under its name (a new uid, the same place).
      for (let b = 0; b < (round % 2 ? 40 : 1); b++) {
        const born = pod(next++, (round * 13 + b) % 40, round + 2);
        updates.set(born.metadata.uid!, born);
      }
      if (round % 2) {
        const again = list.items[200 + round];
        updates.set(again.metadata.uid!, undefined);
        updates.set(`again-${round}`, { ...again, metadata: { ...again.metadata, uid: `again-${round}` } });
      }
      const change = list.apply(updates)!;
      const rows = state.rows;
      state = sortRows(state, list.items, byNode, false, change);
      // Even rounds: the same array, changed in place (the replaced in their rows, the few others spliced).
      if (round % 2 === 0) expect(state.rows).toBe(rows);
      expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(list.items as KubeObject[], false));
      expect(state.rows.filter((o) => o.metadata.resourceVersion === String(round + 2)).length).toBeGreaterThanOrEqual(300);
      // Every replaced object is reported, for the rows that flash.
      expect(state.added).toHaveLength(change.added.length);
    }
  });

  it('keeps nothing of the rows before a list read again whole (sorted afresh)', () => {
    const before = Array.from({ length: 100 }, (_, i) => pod(i, i % 10, 1));
    const relisted = before.map((_, i) => pod(i, i % 10, 2));
    const state = sortRows(sortRows(undefined, before, byNode, false), relisted, byNode, false);
    expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(relisted, false));
    // Holding them as "removed" kept a whole second list alive (146 MB at 55,000 pods) and flashed every row.
    expect(state.removed).toEqual([]);
    expect(state.added).toEqual([]);
  });

  it('reports what a watch change replaced even when it sorts afresh (one row of one)', () => {
    const list = new IndexedItems();
    list.reset([pod(0, 1, 1)]);
    let state = sortRows(undefined, list.items, byNode, false);
    const moved = { ...list.items[0], spec: { nodeName: 'node-2' } };
    const change = list.apply(new Map([[moved.metadata.uid!, moved]]));
    state = sortRows(state, list.items, byNode, false, change);
    expect(state.removed.map((o) => o.metadata.uid)).toEqual(['uid-0']);
    expect(state.added).toEqual([moved]);
    expect(state.rows).toEqual([moved]);
  });
});

describe('IndexedItems', () => {
  it('replaces, adds and removes by uid in a copy, and says what changed', () => {
    const list = new IndexedItems();
    const a = pod(1, 1, 1);
    const b = pod(2, 1, 1);
    const c = pod(3, 1, 1);
    list.reset([a, b, c]);
    const first = list.items;
    const b2 = { ...b, metadata: { ...b.metadata, resourceVersion: '2' } };
    const d = pod(4, 1, 1);
    const change = list.apply(new Map<string, KubeObject | undefined>([['uid-1', undefined], ['uid-2', b2], ['uid-4', d], ['uid-9', undefined]]))!;
    expect(first).toEqual([a, b, c]);
    expect(change.from).toBe(first);
    expect(change.removed).toEqual([a, b]);
    expect(change.added).toEqual([b2, d]);
    expect([...list.items].sort((x, y) => x.metadata.uid!.localeCompare(y.metadata.uid!))).toEqual([b2, c, d]);
    // Positions stay right after the last item moved into the hole.
    const c2 = { ...c, metadata: { ...c.metadata, resourceVersion: '3' } };
    list.apply(new Map([['uid-3', c2]]));
    expect(list.items).toHaveLength(3);
    expect(list.items).toContain(c2);
    expect(list.apply(new Map([['uid-3', c2]]))).toBeUndefined();
  });
});
