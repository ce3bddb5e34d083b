// Every change the watch made to a cached list, in order, since a view last
// took them. A view renders far less often than the watch flushes (in a
// 5000-node rollout, about 7 renders a second against a flush per frame per
// list), so the change a render sees (ListState.change) is only the last of
// several; a view that keeps derived state up to date needs all of them, or
// else must compare the whole list again (10,000 pods, tens of thousands of
// events) on most renders.
import { useEffect, useRef } from 'react';
import { hashKey, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { KubeObject } from '../../kinds/kind.ts';
import type { ListChange, ListState } from './watch.ts';

export class ListChanges {
  /** The items of the last state recorded. */
  private seen: readonly KubeObject[] | undefined;
  private pending: ListChange[] = [];

  /** Records a state of the list (each one, as the cache changes). */
  record(state: ListState | undefined) {
    if (!state || state.items === this.seen) return;
    if (state.change && state.change.from === this.seen && this.seen !== undefined) this.pending.push(state.change);
    // A state that does not follow the last one (a new list, a relist): what came before it is of no use.
    else this.pending = [];
    this.seen = state.items;
  }

  /**
   * The changes that lead from `from` (the items the caller took in last) to
   * `to` (the items it has now), oldest first; undefined when they were not
   * all recorded. Those handed out are forgotten.
   */
  take(from: readonly KubeObject[], to: readonly KubeObject[]): ListChange[] | undefined {
    if (from === to) return [];
    if (this.seen !== to) return undefined;
    const first = this.pending.findIndex((c) => c.from === from);
    const out = first < 0 ? undefined : this.pending.slice(first);
    this.pending = [];
    return out;
  }
}

/** The changes of the cached list at `key`, recorded from the query cache as they happen. */
export function useListChanges(key: QueryKey): ListChanges {
  const qc = useQueryClient();
  const changes = useRef<ListChanges>(null);
  changes.current ??= new ListChanges();
  const hash = hashKey(key);
  useEffect(() => {
    const c = changes.current!;
    c.record(qc.getQueryCache().get(hash)?.state.data as ListState | undefined);
    return qc.getQueryCache().subscribe((e) => {
      if (e.type === 'updated' && e.query.queryHash === hash) c.record(e.query.state.data as ListState | undefined);
    });
  }, [qc, hash]);
  return changes.current;
}
