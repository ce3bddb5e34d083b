// Large writes share the event loop: their steps proportional to the object
// (managed fields, validation, serialisation, storing, the cache's parse) each
// take a turn of their own, so that other requests are answered in between.

/** Lets waiting requests have the event loop before the next step of a large write. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
