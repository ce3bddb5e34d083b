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

export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Calls `fn` on each item, `perTurn` of them a turn of the event loop, with
 * `between` awaited after each slice (the next turn by default, after I/O is
 * polled): a walk over every object of a large store, which in one turn would
 * hold every request and watch for its whole length. Resolves true once every
 * item is done, false when `stopped` ended the walk first.
 */
export async function eachInTurns<T>(
  items: Iterable<T>,
  perTurn: number,
  fn: (item: T) => void,
  { stopped = () => false, between = nextTurn }: { stopped?: () => boolean; between?: () => Promise<void> } = {},
): Promise<boolean> {
  let n = 0;
  for (const item of items) {
    if (stopped()) return false;
    fn(item);
    if (++n % perTurn === 0) await between();
  }
  return !stopped();
}
