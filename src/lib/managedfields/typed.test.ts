// compare's two shortcuts against what they stand for: lists whose items
// line up are compared item by item (no item indexed, no path element made
// for an unchanged item), and the endpoint's reset fields are left out of the
// walk. Each must give exactly the comparison of indexing every list and
// then removing the reset fields from all three sets (upstream's
// ExcludeFields), on a Pod's real schema, over many random writes. And
// a create's entry written straight from the object (createdEntries) is the
// one the comparison with an empty object gives, encoded.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { podKind } from '../../kinds/pod.ts';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { eventKind } from '../../kinds/events.ts';
import { nodeKind } from '../../kinds/node.ts';
import { patchMetaFor } from '../../kinds/patchmeta.ts';
import { clone, deepEqual } from '../json.ts';
import { FieldSet, fieldPE, type PathElement } from './fieldset.ts';
import { createdEntries, encodeManaged, updateManaged, type FieldManagerContext } from './managers.ts';
import { compare, itemPE, listTypeOf, TypedError, type ApplyField, type ApplySchema, type Comparison } from './typed.ts';

type JSONMap = Record<string, any>;
const schema = patchMetaFor(podKind) as ApplySchema;

/** The comparison by definition: every granular list indexed by its items' path elements, nothing left out. */
function reference(l: JSONMap, r: JSONMap): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);
  const field = (m: ApplyField | undefined, k: string) => (m?.fields && Object.hasOwn(m.fields, k) ? m.fields[k] : undefined);
  const all = (v: unknown, m: ApplyField | undefined, path: PathElement[], into: FieldSet) => {
    into.insert(path);
    if (isMap(v) && m?.mapType !== 'atomic') for (const k in v) all(v[k], field(m, k), [...path, fieldPE(k)], into);
    else if (Array.isArray(v) && listTypeOf(m) !== 'atomic') {
      for (const item of v) all(item, listTypeOf(m) === 'map' ? { fields: m?.fields } : undefined, [...path, itemPE(m, item, () => '')], into);
    }
  };
  const value = (a: unknown, b: unknown, m: ApplyField | undefined, path: PathElement[]) => {
    if (a === undefined) return all(b, m, path, c.added);
    if (b === undefined) return all(a, m, path, c.removed);
    if (isMap(a) && isMap(b) && m?.mapType !== 'atomic' && (Object.keys(a).length || Object.keys(b).length)) return maps(a, b, m, path);
    if (Array.isArray(a) && Array.isArray(b) && listTypeOf(m) !== 'atomic' && (a.length || b.length)) {
      const im = listTypeOf(m) === 'map' ? { fields: m?.fields } : undefined;
      const index = (items: unknown[]) => {
        const out = new Map<PathElement, unknown>();
        for (const item of items) if (!out.has(itemPE(m, item, () => ''))) out.set(itemPE(m, item, () => ''), item);
        return out;
      };
      const ai = index(a);
      const bi = index(b);
      for (const [pe, item] of ai) value(item, bi.get(pe), im, [...path, pe]);
      for (const [pe, item] of bi) if (!ai.has(pe)) value(undefined, item, im, [...path, pe]);
      return;
    }
    if (!deepEqual(a, b)) c.modified.insert(path);
  };
  const maps = (a: JSONMap, b: JSONMap, m: ApplyField | undefined, path: PathElement[]) => {
    for (const k in a) value(a[k], Object.hasOwn(b, k) ? b[k] : undefined, field(m, k), [...path, fieldPE(k)]);
    for (const k in b) if (!Object.hasOwn(a, k)) value(undefined, b[k], field(m, k), [...path, fieldPE(k)]);
  };
  maps(l, r, { fields: schema }, []);
  return c;
}

const same = (a: FieldSet, b: FieldSet) => expect(JSON.stringify(a.toFieldsV1())).toBe(JSON.stringify(b.toFieldsV1()));

/** A small random generator, seeded, so that a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const pod: JSONMap = JSON.parse(readFileSync(new URL('../../kinds/testdata/pod.json', import.meta.url), 'utf8'));

/** One random write to a copy of `base`: a leaf changed, an item added, removed, moved or repeated, a map emptied, a field dropped or put back. */
function write(base: JSONMap, random: () => number): JSONMap {
  const next = clone(base);
  next.status ??= {};
  const c1 = next.spec.containers[1] ?? next.spec.containers[0];
  const lists = [next.spec.containers, next.spec.containers[0].ports, c1.env, c1.ports, next.status.conditions, next.status.containerStatuses, next.spec.tolerations, next.metadata.ownerReferences, next.metadata.finalizers].filter(Array.isArray) as unknown[][];
  const edits = 1 + Math.floor(random() * 3);
  let dropStatus = false;
  for (let e = 0; e < edits; e++) {
    const list = lists[Math.floor(random() * lists.length)];
    const i = Math.floor(random() * list.length);
    switch (Math.floor(random() * 10)) {
      case 0: // a leaf inside an item
        if (typeof list[i] === 'object' && list[i]) (list[i] as JSONMap).changed = `v${Math.floor(random() * 3)}`;
        else if (list.length) list[i] = `x${Math.floor(random() * 3)}`;
        break;
      case 1: {
        if (!list.length) break;
        list.push(clone(list[i]));
        const item = list.at(-1);
        if (typeof item === 'object' && item) for (const k of ['name', 'type', 'uid', 'containerPort']) if (k in item) (item as JSONMap)[k] = typeof (item as JSONMap)[k] === 'number' ? (item as JSONMap)[k] + 1000 : `${(item as JSONMap)[k]}-more`;
        break;
      }
      case 2:
        list.splice(i, 1);
        break;
      case 3:
        list.reverse();
        break;
      case 4: // a repeated key: the first item counts, as upstream
        if (list.length) list.splice(i, 0, clone(list[0]));
        break;
      case 5:
        next.status.phase = random() < 0.5 ? 'Running' : 'Pending';
        break;
      case 6:
        delete next.spec.containers[0].resources;
        break;
      case 7: // conditions gone, or back
        if (next.status.conditions) delete next.status.conditions;
        else next.status.conditions = clone(pod.status.conditions);
        break;
      case 8:
        dropStatus = random() < 0.3;
        break;
      default:
        next.metadata.labels = random() < 0.5 ? {} : { ...next.metadata.labels, extra: 'yes' };
    }
  }
  if (dropStatus) delete next.status;
  return next;
}

describe('compare', () => {
  it('gives the comparison of indexing every list, for random writes to a Pod', () => {
    const random = rng(14);
    for (let n = 0; n < 600; n++) {
      // Both sides written, so that both may repeat a key or miss a field.
      const base = n % 2 ? write(pod, random) : pod;
      const next = write(base, random);
      for (const [l, r] of [[base, next], [next, base]]) {
        const got = compare(l, r, schema);
        const want = reference(l, r);
        same(got.added, want.added.pruned());
        same(got.modified, want.modified.pruned());
        same(got.removed, want.removed.pruned());
      }
    }
  });

  it('leaves the reset fields out of all three sets, as ExcludeFields does, without walking them', () => {
    const random = rng(27);
    const resets = [
      FieldSet.of(['f:spec']),
      FieldSet.of(['f:status']),
      FieldSet.of(['f:spec'], ['f:metadata', 'f:ownerReferences']),
      FieldSet.of(['f:status', 'f:conditions']),
      FieldSet.of(['f:status', 'f:conditions', 'k:{"type":"Ready"}'], ['f:spec', 'f:containers', 'k:{"name":"sidecar"}', 'f:env']),
    ];
    for (let n = 0; n < 300; n++) {
      const base = n % 2 ? write(pod, random) : pod;
      const next = write(base, random);
      for (const ignored of resets) {
        const got = compare(base, next, schema, ignored);
        const all = reference(base, next);
        same(got.added, all.added.recursiveDifference(ignored).pruned());
        same(got.modified, all.modified.recursiveDifference(ignored).pruned());
        same(got.removed, all.removed.recursiveDifference(ignored).pruned());
      }
    }
    // A status write that drops a spec field takes it from no one: removed is filtered as changes are.
    const dropped = clone(pod);
    delete dropped.spec.containers[0].resources;
    dropped.status.phase = 'Succeeded';
    const c = compare(pod, dropped, schema, FieldSet.of(['f:spec']));
    expect(c.removed.empty()).toBe(true);
    expect(c.modified.paths()).toEqual([['f:status', 'f:phase']]);
  });

  it('makes no path element for an item that did not change', () => {
    const next = clone(pod);
    next.status.conditions[1].status = 'False';
    const c = compare(pod, next, schema);
    const type = next.status.conditions[1].type;
    expect(c.modified.paths()).toEqual([['f:status', 'f:conditions', `k:{"type":${JSON.stringify(type)}}`, 'f:status']]);
    expect(c.added.empty() && c.removed.empty()).toBe(true);
    expect(deepEqual(compare(pod, clone(pod), schema).modified.toFieldsV1(), {})).toBe(true);
  });

  it('counts the first of items that repeat a key, as upstream, though both sides line up', () => {
    const repeated = clone(pod);
    repeated.status.conditions.push({ ...repeated.status.conditions[0], status: 'Unknown' });
    const next = clone(repeated);
    next.status.conditions.at(-1).status = 'False';
    const c = compare(repeated, next, schema);
    expect(c.modified.empty() && c.added.empty() && c.removed.empty()).toBe(true);
    next.status.conditions[0].status = 'Unknown';
    expect(compare(repeated, next, schema).modified.paths()).toEqual([['f:status', 'f:conditions', itemPE({ strategy: 'merge', key: 'type' }, pod.status.conditions[0], () => ''), 'f:status']]);
  });
});

describe('createdEntries', () => {
  const writer = { manager: 'kubelet', apiVersion: 'v1' };
  const now = '2026-12-04T10:00:00Z';
  /** What `f` gives, or 'TypedError' when it throws one (both ways must refuse the same objects). */
  const orTypedError = <T,>(f: () => T): T | 'TypedError' => {
    try {
      return f();
    } catch (e) {
      if (e instanceof TypedError) return 'TypedError';
      throw e;
    }
  };
  /** What a create's entries are by definition: the comparison with an empty object (updateManaged), encoded. */
  const byComparison = (next: JSONMap, ctx: FieldManagerContext) => orTypedError(() => encodeManaged(updateManaged(undefined, next, new Map(), writer, ctx)));
  const written = (next: JSONMap, ctx: FieldManagerContext) => orTypedError(() => createdEntries(next, writer, ctx));
  /** Checks `next` under each reset set; counts the creates it could not write itself (a repeated item). */
  const check = (next: JSONMap, schema: ApplySchema, resets: FieldSet[], tally: { written: number; passed: number }) => {
    for (const ignored of resets) {
      const ctx = { schema, ignored, now };
      const got = written(next, ctx);
      if (got === undefined) {
        tally.passed++;
        continue;
      }
      tally.written++;
      // Byte for byte: entries are stored and compared as text.
      expect(JSON.stringify(got)).toBe(JSON.stringify(byComparison(next, ctx)));
    }
  };
  const resets = [new FieldSet(), FieldSet.of(['f:status']), FieldSet.of(['f:spec']), FieldSet.of(['f:status', 'f:conditions'], ['f:spec', 'f:containers', 'k:{"name":"sidecar"}', 'f:env'])];

  it('is the comparison with an empty object, for random Pods', () => {
    const random = rng(41);
    const tally = { written: 0, passed: 0 };
    for (let n = 0; n < 600; n++) {
      const next = write(n % 3 ? write(pod, random) : pod, random);
      if (n % 7 === 0) next.metadata = { ...next.metadata, managedFields: undefined, uid: 'u', resourceVersion: '5', generation: 2, creationTimestamp: now };
      if (n % 11 === 0) next.spec = {};
      if (n % 13 === 0) next.status = { conditions: [{ status: 'True' }] }; // an item without its key: a TypedError both ways
      check(next, schema, resets, tally);
    }
    // Both kinds of create came up: most written directly, some (an item repeated) left to the comparison.
    expect(tally.written).toBeGreaterThan(1500);
    expect(tally.passed).toBeGreaterThan(0);
  });

  it('is the comparison with an empty object for DaemonSets (embedded template), Nodes and Events', () => {
    const dsSchema = patchMetaFor(daemonSetKind) as ApplySchema;
    const dir = new URL('../../kinds/testdata/daemonsets/', import.meta.url);
    const corpus = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(new URL(f, dir), 'utf8')) as JSONMap);
    const random = rng(5);
    const tally = { written: 0, passed: 0 };
    const dsEdits: ((d: JSONMap) => void)[] = [
      () => {},
      (d) => (d.spec.template.metadata = {}),
      (d) => delete d.spec.template.metadata,
      (d) => (d.spec.template.spec = {}),
      (d) => (d.spec.updateStrategy = {}),
      (d) => (d.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }),
      (d) => (d.spec.selector = { matchLabels: {} }),
      (d) => (d.metadata.labels = {}),
      (d) => d.spec.template.spec.containers && (d.spec.template.spec.containers = [...d.spec.template.spec.containers, clone(d.spec.template.spec.containers[0])]),
      (d) => (d.status = { numberReady: 3, conditions: [] }),
    ];
    for (const ds of corpus) {
      for (let n = 0; n < 40; n++) {
        const next = clone(ds);
        for (let e = 0; e < 3; e++) dsEdits[Math.floor(random() * dsEdits.length)](next);
        check(next, dsSchema, resets, tally);
      }
    }
    const node: JSONMap = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      spec: { podCIDR: '10.0.1.0/24', taints: [{ key: 'a', effect: 'NoSchedule' }] },
      status: {
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'node-1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: { kubeletVersion: 'v1.32.0', architecture: 'amd64' },
        conditions: [{ type: 'Ready', status: 'True' }],
        capacity: { cpu: '4' },
      },
    };
    for (const edit of [() => {}, (n: JSONMap) => (n.status.daemonEndpoints = {}), (n: JSONMap) => (n.status.daemonEndpoints.kubeletEndpoint = {}), (n: JSONMap) => (n.status.nodeInfo = {}), (n: JSONMap) => (n.spec = {})]) {
      const next = clone(node);
      edit(next);
      check(next, patchMetaFor(nodeKind) as ApplySchema, resets, tally);
    }
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'p.187d8e8a1b2c3d4e', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', uid: '1ca8', apiVersion: 'v1', fieldPath: 'spec.containers{c}' },
      reason: 'Pulled',
      message: 'Successfully pulled image',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: now,
      count: 1,
      type: 'Normal',
    };
    check(event, patchMetaFor(eventKind) as ApplySchema, resets, tally);
    check({ ...event, source: {} }, patchMetaFor(eventKind) as ApplySchema, resets, tally);
    expect(tally.written).toBeGreaterThan(800);
  });

  it('is the comparison with an empty object for atomic maps where a struct is compared with an empty one', () => {
    // No kind of ours has these, but a schema may: a top-level struct or an embedded one applied as one value.
    const synthetic: ApplySchema = {
      spec: { mapType: 'atomic', fields: { a: {} } },
      status: { fields: { inner: { embedded: true, mapType: 'atomic' }, plain: { embedded: true, fields: { x: {} } }, list: { strategy: 'merge', key: 'name' } } },
    };
    const tally = { written: 0, passed: 0 };
    for (const next of [
      { spec: { a: 1, b: { c: 2 } }, status: { inner: { x: 1 }, plain: { x: 1, y: {} }, list: [{ name: 'n', v: 1 }] } },
      { spec: {}, status: { inner: {}, plain: {}, list: [] } },
      { spec: { a: null }, status: { inner: { x: { y: 1 } }, plain: { x: [1] } } },
    ]) {
      check(next, synthetic, [new FieldSet(), FieldSet.of(['f:status', 'f:inner'])], tally);
    }
    expect(tally.written).toBe(6);
  });

  it("owns an Event's involvedObject whole, as upstream (ObjectReference is +structType=atomic)", () => {
    const ctx = { schema: patchMetaFor(eventKind) as ApplySchema, ignored: new FieldSet(), now };
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'p.1', namespace: 'd' }, involvedObject: { kind: 'Pod', name: 'p', uid: 'u' }, reason: 'Pulled', source: { component: 'kubelet' } };
    const [entry] = createdEntries(event, { manager: 'kube-scheduler', apiVersion: 'v1' }, ctx)!;
    expect(entry.fieldsV1).toEqual({ 'f:involvedObject': {}, 'f:reason': {}, 'f:source': { '.': {}, 'f:component': {} } });
  });

  it('owns nothing of an object that holds only what nobody owns', () => {
    const ctx = { schema, ignored: FieldSet.of(['f:status']), now };
    expect(createdEntries({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' }, status: { phase: 'Running' } }, writer, ctx)).toEqual([]);
    expect(byComparison({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' }, status: { phase: 'Running' } }, ctx)).toEqual([]);
  });
});
