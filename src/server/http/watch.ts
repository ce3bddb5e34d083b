// Serving a watch. kube-apiserver offers two transports for the same stream
// (AS/pkg/endpoints/handlers/watch.go: HandleHTTP and HandleWS): a chunked
// response of newline-delimited JSON events, and a WebSocket carrying one
// event per message. Both share the event encoder here, the same timeout and
// bookmark policy and the one sink (watchsink.ts); only the wire differs.
import type { ServerResponse } from 'node:http';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import type { CachedObject, EventType } from '../watch/cache.ts';
import { snapshotFrame, watchFrame } from '../watch/encodings.ts';
import { SLICE_MS, yieldToEventLoop } from '../registry/turns.ts';
import type { Store } from '../registry/store.ts';
import { parseListQuery, type ListQuery } from '../registry/options.ts';
import { parseIncludeObject, partialEvent, partialObjectMetadata, tableEvent } from '../table.ts';
import type { Representation } from './negotiate.ts';
import { ApiError } from './status.ts';
import type { RequestInfo } from './request.ts';
import { watchTimeoutSeconds } from './limits.ts';
import { WatchSink, untilDrained, type Framing, type WatchWire } from './watchsink.ts';

/** Newline-delimited events: a run of them is their concatenation, one HTTP chunk (or HTTP/2 DATA frame). */
const lines: Framing = { frame: (events) => (events.length === 1 ? events[0] : Buffer.concat(events)) };

const CRLF = Buffer.from('\r\n');
/**
 * The same run as one whole HTTP/1.1 chunk (size line, data, CRLF), written
 * to the socket as it is: made once for every chunked watcher of those events.
 * Through res.write each watcher's write built its own size line and corked
 * the socket until the next tick, to write the three parts with writev: a
 * tenth of a 5000-node rollout's server time was those deferred writes.
 */
const chunks: Framing = {
  frame(events) {
    let length = 0;
    for (const e of events) length += e.length;
    return Buffer.concat([Buffer.from(length.toString(16) + '\r\n'), ...events, CRLF]);
  },
};

/** A chunked HTTP/1.1 response (DATA frames over HTTP/2) as a watch's wire. */
function chunkedWire(res: ServerResponse): WatchWire {
  const gone = () => res.destroyed || res.writableEnded;
  // HTTP/1.1 with chunked encoding: whole chunks go straight to the socket, in order with what res writes there
  // (the headers, flushed, and the last chunk from res.end()). HTTP/2 (no chunkedEncoding) writes through res.
  const socket = res.chunkedEncoding === true ? res.socket : null;
  if (socket) {
    return {
      framing: chunks,
      writable: () => !gone() && !socket.destroyed,
      write: (bytes) => void socket.write(bytes),
      writableLength: () => socket.writableLength + res.writableLength,
      drained: () => untilDrained(socket),
      destroy: () => void res.destroy(),
      end: () => void res.end(),
      onGone: (fn) => void res.on('close', fn),
    };
  }
  return {
    framing: lines,
    writable: () => !gone(),
    write: (bytes) => void res.write(bytes),
    writableLength: () => res.writableLength,
    drained: () => untilDrained(res),
    destroy: () => void res.destroy(),
    end: () => void res.end(),
    onGone: (fn) => void res.on('close', fn),
  };
}

/** Starts a watch's chunked response; its events go out through the shared sink (watchsink.ts). */
export function chunkedWatchSink(res: ServerResponse, bufferLimit: number): WatchSink {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  return new WatchSink(chunkedWire(res), bufferLimit);
}

/** A watch whose options are parsed and valid: what remains cannot fail as an HTTP error. */
export interface PreparedWatch {
  kind: KindDefinition;
  store: Store;
  namespace?: string;
  q: ListQuery;
  encoder: WatchEncoder;
}

/**
 * Parses the watch's options. It throws for bad ones, so callers do this
 * before starting the response (or upgrading the connection): list-option
 * errors are plain HTTP errors, not ERROR events.
 */
export function prepareWatch(kind: KindDefinition, store: Store, info: RequestInfo, query: URLSearchParams, rep: Representation): PreparedWatch {
  const q = parseListQuery(kind, query);
  if (info.name) q.fieldSelector = [...q.fieldSelector, { field: 'metadata.name', operator: '=', value: info.name }];
  return { kind, store, namespace: info.namespace, q, encoder: watchEncoder(kind, rep, query) };
}

export interface WatchEncoder {
  /** An event's bytes are the same for every watcher with this kind of encoder (JSON, not Table rows). */
  readonly framesShared: boolean;
  /** An event's frame; `initial`: one of the watch's initial events, sent to it alone (see snapshotFrame). */
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', c: CachedObject, initial: boolean): Buffer;
  bookmark(resourceVersion: number, initialEventsEnd: boolean): Buffer;
  error(err: ApiError): Buffer;
}

/**
 * Encodes watch events as JSON, as Table rows or as PartialObjectMetadata. A JSON event is framed once
 * from the object's cached bytes and the same frame goes to every watcher
 * (encodings.ts), so 200 watchers cost one serialisation, not 200.
 */
export function watchEncoder(kind: KindDefinition, rep: Representation, query: URLSearchParams): WatchEncoder {
  const table = rep.type === 'table';
  const include = table ? parseIncludeObject(query.get('includeObject')) : 'Metadata';
  const version = rep.type === 'table' || rep.type === 'partial' ? rep.version : 'v1';
  // Column definitions travel once, with the first row, as upstream's Table watch does.
  let first = true;
  const tableFrame = (type: EventType, c: CachedObject) => {
    const f = tableEvent(type, kind, c, include, version, first);
    first = false;
    return f;
  };
  // A metadata informer (client-go's metadata client) watches as PartialObjectMetadata: every object, bookmarks
  // included, goes as its metadata alone, as upstream's watch transforms them.
  const partial = rep.type === 'partial';
  return {
    framesShared: !table && !partial,
    event: (type, c, initial) => (table ? tableFrame(type, c) : partial ? partialEvent(type, c, version) : initial ? snapshotFrame(type, c) : watchFrame(type, c)),
    bookmark(rv, initialEnd) {
      const meta: Record<string, unknown> = { resourceVersion: String(rv) };
      if (initialEnd) meta.annotations = { 'k8s.io/initial-events-end': 'true' };
      const object = partial ? partialObjectMetadata({ metadata: meta } as KubeObject, version) : { kind: kind.kind, apiVersion: apiVersionOf(kind), metadata: meta };
      return frame(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}`);
    },
    error: (err) => frame(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}`),
  };
}

const frame = (event: string) => Buffer.from(event + '\n');

/** A watch in a feed: where its events go, and how it ends. */
interface FeedMember {
  sink: WatchSink;
  /** The cache was reloaded: the watch ends with a 410, as every watch then. */
  expire(): void;
  /** The watch ends (its events could not be encoded). */
  end(): void;
}

/**
 * The live watches of one prefix of one store that have no selector and take
 * JSON: every event is the same frame for all of them and goes to all of them.
 * One cache watcher frames it once and hands the frame to each watch's sink,
 * instead of each watch matching, typing, encoding and counting it on its own
 * (200 watchers of a 5000-node rollout: ~4 million such calls, ~5% of the
 * server's CPU). A watch joins once its initial events are out (runWatch) and
 * leaves when it ends; the feed stops with its last watch.
 */
class WatchFeed {
  private readonly members = new Set<FeedMember>();
  private readonly stop: () => void;
  constructor(
    store: Store,
    namespace: string | undefined,
    private readonly onEmpty: () => void,
  ) {
    this.stop = store.follow(namespace, {
      event: (type, c) => {
        let bytes: Buffer;
        try {
          bytes = watchFrame(type, c);
        } catch (e) {
          console.error(e);
          for (const m of [...this.members]) m.end();
          return;
        }
        for (const m of this.members) m.sink.send(bytes);
      },
      expire: () => {
        for (const m of [...this.members]) m.expire();
      },
    });
  }

  /** Adds a watch from the next event on; returns its removal. */
  join(m: FeedMember): () => void {
    this.members.add(m);
    return () => {
      if (!this.members.delete(m) || this.members.size) return;
      this.stop();
      this.onEmpty();
    };
  }
}

const feeds = new WeakMap<Store, Map<string, WatchFeed>>();

/** The feed of a store's prefix (`namespace`'s, or all), made when a first watch joins. */
function feedOf(store: Store, namespace: string | undefined): WatchFeed {
  let byPrefix = feeds.get(store);
  if (!byPrefix) feeds.set(store, (byPrefix = new Map()));
  const prefix = store.prefixFor(namespace);
  let feed = byPrefix.get(prefix);
  if (!feed) byPrefix.set(prefix, (feed = new WatchFeed(store, namespace, () => byPrefix.delete(prefix))));
  return feed;
}

/** How often a watch that allows bookmarks gets one even when nothing changes. */
const BOOKMARK_INTERVAL_MS = 60_000;
/** How long before the watch's timeout its last bookmark goes out. */
const PRE_TIMEOUT_BOOKMARK_MS = 2_000;

/**
 * Runs a prepared watch into a sink until the timeout (timeoutSeconds, or
 * a random one between --min-request-timeout and twice that), an ERROR, the client leaving or the
 * server closing. `onServerClose` registers the shutdown hook and returns its
 * removal, so that finished watches leave nothing behind.
 */
export async function runWatch(w: PreparedWatch, sink: WatchSink, onServerClose: (fn: () => void) => () => void, minRequestTimeoutSeconds = 1800): Promise<void> {
  const { store, q, encoder } = w;
  let open = true;
  let stop = () => {};
  const timers: NodeJS.Timeout[] = [];
  const forget = onServerClose(() => end());
  const end = () => {
    if (!open) return;
    open = false;
    stop();
    forget();
    for (const t of timers) clearTimeout(t);
    sink.end();
  };
  // Initial events (the snapshot of a list-then-watch or sendInitialEvents, or
  // the history replayed from a resourceVersion) are written as the client
  // takes them, as kube-apiserver's cacheWatcher writes its snapshot before
  // its input channel: they wait here as references to cached objects, not as
  // bytes in the socket, so a large snapshot is no slow client. Live events
  // arriving meanwhile queue behind them and do count: past the sink's
  // bound of them the watch ends, as one whose buffer filled.
  let queue: { event: Buffer | (() => Buffer); live: number }[] | undefined = [];
  let queuedLive = 0;
  let live = false;
  const toBytes = (event: Buffer | (() => Buffer)) => (typeof event === 'function' ? event() : event);
  const send = (event: Buffer | (() => Buffer), size = 0) => {
    if (!open) return;
    if (!queue) return sink.send(toBytes(event));
    queue.push({ event, live: live ? size : 0 });
    if (live && (queuedLive += size) > sink.bufferLimit) end();
  };
  /** Writes the queue with backpressure; live events go straight to the sink once it is empty. */
  const flush = async (backpressure: boolean) => {
    const highWater = Math.min(1024 * 1024, sink.bufferLimit / 4);
    let sliceStart = performance.now();
    for (let i = 0; open && queue && i < queue.length; i++) {
      const item = queue[i];
      queue[i] = undefined as never; // sent: its bytes are the sink's now
      queuedLive -= item.live;
      sink.send(toBytes(item.event));
      if (!backpressure) continue;
      // A client that reads as fast as they are made would have the whole snapshot encoded in one turn.
      if (sink.buffered() > highWater) await sink.drained();
      else if (performance.now() - sliceStart > SLICE_MS) await yieldToEventLoop();
      else continue;
      sliceStart = performance.now();
    }
    if (!queue) return;
    queue = undefined;
    // Live and caught up: a watch whose events are every watcher's joins its prefix's feed, in the same
    // turn as it leaves the cache (events are applied between turns), so nothing is missed or repeated.
    if (open && live && feedable) {
      stop();
      stop = feedOf(store, w.namespace).join({ sink, expire, end });
    }
  };
  const feedable = encoder.framesShared && !q.labelSelector.length && !q.fieldSelector.length;
  let lastRevision = 0;
  const encode = (type: EventType, c: CachedObject, initial: boolean) => {
    try {
      return encoder.event(type, c, initial);
    } catch (e) {
      // This runs inside the watch cache's delivery to every watcher: a failure ends this watch only.
      console.error(e);
      end();
      return Buffer.alloc(0);
    }
  };
  const fail = (err: ApiError) => {
    // What came before the error goes out first, at once: the stream ends here.
    live = false;
    void flush(false);
    send(() => encoder.error(err));
    end();
  };
  // The cache was reloaded after events were lost: the client must relist, as after any 410.
  const expire = () => fail(new ApiError(410, 'Expired', 'The resourceVersion for the provided watch is too old.'));
  sink.onGone(end);
  stop = await store.watch(w.namespace, q, {
    event: (type, c) => {
      if (c.revision > lastRevision) lastRevision = c.revision;
      if (!open) return;
      // Initial events wait as references and are encoded as the client takes them.
      if (queue && !live) return send(() => encode(type, c, true));
      // Live events are encoded now, in the turn the cache delivers them to every watcher, so the frame made
      // for the first is the one the rest get (encodings.ts); no closure is made per event per watcher.
      const frame = encode(type, c, false);
      if (!queue) sink.send(frame);
      else send(frame, frame.length);
    },
    bookmark: (rv, initialEnd) => {
      lastRevision = Math.max(lastRevision, rv);
      send(() => encoder.bookmark(rv, initialEnd));
    },
    error: (err) => fail(err),
    gone: () => !open,
  });
  live = true;
  if (!open) {
    stop();
    return;
  }
  void flush(true);
  const timeout = watchTimeoutSeconds(q.timeoutSeconds, minRequestTimeoutSeconds);
  // No timeout at all only when --min-request-timeout is 0, as upstream.
  const deadline = timeout ? Date.now() + timeout * 1000 : Infinity;
  if (timeout) timers.push(setTimeout(end, timeout * 1000));
  if (q.allowWatchBookmarks) {
    // Upstream's cacheWatcher.nextBookmarkTime: a bookmark every minute, and
    // one 2 s before the deadline, so that a client resuming after the close
    // starts from a fresh revision instead of replaying (or losing) history.
    const schedule = () => {
      const now = Date.now();
      const at = Math.min(now + BOOKMARK_INTERVAL_MS, deadline - PRE_TIMEOUT_BOOKMARK_MS);
      // The pre-timeout bookmark is the last: a timer that fired within the millisecond it was due must not schedule it again.
      if (at <= now || !open) return;
      timers.push(
        setTimeout(() => {
          send(() => encoder.bookmark(Math.max(lastRevision, store.currentRevision()), false));
          schedule();
        }, at - now),
      );
    };
    schedule();
  }
}
