import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch as smp, StrategicMergePatchError, type PatchSchema } from './strategicmerge.ts';

// A schema in the spirit of upstream's test struct (mergingList by name,
// mergingIntList as a set, nonMergingList replaced, retainKeys lists).
const schema: PatchSchema = {
  mergingList: { strategy: 'merge', key: 'name', fields: { mergingIntList: { strategy: 'merge' }, nonMergingIntList: {} } },
  nonMergingList: {},
  mergingIntList: { strategy: 'merge' },
  nonMergingIntList: {},
  mapField: { fields: { mergingIntList: { strategy: 'merge' } } },
  replacingItem: { strategy: 'replace' },
  retainKeysMergingList: { strategy: 'merge,retainKeys', key: 'name' },
  simpleMap: {},
};

const fails = (original: unknown, patch: unknown, message: string | RegExp, kind?: string) => {
  try {
    smp(original, patch, schema);
  } catch (e) {
    expect(e).toBeInstanceOf(StrategicMergePatchError);
    expect((e as Error).message).toMatch(message);
    if (kind) expect((e as StrategicMergePatchError).kind).toBe(kind);
    return;
  }
  throw new Error('expected the patch to fail');
};

describe('maps', () => {
  it('merges recursively and deletes keys set to null', () => {
    expect(smp({ name: 1, simpleMap: { a: '1', b: '2' } }, { simpleMap: { b: null, c: '3' }, other: 'x' }, schema)).toEqual({
      name: 1,
      simpleMap: { a: '1', c: '3' },
      other: 'x',
    });
  });

  it('ignores nulls for keys that are not there, also inside new values', () => {
    expect(smp({ a: 1 }, { b: null, c: { d: null, e: 1 } }, schema)).toEqual({ a: 1, c: { e: 1 } });
  });

  it('does not modify its inputs', () => {
    const original = { simpleMap: { a: '1' }, mergingList: [{ name: 'a' }] };
    const patch = { simpleMap: { a: null }, mergingList: [{ name: 'a', $patch: 'delete' }] };
    const o = JSON.stringify(original);
    const p = JSON.stringify(patch);
    smp(original, patch, schema);
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(patch)).toBe(p);
  });

  it('replaces a map with $patch: replace', () => {
    expect(smp({ simpleMap: { a: '1', b: '2' } }, { simpleMap: { $patch: 'replace', c: '3' } }, schema)).toEqual({ simpleMap: { c: '3' } });
  });

  it('removes a map with $patch: delete, and empties the document at the top', () => {
    expect(smp({ simpleMap: { a: '1' }, x: 1 }, { simpleMap: { $patch: 'delete' } }, schema)).toEqual({ x: 1 });
    expect(smp({ a: 1 }, { $patch: 'delete' }, schema)).toEqual({});
  });

  it('replaces a field whose strategy is replace', () => {
    expect(smp({ replacingItem: { a: 1, b: 2 } }, { replacingItem: { c: 3 } }, schema)).toEqual({ replacingItem: { c: 3 } });
  });

  it('rejects an unknown $patch value', () => {
    fails({}, { simpleMap: { $patch: 'nonsense' } }, 'unknown patch type: nonsense in map: map[$patch:nonsense]');
  });

  it('takes the patch value when the types differ', () => {
    expect(smp({ simpleMap: { a: 1 } }, { simpleMap: 'scalar' }, schema)).toEqual({ simpleMap: 'scalar' });
  });
});

describe('lists', () => {
  it('replaces lists without a merge strategy, even lists of objects', () => {
    expect(smp({ nonMergingList: [{ name: 'a' }, { name: 'b' }] }, { nonMergingList: [{ name: 'c' }] }, schema)).toEqual({ nonMergingList: [{ name: 'c' }] });
    expect(smp({ nonMergingIntList: [1, 2] }, { nonMergingIntList: [3] }, schema)).toEqual({ nonMergingIntList: [3] });
    // Fields no schema knows behave the same.
    expect(smp({ unknown: [1, 2] }, { unknown: [2, 3] }, schema)).toEqual({ unknown: [2, 3] });
  });

  it('unions lists of scalars with a merge strategy', () => {
    expect(smp({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, schema)).toEqual({ mergingIntList: [1, 2, 3] });
  });

  it('merges lists of objects by key: matching elements merge, new ones are added', () => {
    const r = smp(
      { mergingList: [{ name: 'a', value: 1, other: 'x' }, { name: 'b', value: 2 }] },
      { mergingList: [{ name: 'a', value: 10 }, { name: 'c', value: 3 }] },
      schema,
    );
    expect(r.mergingList).toEqual([{ name: 'a', value: 10, other: 'x' }, { name: 'c', value: 3 }, { name: 'b', value: 2 }]);
  });

  it('merges nested lists with their own metadata', () => {
    const r = smp(
      { mergingList: [{ name: 'a', mergingIntList: [1], nonMergingIntList: [1] }] },
      { mergingList: [{ name: 'a', mergingIntList: [2], nonMergingIntList: [2] }] },
      schema,
    );
    // A new value has no place in the live list, so it goes before what follows it there (upstream's order).
    expect(r.mergingList).toEqual([{ name: 'a', mergingIntList: [2, 1], nonMergingIntList: [2] }]);
  });

  it('deletes an element with $patch: delete', () => {
    const r = smp({ mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, { mergingList: [{ name: 'b', $patch: 'delete' }] }, schema);
    expect(r.mergingList).toEqual([{ name: 'a' }, { name: 'c' }]);
  });

  it('replaces the whole list with a $patch: replace element', () => {
    const r = smp({ mergingList: [{ name: 'a' }, { name: 'b' }] }, { mergingList: [{ name: 'c', value: 1 }, { $patch: 'replace' }] }, schema);
    expect(r.mergingList).toEqual([{ name: 'c', value: 1 }]);
  });

  it('removes scalars with $deleteFromPrimitiveList', () => {
    expect(smp({ mergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [2, 4] }, schema)).toEqual({ mergingIntList: [1, 3] });
    // Nothing to delete from: nothing is added.
    expect(smp({}, { '$deleteFromPrimitiveList/mergingIntList': [2] }, schema)).toEqual({});
  });

  it('orders a merged list with $setElementOrder', () => {
    const r = smp(
      { mergingList: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }, { name: 'c', v: 3 }] },
      { '$setElementOrder/mergingList': [{ name: 'c' }, { name: 'd' }, { name: 'a' }, { name: 'b' }], mergingList: [{ name: 'd', v: 4 }, { name: 'a', v: 10 }] },
      schema,
    );
    expect(r.mergingList).toEqual([{ name: 'c', v: 3 }, { name: 'd', v: 4 }, { name: 'a', v: 10 }, { name: 'b', v: 2 }]);
    expect(Object.keys(r)).toEqual(['mergingList']);
  });

  it('orders scalars with $setElementOrder; server-only values go where the live order puts them', () => {
    const r = smp({ mergingIntList: [1, 2, 3] }, { '$setElementOrder/mergingIntList': [3, 1, 4], mergingIntList: [4] }, schema);
    expect(r.mergingIntList).toEqual([2, 3, 1, 4]);
    expect(smp({ mergingIntList: [1, 2] }, { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3] }, schema).mergingIntList).toEqual([1, 2, 3]);
  });

  it('combines $setElementOrder with deletions (what kubectl apply sends)', () => {
    const r = smp(
      { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
      { '$setElementOrder/mergingList': [{ name: 'a' }, { name: 'c' }], mergingList: [{ name: 'b', $patch: 'delete' }] },
      schema,
    );
    expect(r.mergingList).toEqual([{ name: 'a' }, { name: 'c' }]);
  });

  it('creates a missing list from the patch without directives', () => {
    const r = smp({}, { mergingList: [{ name: 'a', gone: null }, { name: 'x', $patch: 'delete' }] }, schema);
    expect(r).toEqual({ mergingList: [{ name: 'a' }] });
  });

  it('rejects a patch element without the merge key', () => {
    fails({ mergingList: [{ name: 'a' }] }, { mergingList: [{ value: 1 }] }, 'map: map[value:1] does not contain declared merge key: name');
  });

  it('rejects lists of lists', () => {
    fails({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }, 'lists of lists are not supported', 'Invalid');
  });

  it('rejects malformed directives as bad requests', () => {
    fails({ mergingIntList: [1] }, { '$deleteFromPrimitiveList': [1] }, 'invalid patch format of primitive list', 'BadRequest');
    fails({ mergingIntList: [1] }, { '$setElementOrder/mergingIntList': 'x' }, 'invalid patch format of setElementOrder list', 'BadRequest');
    fails({ retainKeysMergingList: [] }, { retainKeysMergingList: [{ name: 'a', $retainKeys: 'x' }] }, 'invalid patch format of retainKeys', 'BadRequest');
  });

  it('rejects a patch list out of step with $setElementOrder', () => {
    fails({ mergingList: [] }, { '$setElementOrder/mergingList': [{ name: 'a' }], mergingList: [{ name: 'b' }] }, /doesn't match \$setElementOrder list/);
  });
});

describe('$retainKeys', () => {
  it('drops keys not listed (switching a union member, as for volumes)', () => {
    const r = smp(
      { retainKeysMergingList: [{ name: 'v', emptyDir: {}, other: 1 }] },
      { retainKeysMergingList: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] },
      schema,
    );
    expect(r.retainKeysMergingList).toEqual([{ name: 'v', hostPath: { path: '/x' } }]);
  });

  it('rejects a patch that sets a key it does not retain', () => {
    fails({ simpleMap: { a: 1 } }, { simpleMap: { $retainKeys: ['a'], b: 2 } }, "patch content doesn't match retainKeys list", 'Invalid');
  });
});

describe('what kubectl sends', () => {
  const node: PatchSchema = {
    metadata: { fields: { finalizers: { strategy: 'merge' }, ownerReferences: { strategy: 'merge', key: 'uid' } } },
    spec: { fields: { taints: { strategy: 'replace' } } },
  };

  it('label and cordon patches', () => {
    const live = { metadata: { name: 'n', labels: { a: '1' } }, spec: { taints: [{ key: 'x', effect: 'NoSchedule' }] } };
    expect(smp(live, { metadata: { labels: { b: '2', a: null } } }, node).metadata).toEqual({ name: 'n', labels: { b: '2' } });
    expect(smp(live, { spec: { unschedulable: true } }, node).spec).toEqual({ taints: [{ key: 'x', effect: 'NoSchedule' }], unschedulable: true });
  });

  it('taint patches replace the taint list', () => {
    const live = { spec: { taints: [{ key: 'x', effect: 'NoSchedule' }] } };
    expect(smp(live, { spec: { taints: [{ key: 'x', effect: 'NoSchedule' }, { key: 'y', value: 'v', effect: 'NoExecute' }] } }, node).spec).toEqual({
      taints: [{ key: 'x', effect: 'NoSchedule' }, { key: 'y', value: 'v', effect: 'NoExecute' }],
    });
  });

  it('finalizers merge as a set and leave with $deleteFromPrimitiveList', () => {
    const live = { metadata: { finalizers: ['a', 'b'] } };
    expect(smp(live, { metadata: { finalizers: ['c'] } }, node).metadata).toEqual({ finalizers: ['c', 'a', 'b'] });
    expect(smp(live, { metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] } }, node).metadata).toEqual({ finalizers: ['a', 'b', 'c'] });
    expect(smp(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, node).metadata).toEqual({ finalizers: ['b'] });
  });

  it('a ControllerRevision rollback replaces the template', () => {
    const ds = { spec: { template: { metadata: { labels: { app: 'x' }, annotations: { restartedAt: 't' } }, spec: { containers: [{ name: 'c', image: 'new' }] } } } };
    const data = { spec: { template: { $patch: 'replace', metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'old' }] } } } };
    expect(smp(ds, data, {}).spec).toEqual({ template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'old' }] } } });
  });
});
