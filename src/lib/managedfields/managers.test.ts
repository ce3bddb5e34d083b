// Server-side apply cases in the style of structured-merge-diff's merge tests:
// ownership, conflicts, force, removal, each list type, nested maps.
import { describe, expect, it } from 'vitest';
import { FieldSet, pathString } from './fieldset.ts';
import { compare, merge, toFieldSet, type ApplySchema } from './typed.ts';
import {
  applyManaged,
  ApplyConflictError,
  decodeManaged,
  encodeManaged,
  updateManaged,
  type FieldManagerContext,
  type Managed,
} from './managers.ts';

const schema: ApplySchema = {
  metadata: { fields: { finalizers: { strategy: 'merge' }, ownerReferences: { strategy: 'merge', key: 'uid' } } },
  spec: {
    fields: {
      selector: { mapType: 'atomic' },
      args: { strategy: 'replace' },
      cidrs: { strategy: 'merge' },
      containers: {
        strategy: 'merge',
        key: 'name',
        fields: { ports: { strategy: 'merge', key: 'containerPort', listMapKeys: ['containerPort', 'protocol'] }, command: { strategy: 'replace' } },
      },
    },
  },
};

const ctx = (now = '2026-01-01T00:00:00Z', ignored = new FieldSet()): FieldManagerContext => ({ schema, ignored, now });
const base = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a' } };
const obj = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ ...base, metadata: { name: 'a', ...metadata }, spec });
const fieldsOf = (m: Managed, manager: string) => [...m.values()].find((e) => e.manager === manager)?.fields.toFieldsV1();
const managers = (m: Managed) => [...m.values()].map((e) => `${e.manager}/${e.operation}`).sort();

function apply(live: Record<string, unknown>, config: Record<string, unknown>, managed: Managed, manager: string, force = false, now?: string) {
  return applyManaged(live, config, managed, { manager, apiVersion: 'v1' }, force, ctx(now));
}

describe('field sets', () => {
  it('reads the fields an object holds by its list types', () => {
    const set = toFieldSet(
      obj({ replicas: 1, selector: { matchLabels: { a: 'b' } }, args: ['x'], cidrs: ['10.0.0.0/24'], containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }], empty: {} }, { labels: { app: 'x' } }),
      schema,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': {
        'f:args': {},
        'f:cidrs': { 'v:"10.0.0.0/24"': {} },
        'f:containers': {
          'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
        },
        'f:empty': {},
        'f:replicas': {},
        'f:selector': {},
      },
    });
  });

  it('round-trips FieldsV1 and prints paths as upstream', () => {
    const v1 = { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } }, 'f:cidrs': { 'v:"x"': {} } } };
    const s = FieldSet.fromFieldsV1(v1);
    expect(s.toFieldsV1()).toEqual(v1);
    expect(s.paths().map(pathString)).toEqual(['.spec.cidrs[="x"]', '.spec.containers[name="c"]', '.spec.containers[name="c"].image']);
  });

  it('set operations: difference keeps children, recursive difference drops them', () => {
    const a = FieldSet.of(['f:a'], ['f:a', 'f:b'], ['f:c']);
    const b = FieldSet.of(['f:a']);
    expect(a.difference(b).toFieldsV1()).toEqual({ 'f:a': { 'f:b': {} }, 'f:c': {} });
    expect(a.recursiveDifference(b).toFieldsV1()).toEqual({ 'f:c': {} });
    expect(a.intersection(FieldSet.of(['f:a', 'f:b'])).toFieldsV1()).toEqual({ 'f:a': { 'f:b': {} } });
  });

  it('compares added, modified and removed fields', () => {
    const c = compare(obj({ replicas: 1, args: ['a'], cidrs: ['x'] }), obj({ replicas: 2, args: ['b'], cidrs: ['y'], paused: true }), schema);
    expect(c.modified.paths().map(pathString)).toEqual(['.spec.args', '.spec.replicas']);
    expect(c.added.paths().map(pathString)).toEqual(['.spec.cidrs[="y"]', '.spec.paused']);
    expect(c.removed.paths().map(pathString)).toEqual(['.spec.cidrs[="x"]']);
  });

  it('merges: atomic lists replaced, sets unioned, map lists by key, atomic maps replaced', () => {
    const live = obj({ args: ['a', 'b'], cidrs: ['x'], selector: { matchLabels: { a: '1' }, matchExpressions: [] }, containers: [{ name: 'c', image: 'old', command: ['x'] }, { name: 'd', image: 'd' }] });
    const config = obj({ args: ['c'], cidrs: ['y'], selector: { matchLabels: { b: '2' } }, containers: [{ name: 'c', image: 'new' }] });
    expect(merge(live, config, schema).spec).toEqual({
      args: ['c'],
      cidrs: ['x', 'y'],
      selector: { matchLabels: { b: '2' } },
      containers: [{ name: 'c', image: 'new', command: ['x'] }, { name: 'd', image: 'd' }],
    });
  });

  it('merges map lists in the order structured-merge-diff gives', () => {
    const live = obj({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    const config = obj({ containers: [{ name: 'c' }, { name: 'x' }, { name: 'a' }] });
    expect((merge(live, config, schema).spec as any).containers.map((c: any) => c.name)).toEqual(['b', 'c', 'x', 'a']);
  });
});

describe('updates', () => {
  it('a create makes the creator own every field it set, with a timestamp', () => {
    const m = updateManaged(undefined, obj({ replicas: 1 }, { labels: { a: 'b' } }), new Map(), { manager: 'kubectl-create', apiVersion: 'v1' }, ctx());
    expect(encodeManaged(m)).toEqual([
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:replicas': {} } } },
    ]);
  });

  it('a field changed by an update moves to its manager; removed fields leave everyone', () => {
    let m = updateManaged(undefined, obj({ replicas: 1, paused: true }), new Map(), { manager: 'one', apiVersion: 'v1' }, ctx());
    m = updateManaged(obj({ replicas: 1, paused: true }), obj({ replicas: 2 }), m, { manager: 'two', apiVersion: 'v1' }, ctx('2026-01-01T00:00:05Z'));
    expect(fieldsOf(m, 'one')).toBeUndefined();
    expect(fieldsOf(m, 'two')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('an update that changes nothing keeps the time', () => {
    const m = updateManaged(undefined, obj({ replicas: 1 }), new Map(), { manager: 'one', apiVersion: 'v1' }, ctx());
    const again = updateManaged(obj({ replicas: 1 }), obj({ replicas: 1 }), m, { manager: 'one', apiVersion: 'v1' }, ctx('2027-01-01T00:00:00Z'));
    expect(encodeManaged(again)).toEqual(encodeManaged(m));
  });

  it('an existing object nobody tracks stays untracked on update', () => {
    expect(updateManaged(obj({ replicas: 1 }), obj({ replicas: 2 }), new Map(), { manager: 'x', apiVersion: 'v1' }, ctx()).size).toBe(0);
  });

  it('keeps at most ten updaters: the oldest merge into ancient-changes', () => {
    let m: Managed = updateManaged(undefined, obj({ f0: 0 }), new Map(), { manager: 'm0', apiVersion: 'v1' }, ctx('2026-01-01T00:00:00Z'));
    let live = obj({ f0: 0 });
    for (let i = 1; i <= 11; i++) {
      const next = obj({ ...(live.spec as object), [`f${i}`]: i });
      m = updateManaged(live, next, m, { manager: `m${i}`, apiVersion: 'v1' }, ctx(`2026-01-01T00:00:${String(i).padStart(2, '0')}Z`));
      live = next;
    }
    expect(m.size).toBe(10);
    expect(fieldsOf(m, 'ancient-changes')).toEqual({ 'f:spec': { 'f:f0': {}, 'f:f1': {}, 'f:f2': {} } });
    expect(managers(m)).not.toContain('m2/Update');
    expect(managers(m)).toContain('m3/Update');
  });

  it('structs held by value (Go non-pointer fields) get no "." of their own, pointer structs and maps do', () => {
    const embedded: ApplySchema = {
      spec: {
        fields: {
          template: { embedded: true, fields: { metadata: { embedded: true }, spec: { embedded: true } } },
          updateStrategy: { embedded: true },
        },
      },
    };
    const c = (now = '2026-01-01T00:00:00Z'): FieldManagerContext => ({ schema: embedded, ignored: new FieldSet(), now });
    const spec = { template: { metadata: { labels: { app: 'x' } }, spec: { hostNetwork: true } }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } };
    const created = updateManaged(undefined, obj(spec), new Map(), { manager: 'maker', apiVersion: 'v1' }, c());
    expect(fieldsOf(created, 'maker')).toEqual({
      'f:spec': {
        'f:template': { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:hostNetwork': {} } },
        'f:updateStrategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {} }, 'f:type': {} },
      },
    });
    // Nor when one first appears in an update, or goes: only its fields change hands.
    const bare = obj({});
    const m = updateManaged(undefined, bare, new Map(), { manager: 'maker', apiVersion: 'v1' }, c());
    const added = updateManaged(bare, obj({ updateStrategy: { type: 'OnDelete' } }), new Map([...m, ...created]), { manager: 'editor', apiVersion: 'v1' }, c('2026-01-02T00:00:00Z'));
    expect(fieldsOf(added, 'editor')).toEqual({ 'f:spec': { 'f:updateStrategy': { 'f:type': {} } } });
    const gone = updateManaged(obj(spec), obj({ template: spec.template }), created, { manager: 'editor', apiVersion: 'v1' }, c('2026-01-02T00:00:00Z'));
    expect(fieldsOf(gone, 'maker')).toEqual({ 'f:spec': { 'f:template': { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:hostNetwork': {} } } } });
  });

  it('ignored (reset) fields are owned by no one', () => {
    const m = updateManaged(undefined, { ...obj({ a: 1 }), status: { b: 2 } }, new Map(), { manager: 'x', apiVersion: 'v1' }, ctx('t', FieldSet.of(['f:status'])));
    expect(fieldsOf(m, 'x')).toEqual({ 'f:spec': { 'f:a': {} } });
  });
});

describe('apply', () => {
  it('creates: the applier owns what it applied', () => {
    const r = apply({}, obj({ replicas: 1, containers: [{ name: 'c', image: 'i' }] }, { labels: { a: 'b' } }), new Map(), 'kubectl');
    expect(encodeManaged(r.managed)).toEqual([
      {
        manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:replicas': {} } },
      },
    ]);
    expect(r.object.spec).toEqual({ replicas: 1, containers: [{ name: 'c', image: 'i' }] });
  });

  it('conflicts with another manager over a value it would change, naming field and manager', () => {
    const first = apply({}, obj({ replicas: 1 }), new Map(), 'alice');
    expect(() => apply(first.object, obj({ replicas: 2 }), first.managed, 'bob')).toThrow(ApplyConflictError);
    try {
      apply(first.object, obj({ replicas: 2 }), first.managed, 'bob');
    } catch (e) {
      expect((e as Error).message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    }
  });

  it('applying the same value is shared ownership, not a conflict', () => {
    const first = apply({}, obj({ replicas: 1 }), new Map(), 'alice');
    const second = apply(first.object, obj({ replicas: 1 }), first.managed, 'bob');
    expect(fieldsOf(second.managed, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(fieldsOf(second.managed, 'bob')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('force takes the field from the other manager', () => {
    const first = apply({}, obj({ replicas: 1, paused: true }), new Map(), 'alice');
    const second = apply(first.object, obj({ replicas: 2 }), first.managed, 'bob', true);
    expect(second.object.spec).toEqual({ replicas: 2, paused: true });
    expect(fieldsOf(second.managed, 'alice')).toEqual({ 'f:spec': { 'f:paused': {} } });
    expect(fieldsOf(second.managed, 'bob')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('lists several conflicts grouped by manager', () => {
    let m = apply({}, obj({ a: 1, b: 1 }), new Map(), 'alice');
    m = { ...m, ...apply(m.object, obj({ c: 1 }), m.managed, 'carol') };
    try {
      apply(m.object, obj({ a: 2, b: 2, c: 2 }), m.managed, 'bob');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toBe('Apply failed with 3 conflicts: conflicts with "alice":\n- .spec.a\n- .spec.b\nconflicts with "carol":\n- .spec.c');
    }
  });

  it('a field the applier stops applying is removed when no one else owns it', () => {
    const first = apply({}, obj({ replicas: 1, paused: true }, { labels: { a: '1', b: '2' } }), new Map(), 'alice');
    const second = apply(first.object, obj({ replicas: 1 }, { labels: { a: '1' } }), first.managed, 'alice');
    expect(second.object.spec).toEqual({ replicas: 1 });
    expect((second.object.metadata as any).labels).toEqual({ a: '1' });
  });

  it('a field another manager also owns stays; only the ownership goes', () => {
    const first = apply({}, obj({ replicas: 1, paused: true }), new Map(), 'alice');
    const shared = apply(first.object, obj({ paused: true }), first.managed, 'bob');
    const third = apply(shared.object, obj({ replicas: 1 }), shared.managed, 'alice');
    expect(third.object.spec).toEqual({ replicas: 1, paused: true });
    expect(fieldsOf(third.managed, 'alice')).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('a field an updater set is not removed by an applier that never owned it', () => {
    const first = apply({}, obj({ replicas: 1 }), new Map(), 'alice');
    const m = updateManaged(first.object, obj({ replicas: 1, paused: true }), first.managed, { manager: 'kubectl-edit', apiVersion: 'v1' }, ctx());
    const second = apply(obj({ replicas: 1, paused: true }), obj({ replicas: 3 }), m, 'alice');
    expect(second.object.spec).toEqual({ replicas: 3, paused: true });
  });

  it('map-list items: removed when no longer applied; a granular set item likewise', () => {
    const first = apply({}, obj({ cidrs: ['x', 'y'], containers: [{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }] }), new Map(), 'alice');
    const second = apply(first.object, obj({ cidrs: ['x'], containers: [{ name: 'a', image: 'a' }] }), first.managed, 'alice');
    expect(second.object.spec).toEqual({ cidrs: ['x'], containers: [{ name: 'a', image: 'a' }] });
  });

  it('map-list items owned by two appliers: each owns its own item', () => {
    const first = apply({}, obj({ containers: [{ name: 'a', image: 'a' }] }), new Map(), 'alice');
    const second = apply(first.object, obj({ containers: [{ name: 'b', image: 'b' }] }), first.managed, 'bob');
    expect((second.object.spec as any).containers.map((c: any) => c.name)).toEqual(['a', 'b']);
    const conflict = () => apply(second.object, obj({ containers: [{ name: 'b', image: 'c' }] }), second.managed, 'alice');
    expect(conflict).toThrow('conflict with "bob": .spec.containers[name="b"].image');
  });

  it('atomic lists are owned whole: a different list conflicts', () => {
    const first = apply({}, obj({ args: ['a'] }), new Map(), 'alice');
    expect(() => apply(first.object, obj({ args: ['a', 'b'] }), first.managed, 'bob')).toThrow('conflict with "alice": .spec.args');
  });

  it('atomic maps are owned whole', () => {
    const first = apply({}, obj({ selector: { matchLabels: { a: '1' } } }), new Map(), 'alice');
    expect(fieldsOf(first.managed, 'alice')).toEqual({ 'f:spec': { 'f:selector': {} } });
    const second = apply(first.object, obj({}), first.managed, 'alice');
    expect(second.object.spec).toEqual({});
  });

  it('nested maps: removal stops at what others own', () => {
    const first = apply({}, obj({ template: { a: 1, b: { c: 1 } } }), new Map(), 'alice');
    const other = apply(first.object, obj({ template: { b: { d: 2 } } }), first.managed, 'bob');
    const third = apply(other.object, obj({}), other.managed, 'alice');
    expect(third.object.spec).toEqual({ template: { b: { d: 2 } } });
  });

  it('keyed ports default their protocol key', () => {
    const live = obj({ containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] });
    const merged = merge(live, obj({ containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] }), schema);
    expect((merged.spec as any).containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http', hostPort: 8080 }]);
  });

  it('an apply that changes nothing returns the live object and keeps the time', () => {
    const first = apply({}, obj({ replicas: 1 }), new Map(), 'alice');
    const second = apply(first.object, obj({ replicas: 1 }), first.managed, 'alice', false, '2030-01-01T00:00:00Z');
    expect(second.object).toBe(first.object);
    expect(encodeManaged(second.managed)).toEqual(encodeManaged(first.managed));
  });

  it('fields set before the first apply belong to before-first-apply', () => {
    const r = applyManaged(obj({ replicas: 1 }), obj({ replicas: 1, paused: true }), new Map(), { manager: 'bob', apiVersion: 'v1' }, false, ctx());
    expect(managers(r.managed)).toEqual(['before-first-apply/Update', 'bob/Apply']);
    expect(() => applyManaged(obj({ replicas: 1 }), obj({ replicas: 2 }), new Map(), { manager: 'bob', apiVersion: 'v1' }, false, ctx())).toThrow('conflict with "before-first-apply" using v1');
  });

  it('kubectl after client-side apply: conflicts over fields of its last-applied configuration are its own, and the annotation follows', () => {
    const lastApplied = JSON.stringify(obj({ replicas: 1 }));
    const annotations = { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied };
    const live = obj({ replicas: 1 }, { annotations });
    const m = updateManaged(undefined, live, new Map(), { manager: 'kubectl-client-side-apply', apiVersion: 'v1' }, ctx());
    const r = applyManaged(live, obj({ replicas: 2 }), m, { manager: 'kubectl', apiVersion: 'v1' }, false, ctx());
    expect(r.object.spec).toEqual({ replicas: 2 });
    expect(JSON.parse((r.object.metadata as any).annotations['kubectl.kubernetes.io/last-applied-configuration']).spec).toEqual({ replicas: 2 });
    expect(() => applyManaged(live, obj({ replicas: 2 }), m, { manager: 'someone', apiVersion: 'v1' }, false, ctx())).toThrow('conflict with "kubectl-client-side-apply" using v1');
  });

  it('reads managedFields back, merging entries of one manager, and sorts Apply first', () => {
    const entries = [
      { manager: 'b', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:a': {} } } },
      { manager: 'a', operation: 'Apply', apiVersion: 'v1', time: '2026-01-02T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:b': {} } } },
    ];
    expect(encodeManaged(decodeManaged(entries)).map((e) => e.manager)).toEqual(['a', 'b']);
    expect(() => decodeManaged([{ manager: 'x', operation: 'Bogus', fieldsType: 'FieldsV1', fieldsV1: {} }])).toThrow();
  });
});
