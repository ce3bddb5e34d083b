// Objects seen through their apply schema, as structured-merge-diff's typed
// package sees them: the fields an object holds (toFieldSet), what changed
// between two objects (compare), the apply merge (merge) and the removal of
// fields (removeItems). The schema is the kinds' patch metadata: list types
// (atomic, set, map with keys) and maps or structs applied as one value.
import { deepEqual } from '../json.ts';
import type { PatchField } from '../patch/strategicmerge.ts';
import { comparePathElements, FieldSet, fieldPE, type FieldsV1, type PathElement } from './fieldset.ts';

/** What server-side apply knows of a field (the kinds' FieldMeta has this shape). */
export interface ApplyField extends PatchField {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic';
  /**
   * A struct held by value in the Go type (not a pointer): Go always has it,
   * if only empty, so its appearing or going in our JSON is no change of its
   * own, only its fields' (no `.` is recorded for it).
   */
  embedded?: true;
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

/** The schema of field `k` (keys are data: `constructor` is a field name, not Object's). */
const fieldSchema = (m: ApplyField | undefined, k: string): ApplyField | undefined =>
  m?.fields && Object.hasOwn(m.fields, k) ? m.fields[k] : undefined;
/** The item's schema: a map-list item is a struct with the list's fields. */
const itemSchema = (m: ApplyField | undefined): ApplyField => ({ fields: m?.fields });

/** The path element of a list item, or a TypedError. */
export function itemPE(m: ApplyField | undefined, item: unknown, path: () => string): PathElement {
  if (listTypeOf(m) === 'set') return `v:${JSON.stringify(item)}`;
  if (!isMap(item)) throw new TypedError(`${path()}: expected a map item in an associative list`);
  const keys = sortedKeysOf(m);
  // The JSON of an object of the keys in this order, written piece by piece (an object would put index-like keys first).
  let out = 'k:{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = item[k] ?? KEY_DEFAULTS[k];
    if (v === undefined) throw new TypedError(`${path()}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
    out += `${i ? ',' : ''}${JSON.stringify(k)}:${JSON.stringify(v)}`;
  }
  return out + '}';
}

/** A list's keys in the order its path elements name them, made once per schema node (schemas are built once per kind). */
const sortedKeys = new WeakMap<ApplyField, string[]>();
const NO_KEYS: string[] = [];
function sortedKeysOf(m: ApplyField | undefined): string[] {
  if (!m) return NO_KEYS;
  let keys = sortedKeys.get(m);
  if (!keys) {
    const own = [...keysOf(m)].sort();
    // Index-like names would come first in an object: kept in the object's order then.
    if (own.some((k) => /^(0|[1-9]\d*)$/.test(k))) keys = Object.keys(Object.fromEntries(own.map((k) => [k, 0])));
    else keys = own;
    sortedKeys.set(m, keys);
  }
  return keys;
}

const granularMap = (v: unknown, m: ApplyField | undefined): v is JSONMap => isMap(v) && m?.mapType !== 'atomic';
const granularList = (v: unknown, m: ApplyField | undefined): v is unknown[] => Array.isArray(v) && listTypeOf(m) !== 'atomic';

/** The fields `value` holds (ToFieldSet): leaves, atomic values, list items, empty maps. */
export function toFieldSet(value: JSONMap, schema: ApplySchema): FieldSet {
  const set = new FieldSet();
  walkMap(value, { fields: schema }, set);
  return set.pruned();
}

// The walks below fill the set of their own level (`at`): a path element is a
// member there, and what lies below it goes into `at.child(pe)`.

function walkMap(v: JSONMap, m: ApplyField | undefined, at: FieldSet) {
  for (const k in v) {
    const child = v[k];
    if (child === undefined) continue;
    const pe = fieldPE(k);
    if (!walk(child, fieldSchema(m, k), pe, at) || child === null || (isMap(child) && isEmpty(child))) at.members.add(pe);
  }
}

/** Walks a value at `pe` below `at`; returns false when the value is a leaf (the caller makes it a member). */
function walk(v: unknown, m: ApplyField | undefined, pe: PathElement, at: FieldSet): boolean {
  if (granularMap(v, m)) {
    walkMap(v, m, at.child(pe));
    return true;
  }
  if (granularList(v, m)) {
    const below = at.child(pe);
    const map = listTypeOf(m) === 'map';
    const im = map ? itemSchema(m) : undefined;
    v.forEach((item, i) => {
      const ipe = itemPE(m, item, () => `${pe}: element ${i}`);
      below.members.add(ipe);
      if (map && isMap(item)) walkMap(item, im, below.child(ipe));
    });
    return true;
  }
  return false;
}

const isEmpty = (o: JSONMap) => {
  for (const _ in o) return false;
  return true;
};

/** Every node of a value below `at` (but those in `ignored`, as compare leaves them): what a comparison reports when the value appears or goes. */
function allNodes(v: unknown, m: ApplyField | undefined, pe: PathElement, at: FieldSet, ignored?: FieldSet) {
  at.members.add(pe);
  if (granularMap(v, m)) {
    const below = at.child(pe);
    for (const k in v) {
      if (v[k] === undefined) continue;
      const kpe = fieldPE(k);
      const under = ignoredBelow(ignored, kpe);
      if (under !== null) allNodes(v[k], fieldSchema(m, k), kpe, below, under);
    }
  } else if (granularList(v, m)) {
    const below = at.child(pe);
    const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
    v.forEach((item, i) => {
      const ipe = itemPE(m, item, () => `element ${i}`);
      const under = ignoredBelow(ignored, ipe);
      if (under !== null) allNodes(item, im, ipe, below, under);
    });
  }
}

/** The ignored fields below `pe`, or null when `pe` itself is ignored (left out whole). */
const ignoredBelow = (ignored: FieldSet | undefined, pe: PathElement): FieldSet | undefined | null => (ignored?.members.has(pe) ? null : ignored?.children.get(pe));

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs` (typed.Compare), without the fields in
 * `ignored` or below its members: the comparison upstream's Updater takes
 * with the endpoint's reset fields excluded from all three sets
 * (ExcludeFields). They are not compared at all: a status write does not
 * walk the spec it cannot change.
 */
export function compare(lhs: JSONMap, rhs: JSONMap, schema: ApplySchema, ignored?: FieldSet): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareMaps(lhs, rhs, { fields: schema }, c, ignored?.empty() ? undefined : ignored);
  c.added.pruned();
  c.modified.pruned();
  c.removed.pruned();
  return c;
}

function compareMaps(l: JSONMap, r: JSONMap, m: ApplyField | undefined, at: Comparison, ignored: FieldSet | undefined) {
  for (const k in l) {
    const pe = fieldPE(k);
    const under = ignoredBelow(ignored, pe);
    if (under !== null) compareValue(l[k], Object.hasOwn(r, k) ? r[k] : undefined, fieldSchema(m, k), pe, at, under);
  }
  for (const k in r) {
    if (Object.hasOwn(l, k)) continue;
    const pe = fieldPE(k);
    const under = ignoredBelow(ignored, pe);
    if (under !== null) compareValue(undefined, r[k], fieldSchema(m, k), pe, at, under);
  }
}

/**
 * The comparison below `pe`: its sets are made when something is put in
 * them, so that the parts of two objects that are the same (most of a status
 * write's object) leave no sets to be made and pruned. `pe` may be given as
 * a function: a list item's path element, made only when something below the
 * item changed.
 */
class Below implements Comparison {
  private a?: FieldSet;
  private m?: FieldSet;
  private r?: FieldSet;
  constructor(
    private readonly up: Comparison,
    private pe: PathElement | (() => PathElement),
  ) {}
  private at(): PathElement {
    if (typeof this.pe === 'function') this.pe = this.pe();
    return this.pe;
  }
  get added() {
    return (this.a ??= this.up.added.child(this.at()));
  }
  get modified() {
    return (this.m ??= this.up.modified.child(this.at()));
  }
  get removed() {
    return (this.r ??= this.up.removed.child(this.at()));
  }
}

const below = (c: Comparison, pe: PathElement | (() => PathElement)): Comparison => new Below(c, pe);

function compareValue(l: unknown, r: unknown, m: ApplyField | undefined, pe: PathElement, at: Comparison, ignored: FieldSet | undefined) {
  if (l === r) return;
  if (m?.embedded) {
    if (l === undefined && isMap(r)) l = {};
    if (r === undefined && isMap(l)) r = {};
  }
  if (l === undefined) return allNodes(r, m, pe, at.added, ignored);
  if (r === undefined) return allNodes(l, m, pe, at.removed, ignored);
  if (granularMap(l, m) && granularMap(r, m) && !(isEmpty(l) && isEmpty(r))) return compareMaps(l, r, m, below(at, pe), ignored);
  if (granularList(l, m) && granularList(r, m) && (l.length || r.length)) {
    const next = below(at, pe);
    if (!ignored && compareAligned(l, r, m, next)) return;
    const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
    const li = indexItems(l, m, pe);
    const ri = indexItems(r, m, pe);
    for (const [ipe, item] of li) {
      const under = ignoredBelow(ignored, ipe);
      if (under !== null) compareValue(item, ri.get(ipe), im, ipe, next, under);
    }
    for (const [ipe, item] of ri) {
      const under = ignoredBelow(ignored, ipe);
      if (!li.has(ipe) && under !== null) compareValue(undefined, item, im, ipe, next, under);
    }
    return;
  }
  if (!deepEqual(l, r)) at.modified.members.add(pe);
}

/**
 * Lists whose items line up, the common case of a write (the same items in
 * the same order, by their keys), compared item by item without indexing
 * them: no path element is made for an item unless something in it changed.
 * False when they do not line up (items added, removed, moved, keyed by more
 * than one field, a key repeated or missing), for indexItems to compare.
 */
function compareAligned(l: unknown[], r: unknown[], m: ApplyField | undefined, at: Comparison): boolean {
  if (l.length !== r.length) return false;
  if (listTypeOf(m) === 'set') {
    for (let i = 0; i < l.length; i++) if (l[i] !== r[i] && !deepEqual(l[i], r[i])) return false;
    return true;
  }
  const keys = keysOf(m);
  if (keys.length !== 1) return false;
  const key = keys[0];
  const seen = new Set<unknown>();
  for (let i = 0; i < l.length; i++) {
    const li = l[i];
    const ri = r[i];
    if (!isMap(li) || !isMap(ri) || isEmpty(li) || isEmpty(ri)) return false;
    const k = li[key];
    if (k === undefined || k === null || typeof k === 'object' || k !== ri[key] || seen.has(k)) return false;
    seen.add(k);
  }
  const im = itemSchema(m);
  for (let i = 0; i < l.length; i++) {
    const li = l[i] as JSONMap;
    if (li !== r[i]) compareMaps(li, r[i] as JSONMap, im, below(at, () => itemPE(m, li, () => `element ${i}`)), undefined);
  }
  return true;
}

function indexItems(items: unknown[], m: ApplyField | undefined, at: PathElement): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  items.forEach((item, i) => {
    const pe = itemPE(m, item, () => `${at}: element ${i}`);
    // A duplicated key (allowed in stored objects) counts once, as its first item.
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}

/**
 * What a create adds, as FieldsV1 written straight from the object: the
 * added and modified fields of compare(zero, value, schema, ignored) in
 * FieldSet.toFieldsV1's form, without building the sets and encoding them.
 * `zero` holds the top-level members a create compares with an empty map
 * rather than adds whole (managers.ts zeroOf). Undefined when a list
 * repeats an item (its items' fields count together there: only compare
 * tells that); throws TypedError as compare does.
 */
export function createdFieldsV1(value: JSONMap, zero: JSONMap, schema: ApplySchema, ignored?: FieldSet): FieldsV1 | undefined {
  const under = ignored?.empty() ? undefined : ignored;
  try {
    const nodes = fieldsBelow(value, { fields: schema }, under, (v, m, below, k) => (Object.hasOwn(zero, k) ? comparedWithEmpty(v as JSONMap, m, below) : appeared(v, m, below)));
    return nodes ? v1Of(nodes, false) : {};
  } catch (e) {
    if (e === REPEATED) return undefined;
    throw e;
  }
}

const REPEATED = new Error('a list repeats an item');

/** A value where there was none (compareValue from undefined): an embedded struct is compared with an empty one, anything else is all its nodes. */
function appeared(v: unknown, m: ApplyField | undefined, ignored: FieldSet | undefined): FieldsV1 | undefined {
  return m?.embedded && isMap(v) ? comparedWithEmpty(v, m, ignored) : allNodesV1(v, m, ignored);
}

/** A map where an empty one was (compareValue from `{}`): its fields appeared, the map itself is no member; unless it is atomic. */
function comparedWithEmpty(v: JSONMap, m: ApplyField | undefined, ignored: FieldSet | undefined): FieldsV1 | undefined {
  if (granularMap(v, m) && !isEmpty(v)) {
    const below = fieldsBelow(v, m, ignored, appeared);
    return below && v1Of(below, false);
  }
  return isEmpty(v) ? undefined : {};
}

/** allNodes in FieldsV1: the value is a member, with what is below it. */
function allNodesV1(v: unknown, m: ApplyField | undefined, ignored: FieldSet | undefined): FieldsV1 {
  const below = granularMap(v, m) ? fieldsBelow(v, m, ignored, allNodesV1) : granularList(v, m) ? itemsBelow(v, m, ignored) : undefined;
  return below ? v1Of(below, true) : {};
}

/** Path elements and what is below each, in order. */
type Nodes = [PathElement, FieldsV1][];

/** The nodes `each` makes for a map's fields (but the ignored), in path-element order; undefined when none. */
function fieldsBelow(
  v: JSONMap,
  m: ApplyField | undefined,
  ignored: FieldSet | undefined,
  each: (child: unknown, m: ApplyField | undefined, ignored: FieldSet | undefined, k: string) => FieldsV1 | undefined,
): Nodes | undefined {
  let nodes: Nodes | undefined;
  for (const k in v) {
    if (v[k] === undefined) continue;
    const pe = fieldPE(k);
    const under = ignoredBelow(ignored, pe);
    if (under === null) continue;
    const node = each(v[k], fieldSchema(m, k), under, k);
    if (node) (nodes ??= []).push([pe, node]);
  }
  return nodes?.sort(byFieldPE);
}

const byFieldPE = (a: [PathElement, FieldsV1], b: [PathElement, FieldsV1]) => (a[0] < b[0] ? -1 : 1);
const byItemPE = (a: [PathElement, FieldsV1], b: [PathElement, FieldsV1]) => comparePathElements(a[0], b[0]);

/** All nodes of a granular list's items (but the ignored), in path-element order; undefined when none. */
function itemsBelow(v: unknown[], m: ApplyField | undefined, ignored: FieldSet | undefined): Nodes | undefined {
  const im = listTypeOf(m) === 'map' ? itemSchema(m) : undefined;
  let nodes: Nodes | undefined;
  for (let i = 0; i < v.length; i++) {
    const ipe = itemPE(m, v[i], () => `element ${i}`);
    const under = ignoredBelow(ignored, ipe);
    if (under !== null) (nodes ??= []).push([ipe, allNodesV1(v[i], im, under)]);
  }
  if (!nodes) return undefined;
  nodes.sort(byItemPE);
  for (let i = 1; i < nodes.length; i++) if (nodes[i][0] === nodes[i - 1][0]) throw REPEATED;
  return nodes;
}

function v1Of(nodes: Nodes, member: boolean): FieldsV1 {
  const out: FieldsV1 = member ? { '.': {} } : {};
  for (const [pe, node] of nodes) out[pe] = node;
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
    for (const k of Object.keys(l)) out[k] = Object.hasOwn(r, k) ? mergeValue(l[k], r[k], fieldSchema(m, k), [...path, fieldPE(k)]) : l[k];
    for (const k of Object.keys(r)) if (!Object.hasOwn(l, k)) out[k] = r[k];
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
      out[k] = sub ? removeFrom(child, sub, fieldSchema(m, k)) : child;
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

/**
 * The parts of `value` at the paths of `set` (typed.ExtractItems): a member
 * with nothing below it comes whole, one with paths below comes with only
 * those, and an item of a keyed list always keeps its keys, which name it.
 */
export function extractItems(value: JSONMap, set: FieldSet, schema: ApplySchema): JSONMap {
  return extractMap(value, set, { fields: schema });
}

function extractMap(v: JSONMap, set: FieldSet, m: ApplyField | undefined): JSONMap {
  const out: JSONMap = {};
  for (const [k, child] of Object.entries(v)) {
    const pe = fieldPE(k);
    const sub = set.children.get(pe);
    if (sub && !sub.empty()) out[k] = extractValue(child, sub, m?.fields?.[k]);
    else if (set.members.has(pe)) out[k] = child;
  }
  return out;
}

function extractValue(v: unknown, set: FieldSet, m: ApplyField | undefined): unknown {
  if (granularMap(v, m)) return extractMap(v, set, m);
  if (!granularList(v, m)) return v;
  const map = listTypeOf(m) === 'map';
  const out: unknown[] = [];
  v.forEach((item, i) => {
    const pe = itemPE(m, item, () => `element ${i}`);
    const sub = set.children.get(pe);
    if (map && isMap(item) && sub && !sub.empty()) {
      const x = extractMap(item, sub, itemSchema(m));
      for (const key of keysOf(m)) if (item[key] !== undefined) x[key] = item[key];
      out.push(x);
    } else if (set.members.has(pe)) out.push(item);
  });
  return out;
}
