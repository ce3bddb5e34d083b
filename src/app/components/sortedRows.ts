// A list's rows in sort order, kept incrementally. A watch flush during a
// rollout replaces a few objects of 50,000: those are taken out and put back
// by binary search instead of sorting every row again, and each object's sort
// key is computed once (a WeakMap by object: a replaced object gets a new key).
import type { KubeObject } from '../../kinds/kind.ts';

export interface SortedRows {
  sortValue: (o: KubeObject) => string | number;
  desc: boolean;
  keys: WeakMap<KubeObject, string | number>;
  rows: KubeObject[];
  /** The objects `rows` holds, by uid. */
  byUid: Map<string, KubeObject>;
}

/** Above this many changed objects, sorting all rows again is as cheap. */
const INCREMENTAL_LIMIT = 64;

const uidOf = (o: KubeObject) => o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * `items` in order of `sortValue` (then name, then namespace), descending if
 * asked, reusing `prev` when it was sorted the same way.
 */
export function sortRows(prev: SortedRows | undefined, items: readonly KubeObject[], sortValue: (o: KubeObject) => string | number, desc: boolean): SortedRows {
  const same = prev && prev.sortValue === sortValue && prev.desc === desc;
  const keys = same ? prev.keys : new WeakMap<KubeObject, string | number>();
  const key = (o: KubeObject) => {
    let k = keys.get(o);
    if (k === undefined) keys.set(o, (k = sortValue(o)));
    return k;
  };
  const str = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const cmp = (a: KubeObject, b: KubeObject) => {
    const ka = key(a);
    const kb = key(b);
    const c = (ka < kb ? -1 : ka > kb ? 1 : 0) || str(a.metadata.name ?? '', b.metadata.name ?? '') || str(a.metadata.namespace ?? '', b.metadata.namespace ?? '');
    return desc ? -c : c;
  };
  const byUid = new Map<string, KubeObject>();
  const added: KubeObject[] = [];
  const before = same ? prev.byUid : new Map<string, KubeObject>();
  for (const o of items) {
    const uid = uidOf(o);
    byUid.set(uid, o);
    if (before.get(uid) !== o) added.push(o);
  }
  const removed: KubeObject[] = [];
  if (same) for (const [uid, o] of before) if (byUid.get(uid) !== o) removed.push(o);
  if (!same || added.length + removed.length > INCREMENTAL_LIMIT) {
    return { sortValue, desc, keys, rows: [...items].sort(cmp), byUid };
  }
  const rows = prev.rows.slice();
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
  for (const o of removed) {
    const i = place(o);
    rows.splice(rows[i] === o ? i : rows.indexOf(o), 1);
  }
  for (const o of added) rows.splice(place(o), 0, o);
  return { sortValue, desc, keys, rows, byUid };
}
