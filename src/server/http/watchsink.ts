// The one send path of every watch, whichever transport carries it: events
// wait here up to WATCH_FLUSH_MS and leave in one write per watcher, and the
// watchers waiting for the same frames share the one buffer those frames make
// on their wire. A chunked response writes it as one HTTP chunk of
// newline-delimited events; a WebSocket as several text messages (one event
// each, as kube-apiserver sends and clients decode them) in one socket write.

import { Histogram } from '../histogram.ts';

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

/** Resolves once `stream` has written out what it holds ('drain'), or closed; at once when it holds nothing or is gone. */
export function untilDrained(stream: NodeJS.EventEmitter & { writableLength: number; destroyed: boolean }): Promise<void> {
  return new Promise<void>((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) return resolve();
    const done = () => (stream.off('drain', done), stream.off('close', done), resolve());
    stream.on('drain', done).on('close', done);
  });
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
/**
 * One turn of the event loop writes to watchers for this much of its CPU at
 * most; the rest are written on the next. CPU, not wall time alone: on a
 * loaded machine the thread waits for a core mid-flush (a 2500-node rollout's
 * turns over 50 ms were more than half such waits), and a flush cut short for
 * that left its other watchers behind a whole turn more of everything else
 * (flushes took 1.6 turns each; events waited in the sinks p99 356 ms) while
 * sparing the rest of the server no CPU at all. The thread's CPU is at most
 * the wall time and at most the process's CPU: the lesser of the two counts.
 * The slice holds a whole flush to 200 watchers (~8 ms of writes in a
 * 5000-node rollout): at 5 ms every flush took two turns, and the watchers
 * written second waited out a whole turn between (a turn there is often
 * 300-700 ms of timers, writes and GC; events waited in the sinks p99 603 ms).
 */
const FLUSH_SLICE_MS = 15;

/** CPU time of the whole process in ms (all its threads; precise, where the kernel's count per thread lags by a tick). */
function processCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

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
let flushing: { sinks: WatchSink[]; at: number; cost: number; since: number; took: number } | undefined;

/**
 * What the flushes did since the last reset (the benches print it): how many,
 * how many turns they took, the socket writes and bytes, and how long events
 * waited in the sinks, from the first event of a flush's window to the last
 * write of that flush, in 1 ms buckets (constant memory however long it runs).
 */
const newFlushStats = () => ({ flushes: 0, slices: 0, writes: 0, bytes: 0, waits: new Histogram(2000, 1), times: [] as [number, number][] });
let flushStats = newFlushStats();
/**
 * The first flushes since the last reset, each as [when it took the sinks' events, when its last write
 * went out] (performance.now() ms): an event handed to the sinks is written by the first flush that took
 * after it. Bounded, so stats left on cost nothing past it (at 30 flushes a second, minutes of them).
 */
const MAX_FLUSH_TIMES = 8192;
/** When the first event of the window now gathering arrived (0: none waits). */
let windowStart = 0;

export function resetWatchFlushStats() {
  flushStats = newFlushStats();
}

export function watchFlushStats() {
  const { waits, times, ...counts } = flushStats;
  const { p50, p99, max } = waits.summary();
  return { ...counts, wait: { p50, p99, max } };
}

/** When each flush since the last reset took its events and when it finished writing them (MAX_FLUSH_TIMES at most). */
export function watchFlushTimes(): readonly (readonly [number, number])[] {
  return flushStats.times;
}

function scheduleFlush() {
  if (flushTimer || flushing) return;
  const wait = flushAt - performance.now();
  flushTimer = wait > 0 ? setTimeout(flushWaiting, wait) : setImmediate(flushWaiting);
}

/**
 * A run of events waiting, as one step from the run before it. Every sink
 * that received the same event Buffers in the same order since the last
 * flush holds the very same Run (the step is looked up, not made again), so
 * the run is framed once and its bytes shared: watchers of one resource
 * without a selector get the same frames from the watch cache (encodings.ts).
 */
class Run {
  private next: Map<Buffer, Run> | undefined;
  private frames: Map<Framing, Buffer> | undefined;
  readonly length: number;
  constructor(
    private readonly before?: Run,
    private readonly event?: Buffer,
  ) {
    this.length = before ? before.length + 1 : 0;
  }

  then(event: Buffer): Run {
    const next = (this.next ??= new Map());
    let run = next.get(event);
    if (!run) next.set(event, (run = new Run(this, event)));
    return run;
  }

  events(): Buffer[] {
    const events = new Array<Buffer>(this.length);
    for (let r: Run = this, i = this.length - 1; i >= 0; r = r.before!, i--) events[i] = r.event!;
    return events;
  }

  framed(framing: Framing): Buffer {
    const frames = (this.frames ??= new Map());
    let bytes = frames.get(framing);
    if (!bytes) frames.set(framing, (bytes = framing.frame(this.events())));
    return bytes;
  }
}

/** Where every sink's run starts until the next flush begins. */
let runStart = new Run();

function flushWaiting() {
  flushTimer = undefined;
  if (!flushing) {
    const sinks = [...waiting];
    waiting.clear();
    for (const sink of sinks) sink.take();
    // Runs begun from now on are the next flush's: they start afresh, and what this one took is let go once written.
    runStart = new Run();
    flushing = { sinks, at: 0, cost: 0, since: windowStart, took: performance.now() };
    windowStart = 0;
    flushStats.flushes++;
  }
  const f = flushing;
  const wall0 = performance.now();
  const cpu0 = processCpuMs();
  flushStats.slices++;
  // The clock is read after each write; the CPU (about 10 µs a reading, more with many threads: read after every
  // write near a slice's end it was 1.7% of a rollout's samples) only once per slice's worth of wall time, and the
  // thread's share of it is the lesser of the two.
  let checkAt = wall0 + FLUSH_SLICE_MS;
  let used = -1;
  while (f.at < f.sinks.length) {
    f.sinks[f.at++].writeTaken();
    const wall = performance.now();
    if (wall < checkAt) continue;
    used = Math.min(wall - wall0, processCpuMs() - cpu0);
    if (used > FLUSH_SLICE_MS) break;
    checkAt = wall + FLUSH_SLICE_MS;
  }
  const now = performance.now();
  // A slice that never reached a check ran on the CPU for as long as the wall says, at most.
  f.cost += used < 0 ? now - wall0 : Math.min(now - wall0, processCpuMs() - cpu0);
  if (f.at < f.sinks.length) {
    flushTimer = setImmediate(flushWaiting);
    return;
  }
  flushing = undefined;
  if (f.since) flushStats.waits.add(now - f.since);
  if (flushStats.times.length < MAX_FLUSH_TIMES) flushStats.times.push([f.took, now]);
  flushAt = now + Math.min(MAX_FLUSH_MS, Math.max(WATCH_FLUSH_MS, f.cost / FLUSH_SHARE));
  if (waiting.size) scheduleFlush();
}

/** A watch's transport over a wire: events batched as described at WATCH_FLUSH_MS. */
export class WatchSink {
  /** What waits for the next flush (undefined when nothing does) and its size. */
  private run: Run | undefined;
  private bytes = 0;
  /** What the flush under way took, not yet written. */
  private taken: Run | undefined;
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
      this.run = this.taken = undefined;
      this.bytes = this.takenBytes = 0;
      waiting.delete(this);
      return this.wire.destroy();
    }
    if (!this.run) {
      this.run = runStart;
      if (!windowStart) windowStart = performance.now();
      waiting.add(this);
      scheduleFlush();
    }
    this.run = this.run.then(event);
    this.bytes += event.length;
  }

  /** The flush under way takes what waits (written at this sink's turn by writeTaken). */
  take() {
    this.taken = this.run;
    this.takenBytes = this.bytes;
    this.run = undefined;
    this.bytes = 0;
  }

  /** Writes what the flush took in one write, framed once for the watchers that took the same events. */
  writeTaken() {
    const run = this.taken;
    if (!run) return;
    this.taken = undefined;
    this.takenBytes = 0;
    if (!run.length || !this.wire.writable()) return;
    const bytes = run.framed(this.wire.framing);
    flushStats.writes++;
    flushStats.bytes += bytes.length;
    this.wire.write(bytes);
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
