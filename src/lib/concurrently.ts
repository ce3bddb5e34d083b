// Work on many items with a few at a time in flight: enough for writes to
// share a storage commit (SQLite's group commit, etcd's batching), never all
// at once.

/**
 * Calls `fn` on each item of `items`, at most `inFlight` calls unfinished at
 * once, in the items' order; resolves when every call has ended. The items are
 * taken one at a time as calls end, so a generator that stops early (a
 * controller stopping) ends the work. A call that throws rejects the whole.
 */
export async function eachConcurrently<T>(items: Iterable<T>, inFlight: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  const next = items[Symbol.iterator]();
  const worker = async () => {
    for (let r = next.next(); !r.done; r = next.next()) await fn(r.value);
  };
  await Promise.all(Array.from({ length: Math.max(1, inFlight) }, worker));
}
