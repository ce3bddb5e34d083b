// The one send path of every watch, whichever transport carries it: events
// wait here up to WATCH_FLUSH_MS and leave in one write per watcher, and the
// watchers waiting for the same frames share the one buffer those frames make
// on their wire. A chunked response writes it as one HTTP chunk of
// newline-delimited events; a WebSocket as several text messages (one event
// each, as kube-apiserver sends and clients decode them) in one socket write.

/** How a run of encoded events becomes the bytes of one write on a wire. */
export interface Framing {
  /** The bytes for `events` (each a JSON document and its newline), in order. Never modifies them. */
  frame(events: readonly Buffer[]): Buffer;
}

/** What a transport gives the sink: a byte stream and its state. */
export interface WatchWire {
  readonly framing: Framing;
  /** The wire takes more writes (the client is there and the stream not ended). */
  writable(): boolean;
  write(bytes: Buffer): void;
  /** Bytes written but not yet taken by the client. */
  writableLength(): number;
  /** Resolves once what is written has gone out, or the client is gone. */
  drained(): Promise<void>;
  /** Drops the client at once (a slow watcher). */
  destroy(): void;
  /** Ends the stream cleanly, after what was written. */
  end(): void;
  onGone(fn: () => void): void;
}

/**
 * How long events may wait to go out together, at least. Each write to a
 * socket costs a system call and, on loopback, the reader's side of TCP too:
 * 200 watchers written per event spent most of the server's time in writev
 * during a 5000-node rollout. A watch quiet for this long writes at once;
 * one that is busy writes at most once per window, with all that came.
 */
export const WATCH_FLUSH_MS = 10;
/**
 * The window grows with what a flush costs, so that writing to the watchers
 * takes at most about a tenth of the server's time (200 WebSocket watchers
 * took 3 ms a flush), and never past this bound on the wait: a longer one
 * cost the rollout's delivery p50 more than the writes it saved were worth.
 */
const MAX_FLUSH_MS = 20;
const FLUSH_SHARE = 0.1;
/** One turn of the event loop writes to watchers for this long at most; the rest are written on the next. */
const FLUSH_SLICE_MS = 5;

/** Sinks with events waiting, written together. */
const waiting = new Set<WatchSink>();
let flushAt = 0;
let flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
/**
 * The flush under way, written a slice per turn: each sink's events were taken
 * when it began, so the watchers of one feed hold the same run and share its
 * frame even as more events arrive before their turn (those go in the next
 * flush). Framed per sink at its turn, a busy rollout's runs differed by then
 * and each watcher's were joined afresh: a sixth of the server's time in copies.
 */
let flushing: { sinks: WatchSink[]; at: number; joined: Joined; cost: number } | undefined;

function scheduleFlush() {
  if (flushTimer || flushing) return;
  const wait = flushAt - performance.now();
  flushTimer = wait > 0 ? setTimeout(flushWaiting, wait) : setImmediate(flushWaiting);
}

/** Runs of events already framed in this flush, by framing and first event: each is made once for every watcher that waits for it. */
type Joined = Map<Framing, Map<Buffer, { events: Buffer[]; bytes: Buffer }[]>>;

function flushWaiting() {
  flushTimer = undefined;
  // Watchers of the same resource without a selector wait for the same events
  // in the same order: those are framed once and the one buffer written to each.
  if (!flushing) {
    const sinks = [...waiting];
    waiting.clear();
    for (const sink of sinks) sink.take();
    flushing = { sinks, at: 0, joined: new Map(), cost: 0 };
  }
  const f = flushing;
  const start = performance.now();
  const until = start + FLUSH_SLICE_MS;
  while (f.at < f.sinks.length) {
    f.sinks[f.at++].writeTaken(f.joined);
    if (performance.now() > until) break;
  }
  const now = performance.now();
  f.cost += now - start;
  if (f.at < f.sinks.length) {
    flushTimer = setImmediate(flushWaiting);
    return;
  }
  flushing = undefined;
  flushAt = now + Math.min(MAX_FLUSH_MS, Math.max(WATCH_FLUSH_MS, f.cost / FLUSH_SHARE));
  if (waiting.size) scheduleFlush();
}

const sameEvents = (a: readonly Buffer[], b: readonly Buffer[]) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

function framed(framing: Framing, events: Buffer[], joined: Joined | undefined): Buffer {
  if (!joined) return framing.frame(events);
  let byFirst = joined.get(framing);
  if (!byFirst) joined.set(framing, (byFirst = new Map()));
  const same = byFirst.get(events[0]);
  const hit = same?.find((j) => sameEvents(j.events, events));
  if (hit) return hit.bytes;
  const bytes = framing.frame(events);
  if (same) same.push({ events, bytes });
  else byFirst.set(events[0], [{ events, bytes }]);
  return bytes;
}

/** A watch's transport over a wire: events batched as described at WATCH_FLUSH_MS. */
export class WatchSink {
  private events: Buffer[] = [];
  private bytes = 0;
  /** The events the flush under way took, not yet written. */
  private taken: Buffer[] | undefined;
  private takenBytes = 0;
  constructor(
    private readonly wire: WatchWire,
    /** Live events past this many bytes waiting for the client end the watch (a slow watcher). */
    readonly bufferLimit: number,
  ) {}

  /**
   * One encoded event: a JSON document and the newline upstream's encoder
   * writes after it. The same bytes may go to many watchers; never modified.
   */
  send(event: Buffer) {
    if (!this.wire.writable()) return;
    // A client that does not read is dropped, with what waits for it, rather than buffered for without bound
    // (kube-apiserver's cacheWatcher is closed when its input channel stays full).
    if (this.buffered() > this.bufferLimit) {
      this.events = [];
      this.bytes = 0;
      this.taken = undefined;
      this.takenBytes = 0;
      waiting.delete(this);
      return this.wire.destroy();
    }
    this.events.push(event);
    this.bytes += event.length;
    if (this.events.length === 1) {
      waiting.add(this);
      scheduleFlush();
    }
  }

  /** The flush under way takes what waits (written at this sink's turn by writeTaken). */
  take() {
    this.taken = this.events;
    this.takenBytes = this.bytes;
    this.events = [];
    this.bytes = 0;
  }

  /** Writes what the flush took in one write, framed once for the watchers that took the same events. */
  writeTaken(joined?: Joined) {
    const events = this.taken;
    if (!events) return;
    this.taken = undefined;
    this.takenBytes = 0;
    if (events.length && this.wire.writable()) this.wire.write(framed(this.wire.framing, events, joined));
  }

  /** Writes everything that waits, in order: what a flush under way took, then what came since. */
  flush() {
    this.writeTaken();
    waiting.delete(this);
    this.take();
    this.writeTaken();
  }

  /** Bytes written but not yet taken by the client, and those waiting here. */
  buffered() {
    return this.wire.writableLength() + this.takenBytes + this.bytes;
  }

  /** Writes what waits; resolves once it has gone out, or the client is gone. */
  drained() {
    this.flush();
    return this.wire.drained();
  }

  /** Ends the stream cleanly after what waits (timeout, ERROR event sent, server shutdown). */
  end() {
    this.flush();
    this.wire.end();
  }

  /** Calls `fn` when the client goes away first. */
  onGone(fn: () => void) {
    this.wire.onGone(fn);
  }
}
