// Incremental sorting against sorting from scratch, over random watch-like
// changes: replaced objects (new sort key or not), additions, deletions.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
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
        if (prevRows && state.rows !== prevRows && changes < 64) incremental++;
        expect(state.rows.map((o) => o.metadata.uid)).toEqual(fromScratch(items, desc));
      }
      expect(incremental).toBeGreaterThan(40);
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
});
