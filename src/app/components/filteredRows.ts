// The rows a list's filters let through, kept incrementally: a watch flush
// that replaced a few objects of 50,000 tests those few against the filter,
// not every object, and says what it changed (a ListChange) to the sort after it.
import { useMemo, useRef } from 'react';
import type { KubeObject } from '../../kinds/kind.ts';
import { IndexedItems, uidOf, type ListChange } from '../api/watch.ts';

export interface FilteredRows {
  match: ((o: KubeObject) => boolean) | undefined;
  /** The list's items these rows were taken from. */
  input: readonly KubeObject[];
  rows: IndexedItems;
  /** What this step changed in the rows (undefined: taken afresh, or unfiltered). */
  change?: ListChange;
  items: readonly KubeObject[];
}

/**
 * The items `match` lets through (all, and the list's own change, without a
 * filter), from `prev` and the list's `change` when it leads from `prev`'s input.
 */
export function filterRows(prev: FilteredRows | undefined, items: readonly KubeObject[], change: ListChange | undefined, match: ((o: KubeObject) => boolean) | undefined): FilteredRows {
  if (!match) return { match, input: items, rows: prev?.rows ?? new IndexedItems(), change, items };
  if (prev && prev.match === match && prev.input === items) return prev;
  if (prev && prev.match === match && change && change.from === prev.input) {
    const updates = new Map<string, KubeObject | undefined>();
    for (const o of change.removed) if (prev.rows.has(uidOf(o))) updates.set(uidOf(o), undefined);
    for (const o of change.added) {
      const uid = uidOf(o);
      if (match(o)) updates.set(uid, o);
      else if (prev.rows.has(uid)) updates.set(uid, undefined);
    }
    const step = prev.rows.apply(updates);
    return { match, input: items, rows: prev.rows, change: step, items: prev.rows.items };
  }
  const rows = new IndexedItems();
  rows.reset(items.filter(match));
  return { match, input: items, rows, items: rows.items };
}

/** filterRows kept across a component's renders. */
export function useFilteredRows(items: readonly KubeObject[], change: ListChange | undefined, match: ((o: KubeObject) => boolean) | undefined): FilteredRows {
  const state = useRef<FilteredRows | undefined>(undefined);
  return useMemo(() => (state.current = filterRows(state.current, items, change, match)), [items, change, match]);
}
