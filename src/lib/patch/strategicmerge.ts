// Strategic merge patch (application/strategic-merge-patch+json), the
// Kubernetes-specific patch kubectl sends for label, annotate, cordon, taint,
// edit, client-side apply and rollout. Like a JSON merge patch, except that
// each field's patch metadata (the `patchStrategy` / `patchMergeKey` struct
// tags of the Go types) decides how its lists combine, and that the patch may
// carry directives:
//
//   {"$patch": "replace" | "delete"}           in a map: replace / remove that map;
//                                              as a merge-list element: replace the
//                                              list / remove the element with that key
//   "$setElementOrder/<list>": [...]            the final order of a merged list
//   "$deleteFromPrimitiveList/<list>": [...]    remove values from a merged scalar list
//   "$retainKeys": [...]                        drop the map's keys not listed
//
// Behaviour follows apimachinery's strategicpatch package (mergeMap and
// mergeSlice with MergeParallelList and IgnoreUnmatchedNulls, as the API
// server applies patches), including its ordering of merged lists.

import { setKey } from './jsonpatch.ts';

/** How a field's value combines with a patch; absent metadata means "merge maps, replace lists". */
export interface PatchField {
  /** `merge` merges lists (by `key` for lists of objects); `replace` replaces maps and lists wholesale. */
  strategy?: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';
  /** The merge key of a list of objects merged element-wise. */
  key?: string;
  /** Metadata of the value's fields (a struct) or of each list element's fields. */
  fields?: PatchSchema;
}

export type PatchSchema = { readonly [field: string]: PatchField };

/** Which HTTP answer an error maps to (apiserver's interpretStrategicMergePatchError). */
export type PatchErrorKind = 'BadRequest' | 'Invalid' | 'Internal';

export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly kind: PatchErrorKind = 'Internal',
  ) {
    super(message);
  }
}

const DIRECTIVE = '$patch';
const SET_ORDER = '$setElementOrder';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList';
const RETAIN_KEYS = '$retainKeys';

const badPrimitiveList = () => new StrategicMergePatchError('invalid patch format of primitive list', 'BadRequest');
const badRetainKeys = () => new StrategicMergePatchError('invalid patch format of retainKeys', 'BadRequest');
const badSetOrder = () => new StrategicMergePatchError('invalid patch format of setElementOrder list', 'BadRequest');

type JSONMap = Record<string, unknown>;

const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's JSON value kinds: what reflect.TypeOf tells apart after json.Unmarshal. */
function typeOf(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  return typeof v === 'object' ? 'map' : typeof v;
}

/** Renders a value as Go's %v does for decoded JSON, for error messages. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isMap(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  return String(v);
}

const noMergeKey = (m: JSONMap, key: string) => new StrategicMergePatchError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
const badPatchType = (t: unknown, m: JSONMap) => new StrategicMergePatchError(`unknown patch type: ${goValue(t)} in map: ${goValue(m)}`);

/** The directive-free key after `prefix/`, or the format error for that prefix. */
function keyAfter(k: string, prefix: string): string {
  const i = k.indexOf('/');
  if (i < 0 || k.slice(0, i) !== prefix) {
    if (prefix === DELETE_PRIMITIVE) throw badPrimitiveList();
    if (prefix === SET_ORDER) throw badSetOrder();
    throw new StrategicMergePatchError(`fail to find unknown prefix "${prefix}" in ${k}`);
  }
  return k.slice(i + 1);
}

/** Splits `merge,retainKeys` into whether keys are retained and the list strategy. */
function listStrategy(f: PatchField | undefined): string | undefined {
  const parts = (f?.strategy ?? '').split(',').filter((s) => s && s !== 'retainKeys');
  if (parts.length > 1) throw new StrategicMergePatchError(`unexpected patch strategy: ${f?.strategy}`);
  return parts[0];
}

/**
 * Applies `patch` to `original` (neither is modified) with the metadata in
 * `schema` for the top-level fields. Fields without metadata behave as in a
 * JSON merge patch.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema = {}): JSONMap {
  if (!isMap(patch)) throw new StrategicMergePatchError('invalid JSON document', 'BadRequest');
  const base = isMap(original) ? structuredClone(original) : {};
  const result = mergeMap(base, structuredClone(patch), schema);
  return result ?? {};
}

/**
 * Merges a patch map into `original` (both owned, both modified). Returns
 * undefined for `$patch: delete`, which removes the map where it stands.
 */
function mergeMap(original: JSONMap, patch: JSONMap, schema: PatchSchema | undefined): JSONMap | undefined {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return stripDirectives(patch, schema) as JSONMap;
    }
    if (directive === 'delete') return undefined;
    throw badPatchType(directive, patch);
  }
  retainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);
  for (const [rawKey, value] of Object.entries(patch)) {
    let k = rawKey;
    let deleteList = false;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      k = keyAfter(k, DELETE_PRIMITIVE);
      deleteList = true;
    }
    if (value === null) {
      delete original[k];
      continue;
    }
    const field = schema?.[k];
    if (!Object.hasOwn(original, k) || original[k] === null) {
      // Nothing to merge with: the patch value, cleaned of directives and nulls.
      if (!deleteList) {
        const v = stripDirectives(value, field?.fields, field);
        if (v !== undefined) setKey(original, k, v);
      }
      continue;
    }
    const current = original[k];
    if (typeOf(current) !== typeOf(value)) {
      if (!deleteList) setKey(original, k, stripDirectives(value, field?.fields, field));
      continue;
    }
    if (isMap(current)) {
      const merged = field?.strategy === 'replace' ? stripDirectives(value, field.fields) : mergeMap(current, value as JSONMap, field?.fields);
      if (merged === undefined) delete original[k];
      else setKey(original, k, merged);
    } else if (Array.isArray(current)) {
      setKey(original, k, mergeListField(current, value as unknown[], field, deleteList));
    } else {
      setKey(original, k, value);
    }
  }
  return original;
}

/**
 * A patch value that lands where nothing was: taken as it is, except that
 * directives are applied against emptiness (so none end up stored) and nulls
 * dropped, as merging it into an empty value would.
 */
function stripDirectives(value: unknown, fields: PatchSchema | undefined, field?: PatchField): unknown {
  if (isMap(value)) return mergeMap({}, value, fields);
  if (Array.isArray(value) && listStrategy(field) === 'merge') return mergeList([], value, field?.key, fields, false);
  return value;
}

function mergeListField(current: unknown[], patch: unknown[], field: PatchField | undefined, deleteList: boolean): unknown[] {
  if (listStrategy(field) !== 'merge') return deleteList ? current : patch;
  return mergeList(current, patch, field?.key, field?.fields, deleteList);
}

/** `$retainKeys`: the patch names every key the map keeps. */
function retainKeys(original: JSONMap, patch: JSONMap) {
  if (!(RETAIN_KEYS in patch)) return;
  const keep = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(keep)) throw badRetainKeys();
  const kept = new Set(keep);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(SET_ORDER)) continue;
    if (!kept.has(k)) throw new StrategicMergePatchError("patch content doesn't match retainKeys list", 'Invalid');
  }
  for (const k of Object.keys(original)) if (!kept.has(k)) delete original[k];
}

/** The kind of the list's elements; lists of lists cannot be merged. */
function elementType(...lists: unknown[][]): string | undefined {
  let t: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const vt = typeOf(v);
      if (vt === 'slice') throw new StrategicMergePatchError('lists of lists are not supported', 'Invalid');
      if (t !== undefined && t !== vt) throw new StrategicMergePatchError(`mismatched types in list: ${t} and ${vt}`);
      t = vt;
    }
  }
  return t;
}

/** Where `item` stands in `list` (by merge key for objects), or -1. */
function indexIn(list: readonly unknown[], item: unknown, key: string | undefined): number {
  if (key && isMap(item)) return list.findIndex((o) => isMap(o) && o[key] === item[key]);
  return list.indexOf(item);
}

/** `$setElementOrder/<list>`: merge the list now and put it in the given order. */
function mergeOrderedLists(original: JSONMap, patch: JSONMap, schema: PatchSchema | undefined) {
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const order = patch[k];
    delete patch[k];
    if (!Array.isArray(order)) throw badSetOrder();
    const name = keyAfter(k, SET_ORDER);
    const field = schema?.[name];
    const key = field?.key;
    const inOriginal = Object.hasOwn(original, name) && original[name] !== null;
    const inPatch = Object.hasOwn(patch, name) && patch[name] !== null;
    const current = inOriginal ? original[name] : [];
    const patchList = inPatch ? patch[name] : [];
    if (!Array.isArray(current) || !Array.isArray(patchList)) throw badSetOrder();
    checkOrderCoversPatch(patchList, order, key);
    let merged: unknown[];
    if (!inOriginal && !inPatch) continue;
    if (!inPatch) merged = current;
    else if (!inOriginal) merged = stripDirectives(patchList, field?.fields, field) as unknown[];
    else merged = mergeListField(current, patchList, field, false);
    const kind = elementType(current, patchList);
    const inOrder = merged.filter((v) => indexIn(order, v, kind === 'map' ? key : undefined) >= 0);
    const serverOnly = merged.filter((v) => indexIn(order, v, kind === 'map' ? key : undefined) < 0);
    setKey(original, name, interleave(sortBy(serverOnly, current, key, kind), sortBy(inOrder, order, key, kind), current, kind === 'map' ? key : undefined));
    delete patch[name];
  }
}

/** Every (non-deleting) element of the patch list appears in the order list, in the same relative order. */
function checkOrderCoversPatch(patchList: unknown[], order: unknown[], key: string | undefined) {
  if (!order.length || !patchList.length) return;
  const items = patchList.filter((v) => !(isMap(v) && DIRECTIVE in v));
  const same = (a: unknown, b: unknown) => {
    if (!key) return a === b;
    if (!isMap(a)) throw new StrategicMergePatchError(`expected a map, but received a ${typeOf(a)}`);
    if (!isMap(b)) throw new StrategicMergePatchError(`expected a map, but received a ${typeOf(b)}`);
    if (!(key in a)) throw noMergeKey(a, key);
    if (!(key in b)) throw noMergeKey(b, key);
    return a[key] === b[key];
  };
  let i = 0;
  for (let j = 0; i < items.length && j < order.length; j++) if (same(items[i], order[j])) i++;
  if (i < items.length) {
    throw new StrategicMergePatchError(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ORDER} list:\n${goValue(order)}\n`);
  }
}

/** Merges a list field with `merge` strategy: a set union for scalars, element-wise by key for objects. */
function mergeList(current: unknown[], patch: unknown[], key: string | undefined, fields: PatchSchema | undefined, deleteList: boolean): unknown[] {
  if (!current.length && !patch.length) return current;
  const kind = elementType(current, patch);
  let merged: unknown[];
  let base = current;
  let patchItems = patch;
  if (kind !== 'map') {
    if (deleteList) return current.filter((v) => !patch.includes(v));
    merged = [...new Set([...current, ...patch])];
  } else {
    if (!key) throw new StrategicMergePatchError('cannot merge lists without merge key for type map');
    [base, patchItems] = applyListDirectives(current, patch, key);
    merged = [...base];
    for (const item of patchItems as JSONMap[]) {
      if (!(key in item)) throw noMergeKey(item, key);
      const i = merged.findIndex((o) => isMap(o) && o[key] === item[key]);
      if (i < 0) {
        merged.push(mergeMap({}, item, fields) ?? {});
        continue;
      }
      const m = mergeMap(merged[i] as JSONMap, item, fields);
      if (m === undefined) merged.splice(i, 1);
      else merged[i] = m;
    }
  }
  const k = kind === 'map' ? key : undefined;
  if (k) for (const v of merged) if (!(k in (v as JSONMap))) throw noMergeKey(v as JSONMap, k);
  const fromPatch = merged.filter((v) => indexIn(patchItems, v, k) >= 0);
  const serverOnly = merged.filter((v) => indexIn(patchItems, v, k) < 0);
  return interleave(sortBy(serverOnly, base, k, kind), sortBy(fromPatch, patchItems, k, kind), base, k);
}

/**
 * `$patch` elements of a merge list: `delete` removes the elements with that
 * key, `replace` makes the rest of the patch the whole list.
 */
function applyListDirectives(current: unknown[], patch: unknown[], key: string): [unknown[], unknown[]] {
  const rest: unknown[] = [];
  let replace = false;
  let base = current;
  for (const v of patch as JSONMap[]) {
    if (!(DIRECTIVE in v)) {
      rest.push(v);
      continue;
    }
    const d = v[DIRECTIVE];
    if (d === 'delete') {
      if (!(key in v)) throw noMergeKey(v, key);
      base = base.filter((o) => !(isMap(o) && o[key] === v[key]));
    } else if (d === 'replace') {
      replace = true;
    } else if (d === 'merge') {
      throw new StrategicMergePatchError('merging lists cannot yet be specified in the patch');
    } else throw badPatchType(d, v);
  }
  return replace ? [rest.map((v) => mergeMap({}, v as JSONMap, undefined) ?? {}), []] : [base, rest];
}

/** Stable sort by position in `order`; items found there keep that relative order. */
function sortBy(items: unknown[], order: readonly unknown[], key: string | undefined, kind: string | undefined): unknown[] {
  const k = kind === 'map' ? key : undefined;
  return items
    .map((v, i) => ({ v, i, at: indexIn(order, v, k) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((x) => x.v);
}

/**
 * Merges server-only items into the patch-ordered items: a server item goes
 * first only when both are in the live list and it stood earlier there;
 * otherwise the patch item does (so new items come before the server-only
 * items that follow them).
 */
function interleave(serverOnly: unknown[], fromPatch: unknown[], live: readonly unknown[], key: string | undefined): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < fromPatch.length) {
    if (j >= fromPatch.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(fromPatch[j++]);
    else {
      const li = indexIn(live, serverOnly[i], key);
      const ri = indexIn(live, fromPatch[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(fromPatch[j++]);
    }
  }
  return out;
}
