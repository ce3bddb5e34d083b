// The generic store (kube-apiserver's registry pattern): one implementation of
// create, get, list, update, patch, delete and watch for every kind, with the
// per-kind variation read from the kind's strategy.
import { randomUUID } from 'node:crypto';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { matchesRequirements } from '../../lib/labels.ts';
import { fieldMatcher } from '../../lib/fieldselector.ts';
import { deepEqual, clone } from '../../lib/json.ts';
import { rfc3339 } from '../../lib/duration.ts';
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import { firstNotBefore } from '../../lib/sorted.ts';
import { StorageError, MAX_OBJECT_BYTES, type Storage } from '../storage/storage.ts';
import { storedJSON } from '../watch/encodings.ts';
import { toCached, TooOldError, type CachedObject, type CacheEvent, type WatchCache, type WatchTrigger } from '../watch/cache.ts';
import { ApiError, errors } from '../http/status.ts';
import { canonicalOrder } from './decode.ts';
import { encodeContinue, resourceVersionText, type DeleteOptions, type ListQuery } from './options.ts';
import type { UserInfo } from '../auth/authn.ts';
import { dropOnCreate, recordUpdate } from './apply.ts';
import { scan, yieldToEventLoop } from './turns.ts';
import { resourcePrefixOf } from './prefix.ts';

export interface WriteContext {
  dryRun: boolean;
  /** Texts for `Warning` headers. */
  warnings: string[];
  /** Who writes; validating admission (NodeRestriction, RBAC escalation checks) judges the write by them. */
  user?: UserInfo;
  /** The field manager credited in metadata.managedFields (the request's fieldManager or User-Agent; else the user's name). */
  fieldManager?: string;
  /** The write is a server-side apply, which recorded its managed fields itself. */
  applied?: boolean;
  /**
   * The body was large (decoded off the event loop): each step of the write
   * that is proportional to the object (managed fields, validation,
   * serialisation) then gets its own turn, so that no turn blocks for long.
   */
  large?: boolean;
  /**
   * The body decoder already recorded this write's managed fields (a large
   * write, in its worker), against the stored object at `revision` (0: a
   * create); the store records them itself when the object has moved since.
   */
  recorded?: { revision: number; managedFields: unknown[] | undefined };
  /**
   * The write returns once the storage has it, as kube-apiserver's writes return once etcd has
   * them, without waiting for this server's watch cache to apply it: for a writer that reads
   * from the storage (the leader elector), whose deadline a cache behind a busy etcd would eat.
   */
  returnWhenStored?: boolean;
}

/** Validating admission: throws the Status to answer, or returns (run after validation, before storage). */
export type Admission = (req: {
  user: UserInfo;
  kind: KindDefinition;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  old?: KubeObject;
}) => void;

/** Objects a list read from storage (not the watch cache) reads at a time. */
const STORAGE_PAGE = 500;

export interface ListPage {
  items: CachedObject[];
  resourceVersion: number;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface WatchSink {
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: CachedObject): void;
  bookmark(resourceVersion: number, initialEventsEnd: boolean): void;
  error(err: ApiError): void;
  /** The client has gone: what is still to be read for it (initial events, a replay) is not. */
  gone?(): boolean;
}

/** Answers whether a namespace may receive new objects: undefined, or the error to answer. */
export type NamespaceAdmission = (namespace: string, kind: KindDefinition, name: string) => ApiError | undefined;

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const randomSuffix = () => Array.from({ length: 5 }, () => GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)]).join('');

/** Equal objects apart from metadata.resourceVersion, compared without copying either. */
function sameButResourceVersion(a: KubeObject, b: KubeObject): boolean {
  const { metadata: ma, ...ra } = a;
  const { metadata: mb, ...rb } = b;
  const { resourceVersion: _a, ...sa } = ma ?? {};
  const { resourceVersion: _b, ...sb } = mb ?? {};
  return deepEqual(sa, sb) && deepEqual(ra, rb);
}

/**
 * Storage errors the client caused, as their Statuses; anything else as it
 * is. An object too large to store is a 413 about the object: the storage's
 * own message names its key, which is no business of the client.
 */
function fromStorage(e: unknown, kind?: KindDefinition, name?: string): unknown {
  if (e instanceof StorageError && e.code === 'TooLarge') return errors.objectTooLarge(MAX_OBJECT_BYTES);
  // A write that lost every retry to other writers of the same object: the client's to retry, as a 409 (it was a 500).
  if (e instanceof StorageError && e.code === 'Conflict' && kind && name !== undefined) return errors.conflict(kind, name);
  // etcd without quorum or out of reach: the server's trouble, said as kube-apiserver's Statuses, retryable.
  if (e instanceof StorageError && e.code === 'Timeout') return errors.timeout(`Timeout: request did not complete within the storage deadline (${e.message})`);
  if (e instanceof StorageError && e.code === 'Unavailable') return new ApiError(503, 'ServiceUnavailable', `storage unavailable: ${e.message}`, { retryAfterSeconds: 1 });
  return e;
}

/**
 * How many times a write that etcd refused for a conflict is tried again against the current object
 * (GuaranteedUpdate's loop, which upstream does not bound): each refusal means another writer of the
 * object got through, so a client loses them all only behind that many concurrent writers.
 */
const CONFLICT_RETRIES = 30;

/** Objects whose JSON is at least this long are written a turn after they are serialised. */
const LARGE_OBJECT_CHARS = 256 * 1024;

/** The object as stored: without resourceVersion, which the storage's revision gives (in place: `o` is the write's own). */
const withoutResourceVersion = (o: KubeObject) => {
  delete o.metadata.resourceVersion;
  return o;
};

function getPath(o: any, path: string): unknown {
  return path.split('.').reduce((v, k) => (v == null ? undefined : v[k]), o);
}
/**
 * Sets the value at `path` to `value` itself: a cached object's (which nobody changes) or the write's own private copy's.
 * `copyPath`: the objects on the way are shared with another object, so each is copied before it is changed.
 */
function setPath(o: any, path: string, value: unknown, copyPath = false) {
  const parts = path.split('.');
  let cur = o;
  for (const p of parts.slice(0, -1)) cur = copyPath ? (cur[p] = { ...cur[p] }) : (cur[p] ??= {});
  if (value === undefined) delete cur[parts.at(-1)!];
  else cur[parts.at(-1)!] = value;
}

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * The finalizers a DELETE leaves for the garbage collector
 * (deletionFinalizersForGarbageCollection in the generic registry): the
 * request's orphanDependents or propagationPolicy decide; without either, a
 * GC finalizer the object already carries; without one, the kind's default
 * policy. Returns `finalizers` itself when the set does not change.
 */
export function finalizersForDeletion(kind: KindDefinition, finalizers: string[] | undefined, opts: Pick<DeleteOptions, 'propagationPolicy' | 'orphanDependents'>): string[] {
  const current = finalizers ?? [];
  const policy = kind.strategy.defaultGarbageCollectionPolicy ?? 'DeleteDependents';
  let orphan = false;
  let foreground = false;
  if (policy !== 'Unsupported') {
    if (opts.orphanDependents !== undefined) orphan = opts.orphanDependents;
    else if (opts.propagationPolicy) {
      orphan = opts.propagationPolicy === 'Orphan';
      foreground = opts.propagationPolicy === 'Foreground';
    } else {
      const existing = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
      orphan = existing ? existing === ORPHAN_FINALIZER : policy === 'OrphanDependents';
      foreground = existing === FOREGROUND_FINALIZER;
    }
  }
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same = next.length === new Set(current).size && next.every((f) => current.includes(f));
  return same ? current : next;
}

export class Store {
  readonly resourcePrefix: string;

  constructor(
    readonly kind: KindDefinition,
    private readonly storage: Storage,
    private readonly cache: WatchCache,
    private readonly admitNamespace: NamespaceAdmission,
    private readonly admission?: Admission,
  ) {
    this.resourcePrefix = resourcePrefixOf(kind);
    for (const field of kind.fieldSelector.indexed ?? []) cache.indexBy(this.resourcePrefix, field, this.fieldReader(field)!);
    if (kind.encodedOnDemand) cache.encodeOnDemand(this.resourcePrefix);
  }

  /** How a field selector reads `field` in this kind's objects (undefined: not a field it supports). */
  private fieldReader(field: string): ((o: KubeObject) => string) | undefined {
    return this.kind.fieldSelector.fields[field] ?? (field === 'metadata.name' ? (o) => o.metadata.name ?? '' : undefined);
  }

  /**
   * The one value a query's field selector wants of metadata.name or of an
   * indexed field (see FieldSelectorSpec.indexed), as a watch trigger: only
   * objects with it can match.
   */
  private triggerOf(q: Pick<ListQuery, 'fieldSelector'>): WatchTrigger | undefined {
    const wanted = (field: string) => q.fieldSelector.find((r) => r.field === field && r.operator === '=');
    for (const field of ['metadata.name', ...(this.kind.fieldSelector.indexed ?? [])]) {
      const r = wanted(field);
      if (r) return { field, value: r.value, read: this.fieldReader(field)! };
    }
    return undefined;
  }

  /**
   * The cached objects under `prefix` that can match a query with this
   * trigger (triggerOf), when an index narrows them down (one name within a namespace
   * or of a cluster-scoped kind, or an indexed field's value); undefined
   * when every object must be tested.
   */
  private candidates(namespace: string | undefined, prefix: string, trigger: WatchTrigger | undefined): CachedObject[] | undefined {
    if (!trigger) return undefined;
    if (trigger.field !== 'metadata.name') return this.cache.listBy(prefix, trigger.field, trigger.value);
    if (this.namespaced && !namespace) return undefined;
    const c = this.cache.get(this.keyFor(namespace, trigger.value));
    return c ? [c] : [];
  }

  /** The newest revision this server has applied. */
  currentRevision(): number {
    return this.cache.revision;
  }

  get namespaced() {
    return this.kind.scope === 'Namespaced';
  }

  keyFor(namespace: string | undefined, name: string): string {
    return this.namespaced ? `${this.resourcePrefix}${namespace}/${name}` : `${this.resourcePrefix}${name}`;
  }

  prefixFor(namespace: string | undefined): string {
    return this.namespaced && namespace ? `${this.resourcePrefix}${namespace}/` : this.resourcePrefix;
  }

  // ---- reads ---------------------------------------------------------------

  /**
   * GET with a resourceVersion: "not older than" it. One newer than this
   * server has seen is waited for (~3 s), then a 504, as upstream's watch
   * cache answers (waitUntilFreshAndBlock).
   */
  async getAt(namespace: string | undefined, name: string, resourceVersion: number | undefined): Promise<CachedObject> {
    if (resourceVersion === undefined) {
      // Without a resourceVersion, kube-apiserver reads the object from etcd. The cache answers when it is
      // as new as the storage; behind it (the storage written faster than its watch delivers), the storage itself.
      if (await this.behindStorage()) return this.getLatest(namespace, name);
    } else await this.awaitRevision(resourceVersion);
    return this.getCached(namespace, name);
  }

  /**
   * The object as the storage holds it now: read from it when other processes write it too (etcd),
   * whatever the cache's lag and however slowly it answers (no fallback to the cache, as `getAt`
   * has for availability); the cache's when this process is the only writer.
   */
  async getLatest(namespace: string | undefined, name: string): Promise<CachedObject> {
    if (!this.storage.shared) return this.getCached(namespace, name);
    const stored = await this.readStored(this.keyFor(namespace, name));
    if (!stored) throw errors.notFound(this.kind, name);
    return stored;
  }

  /**
   * Whether other processes write the storage too and it holds revisions the cache has not applied
   * yet. When the storage cannot tell in time (etcd unreachable), the cache answers as it is.
   */
  private async behindStorage(): Promise<boolean> {
    const current = await this.storageRevision();
    return current !== undefined && current > this.cache.revision;
  }

  /** The shared storage's current revision, or undefined when it is not shared or does not answer within 2 s. */
  private async storageRevision(): Promise<number | undefined> {
    if (!this.storage.shared) return undefined;
    let timer: number | NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((r) => (timer = setTimeout(r, 2000)));
    return Promise.race([this.storage.currentRevision(), deadline])
      .catch(() => undefined)
      .finally(() => clearTimeout(timer as NodeJS.Timeout));
  }

  /** The object as the storage holds it now, not as the cache does (a consistent read of one key). */
  private async readStored(key: string): Promise<CachedObject | undefined> {
    try {
      const s = await this.storage.get(key);
      return s && toCached(key, s.value, s.modRevision);
    } catch (e) {
      throw fromStorage(e);
    }
  }

  /**
   * A write computed against the cache may be computed once more against the storage's own object
   * (the object missing from the cache, a precondition it failed): only when other processes write
   * the storage too (etcd), and once.
   */
  private mayReread(stored: boolean): boolean {
    return !stored && this.storage.shared === true;
  }

  private async reread(key: string): Promise<{ current: CachedObject | undefined; stored: true }> {
    return { current: await this.readStored(key), stored: true };
  }

  /**
   * What a write tries again against after the storage refused it for a
   * conflict: the cache's object once the cache has applied the write it
   * conflicted with (waited for up to a second, which spaces out the
   * retries of writers racing on one object); else the current object the
   * refusal carried, as kube-apiserver's GuaranteedUpdate retries against
   * the state etcd answered with, whatever its watch cache's lag.
   */
  private async afterConflict(key: string, e: StorageError, tried: number): Promise<{ current: CachedObject | undefined; stored: boolean }> {
    const latest = e.current;
    if ((await this.cache.waitFor(latest?.modRevision ?? tried + 1, 1000)) || !latest) return { current: this.cache.get(key), stored: false };
    return { current: toCached(key, latest.value, latest.modRevision), stored: true };
  }

  /**
   * A read of the latest state (no resourceVersion) sees every write
   * acknowledged before it, through whichever replica (etcd): the cache first
   * catches up with the storage's current revision, as kube-apiserver's
   * consistent reads from its watch cache do. Returns that revision when the
   * cache did not reach it in time; when the storage cannot tell (etcd
   * unreachable), the cache answers as it is.
   */
  private async catchUp(): Promise<number | undefined> {
    const current = await this.storageRevision();
    if (current === undefined || current <= this.cache.revision) return undefined;
    return (await this.cache.waitFor(current, 3000)) ? undefined : current;
  }

  /** The cached object, if there is one (no consistent read: a hint, such as the state a write is computed against). */
  peek(namespace: string | undefined, name: string): CachedObject | undefined {
    return this.cache.get(this.keyFor(namespace, name));
  }

  getCached(namespace: string | undefined, name: string): CachedObject {
    const c = this.cache.get(this.keyFor(namespace, name));
    if (!c) throw errors.notFound(this.kind, name);
    return c;
  }

  get(namespace: string | undefined, name: string): KubeObject {
    return this.getCached(namespace, name).object;
  }

  matcher(q: Pick<ListQuery, 'labelSelector' | 'fieldSelector'>): (o: KubeObject) => boolean {
    const { labelSelector, fieldSelector } = q;
    if (!labelSelector.length && !fieldSelector.length) return () => true;
    const byFields = fieldMatcher<KubeObject>(fieldSelector, (f) => this.fieldReader(f));
    if (!labelSelector.length) return byFields;
    return (o) => matchesRequirements(labelSelector, o.metadata.labels) && byFields(o);
  }

  /** Waits (up to ~3 s) for a resourceVersion the client has seen but this server has not; 504 after. */
  private async awaitRevision(rv: number | undefined) {
    if (rv === undefined || rv <= this.cache.revision) return;
    if (!(await this.cache.waitFor(rv, 3000))) {
      throw errors.timeout(`Timeout: Too large resource version: ${resourceVersionText(rv)}, current: ${this.cache.revision}`, [
        { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
      ]);
    }
  }

  async list(namespace: string | undefined, q: ListQuery): Promise<ListPage> {
    const match = this.matcher(q);
    const prefix = this.prefixFor(namespace);
    let atRevision: number | undefined;
    let start = '';
    if (q.continueToken) {
      // -1 continues at the latest revision; a revision this server never reached was not handed out by it.
      // (With a shared storage the first page may have been read from it, at a revision the cache has not reached.)
      if (q.continueToken.rv > this.cache.revision && !(q.continueToken.rv <= ((await this.storageRevision()) ?? 0))) {
        throw errors.badRequest('invalid continue token: continue key is not valid: the resource version is newer than the server\'s');
      }
      atRevision = q.continueToken.rv === -1 ? undefined : q.continueToken.rv;
      start = prefix + q.continueToken.start;
    } else if (q.resourceVersion !== undefined && q.resourceVersion !== 0) {
      await this.awaitRevision(q.resourceVersion);
      // With a limit (or Exact) the list must be exactly at that revision.
      if (q.resourceVersionMatch === 'Exact' || (q.limit > 0 && q.resourceVersionMatch !== 'NotOlderThan')) atRevision = q.resourceVersion;
    } else if (q.resourceVersion === undefined) {
      // The latest state; should the cache lag behind storage, the list is read from storage at its revision.
      atRevision = await this.catchUp();
    }
    if (atRevision === undefined || atRevision === this.cache.revision) {
      // A selector an index answers, when the answer is one page: a kubelet's list of its pods reads its own.
      const few = start ? undefined : this.candidates(namespace, prefix, this.triggerOf(q));
      if (few && (q.limit === 0 || few.length <= q.limit)) return this.pageOf(few, this.cache.revision, prefix, '', q, match);
      return this.pageOf(this.cache.list(prefix), this.cache.revision, prefix, start, q, match);
    }
    // A later page of a list whose first came from the cache: the same list, as it was then.
    const kept = q.continueToken && this.cache.listSnapshots.at(prefix, atRevision);
    if (kept) return this.pageOf(kept, atRevision, prefix, start, q, match);
    return this.pageFromStorage(prefix, start, atRevision, q, match);
  }

  /** A page of `all`, the key-ordered list of `prefix` at `revision`; kept for the pages after it when there are more. */
  private async pageOf(all: CachedObject[], revision: number, prefix: string, start: string, q: ListQuery, match: (o: KubeObject) => boolean): Promise<ListPage> {
    const items: CachedObject[] = [];
    const i = await scan(all, start ? firstNotBefore(0, all.length, (j) => all[j].key < start) : 0, (c) => {
      if (q.limit > 0 && items.length === q.limit) return false;
      if (match(c.object)) items.push(c);
      return true;
    });
    const page: ListPage = { items, resourceVersion: revision };
    if (q.limit > 0 && i < all.length) {
      page.continueToken = encodeContinue(revision, all[i].key.slice(prefix.length));
      if (!q.hasSelectors) page.remainingItemCount = all.length - i;
      this.cache.listSnapshots.keep(prefix, revision, all);
    }
    return page;
  }

  /**
   * A page of the list at `revision` read from storage, STORAGE_PAGE objects a read, the event loop
   * let go between reads: all 60,000 pods at an older revision (`resourceVersionMatch=Exact`) in
   * one query and its parse held every other request 5.8 s. Only a read that may end the page
   * counts what is left after it.
   */
  private async pageFromStorage(prefix: string, start: string, revision: number, q: ListQuery, match: (o: KubeObject) => boolean): Promise<ListPage> {
    const items: CachedObject[] = [];
    let startKey = start;
    try {
      for (let read = 0; ; read++) {
        if (read) await yieldToEventLoop();
        const want = q.limit > 0 ? q.limit - items.length : 0;
        const ends = want > 0 && want <= STORAGE_PAGE;
        const res = await this.storage.list(prefix, { revision, startKey: startKey || undefined, limit: ends ? want : STORAGE_PAGE, uncounted: !ends || q.hasSelectors });
        for (const s of res.items) {
          const o = JSON.parse(s.value) as KubeObject;
          o.metadata.resourceVersion = String(s.modRevision);
          if (match(o)) items.push({ key: s.key, object: o, revision: s.modRevision, size: s.value.length });
        }
        if (!res.more) return { items, resourceVersion: revision };
        const last = res.items[res.items.length - 1].key;
        startKey = last + '\x00';
        if (q.limit > 0 && items.length >= q.limit) {
          const page: ListPage = { items, resourceVersion: revision, continueToken: encodeContinue(revision, startKey.slice(prefix.length)) };
          if (!q.hasSelectors) page.remainingItemCount = res.remaining;
          return page;
        }
      }
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Expired') {
        if (q.continueToken) {
          throw errors.expired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
            encodeContinue(-1, startKey.slice(prefix.length)),
          );
        }
        throw errors.expired('The resourceVersion for the provided list is too old.');
      }
      throw fromStorage(e);
    }
  }

  // ---- watch ---------------------------------------------------------------

  /** Starts a watch; returns the function that stops it. Errors after the start arrive as sink.error. */
  async watch(namespace: string | undefined, q: ListQuery, sink: WatchSink): Promise<() => void> {
    const match = this.matcher(q);
    const prefix = this.prefixFor(namespace);
    const trigger = this.triggerOf(q);
    const rv = q.resourceVersion;
    const initial = rv === undefined || rv === 0 || q.sendInitialEvents === true;
    if (rv !== undefined && rv > this.cache.revision && !(await this.cache.waitFor(rv, 3000))) {
      sink.error(errors.timeout(`Timeout: Too large resource version: ${resourceVersionText(rv)}, current: ${this.cache.revision}`, [
        { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
      ]));
      return () => {};
    }
    const deliver = (e: CacheEvent) => {
      const now = e.type !== 'DELETED' && match(e.object.object);
      const before = e.previous !== undefined && match(e.previous);
      if (e.type === 'ADDED') {
        if (now) sink.event('ADDED', e.object);
      } else if (e.type === 'MODIFIED') {
        if (now && before) sink.event('MODIFIED', e.object);
        else if (now) sink.event('ADDED', e.object);
        else if (before) sink.event('DELETED', this.withRevision(e.previous!, e.revision, e.key));
      } else if (before || (e.previous === undefined && match(e.object.object))) {
        sink.event('DELETED', e.object);
      }
    };
    // The cache was reloaded after events were lost: the client must relist, as after any 410.
    const expire = () => sink.error(new ApiError(410, 'Expired', 'The resourceVersion for the provided watch is too old.'));
    try {
      if (initial) {
        // The objects at one revision, then every event after it: the list is never changed in place,
        // and the cache replays what came meanwhile (the store's history, should the scan outlast the cache's).
        const from = this.cache.revision;
        await scan(this.candidates(namespace, prefix, trigger) ?? this.cache.list(prefix), 0, (c) => {
          if (match(c.object)) sink.event('ADDED', c);
          return !sink.gone?.();
        });
        if (sink.gone?.()) return () => {};
        if (q.allowWatchBookmarks && q.sendInitialEvents !== false) sink.bookmark(from, true);
        return await this.cache.watchFrom(from, { prefix, trigger, deliver, expire, gone: sink.gone });
      }
      return await this.cache.watchFrom(rv!, { prefix, trigger, deliver, expire, gone: sink.gone });
    } catch (e) {
      if (e instanceof TooOldError) {
        sink.error(new ApiError(410, 'Expired', e.message));
        return () => {};
      }
      throw fromStorage(e);
    }
  }

  /**
   * Offers every event under the namespace's prefix from the next one on, as
   * it is applied, with no selector: what a watch without selectors gets
   * once it is live (see watch). Returns the function that stops it.
   */
  follow(namespace: string | undefined, watcher: { event(type: CacheEvent['type'], object: CachedObject): void; expire(): void }): () => void {
    return this.cache.watchLive({ prefix: this.prefixFor(namespace), deliver: (e) => watcher.event(e.type, e.object), expire: () => watcher.expire() });
  }

  private withRevision(o: KubeObject, revision: number, key: string): CachedObject {
    const c = clone(o);
    c.metadata.resourceVersion = String(revision);
    return { key, object: c, revision };
  }

  // ---- writes --------------------------------------------------------------

  async create(namespace: string | undefined, obj: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    const kind = this.kind;
    const meta = obj.metadata;
    if (this.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace ?? meta.namespace;
    } else delete meta.namespace;
    dropOnCreate(kind, obj);
    if (this.namespaced && meta.namespace) {
      const denied = this.admitNamespace(meta.namespace, kind, meta.name ?? meta.generateName ?? '');
      if (denied) throw denied;
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(new Date());
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = (meta.generateName!.slice(0, 58)) + randomSuffix();
    if (kind.strategy.generation) meta.generation = 1;
    // Before the strategy, as upstream's field manager runs in the handler: what the strategy sets
    // (a DaemonSet's template-generation annotation) is the server's, not the creator's. A client's
    // `[{}]` clears managedFields.
    if (!ctx.applied) await this.recordManagedFields(undefined, obj, ctx);
    kind.strategy.prepareForCreate?.(obj);
    ctx.warnings.push(...(kind.strategy.warnings?.(obj) ?? []));
    if (ctx.large) await yieldToEventLoop();
    const problems = kind.validate(obj, {});
    if (problems.length) throw errors.invalid(kind, meta.name ?? '', problems);
    if (ctx.user) this.admission?.({ user: ctx.user, kind, operation: 'CREATE', namespace: meta.namespace, name: meta.name ?? '', object: obj });
    if (meta.resourceVersion) throw errors.internal('resourceVersion should not be set on objects to be created');
    const stored = canonicalOrder(obj);
    // Validation of a large object took its turn on the event loop; let waiting requests go before storing it.
    // A small one is stored in the same turn: a turn later it could miss the group commit starting meanwhile
    // and wait out a whole commit cycle (a DaemonSet's pod creates, the Events of every controller).
    if (ctx.large) await yieldToEventLoop();
    if (ctx.dryRun) {
      if (this.cache.get(this.keyFor(meta.namespace, meta.name!))) throw errors.alreadyExists(kind, meta.name!);
      return stored;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const { value, metadataEnd } = storedJSON(stored);
        const large = value.length > LARGE_OBJECT_CHARS;
        if (large) await yieldToEventLoop();
        await this.stored(this.keyFor(meta.namespace, stored.metadata.name!), value, metadataEnd, stored, (k) => this.storage.create(k, value));
        // The cache parsed it in this turn; the caller's answer (serialising it again) gets the next.
        if (large) await yieldToEventLoop();
        return stored;
      } catch (e) {
        if (!(e instanceof StorageError) || e.code !== 'AlreadyExists') throw fromStorage(e);
        if (generated && attempt < 7) {
          stored.metadata.name = meta.generateName!.slice(0, 58) + randomSuffix();
          continue;
        }
        if (generated) {
          const err = errors.alreadyExists(kind, stored.metadata.name!);
          throw new ApiError(409, 'AlreadyExists', `${err.message}, the server was not able to generate a unique name for the object`, {
            ...err.details,
            retryAfterSeconds: 1,
          });
        }
        const existing = this.cache.get(this.keyFor(meta.namespace, stored.metadata.name!));
        throw errors.alreadyExists(kind, stored.metadata.name!, !!existing?.object.metadata.deletionTimestamp);
      }
    }
  }

  /**
   * The optimistic update loop: `tryUpdate` gets a private copy of the current
   * object and returns the desired one; a write that loses a race to another
   * writer is retried against the new current state.
   */
  guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    tryUpdate: (current: KubeObject) => KubeObject,
    ctx: WriteContext,
    subresource?: string,
  ): Promise<KubeObject> {
    return this.guaranteedUpdateFrom(namespace, name, async (c) => tryUpdate(clone(c.object)), ctx, subresource);
  }

  /**
   * The same loop for an update computed from the cached state itself (its
   * shared JSON, not a copy), possibly elsewhere: a patch decoded in a worker.
   * `tryUpdate` must not modify `current`.
   */
  async guaranteedUpdateFrom(
    namespace: string | undefined,
    name: string,
    tryUpdate: (current: CachedObject) => Promise<KubeObject>,
    ctx: WriteContext,
    subresource?: string,
  ): Promise<KubeObject> {
    const key = this.keyFor(namespace, name);
    let current = this.cache.get(key);
    /** Whether `current` was read from the storage rather than the cache (upstream's origStateIsCurrent). */
    let stored = false;
    for (let attempt = 0; ; attempt++) {
      // Not in the cache: created through another replica, perhaps, and not yet applied here.
      if (!current && this.mayReread(stored)) ({ current, stored } = await this.reread(key));
      if (!current) throw errors.notFound(this.kind, name);
      // Should the object change while the update is computed, the write below conflicts and is retried.
      let next: KubeObject;
      try {
        const desired = await tryUpdate(current);
        if (!ctx.applied) await this.recordManagedFields(current, desired, ctx, subresource);
        if (ctx.large) await yieldToEventLoop();
        next = this.prepareUpdate(desired, current.object, ctx, subresource);
      } catch (e) {
        // A conflict judged against the cache (a resourceVersion the client read from the storage, through
        // another replica, or before this cache applied it) is judged once more against the stored object.
        if (e instanceof ApiError && e.code === 409 && this.mayReread(stored)) {
          ({ current, stored } = await this.reread(key));
          continue;
        }
        throw e;
      }
      if (ctx.large) await yieldToEventLoop();
      const { object: was, revision: at } = current;
      if (sameButResourceVersion(next, was)) return was;
      if (ctx.dryRun) return next;
      const finishing =
        next.metadata.deletionTimestamp &&
        !next.metadata.deletionGracePeriodSeconds &&
        !next.metadata.finalizers?.length &&
        !this.kind.strategy.deletionPending?.(next);
      try {
        const body = withoutResourceVersion(next);
        const { value, metadataEnd } = finishing ? { value: '', metadataEnd: -1 } : storedJSON(body);
        const large = value.length > LARGE_OBJECT_CHARS;
        if (large) await yieldToEventLoop();
        const revision = finishing
          ? await this.storage.delete(key, at).then(async (r) => (await this.cache.waitFor(r), r))
          : await this.stored(key, value, metadataEnd, body, (k) => this.storage.update(k, value, at), !ctx.returnWhenStored);
        if (large) await yieldToEventLoop();
        if (finishing) body.metadata.resourceVersion = String(revision);
        return body;
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict' && attempt < CONFLICT_RETRIES) {
          ({ current, stored } = await this.afterConflict(key, e, at));
          continue;
        }
        if (e instanceof StorageError && e.code === 'NotFound') throw errors.notFound(this.kind, name);
        throw fromStorage(e, this.kind, name);
      }
    }
  }

  /**
   * Stores `value`, the JSON of `object` (storedJSON, which says where its
   * metadata ends), with `write` and waits for the cache to apply it. The
   * cache takes `object` itself rather than parsing `value`
   * (WatchCache.expect), so the object returned to the writer is the cached
   * one, frozen, as every reader of the cache shares it.
   */
  private async stored(key: string, value: string, metadataEnd: number, object: KubeObject, write: (key: string) => Promise<number>, awaitCache = true): Promise<number> {
    this.cache.expect(key, value, object, metadataEnd);
    try {
      const revision = await write(key);
      // Not applied in time: the cache parses the event when it comes, and the writer keeps its object.
      const applied = this.cache.waitFor(revision).then((ok) => ok || this.cache.forget(key, object));
      if (awaitCache) await applied;
      if (!Object.isFrozen(object)) object.metadata.resourceVersion = String(revision);
      return revision;
    } catch (e) {
      this.cache.forget(key, object);
      throw e;
    }
  }

  /** The write's managed fields in `next`: as the body decoder recorded them against `current`, else recorded now. */
  private async recordManagedFields(current: CachedObject | undefined, next: KubeObject, ctx: WriteContext, subresource?: string) {
    const recorded = ctx.recorded;
    if (recorded?.revision === (current?.revision ?? 0)) {
      if (recorded.managedFields) next.metadata.managedFields = recorded.managedFields;
      else delete next.metadata.managedFields;
      return;
    }
    await recordUpdate(this.kind, current?.object, next, ctx, subresource);
  }

  /** What PrepareForUpdate, BeforeUpdate and ValidateUpdate do to a desired object. */
  private prepareUpdate(desired: KubeObject, old: KubeObject, ctx: WriteContext, subresource?: string): KubeObject {
    const kind = this.kind;
    const s = kind.strategy;
    const name = old.metadata.name!;
    if (desired.metadata.resourceVersion !== undefined && desired.metadata.resourceVersion !== '' && desired.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw errors.conflict(kind, name);
    }
    if (!desired.metadata.resourceVersion && !s.allowUnconditionalUpdate) {
      // Upstream names the resource (not the kind) in this one message.
      const err = errors.invalid(kind, name, [fieldErrors.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
      const gr = kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
      throw new ApiError(422, 'Invalid', err.message.replace(/^\S+/, gr), err.details);
    }
    if (desired.metadata.uid && desired.metadata.uid !== old.metadata.uid) {
      throw errors.conflict(kind, name, `Precondition failed: UID in precondition: ${desired.metadata.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    // `desired` is the write's own copy (every caller hands over a fresh object), so it is changed in place.
    let next = desired;
    if (subresource === 'status') {
      for (const f of s.statusResetsFields) setPath(next, f, getPath(old, f));
      for (const f of s.statusResetsMetadata) setPath(next.metadata, f, getPath(old.metadata, f));
      s.prepareForStatusUpdate?.(next, old);
    } else if (subresource) {
      // The stored object with only the written paths changed: copied along those paths, the rest shared (nobody changes a cached object).
      next = { ...old, metadata: { ...old.metadata } };
      for (const f of s.subresourceWrites?.[subresource] ?? []) setPath(next, f, getPath(desired, f), true);
    } else {
      for (const f of s.mainResetsFields) setPath(next, f, getPath(old, f));
    }
    const meta = next.metadata;
    meta.name = old.metadata.name;
    if (this.namespaced) meta.namespace = old.metadata.namespace;
    for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (old.metadata[f] === undefined) delete meta[f];
      else meta[f] = old.metadata[f] as never;
    }
    meta.resourceVersion = old.metadata.resourceVersion;
    if (!subresource) {
      s.prepareForUpdate?.(next, old);
      if (s.generation && !deepEqual(next.spec, old.spec)) meta.generation = (old.metadata.generation ?? 0) + 1;
      ctx.warnings.push(...(s.warnings?.(next, old) ?? []));
    }
    if (old.metadata.deletionTimestamp) {
      const added = (meta.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
      if (added.length) {
        throw errors.invalid(kind, name, [
          fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`),
        ]);
      }
    }
    const problems: FieldError[] = kind.validate(next, { old, subresource });
    if (problems.length) throw errors.invalid(kind, name, problems);
    if (ctx.user) this.admission?.({ user: ctx.user, kind, operation: 'UPDATE', subresource, namespace: meta.namespace, name, object: next, old });
    return canonicalOrder(next);
  }

  /** PUT: the body replaces the object (subject to the strategy's resets). */
  update(namespace: string | undefined, name: string, obj: KubeObject, ctx: WriteContext, subresource?: string) {
    if (obj.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (this.namespaced && obj.metadata.namespace && obj.metadata.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    // Each attempt starts from the body as sent (an attempt changes its copy).
    const attempt = async () => {
      const copy = clone(obj);
      if (ctx.large) await yieldToEventLoop();
      return copy;
    };
    return this.guaranteedUpdateFrom(namespace, name, attempt, ctx, subresource);
  }

  async delete(namespace: string | undefined, name: string, opts: DeleteOptions, ctx: WriteContext): Promise<{ object: KubeObject; deleted: boolean }> {
    const key = this.keyFor(namespace, name);
    const kind = this.kind;
    let current = this.cache.get(key);
    let stored = false;
    for (let attempt = 0; ; attempt++) {
      if (!current && this.mayReread(stored)) ({ current, stored } = await this.reread(key));
      if (!current) throw errors.notFound(kind, name);
      const { object: obj, revision } = current;
      const pre = opts.preconditions;
      const gk = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
      const failed =
        pre?.uid && pre.uid !== obj.metadata.uid
          ? new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${gk} "${name}": the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid}). The object might have been deleted and then recreated`, { name, group: kind.group || undefined, kind: kind.plural })
          : pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion
            ? new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${gk} "${name}": the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion}). The object might have been modified`, { name, group: kind.group || undefined, kind: kind.plural })
            : undefined;
      if (failed) {
        // Judged against the cache: judged once more against the stored object, as an update's preconditions are.
        if (this.mayReread(stored)) {
          ({ current, stored } = await this.reread(key));
          continue;
        }
        throw failed;
      }
      const forbidden = kind.strategy.forbidDelete?.(obj);
      if (forbidden) throw errors.forbidden(kind, name, forbidden);
      if (ctx.user) this.admission?.({ user: ctx.user, kind, operation: 'DELETE', namespace: obj.metadata.namespace, name, old: obj });
      // The write's own object: the metadata is all a deletion changes, so the rest is the cached object's,
      // shared (nobody changes a cached object); a kind whose deletion changes more gets a whole copy.
      const next = kind.strategy.onDeletionStart ? clone(obj) : { ...obj, metadata: { ...obj.metadata } };
      const meta = next.metadata;
      const started = meta.deletionTimestamp;
      const now = Date.now();
      // rest.BeforeDelete: graceful deletion (Pods). One already running may only be shortened.
      let grace = 0;
      let graceful = false;
      if (started) {
        const running = meta.deletionGracePeriodSeconds ?? 0;
        if (running > 0) {
          const requested = opts.gracePeriodSeconds;
          // Pending graceful deletion: the options change nothing, finalizers included.
          if (requested === undefined || requested >= running) return { object: obj, deleted: false };
          meta.deletionTimestamp = rfc3339(new Date(now + requested * 1000));
          meta.deletionGracePeriodSeconds = requested;
          grace = requested;
          graceful = true;
        }
      } else {
        grace = kind.strategy.gracePeriod?.(obj, opts.gracePeriodSeconds) ?? 0;
        if (grace > 0) {
          meta.deletionTimestamp = rfc3339(new Date(now + grace * 1000));
          meta.deletionGracePeriodSeconds = grace;
          if ((meta.generation ?? 0) > 0) meta.generation! += 1;
          graceful = true;
        }
      }
      // The garbage collector's finalizers, as the propagation policy says.
      const finalizers = finalizersForDeletion(kind, meta.finalizers, opts);
      if (finalizers !== meta.finalizers) {
        if (finalizers.length) meta.finalizers = finalizers;
        else delete meta.finalizers;
      }
      const pending = (meta.finalizers?.length ?? 0) > 0 || !!kind.strategy.deletionPending?.(next);
      if (pending || grace > 0) {
        if (!graceful) {
          // markAsDeleting: finalizers hold an object that is otherwise gone at once.
          if (!started && (meta.generation ?? 0) > 0) meta.generation! += 1;
          if (!started || Date.parse(started) > now) meta.deletionTimestamp = rfc3339(new Date(now));
          meta.deletionGracePeriodSeconds = 0;
        }
        if (!started) kind.strategy.onDeletionStart?.(next);
        if (deepEqual(next, obj)) return { object: obj, deleted: false };
        if (ctx.dryRun) return { object: next, deleted: false };
        const body = withoutResourceVersion(canonicalOrder(next));
        try {
          const { value, metadataEnd } = storedJSON(body);
          await this.stored(key, value, metadataEnd, body, (k) => this.storage.update(k, value, revision));
          return { object: body, deleted: false };
        } catch (e) {
          if (e instanceof StorageError && e.code === 'Conflict' && attempt < CONFLICT_RETRIES) {
            ({ current, stored } = await this.afterConflict(key, e, revision));
            continue;
          }
          throw fromStorage(e, kind, name);
        }
      }
      if (ctx.dryRun) return { object: obj, deleted: true };
      try {
        const deleted = await this.storage.delete(key, revision);
        await this.cache.waitFor(deleted);
        // The last state at the deletion's revision: the cached object's parts, with metadata of its own.
        const last: KubeObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(deleted) } };
        return { object: last, deleted: true };
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict' && attempt < CONFLICT_RETRIES) {
          ({ current, stored } = await this.afterConflict(key, e, revision));
          continue;
        }
        if (e instanceof StorageError && e.code === 'NotFound') throw errors.notFound(kind, name);
        throw fromStorage(e, kind, name);
      }
    }
  }

  async deleteCollection(namespace: string | undefined, q: ListQuery, opts: DeleteOptions, ctx: WriteContext): Promise<CachedObject[]> {
    const page = await this.list(namespace, { ...q, limit: 0, continueToken: undefined });
    for (const item of page.items) {
      try {
        await this.delete(item.object.metadata.namespace, item.object.metadata.name!, opts, ctx);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return page.items;
  }
}
