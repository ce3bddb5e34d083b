// The event recorder of the in-process actors, after client-go's
// tools/record (the core v1 recorder the kubelet and kube-controller-manager
// use in 1.32): an actor's event goes into a bounded queue and returns at
// once (a full queue drops it, as the broadcaster does), so no controller
// ever waits on events. A correlator in front of the writer
//  - rate-limits per source and object (EventSourceObjectSpamFilter: a token
//    bucket of 25, refilled one per 5 minutes),
//  - aggregates similar events (same source, object, type and reason with
//    different messages: more than 10 within 10 minutes become one event
//    "(combined from similar events): <message>"),
//  - counts identical ones: a repeat PATCHes count and lastTimestamp of the
//    event already written instead of creating another object.
// Names are `<object name>.<hex nanoseconds>`, as upstream makes them.
import { eventKind } from '../../kinds/events.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import { rfc3339 } from '../../lib/duration.ts';
import type { Client } from '../client.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  component: string;
  host?: string;
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventRecorder {
  /** Records an event about `object` (an object or a reference to one); never blocks, never throws. */
  event(object: KubeObject | ObjectReference, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

export interface BroadcasterOptions {
  /** Events of one recorder (one source) waiting to be written; more are dropped (maxQueuedEvents per broadcaster upstream, where each kubelet has its own). */
  queueSize?: number;
  /** Token bucket per source and object. */
  burst?: number;
  /** Tokens per second (1/300 upstream). */
  qps?: number;
  /** Similar events within this window beyond `maxSimilar` are combined (10 minutes, 10). */
  similarWindowMs?: number;
  maxSimilar?: number;
  /** Correlate at all: rate-limit, combine similar events and count identical ones (false: every occurrence is a new object; the bench's baseline). */
  aggregate?: boolean;
  now?: () => number;
}

/** What the correlator counted, for tests and the bench. */
export interface RecorderStats {
  recorded: number;
  created: number;
  patched: number;
  dropped: { queueFull: number; rateLimited: number; failed: number };
}

interface Pending {
  client: Client;
  event: any;
  /** The recorder's own count of queued events. */
  queued: { n: number };
}

/** Every broadcaster's counts added up (for the bench). */
export const recorderTotals: RecorderStats = { recorded: 0, created: 0, patched: 0, dropped: { queueFull: 0, rateLimited: 0, failed: 0 } };

const MAX_LRU = 4096;
let lastNanos = 0n;
/** Writes in flight at most (one per lane). */
const LANES = 16;

/** The lane of an object's events: a hash of the reference. */
function laneOf(ref: ObjectReference): number {
  const key = `${ref.kind}/${ref.namespace}/${ref.name}`;
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(h) % LANES;
}

/** Options every broadcaster of this process starts from (the bench turns aggregation off for its baseline). */
export const broadcasterDefaults: BroadcasterOptions = {};

/** A Map kept to the `max` most recently used keys (client-go's LRU caches). */
class Lru<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }
  touch(key: string): V | undefined {
    const v = super.get(key);
    if (v !== undefined) {
      super.delete(key);
      super.set(key, v);
    }
    return v;
  }
  put(key: string, v: V) {
    super.delete(key);
    super.set(key, v);
    if (this.size > this.max) this.delete(this.keys().next().value!);
  }
}

const refOf = (o: KubeObject | ObjectReference): ObjectReference => {
  if ('metadata' in o && o.metadata) {
    const k = o as KubeObject;
    return { kind: k.kind, namespace: k.metadata.namespace, name: k.metadata.name, uid: k.metadata.uid, apiVersion: k.apiVersion, resourceVersion: k.metadata.resourceVersion };
  }
  return { ...(o as ObjectReference) };
};

/**
 * One queue and one correlator shared by many recorders (client-go's
 * EventBroadcaster); each recorder writes with its actor's own client.
 */
export class EventBroadcaster {
  readonly stats: RecorderStats = { recorded: 0, created: 0, patched: 0, dropped: { queueFull: 0, rateLimited: 0, failed: 0 } };
  /**
   * Writes run in lanes, an object's events always in the same one: events
   * about one object keep their order and meet the correlator one at a time,
   * while events about different objects are written side by side.
   */
  private readonly lanes: Pending[][] = Array.from({ length: LANES }, () => []);
  private readonly draining = new Set<number>();
  private readonly buckets = new Lru<{ tokens: number; at: number }>(MAX_LRU);
  private readonly similar = new Lru<{ messages: Set<string>; since: number }>(MAX_LRU);
  /** Identical events already written: key -> the stored event (name, count, firstTimestamp). */
  private readonly written = new Lru<{ name: string; namespace: string; count: number; firstTimestamp: string }>(MAX_LRU);
  private idle: (() => void)[] = [];
  private stopped = false;
  private readonly o: Required<BroadcasterOptions>;

  constructor(given: BroadcasterOptions = {}) {
    const opts = { ...broadcasterDefaults, ...given };
    this.o = {
      queueSize: opts.queueSize ?? 1000,
      burst: opts.burst ?? 25,
      qps: opts.qps ?? 1 / 300,
      similarWindowMs: opts.similarWindowMs ?? 600_000,
      maxSimilar: opts.maxSimilar ?? 10,
      aggregate: opts.aggregate ?? true,
      now: opts.now ?? Date.now,
    };
  }

  /** A recorder for one source (`daemonset-controller`, or `kubelet` on a host) writing with `client`. */
  newRecorder(client: Client, source: EventSource): EventRecorder {
    const queued = { n: 0 };
    return {
      event: (object, type, reason, message, fieldPath) => {
        if (this.stopped) return;
        const involved = refOf(object);
        if (fieldPath) involved.fieldPath = fieldPath;
        const now = this.o.now();
        const ts = rfc3339(new Date(now));
        const event = {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: this.nameFor(involved.name ?? '', now), namespace: involved.namespace || 'default' },
          involvedObject: involved,
          reason,
          message,
          source: source.host ? { component: source.component, host: source.host } : { component: source.component },
          firstTimestamp: ts,
          lastTimestamp: ts,
          count: 1,
          type,
          reportingComponent: source.component,
          reportingInstance: source.host ?? '',
        };
        this.count('recorded');
        if (queued.n >= this.o.queueSize) {
          this.count('queueFull');
          return;
        }
        queued.n++;
        const lane = laneOf(involved);
        this.lanes[lane].push({ client, event, queued });
        if (!this.draining.has(lane)) {
          this.draining.add(lane);
          void this.drain(lane);
        }
      },
    };
  }

  /** Resolves once every queued event has been written (tests and shutdown). */
  flush(): Promise<void> {
    if (!this.draining.size) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  stop() {
    this.stopped = true;
    for (const l of this.lanes) l.length = 0;
  }

  private count(what: 'recorded' | 'created' | 'patched' | 'queueFull' | 'rateLimited' | 'failed') {
    for (const s of [this.stats, recorderTotals]) {
      if (what === 'recorded' || what === 'created' || what === 'patched') s[what]++;
      else s.dropped[what]++;
    }
  }

  /** `<name>.<hex of UnixNano>`, unique within this process even within one millisecond. */
  private nameFor(name: string, now: number): string {
    let nanos = BigInt(now) * 1_000_000n;
    // One clock for every broadcaster: the kubelet and the scheduler name events about one pod in the same millisecond.
    if (nanos <= lastNanos) nanos = lastNanos + 1n;
    lastNanos = nanos;
    return `${name}.${nanos.toString(16)}`;
  }

  private async drain(lane: number) {
    // Writes happen a turn after the caller recorded, never inside its own work.
    await new Promise<void>((r) => setImmediate(r));
    const queue = this.lanes[lane];
    while (queue.length && !this.stopped) {
      const { client, event, queued } = queue.shift()!;
      queued.n--;
      try {
        await this.write(client, event);
      } catch {
        // An event that cannot be written is dropped, as upstream's recorder gives up after its retries.
        this.count('failed');
      }
    }
    this.draining.delete(lane);
    if (!this.draining.size) for (const r of this.idle.splice(0)) r();
  }

  private async write(client: Client, e: any) {
    const io = e.involvedObject;
    const src = `${e.source.component}/${e.source.host ?? ''}`;
    const objectKey = [src, io.kind, io.namespace, io.name, io.uid, io.apiVersion].join('\u0000');
    // EventSourceObjectSpamFilter: a token bucket per source and object.
    const now = this.o.now();
    const bucket = this.buckets.touch(objectKey) ?? { tokens: this.o.burst, at: now };
    bucket.tokens = Math.min(this.o.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.o.qps);
    bucket.at = now;
    this.buckets.put(objectKey, bucket);
    if (bucket.tokens < 1 && this.o.aggregate) {
      this.count('rateLimited');
      return;
    }
    bucket.tokens -= 1;
    // EventAggregator: many different messages for one reason become one combined event.
    const similarKey = [objectKey, e.type, e.reason, io.fieldPath ?? ''].join('\u0000');
    let group = this.similar.touch(similarKey);
    if (!group || now - group.since > this.o.similarWindowMs) group = { messages: new Set(), since: now };
    group.messages.add(e.message);
    this.similar.put(similarKey, group);
    if (this.o.aggregate && group.messages.size > this.o.maxSimilar) {
      e.message = `(combined from similar events): ${e.message}`;
    }
    const identicalKey = this.o.aggregate && group.messages.size > this.o.maxSimilar ? `${similarKey}\u0000combined` : `${similarKey}\u0000${e.message}`;
    const seen = this.o.aggregate ? this.written.touch(identicalKey) : undefined;
    if (seen) {
      // eventLogger: a repeat bumps count and lastTimestamp of the event written before.
      const count = seen.count + 1;
      try {
        await client.update(eventKind, seen.namespace, seen.name, (o: any) => {
          o.count = count;
          o.lastTimestamp = e.lastTimestamp;
          o.message = e.message;
        });
        seen.count = count;
        this.count('patched');
        return;
      } catch (err: any) {
        // Gone (expired or deleted): start a new one below.
        if (err?.code !== 404) throw err;
        this.written.delete(identicalKey);
      }
    }
    const created = await client.create(eventKind, e);
    this.count('created');
    if (this.o.aggregate) this.written.put(identicalKey, { name: created.metadata.name!, namespace: created.metadata.namespace!, count: 1, firstTimestamp: e.firstTimestamp });
  }
}

/** A reference to an object of `kind` for events (the kind's apiVersion filled in). */
export function referenceTo(kind: { group: string; version: string; kind: string }, o: KubeObject): ObjectReference {
  return { kind: kind.kind, namespace: o.metadata.namespace, name: o.metadata.name, uid: o.metadata.uid, apiVersion: apiVersionOf(kind), resourceVersion: o.metadata.resourceVersion };
}
