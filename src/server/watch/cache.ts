// The watch cache: the current state of every object and a window of recent
// events, fed by one storage subscription. GETs, LISTs at the latest revision
// and every watcher are served from here, so many watchers cost one store
// subscription (kube-apiserver's cacher).
import type { KubeObject } from '../../kinds/kind.ts';
import { StorageError, type ListResult, type Storage, type StorageEvent, type StoredObject } from '../storage/storage.ts';
import { yieldToEventLoop } from '../registry/turns.ts';
import { RevisionWaiters } from '../storage/revisionwaiters.ts';
import { commitStatsOn, recordCacheLag } from '../storage/commitstats.ts';
import { settleAsJSON } from '../../lib/json.ts';
import { byKey, KeyOrder } from './keyorder.ts';
import { DEFAULT_HISTORY_EVENTS, WatchHistory } from './history.ts';

/**
 * Whether the objects this server's writes hand the cache are frozen: under
 * tests and in development (NODE_ENV test or development, or
 * KUBE_FREEZE_CACHE=1), so that the test suite catches any code that changes
 * a cached object; not otherwise, where freezing was about half the cost of
 * taking a written object in (Object.freeze per object, ~1.4% of a
 * 2500-node rollout's server CPU).
 */
export const FREEZE_CACHED = ['test', 'development'].includes(process.env.NODE_ENV ?? '') || process.env.KUBE_FREEZE_CACHE === '1';

export interface CachedObject {
  key: string;
  object: KubeObject;
  revision: number;
  /** The length of the JSON text it was stored as (in UTF-16 units), where known: what a job on it weighs (http/bodies.ts). */
  size?: number;
  /** Serialised JSON of `object`, made on first use and kept for lists (encodings.ts textOf); dropped once `bytes` exist. */
  json?: string;
  /** Whether that JSON text is ASCII, once a list has asked (encodings.ts textOf). */
  asciiJSON?: boolean;
  /** The same JSON as UTF-8 bytes, shared by every response (encodings.ts). */
  bytes?: Buffer;
  /** The metadata's part of `bytes` or `json` (a view or a slice), once a Table row has needed it (encodings.ts). */
  metadataJSON?: Buffer | string;
  /** Its JSON is made for each use and none of the above kept (KindDefinition.encodedOnDemand). */
  onDemand?: boolean;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  type: EventType;
  key: string;
  /** The new state; for DELETED the last state, with the deletion revision. */
  object: CachedObject;
  /** The state before this event (MODIFIED and DELETED). */
  previous?: KubeObject;
  revision: number;
}

export interface CacheWatcher {
  /** Only keys under this prefix are delivered. */
  prefix: string;
  /**
   * Only objects whose `trigger.field` reads `trigger.value`, before or after
   * an event, matter to this watcher: it is offered only their events (a
   * watcher within one resource). kube-apiserver's cacher does the same for a
   * kubelet's watch of its pods (spec.nodeName) and of its Node
   * (metadata.name): 5000 kubelets' watches are not each offered every event.
   */
  trigger?: WatchTrigger;
  deliver(event: CacheEvent): void;
  /** The cache was reloaded after events were lost: this watch cannot go on (its client relists, as after a 410). */
  expire?(): void;
  /**
   * Go on through a reload instead (an in-process informer, which client-go
   * would have relist): the watcher is told what the reload changed under its
   * prefix, as events (ADDED, MODIFIED with the state it had, DELETED with the
   * last state it had), and then the live events as before.
   */
  followsReloads?: boolean;
  /** The watch's client has gone: a replay from the store stops. */
  gone?(): boolean;
}

/** A field of the objects and the one value a watcher wants (see CacheWatcher.trigger). */
export interface WatchTrigger {
  field: string;
  value: string;
  /** The field's value in an object; the same function for every watcher of the resource and field. */
  read: (o: KubeObject) => string;
}

export class TooOldError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

/** `/registry/apps/daemonsets/ns/name` -> `/registry/apps/daemonsets/` */
export const resourcePrefixOf = (key: string) => {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) if (key[i] === '/' && ++slashes === 4) return key.slice(0, i + 1);
  return key;
};

/** Whether a watched prefix spans several resources (`/registry/`); `/registry/<group>/<resource>/` and longer are within one. */
const spansResources = (prefix: string) => prefix.split('/').length < 5;

export function toCached(key: string, value: string, revision: number, fields?: SharedFields, previous?: KubeObject): CachedObject {
  const object = JSON.parse(value) as KubeObject;
  object.metadata.resourceVersion = String(revision);
  fields?.share(object, previous);
  return { key, object, revision, size: value.length };
}

/** An object a write of this server made, with the JSON it stored (see WatchCache.expect). */
interface Written {
  value: string;
  object: KubeObject;
  /** Where `value`'s metadata ends (storedJSON), or -1. */
  metadataEnd: number;
}

import { withResourceVersion } from './encodings.ts';
import { ListSnapshots } from './listsnapshots.ts';
import { SharedFields } from '../../lib/sharedfields.ts';

/** An index of a resource's objects by the value of one field (a field selector's `field=value`). */
class FieldIndex {
  private readonly byValue = new Map<string, Map<string, CachedObject>>();
  constructor(readonly read: (o: KubeObject) => string) {}
  add(c: CachedObject) {
    const value = this.read(c.object);
    let objects = this.byValue.get(value);
    if (!objects) this.byValue.set(value, (objects = new Map()));
    objects.set(c.key, c);
  }
  remove(c: CachedObject) {
    const value = this.read(c.object);
    const objects = this.byValue.get(value);
    if (objects?.get(c.key) === c && objects.delete(c.key) && !objects.size) this.byValue.delete(value);
  }
  /** The objects whose field reads `value`, in key order. */
  list(value: string): CachedObject[] {
    const objects = this.byValue.get(value);
    return objects ? [...objects.values()].sort(byKey) : [];
  }
}

class Bucket {
  constructor(
    /** Its resource's key prefix (resourcePrefixOf). */
    readonly resource: string,
  ) {}
  readonly objects = new Map<string, CachedObject>();
  /** Its objects' JSON is made for each use, not kept (see WatchCache.encodeOnDemand). */
  onDemand = false;
  private readonly order = new KeyOrder();
  private readonly indexes = new Map<string, FieldIndex>();
  /** Indexes the objects by `field` from now on (those here already included). */
  addIndex(field: string, read: (o: KubeObject) => string) {
    if (this.indexes.has(field)) return;
    const index = new FieldIndex(read);
    for (const c of this.objects.values()) index.add(c);
    this.indexes.set(field, index);
  }
  set(c: CachedObject) {
    if (this.onDemand) c.onDemand = true;
    const before = this.objects.get(c.key);
    this.order.changed(c.key, c);
    this.objects.set(c.key, c);
    for (const index of this.indexes.values()) {
      if (before) index.remove(before);
      index.add(c);
    }
  }
  delete(key: string) {
    const before = this.objects.get(key);
    if (!before) return;
    this.objects.delete(key);
    this.order.changed(key, undefined);
    for (const index of this.indexes.values()) index.remove(before);
  }
  /** Forgets every object; the indexes stay, empty. */
  clear() {
    this.objects.clear();
    this.order.forget();
    for (const [field, index] of this.indexes) this.indexes.set(field, new FieldIndex(index.read));
  }
  /** Objects in key order (the order LIST returns). */
  list(): CachedObject[] {
    return this.order.list(() => this.objects.values());
  }
  /** Objects whose indexed `field` reads `value`, in key order; undefined when `field` is not indexed. */
  listBy(field: string, value: string): CachedObject[] | undefined {
    return this.indexes.get(field)?.list(value);
  }
}

/** Watchers of one resource: those offered every event, and those with a trigger by its field and value. */
class ResourceWatchers {
  readonly all = new Set<CacheWatcher>();
  readonly triggered = new Map<string, { read: (o: KubeObject) => string; byValue: Map<string, Set<CacheWatcher>> }>();
  add(w: CacheWatcher) {
    const t = w.trigger;
    if (!t) return void this.all.add(w);
    let field = this.triggered.get(t.field);
    if (!field) this.triggered.set(t.field, (field = { read: t.read, byValue: new Map() }));
    let set = field.byValue.get(t.value);
    if (!set) field.byValue.set(t.value, (set = new Set()));
    set.add(w);
  }
  delete(w: CacheWatcher) {
    const t = w.trigger;
    if (!t) return void this.all.delete(w);
    const field = this.triggered.get(t.field);
    const set = field?.byValue.get(t.value);
    if (!set?.delete(w) || set.size) return;
    field!.byValue.delete(t.value);
    if (!field!.byValue.size) this.triggered.delete(t.field);
  }
  *each(): Generator<CacheWatcher> {
    yield* this.all;
    for (const field of this.triggered.values()) for (const set of field.byValue.values()) yield* set;
  }
}

/**
 * The cache's watchers, indexed by the resource they watch: an event is
 * offered to the watchers of its resource (and to the few that watch several,
 * such as the garbage collector), not tested against every watcher's prefix.
 * 200 watchers on nodes and pods cost a pod event 100 calls, not 200 tests.
 * Within a resource, a watcher with a trigger is offered only the events of
 * objects with its field's value, before or after.
 */
class Watchers {
  private readonly byResource = new Map<string, ResourceWatchers>();
  /** Watchers whose prefix spans resources (`/registry/`). */
  private readonly broad = new Set<CacheWatcher>();

  add(w: CacheWatcher) {
    if (spansResources(w.prefix)) return void this.broad.add(w);
    const resource = resourcePrefixOf(w.prefix);
    let r = this.byResource.get(resource);
    if (!r) this.byResource.set(resource, (r = new ResourceWatchers()));
    r.add(w);
  }
  delete(w: CacheWatcher) {
    if (spansResources(w.prefix)) this.broad.delete(w);
    else this.byResource.get(resourcePrefixOf(w.prefix))?.delete(w);
  }
  /** Removes every watcher; returns them. */
  clear(): CacheWatcher[] {
    const all = [...this.broad, ...[...this.byResource.values()].flatMap((r) => [...r.each()])];
    this.broad.clear();
    this.byResource.clear();
    return all;
  }
  deliver(e: CacheEvent) {
    for (const w of this.broad) if (e.key.startsWith(w.prefix)) w.deliver(e);
    const resource = resourcePrefixOf(e.key);
    const r = this.byResource.get(resource);
    if (!r) return;
    // A namespace's watcher (a prefix longer than the resource's) still tests its prefix.
    const offer = (set: Set<CacheWatcher> | undefined) => {
      if (set) for (const w of set) if (w.prefix.length === resource.length || e.key.startsWith(w.prefix)) w.deliver(e);
    };
    offer(r.all);
    for (const { read, byValue } of r.triggered.values()) {
      const now = read(e.object.object);
      offer(byValue.get(now));
      if (e.previous !== undefined) {
        const before = read(e.previous);
        if (before !== now) offer(byValue.get(before));
      }
    }
  }
}

/** Events whose value is at least this long are applied a turn later (see receive). */
const LARGE_EVENT_CHARS = 256 * 1024;
/** How long the cache applies events in one turn of the event loop, and how far behind it may fall (see receive). */
const APPLY_SLICE_MS = 5;
const MAX_APPLY_LAG_MS = 20;

/**
 * Keys per page when the cache reads the whole store. Debian's etcd 3.4 walks
 * every key after a page's start for each limited range, counted or not: at
 * 300,000 keys pages of 1,000 took 18.3-21.4 s against 8.8-11.3 for pages of
 * 10,000. On SQLite pages of 1,000 were a little quicker (a restart at 60,000
 * pods 17.2-17.3 s against 18.7-19.3).
 */
const LOAD_PAGE = 10_000;
/** Revisions of the store's history a watch older than the cache's window replays a turn. */
const REPLAY_REVISIONS = 1_000;

/**
 * Every object in the store, read in pages at the first page's revision (as
 * kube-apiserver's cacher lists for its reflector): one read of 50,000 pods
 * from etcd was a 180 MB answer, past what a gRPC message may carry. Each
 * page goes to `onPage` as it comes, so that its stored text can be dropped
 * before the next is read (held to the end, 600 MB of it at 60,000 pods
 * outlived V8's young generation and was copied there and back); returns the
 * revision read.
 */
export async function listEverything(storage: Storage, onPage: (items: StoredObject[]) => void, pageSize = LOAD_PAGE): Promise<number> {
  // Uncounted: it reads every page anyway, and SQLite counts the keys after a page by walking them all
  // (every page of a 2 GB store counted the rest: 49 of a restart's 70 s at 60,000 pods).
  let page: ListResult | undefined = await storage.list('/registry/', { limit: pageSize, uncounted: true });
  const revision = page.revision;
  for (;;) {
    onPage(page.items);
    if (!page.more || !page.items.length) return revision;
    const startKey = page.items[page.items.length - 1].key + '\0';
    page = undefined; // not held while the next is read
    // A turn for the rest of the server between pages (SQLite reads and parses a page without one): while a large
    // store loads (646,000 Events: 30 s), health checks and requests are answered, if only to say it is loading.
    await new Promise((resolve) => setImmediate(resolve));
    page = await storage.list('/registry/', { limit: pageSize, revision, startKey, uncounted: true });
  }
}

export class WatchCache {
  private readonly buckets = new Map<string, Bucket>();
  private readonly watchers = new Watchers();
  private readonly waiting = new RevisionWaiters();
  /** Objects this server's writes are storing, by key, until their events come (see expect). */
  private readonly written = new Map<string, Written>();
  private unsubscribe: (() => void) | undefined;
  /** The newest revision applied. */
  revision = 0;
  /** Lists paged LISTs were cut from, for their later pages (listsnapshots.ts). */
  readonly listSnapshots = new ListSnapshots();
  /** The managed fields' FieldsV1 values the cached objects share (sharedfields.ts). */
  private readonly fields = new SharedFields();
  /** Recent events, a window for each resource (history.ts). */
  private readonly history: WatchHistory;

  private constructor(
    private readonly storage: Storage,
    historySize: number,
  ) {
    this.history = new WatchHistory(historySize);
  }

  /** `historySize`: the most events kept over every resource (history.ts). */
  static async start(storage: Storage, opts: { historySize?: number } = {}): Promise<WatchCache> {
    const cache = new WatchCache(storage, opts.historySize ?? DEFAULT_HISTORY_EVENTS);
    // Subscribe before listing so nothing written in between is lost; events at
    // or below the listed revision are skipped in apply().
    const early: StorageEvent[] = [];
    let ready = false;
    // Events lost before the listing is in: the store is listed again (from a revision past what was
    // lost). A reload beside the listing was overwritten by the listing's older objects and revision.
    let lostEarly = false;
    cache.unsubscribe = storage.subscribe((events) => (ready ? cache.receive(events) : early.push(...events)), {
      lost: () => (ready ? void cache.reload() : void (lostEarly = true)),
      // Before the listing is in, noted: it is applied after the early events (etcd tells it once).
      progress: (revision) => (ready ? cache.progress(revision) : void (cache.progressed = Math.max(cache.progressed, revision))),
    });
    const cacheAll = (items: StoredObject[]) => {
      for (const item of items) cache.bucket(item.key).set(toCached(item.key, item.value, item.modRevision, cache.fields));
    };
    try {
      do {
        lostEarly = false;
        for (const b of cache.buckets.values()) b.clear();
        cache.revision = await listEverything(storage, cacheAll);
      } while (lostEarly);
    } catch (e) {
      cache.stop();
      throw e;
    }
    cache.history.reset(cache.revision);
    ready = true;
    cache.apply(early);
    return cache;
  }

  stop() {
    this.stopped = true;
    if (this.draining) clearImmediate(this.draining);
    this.unsubscribe?.();
  }

  private stopped = false;
  /** Events that arrive while the cache reloads, applied after it (those the listing holds are skipped). */
  private reloading: StorageEvent[] | undefined;
  /** Events were lost again during a reload. */
  private lostAgain = false;

  /**
   * Reads every object again after the storage lost events (etcd compacted
   * them while this replica was cut off), as kube-apiserver's cacher
   * re-lists: the state is replaced by the listing, the history starts
   * over at its revision, and the watches open now end, so that their
   * clients relist (resuming from before the listing is a 410).
   */
  private async reload(): Promise<void> {
    // Lost again while it lists: it lists once more, as what it reads may be from before the loss.
    if (this.reloading) return void (this.lostAgain = true);
    this.reloading = [];
    try {
      for (let attempt = 0; !this.stopped; attempt++) {
        try {
          this.lostAgain = false;
          // Made whole before any is replaced: with etcd, reads and events come between its pages.
          const all: CachedObject[] = [];
          const revision = await listEverything(this.storage, (items) => {
            for (const item of items) all.push(toCached(item.key, item.value, item.modRevision, this.fields));
          });
          if (this.lostAgain) continue;
          const before = new Map<string, CachedObject>();
          for (const b of this.buckets.values()) for (const c of b.objects.values()) before.set(c.key, c);
          for (const b of this.buckets.values()) b.clear();
          for (const c of all) this.bucket(c.key).set(c);
          this.revision = Math.max(this.revision, revision);
          this.history.reset(this.revision);
          const followers: CacheWatcher[] = [];
          for (const w of this.watchers.clear()) {
            if (w.followsReloads) followers.push(w);
            else w.expire?.();
          }
          for (const w of followers) this.watchers.add(w);
          if (followers.length) this.tellReload(before, all, followers);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2000)));
        }
      }
    } finally {
      const early = this.reloading ?? [];
      this.reloading = undefined;
      this.apply(early);
    }
  }

  /** What a reload changed, as events, to the watchers that follow reloads (`before`: every object before it, by key). */
  private tellReload(before: Map<string, CachedObject>, after: CachedObject[], followers: CacheWatcher[]) {
    const tell = (e: CacheEvent) => {
      for (const w of followers) if (e.key.startsWith(w.prefix)) w.deliver(e);
    };
    for (const c of after) {
      const old = before.get(c.key);
      before.delete(c.key);
      if (!old) tell({ type: 'ADDED', key: c.key, object: c, revision: c.revision });
      else if (old.revision !== c.revision) tell({ type: 'MODIFIED', key: c.key, object: c, previous: old.object, revision: c.revision });
    }
    for (const old of before.values()) tell({ type: 'DELETED', key: old.key, object: old, previous: old.object, revision: this.revision });
  }

  /** The storage's revision the events applied or queued reach, when it is newer than the last of them (progress). */
  private progressed = 0;

  /**
   * Every event through `revision` has been received, none of them after the last one received
   * (etcd: writes outside this server's prefix). The cache is at that revision once what is
   * queued is applied, so that a read waiting for the storage's current revision does not wait for
   * an event of its own to come.
   */
  private progress(revision: number) {
    this.progressed = Math.max(this.progressed, revision);
    this.applyProgress();
  }

  /** Not past events still queued, nor during a reload (its events wait in `reloading`). */
  private applyProgress() {
    if (this.reloading || this.draining || this.progressed <= this.revision) return;
    this.revision = this.progressed;
    this.waiting.reached(this.revision);
  }

  /** How many objects it holds, over every resource. */
  get size(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.objects.size;
    return n;
  }

  private bucket(key: string): Bucket {
    const prefix = resourcePrefixOf(key);
    let b = this.buckets.get(prefix);
    if (!b) this.buckets.set(prefix, (b = new Bucket(prefix)));
    return b;
  }

  /**
   * Indexes a resource's objects by a field, for lists with a field selector
   * on it (listBy): a kubelet's list of its pods, among 50,000, reads its own
   * and not every pod. kube-apiserver's watch cache indexes pods by
   * spec.nodeName for the same lists.
   */
  indexBy(resourcePrefix: string, field: string, read: (o: KubeObject) => string) {
    this.bucket(resourcePrefix).addIndex(field, read);
  }

  /** The resource's objects keep no JSON between requests from now on (KindDefinition.encodedOnDemand). */
  encodeOnDemand(resourcePrefix: string) {
    const b = this.bucket(resourcePrefix);
    b.onDemand = true;
    for (const c of b.objects.values()) ((c.onDemand = true), (c.json = c.bytes = c.metadataJSON = c.asciiJSON = undefined));
  }

  /** Events not applied yet, in order, from `queuedAt` on; see receive(). */
  private queued: StorageEvent[] = [];
  private queuedAt = 0;
  /** When each receive()d batch arrived, by the index in `queued` after its last event. */
  private arrivals: { end: number; at: number }[] = [];
  private draining: NodeJS.Immediate | undefined;

  /**
   * Storage delivers events inside the write that made them, a group commit's
   * worth at once. They are applied (parsed, offered to every watcher) for at
   * most APPLY_SLICE_MS in one turn of the event loop; the rest wait for the
   * next turn, so that requests and other writes are read in between instead of
   * behind one long turn (a 5000-node rollout commits hundreds of writes in a
   * group, each delivered to 200 watchers). But the cache never falls further
   * behind than MAX_APPLY_LAG_MS: writes wait for it (read-your-writes, and a
   * conflicting update retries from it), so when the process is short of CPU
   * and a turn's slice is not enough, events that waited that long are all
   * applied in the next turn. A large event (parsing it takes a while) is
   * applied on a turn of its own. Order is kept: once anything waits, later
   * events wait behind it. Readers wait with waitFor() either way.
   */
  private receive(events: StorageEvent[]) {
    if (this.reloading) return void this.reloading.push(...events);
    for (const e of events) this.queued.push(e);
    this.arrivals.push({ end: this.queued.length, at: performance.now() });
    if (!this.draining) this.drain(true);
  }

  private drain(inWrite: boolean) {
    this.draining = undefined;
    const q = this.queued;
    const now = performance.now();
    const until = now + APPLY_SLICE_MS;
    // Everything that arrived before this is applied in this turn, however long it takes.
    let late = this.queuedAt;
    for (const a of this.arrivals) if (now - a.at > MAX_APPLY_LAG_MS) late = a.end;
    let i = this.queuedAt;
    for (; i < q.length; i++) {
      // The write that made a large event and its parse are two turns, not one long one.
      if (q[i].value.length > LARGE_EVENT_CHARS && (inWrite || i > this.queuedAt) && i >= late) break;
      this.applyOne(q[i]);
      if (i + 1 >= late && performance.now() > until) {
        i++;
        break;
      }
    }
    if (commitStatsOn()) {
      const t = performance.now();
      for (const a of this.arrivals) if (a.end <= i) recordCacheLag(t - a.at);
    }
    if (i < q.length) {
      this.queuedAt = i;
      while (this.arrivals.length && this.arrivals[0].end <= i) this.arrivals.shift();
      this.draining = setImmediate(() => this.drain(false));
    } else {
      this.queued = [];
      this.queuedAt = 0;
      this.arrivals = [];
      this.applyProgress();
    }
    this.waiting.reached(this.revision);
  }

  private apply(events: StorageEvent[]) {
    for (const e of events) this.applyOne(e);
    this.applyProgress();
    this.waiting.reached(this.revision);
  }

  /**
   * A write of this server is storing `value`, the JSON of `object`: when the
   * event storing that JSON comes, the cache takes `object` instead of parsing
   * the JSON again (a tenth of the server's time in a rollout was parsing its
   * own writes). Only an event whose value is this JSON takes it, so a write
   * that failed or lost a race, or a value the storage changed, is parsed as ever.
   *
   * The contract: objects from the cache are never changed, by anyone. Every
   * reader shares them (the writer included, which gets the cached object
   * back), and writes share their unchanged parts with the object they
   * replace (a status write keeps the stored spec itself). Under tests they
   * are frozen (FREEZE_CACHED), so a change throws there; elsewhere nothing
   * checks it.
   */
  expect(key: string, value: string, object: KubeObject, metadataEnd = -1) {
    this.written.set(key, { value, object, metadataEnd });
  }

  /** Forgets what expect() was told for `key` (the write failed). */
  forget(key: string, object: KubeObject) {
    if (this.written.get(key)?.object === object) this.written.delete(key);
  }

  private cachedOf(e: StorageEvent, previous: KubeObject | undefined): CachedObject {
    const written = this.written.get(e.key);
    if (written === undefined) return toCached(e.key, e.value, e.revision, this.fields, previous);
    this.written.delete(e.key);
    if (written.value !== e.value) return toCached(e.key, e.value, e.revision, this.fields, previous);
    const object = written.object;
    this.fields.share(object, previous);
    // The revision goes last in the metadata, so the object's JSON is the stored JSON with it spliced in
    // (withResourceVersion): the watchers' frames are made from that text, not by serialising the object again.
    const splice = written.metadataEnd >= 0 && !Object.hasOwn(object.metadata, 'resourceVersion');
    object.metadata.resourceVersion = String(e.revision);
    // What it shares with the object it replaces is settled already (see expect).
    const c: CachedObject = { key: e.key, object: settleAsJSON(object, previous, FREEZE_CACHED), revision: e.revision, size: e.value.length };
    if (splice) {
      c.json = withResourceVersion(e.value, written.metadataEnd, e.revision);
      // Under tests, the splice is checked against the object's own serialisation.
      if (FREEZE_CACHED && c.json !== JSON.stringify(object)) throw new Error(`watch cache: the stored JSON of ${e.key} with its revision is not the object's JSON`);
    }
    return c;
  }

  private applyOne(e: StorageEvent) {
    if (e.revision <= this.revision) return;
    const bucket = this.bucket(e.key);
    const previous = bucket.objects.get(e.key)?.object;
    const object = e.type === 'delete' ? toCached(e.key, e.value, e.revision, this.fields) : this.cachedOf(e, previous);
    if (bucket.onDemand) object.onDemand = true;
    let type: EventType;
    if (e.type === 'delete') {
      bucket.delete(e.key);
      type = 'DELETED';
    } else {
      bucket.set(object);
      type = e.type === 'create' || !previous ? 'ADDED' : 'MODIFIED';
    }
    const event: CacheEvent = { type, key: e.key, object, previous, revision: e.revision };
    this.history.push(bucket.resource, event);
    this.revision = e.revision;
    this.watchers.deliver(event);
    // A text nobody framed or wrote as text (a Table or metadata watch, see textOf) is not kept beside the
    // object (it is made again if asked for).
    if (object.onDemand || (object.bytes === undefined && object.asciiJSON === undefined)) object.json = undefined;
  }

  /** Resolves once the cache has applied `revision` (a write's own revision, for read-your-writes). */
  waitFor(revision: number, timeoutMs = 3000): Promise<boolean> {
    if (revision <= this.revision) return Promise.resolve(true);
    return this.waiting.wait(revision, timeoutMs);
  }

  get(key: string): CachedObject | undefined {
    return this.buckets.get(resourcePrefixOf(key))?.objects.get(key);
  }

  /**
   * A resource's objects in no order, live: what is deleted while one walks it
   * is not met, what is written is met as it is now. For a walk over every
   * object that needs no order (a controller's first index), which a list
   * would first sort: 1.4 s at 600,000 Events.
   */
  objects(resourcePrefix: string): IterableIterator<CachedObject> {
    return (this.buckets.get(resourcePrefix)?.objects ?? new Map<string, CachedObject>()).values();
  }

  /** Objects under `prefix` in key order. `prefix` is a resource prefix or a namespace within one. */
  list(prefix: string): CachedObject[] {
    const all = this.buckets.get(resourcePrefixOf(prefix))?.list() ?? [];
    if (prefix.endsWith('/') && resourcePrefixOf(prefix) === prefix) return all;
    return all.filter((c) => c.key.startsWith(prefix));
  }

  /**
   * Objects under `prefix` whose `field` reads `value`, in key order, from its
   * index (see indexBy); undefined when the field is not indexed.
   */
  listBy(prefix: string, field: string, value: string): CachedObject[] | undefined {
    const resource = resourcePrefixOf(prefix);
    const found = this.buckets.get(resource)?.listBy(field, value);
    return prefix === resource || !found ? found : found.filter((c) => c.key.startsWith(prefix));
  }

  /**
   * Registers a watcher that first receives every event after `fromRevision`
   * under its prefix, then live events, with nothing missed or repeated.
   * Throws TooOldError when neither the cache nor the store still holds them.
   */
  async watchFrom(fromRevision: number, watcher: CacheWatcher): Promise<() => void> {
    // From the first event after `fromRevision`: a watch from a recent revision reads the few events
    // since, not the whole window (5000 kubelets' watches opened).
    const recent = this.history.since(fromRevision, spansResources(watcher.prefix) ? undefined : resourcePrefixOf(watcher.prefix));
    if (recent) {
      for (const e of recent) if (e.key.startsWith(watcher.prefix)) watcher.deliver(e);
      this.watchers.add(watcher);
      return () => this.watchers.delete(watcher);
    }
    // Older than our window: replay from the store's history while buffering live events, a page of
    // revisions a turn (a pods watch from minutes back read a whole history in one turn).
    const buffered: CacheEvent[] = [];
    const buffering: CacheWatcher = { prefix: watcher.prefix, deliver: (e) => buffered.push(e) };
    this.watchers.add(buffering);
    let upTo = fromRevision;
    try {
      for (let more = true; more; ) {
        if (upTo > fromRevision) await yieldToEventLoop();
        if (watcher.gone?.()) {
          this.watchers.delete(buffering);
          return () => {};
        }
        const page = await this.storage.eventsSince(upTo, { prefix: watcher.prefix, revisions: REPLAY_REVISIONS });
        for (const s of page.events) {
          const previous = s.prevValue ? (JSON.parse(s.prevValue) as KubeObject) : undefined;
          const type: EventType = s.type === 'create' ? 'ADDED' : s.type === 'delete' ? 'DELETED' : 'MODIFIED';
          watcher.deliver({ type, key: s.key, object: toCached(s.key, s.value, s.revision), previous, revision: s.revision });
        }
        ({ revision: upTo, more } = page);
      }
    } catch (err) {
      this.watchers.delete(buffering);
      if (err instanceof StorageError && err.code === 'Expired') {
        throw new TooOldError(fromRevision, (await this.storage.compactedRevision()));
      }
      throw err;
    }
    // The store's events are complete through `upTo`; of what the cache applied meanwhile, the newer are delivered.
    for (const e of buffered) if (e.revision > upTo) watcher.deliver(e);
    this.watchers.delete(buffering);
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Registers a watcher for live events only, from the next one applied on (nothing missed or repeated between). */
  watchLive(watcher: CacheWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }
}
