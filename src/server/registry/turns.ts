// Large writes and long reads share the event loop: a large write's steps
// proportional to the object (managed fields, validation, serialisation,
// storing, the cache's parse) each take a turn of their own, and a walk of
// many objects lets others in every few milliseconds, so that other requests
// are answered in between.

/** Lets waiting requests have the event loop before the next step of a large write. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * How long a walk of many objects (a list, or a watch's initial events, filtered
 * by selectors or encoded) holds the event loop before it lets others in: at
 * 170,000 Events, `kubectl describe`'s list of an object's events tested every
 * one in 0.7 s.
 */
export const SLICE_MS = 10;

/**
 * Calls `visit` on each item of `items`, which may be live (a Map's values,
 * met as they are when the walk comes to them), letting the event loop go
 * every SLICE_MS as scan does, or after `most` items (tests), by awaiting
 * `between`. Resolves true once every item is visited, false when `stopped`
 * ended the walk first.
 */
export async function walk<T>(
  items: Iterable<T>,
  visit: (item: T) => void,
  { stopped = () => false, between = yieldToEventLoop, most = Infinity }: { stopped?: () => boolean; between?: () => Promise<void>; most?: number } = {},
): Promise<boolean> {
  let sliceStart = performance.now();
  let n = 0;
  for (const item of items) {
    if (stopped()) return false;
    visit(item);
    if (++n >= most || ((n & 255) === 0 && performance.now() - sliceStart > SLICE_MS)) {
      await between();
      sliceStart = performance.now();
      n = 0;
    }
  }
  return !stopped();
}

/**
 * Calls `visit` on `all[i]`, `all[i + 1]`, … until it returns false or the
 * list ends; returns the index it stopped at. The event loop goes on every
 * SLICE_MS in between, so `all` must not change meanwhile (the watch
 * cache's lists are never changed in place).
 */
export async function scan<T>(all: readonly T[], i: number, visit: (item: T) => boolean): Promise<number> {
  let sliceStart = performance.now();
  for (; i < all.length; i++) {
    if ((i & 255) === 255 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    if (!visit(all[i])) break;
  }
  return i;
}
