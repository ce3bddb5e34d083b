// What an in-process client (a controller, the event TTL sweep) knows of the
// cache, as client-go's informers give it: the objects there are, then every
// change after. The objects are handed over a slice a turn (SLICE_MS of them:
// indexing 60,000 pods took a controller 160-210 ms, and the garbage
// collector's 70,000 objects 0.6 s, in one turn every request waited out), and
// the events that come meanwhile are held until the walk is done: a controller
// judging against half an index sees a dependent's owner as gone, or a node
// as empty, and acts on it. The walk is live, so an object written meanwhile
// is met as it is now or not at all; the held events, handed over after the
// walk in order, leave each object as the last of them says, as long as a
// handler undoes what the state before an event did (indexes keyed by object
// do). A controller's work queue starts its syncs once `synced` resolves
// (WorkQueue.startAfter), as client-go's workers wait for WaitForCacheSync: a
// handler may queue keys during the walk, but no sync reads half an index.
// The watches follow the cache through a reload (CacheWatcher.followsReloads).
import type { CacheEvent, CachedObject, WatchCache } from './cache.ts';
import { walk } from '../registry/turns.ts';

export interface InformerSpec {
  /** What each prefix's objects are handed to, walked in this order. */
  list: [prefix: string, visit: (c: CachedObject) => void][];
  /** The prefixes watched from now on and what their events are handed to, once the list is handed over. */
  watch: [prefix: string, deliver: (e: CacheEvent) => void][];
  /** What the walk awaits between slices (the next turn): tests hold it there. */
  betweenSlices?: () => Promise<void>;
  /** Objects handed over a turn at most (tests; the walk lets the event loop go every SLICE_MS anyway). */
  perTurn?: number;
}

export interface Informer {
  /** True once the list and the events held meanwhile are handed over (HasSynced); false when stopped first. */
  synced: Promise<boolean>;
  stop(): void;
}

export function inform(cache: WatchCache, spec: InformerSpec): Informer {
  let stopped = false;
  let held: [deliver: (e: CacheEvent) => void, e: CacheEvent][] | undefined = [];
  // One turn: the watches start where the walk starts, so nothing falls between.
  const unwatches = spec.watch.map(([prefix, deliver]) =>
    cache.watchLive({
      prefix,
      deliver: (e) => {
        if (held) held.push([deliver, e]);
        else deliver(e);
      },
      // After a reload (etcd compacted events this replica had not seen) the cache tells what changed
      // meanwhile, where client-go's informer would relist: a watch that ended there left the controller deaf.
      followsReloads: true,
    }),
  );
  const synced = (async () => {
    for (const [prefix, visit] of spec.list) {
      const whole = await walk(cache.objects(prefix), visit, { stopped: () => stopped, between: spec.betweenSlices, most: spec.perTurn });
      if (!whole) return false;
    }
    const events = held!;
    held = undefined;
    for (const [deliver, e] of events) {
      if (stopped) return false;
      deliver(e);
    }
    return !stopped;
  })();
  return {
    synced,
    stop() {
      stopped = true;
      held = undefined;
      unwatches.forEach((u) => u());
    },
  };
}
