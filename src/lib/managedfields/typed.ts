// Objects seen through their apply schema, as structured-merge-diff's typed
// package sees them: the fields an object holds (toFieldSet), what changed
// between two objects (compare), the apply merge (merge) and the removal of
// fields (removeItems). The schema is the kinds' patch metadata: list types
// (atomic, set, map with keys) and maps or structs applied as one value.
import { deepEqual } from '../json.ts';
import type { PatchField } from '../patch/strategicmerge.ts';
import { FieldSet, fieldPE, type PathElement } from './fieldset.ts';

/** What server-side apply knows of a field (the kinds' FieldMeta has this shape). */
export interface ApplyField extends PatchField {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic';
  fields?: { readonly [field: string]: ApplyField };
}

export type ApplySchema = { readonly [field: string]: ApplyField };

/** The error of an object the schema cannot describe (an item of a keyed list without its key). */
export class TypedError extends Error {}

/**
 * Defaults of list-map keys the API declares (`protocol` of ports is TCP):
 * an applied port without a protocol is the same item as the stored one.
 */
const KEY_DEFAULTS: Readonly<Record<string, unknown>> = { protocol: 'TCP' };

type JSONMap = Record<string, unknown>;
const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

export function listTypeOf(m: ApplyField | undefined): 'atomic' | 'set' | 'map' {
  if (m?.listType) return m.listType;
  if (m?.strategy === 'merge' || m?.strategy === 'merge,retainKeys') return m.key ? 'map' : 'set';
  return 'atomic';
}

const keysOf = (m: ApplyField | undefined): string[] => m?.listMapKeys ?? (m?.key ? [m.key] : []);

/** The item's schema: a map-list item is a struct with the list's fields. */
const itemSchema = (m: ApplyField | undefined): ApplyField => ({ fields: m?.fields });

/** The path element of a list item, or a TypedError. */
export function itemPE(m: ApplyField | undefined, item: unknown, path: () => string): PathElement {
  if (listTypeOf(m) === 'set') return `v:${JSON.stringify(item)}`;
  if (!isMap(item)) throw new TypedError(`${path()}: expected a map item in an associative list`);
  const key: JSONMap = {};
  for (const k of [...keysOf(m)].sort()) {
    const v = item[k] ?? KEY_DEFAULTS[k];
    if (v === undefined) throw new TypedError(`${path()}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

const granularMap = (v: unknown, m: ApplyField | undefined): v is JSONMap => isMap(v) && m?.mapType !== 'atomic';
const granularList = (v: unknown, m: ApplyField | undefined): v is unknown[] => Array.isArray(v) && listTypeOf(m) !== 'atomic';

/** The fields `value` holds (ToFieldSet): leaves, atomic values, list items, empty maps. */
export function toFieldSet(value: JSONMap, schema: ApplySchema): FieldSet {
  const set = new FieldSet();
  walkMap(value, { fields: schema }, [], set);
  return set;
}

function walkMap(v: JSONMap, m: ApplyField | undefined, path: PathElement[], set: FieldSet) {
  for (const [k, child] of Object.entries(v)) {
    if (child === undefined) continue;
    const cm = m?.fields?.[k];
    const p = [...path, fieldPE(k)];
    walk(child, cm, p, set);
    if (child === null || (isMap(child) && !Object.keys(child).length)) set.insert(p);
  }
}

function walk(v: unknown, m: ApplyField | undefined, path: PathElement[], set: FieldSet) {
  if (granularMap(v, m)) return walkMap(v, m, path, set);
  if (granularList(v, m)) {
    v.forEach((item, i) => {
      const p = [...path, itemPE(m, item, () => `${path.join('.')}: element ${i}`)];
      set.insert(p);
      if (listTypeOf(m) === 'map' && isMap(item)) walkMap(item, itemSchema(m), p, set);
    });
    return;
  }
  set.insert(path);
}

/** Every node of a value: what a comparison reports when the value appears or goes. */
function allNodes(v: unknown, m: ApplyField | undefined, path: PathElement[], set: FieldSet) {
  if (path.length) set.insert(path);
  if (granularMap(v, m)) {
    for (const [k, child] of Object.entries(v)) if (child !== undefined) allNodes(child, m?.fields?.[k], [...path, fieldPE(k)], set);
  } else if (granularList(v, m)) {
    v.forEach((item, i) => allNodes(item, listTypeOf(m) === 'map' ? itemSchema(m) : undefined, [...path, itemPE(m, item, () => `element ${i}`)], set));
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs` (typed.Compare). */
export function compare(lhs: JSONMap, rhs: JSONMap, schema: ApplySchema): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareValue(lhs, rhs, { fields: schema }, [], c);
  return c;
}

function compareValue(l: unknown, r: unknown, m: ApplyField | undefined, path: PathElement[], c: Comparison) {
  if (l === undefined) return allNodes(r, m, path, c.added);
  if (r === undefined) return allNodes(l, m, path, c.removed);
  if (granularMap(l, m) && granularMap(r, m) && (Object.keys(l).length || Object.keys(r).length)) {
    for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) compareValue(l[k], r[k], m?.fields?.[k], [...path, fieldPE(k)], c);
    return;
  }
  if (granularList(l, m) && granularList(r, m) && (l.length || r.length)) {
    const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
    const li = indexItems(l, m, path);
    const ri = indexItems(r, m, path);
    for (const pe of new Set([...li.keys(), ...ri.keys()])) compareValue(li.get(pe), ri.get(pe), im, [...path, pe], c);
    return;
  }
  if (!deepEqual(l, r) && path.length) c.modified.insert(path);
}

function indexItems(items: unknown[], m: ApplyField | undefined, path: PathElement[]): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  items.forEach((item, i) => {
    const pe = itemPE(m, item, () => `${path.join('.')}: element ${i}`);
    // A duplicated key (allowed in stored objects) counts once, as its first item.
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}

/** The applied configuration merged into the live object (typed.Merge): config wins, lists by their type. */
export function merge(live: JSONMap, config: JSONMap, schema: ApplySchema): JSONMap {
  return mergeValue(live, config, { fields: schema }, []) as JSONMap;
}

function mergeValue(l: unknown, r: unknown, m: ApplyField | undefined, path: PathElement[]): unknown {
  if (r === undefined) return l;
  if (l === undefined) return r;
  if (granularMap(l, m) && granularMap(r, m)) {
    const out: JSONMap = {};
    for (const k of Object.keys(l)) out[k] = k in r ? mergeValue(l[k], r[k], m?.fields?.[k], [...path, fieldPE(k)]) : l[k];
    for (const k of Object.keys(r)) if (!(k in l)) out[k] = r[k];
    return out;
  }
  if (granularList(l, m) && granularList(r, m)) return mergeList(l, r, m, path);
  return r;
}

/**
 * Items of both lists, merged by path element, in the order structured-merge-diff
 * gives (mergingWalker.visitListItems): the config's order for the items it
 * names, live items it does not name kept where they were.
 */
function mergeList(lhs: unknown[], rhs: unknown[], m: ApplyField | undefined, path: PathElement[]): unknown[] {
  const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
  const pe = (item: unknown, i: number) => itemPE(m, item, () => `${path.join('.')}: element ${i}`);
  const lPEs = lhs.map(pe);
  const rPEs = rhs.map(pe);
  const observedL = new Map<PathElement, unknown>();
  lPEs.forEach((p, i) => observedL.has(p) || observedL.set(p, lhs[i]));
  const observedR = new Map<PathElement, unknown>();
  rPEs.forEach((p, i) => observedR.has(p) || observedR.set(p, rhs[i]));
  const shared = rPEs.filter((p) => observedL.has(p));
  let nextShared = shared.shift();
  const mergedR = new Set<PathElement>();
  const out: unknown[] = [];
  const mergeItem = (p: PathElement, l: unknown, r: unknown) => out.push(mergeValue(l, r, im, [...path, p]));
  for (let li = 0, ri = 0; li < lPEs.length || ri < rPEs.length; ) {
    if (li < lPEs.length && ri < rPEs.length) {
      const p = lPEs[li];
      if (p === rPEs[ri]) {
        mergedR.add(p);
        mergeItem(p, observedL.get(p), observedR.get(p));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (observedR.has(p) && nextShared !== undefined && nextShared !== p) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length) {
      const p = lPEs[li];
      if (!observedR.has(p)) {
        mergeItem(p, lhs[li], undefined);
        li++;
        continue;
      }
      if (mergedR.has(p)) {
        li++;
        continue;
      }
    }
    if (ri < rPEs.length) {
      const p = rPEs[ri];
      mergedR.add(p);
      mergeItem(p, observedL.get(p), observedR.get(p));
      ri++;
      if (nextShared === p) nextShared = shared.shift();
    }
  }
  return out;
}

/** `value` without the paths of `set` (a member removes its whole subtree). */
export function removeItems(value: JSONMap, set: FieldSet, schema: ApplySchema): JSONMap {
  return removeFrom(value, set, { fields: schema }) as JSONMap;
}

function removeFrom(v: unknown, set: FieldSet, m: ApplyField | undefined): unknown {
  if (granularMap(v, m)) {
    const out: JSONMap = {};
    for (const [k, child] of Object.entries(v)) {
      const pe = fieldPE(k);
      if (set.members.has(pe)) continue;
      const sub = set.children.get(pe);
      out[k] = sub ? removeFrom(child, sub, m?.fields?.[k]) : child;
    }
    return out;
  }
  if (granularList(v, m)) {
    const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
    const out: unknown[] = [];
    v.forEach((item, i) => {
      const pe = itemPE(m, item, () => `element ${i}`);
      if (set.members.has(pe)) return;
      const sub = set.children.get(pe);
      out.push(sub ? removeFrom(item, sub, im) : item);
    });
    return out;
  }
  return v;
}
