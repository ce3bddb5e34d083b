// A list's rows in sort order, kept incrementally. A watch flush during a
// rollout replaces a few objects of 50,000: the list says which (ListChange).
// A replaced object whose sort key is unchanged takes its old row; the others
// are taken out and put back by binary search instead of sorting every row
// again; many at once (a page of the first list, a busy flush of new pods) are
// sorted among themselves and put in with the rows copied in one pass. Each
// object's sort key is computed once (a WeakMap by object: a replaced object
// gets a new key).
import { useMemo, useRef } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { uidOf, type ListChange } from '../api/watch.ts';

export interface SortedRows {
  sortValue: (o: KubeObject) => string | number;
  desc: boolean;
  keys: WeakMap<KubeObject, string | number>;
  /** The items these rows are of. */
  items: readonly KubeObject[];
  /**
   * The items in order. A step that moves a few objects moves them in this very
   * array (a copy of 50,000 rows per watch flush was garbage the collector had
   * to chase), so only the newest SortedRows of a chain is to be read.
   */
  rows: KubeObject[];
  /** What this step took out of and put into the rows before it (empty after a full sort). */
  removed: KubeObject[];
  added: KubeObject[];
}

/** Up to this many changed objects, each is moved by binary search; past it, they are merged in one pass. */
const SPLICE_LIMIT = 32;

const str = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The rows' order, ascending: by sort key, then name, then namespace (read only on a tie). */
const byKey = (ka: string | number, kb: string | number, a: KubeObject, b: KubeObject) =>
  (ka < kb ? -1 : ka > kb ? 1 : 0) || str(a.metadata.name ?? '', b.metadata.name ?? '') || str(a.metadata.namespace ?? '', b.metadata.namespace ?? '');

/**
 * `items` in order of `sortValue` (then name, then namespace), descending if
 * asked, reusing `prev` when it was sorted the same way: by `change` when it
 * leads from `prev`'s items, else by telling which objects came and went.
 */
export function sortRows(
  prev: SortedRows | undefined,
  items: readonly KubeObject[],
  sortValue: (o: KubeObject) => string | number,
  desc: boolean,
  change?: ListChange,
): SortedRows {
  const same = prev !== undefined && prev.sortValue === sortValue && prev.desc === desc;
  const keys = same ? prev.keys : new WeakMap<KubeObject, string | number>();
  const key = (o: KubeObject) => {
    let k = keys.get(o);
    if (k === undefined) keys.set(o, (k = sortValue(o)));
    return k;
  };
  if (!same) return { sortValue, desc, keys, items, rows: sortAll(items, key, desc), removed: [], added: [] };
  if (prev.items === items) return prev;
  let removed: KubeObject[];
  let added: KubeObject[];
  const told = change !== undefined && change.from === prev.items;
  if (told) ({ removed, added } = change);
  else ({ removed, added } = difference(prev.rows, items));
  const sign = desc ? -1 : 1;
  const cmp = (a: KubeObject, b: KubeObject) =>
    sign * byKey(key(a), key(b), a, b);
  let rows: KubeObject[];
  if (removed.length + added.length > items.length) {
    // Mostly other objects (a filter typed or cleared, a list read again whole, a busy flush of a short
    // list): sorting them is cheaper than merging. Only what a watch change says went is kept (its rows
    // flash): what went otherwise was another list (after a relist, a whole second list to hold).
    rows = sortAll(items, key, desc);
    if (!told) return { sortValue, desc, keys, items, rows, removed: [], added: [] };
  } else {
    rows = prev.rows;
    const place = (o: KubeObject) => {
      let lo = 0;
      let hi = rows.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cmp(rows[mid], o) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const rowOf = (o: KubeObject) => {
      const i = place(o);
      return rows[i] === o ? i : rows.indexOf(o);
    };
    const { out, into } = replaceInPlace(rows, removed, added, key, rowOf);
    if (out.length + into.length <= SPLICE_LIMIT) {
      for (const o of out) {
        const at = rowOf(o);
        if (at >= 0) rows.splice(at, 1);
      }
      for (const o of into) rows.splice(place(o), 0, o);
    } else {
      // Each found by binary search while they are few against the rows, else in one walk over the rows.
      const few = (n: number) => n * Math.log2(rows.length + 1) < rows.length;
      const cut = few(out.length) ? out.map(rowOf) : rowsAmong(rows, new Set(out));
      const sorted = sortAll(into, key, desc);
      rows = moveMany(rows, cut, sorted, few(sorted.length) ? sorted.map(place) : placesByWalk(rows, sorted, key, sign));
    }
  }
  return { sortValue, desc, keys, items, rows, removed, added };
}

/**
 * Puts each object of `added` that replaces one of `removed` (the same uid) with the same sort key in
 * the row of the one it replaces, in `rows` itself; returns the objects still to take out and put in.
 * In a rollout most events change a pod's status, not its place in the rows: moved through the splices
 * or the merge, a flush of a few dozen of them went over all 60,000 rows (12% of the Pods page's main
 * thread during a 5000-node rollout).
 */
function replaceInPlace(
  rows: KubeObject[],
  removed: KubeObject[],
  added: KubeObject[],
  key: (o: KubeObject) => string | number,
  rowOf: (o: KubeObject) => number,
): { out: KubeObject[]; into: KubeObject[] } {
  if (!removed.length || !added.length) return { out: removed, into: added };
  const replaced = new Map<string, KubeObject>();
  for (const o of removed) replaced.set(uidOf(o), o);
  const into: KubeObject[] = [];
  for (const o of added) {
    const uid = uidOf(o);
    const before = replaced.get(uid);
    // Name and namespace break ties in the order, so they must match too (uidOf falls back to them).
    const stays = before !== undefined && key(before) === key(o) && before.metadata.name === o.metadata.name && before.metadata.namespace === o.metadata.namespace;
    const at = stays ? rowOf(before) : -1;
    if (at < 0) {
      into.push(o);
      continue;
    }
    rows[at] = o;
    replaced.delete(uid);
  }
  return { out: replaced.size === removed.length ? removed : [...replaced.values()], into };
}

/** The objects of `rows` not among `items`, and those of `items` not among `rows` (two passes, no sorting). */
function difference(rows: readonly KubeObject[], items: readonly KubeObject[]): { removed: KubeObject[]; added: KubeObject[] } {
  const now = new Set(items);
  const removed = rows.filter((o) => !now.has(o));
  const before = new Set(rows);
  const added = items.filter((o) => !before.has(o));
  return { removed, added };
}

/** The indices of the rows in `gone`. */
function rowsAmong(rows: readonly KubeObject[], gone: ReadonlySet<KubeObject>): number[] {
  const at: number[] = [];
  for (let i = 0; i < rows.length; i++) if (gone.has(rows[i])) at.push(i);
  return at;
}

/** Where each of `into` (in order) goes among `rows`, in one walk reading each row's key once or twice. */
function placesByWalk(rows: readonly KubeObject[], into: readonly KubeObject[], key: (o: KubeObject) => string | number, sign: number): number[] {
  const at = new Array<number>(into.length);
  let i = 0;
  for (let j = 0; j < into.length; j++) {
    const o = into[j];
    const ko = key(o);
    while (i < rows.length && sign * byKey(key(rows[i]), ko, rows[i], o) < 0) i++;
    at[j] = i;
  }
  return at;
}

/**
 * `rows` without the rows at `cut` and with `into` (in order) put in at `at` (their places in `rows`
 * as they were), as a new array, the rows between copied as they are: a flush of a hundred new pods
 * finds their places by binary search and reads the sort keys of a few thousand rows, not of every
 * row as a merge did.
 */
function moveMany(rows: readonly KubeObject[], cut: number[], into: readonly KubeObject[], at: readonly number[]): KubeObject[] {
  const gone = cut.filter((i) => i >= 0).sort((a, b) => a - b);
  const out = new Array<KubeObject>(rows.length + into.length);
  let k = 0;
  let c = 0;
  let j = 0;
  for (let i = 0; i < rows.length; i++) {
    while (j < into.length && at[j] <= i) out[k++] = into[j++];
    if (gone[c] === i) {
      while (gone[c] === i) c++;
      continue;
    }
    out[k++] = rows[i];
  }
  while (j < into.length) out[k++] = into[j++];
  out.length = k;
  return out;
}

/**
 * A full sort over keys taken once per object into a flat array: the
 * comparator reads fields, not the WeakMap (two lookups per comparison made
 * sorting 50,000 pods twice as slow).
 */
function sortAll(items: readonly KubeObject[], key: (o: KubeObject) => string | number, desc: boolean): KubeObject[] {
  const d = items.map((o) => ({ k: key(o), name: o.metadata.name ?? '', ns: o.metadata.namespace ?? '', o }));
  const sign = desc ? -1 : 1;
  // byKey's order, over the fields flattened beside each key.
  d.sort((a, b) => sign * ((a.k < b.k ? -1 : a.k > b.k ? 1 : 0) || str(a.name, b.name) || str(a.ns, b.ns)));
  return d.map((x) => x.o);
}

/** sortRows kept across a component's renders (`sortValue` is to keep its identity while the order holds). */
export function useSortedRows(items: readonly KubeObject[], change: ListChange | undefined, sortValue: (o: KubeObject) => string | number, desc: boolean): SortedRows {
  const state = useRef<SortedRows | undefined>(undefined);
  return useMemo(() => (state.current = sortRows(state.current, items, sortValue, desc, change)), [items, change, sortValue, desc]);
}
