// Events expire: kube-apiserver stores each event with an etcd lease of
// --event-ttl (1 hour by default), renewed by every write, so an event no one
// has touched for that long disappears by itself. Here a sweep over the
// watch cache deletes events whose last write is older than the TTL (the
// latest of creationTimestamp, the managedFields' write times, lastTimestamp,
// series.lastObservedTime and eventTime).
import type { KubeObject } from '../../kinds/kind.ts';
import type { Store } from '../registry/store.ts';
import type { CachedObject, WatchCache } from '../watch/cache.ts';
import { eachConcurrently } from '../../lib/concurrently.ts';
import { inform } from '../watch/informer.ts';

export const DEFAULT_EVENT_TTL_SECONDS = 3600;
/**
 * Deletions the sweep has in flight. One at a time, each waited for its own
 * commit (SQLite's group commit gathers the writes that come within 25 ms): 42
 * deletions a second, while a 5000-node rollout records 100,000 events, so
 * that 580,000 events past their hour stayed.
 */
const SWEEP_DELETES_IN_FLIGHT = 32;

/** When an event was last written, as far as the event says (ms; NaN when it says nothing). */
export function lastWritten(e: KubeObject): number {
  const o = e as any;
  const writes = (o.metadata?.managedFields ?? []).map((f: any) => f?.time);
  const times = [o.lastTimestamp, o.series?.lastObservedTime, o.eventTime, o.metadata?.creationTimestamp, ...writes].map((t) => (t ? Date.parse(t) : NaN)).filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : NaN;
}

/**
 * Starts the sweep; returns the function that stops it. When each event was
 * last written is read once per write, from the watch, and kept as a number:
 * the sweep compares numbers instead of parsing every event's dates each time
 * (tens of thousands of events in a 5000-node rollout).
 */
export function startEventExpiry(store: Store, cache: WatchCache, ttlSeconds = DEFAULT_EVENT_TTL_SECONDS): () => void {
  const ttlMs = ttlSeconds * 1000;
  const written = new Map<string, { at: number; object: KubeObject }>();
  const note = (c: CachedObject) => written.set(c.key, { at: lastWritten(c.object), object: c.object });
  let stopped = false;
  // The events there already are, a slice of them a turn (reading the dates of 600,000 took 2.2 s
  // of one turn after a restart), then every write.
  const informer = inform(cache, {
    list: [[store.resourcePrefix, note]],
    watch: [[store.resourcePrefix, (e) => (e.type === 'DELETED' ? written.delete(e.key) : note(e.object))]],
  });
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const cutoff = Date.now() - ttlMs;
      const due: KubeObject[] = [];
      for (const { at, object } of written.values()) if (at < cutoff) due.push(object);
      const untilStopped = function* () {
        for (let i = 0; i < due.length && !stopped; i++) yield due[i];
      };
      await eachConcurrently(untilStopped(), SWEEP_DELETES_IN_FLIGHT, (o) =>
        store
          .delete(o.metadata.namespace, o.metadata.name!, { dryRun: false, preconditions: { resourceVersion: o.metadata.resourceVersion } }, { dryRun: false, warnings: [] })
          .catch(() => {}), // rewritten (renewed) or gone meanwhile
      );
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), Math.max(50, Math.min(60_000, ttlMs / 10)));
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    informer.stop();
  };
}
