// The etcd v3 storage backend: several API server replicas share one etcd
// cluster, as kube-apiserver's etcd3 store does.
//
// - resourceVersion is etcd's revision (an object's mod_revision).
// - create/update/delete are single transactions guarded by the key's version
//   (create: version == 0) or mod_revision (update, delete: == expected); when
//   the guard fails the same transaction reads the key, so the error carries
//   the current object without a second round trip.
// - Keys are kube-apiserver's: `/registry/<resource>/<namespace>/<name>` with
//   `/registry` replaced by the configured prefix (`--etcd-prefix`).
// - Live events come from one etcd watch per instance over the whole keyspace
//   (only keys under the prefix are delivered): seeing every revision lets a
//   resumed watch start at exactly the next revision after a disconnect, and
//   lets eventsSince() know when it has caught up.
// - Every unary call has a deadline, so losing quorum fails requests with
//   Timeout/Unavailable instead of hanging them.
// - The etcd3 client runs on a thread of its own (etcdthread.ts): gRPC's
//   per-request CPU is not the event loop's.

import type { IKeyValue, IWatchResponse, IResponseHeader, ITxnRequest } from 'etcd3';
import { EtcdThread, type ThreadWatch } from './etcdthread.ts';
import { RevisionWaiters } from './revisionwaiters.ts';
import { Seats } from './seats.ts';
import {
  MAX_OBJECT_BYTES,
  StorageError,
  type EventsOptions,
  type EventsPage,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type SubscriberHooks,
  type StoredObject,
} from './storage.ts';

export interface EtcdStorageOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379`. */
  servers: string[];
  /** Replaces the leading `/registry` of every storage key (`--etcd-prefix`, default `/registry`). */
  prefix?: string;
  /** PEM files for TLS to etcd (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Deadline of every request to etcd, in ms (default 10000): past it, the request fails with Timeout. */
  requestTimeoutMs?: number;
  /** Keys plus values larger than this many UTF-8 bytes are rejected with TooLarge (default etcd's 1.5 MiB). */
  maxValueBytes?: number;
  /** Writes in flight to etcd at once (default 200, as kube-apiserver's --max-mutating-requests-inflight); the rest queue, the `writesFirst` resources' first. */
  maxWritesInFlight?: number;
  /**
   * Resources whose etcd keys are named as kube-apiserver names them: storage
   * keys under `key` (`/registry/<group>/<plural>/`) live under
   * `<prefix>/<etcd>/` (e.g. `/registry/core/nodes/` under `/registry/minions/`).
   * Other keys only have `/registry` replaced by the prefix. Writes to a
   * resource with `writesFirst` (Leases) take the freed seats first.
   */
  resources?: EtcdResource[];
}

export interface EtcdResource {
  key: string;
  etcd: string;
  writesFirst?: boolean;
}

/** The storage keys' root; etcd keys replace it with the prefix. */
export const REGISTRY_ROOT = '/registry';
/** kube-apiserver's compaction coordination key (outside the prefix, shared by every apiserver on the cluster). */
export const COMPACT_REV_KEY = 'compact_rev_key';

type Listener = (events: StorageEvent[]) => void;

const ALL_KEYS = Buffer.from([0]);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms).unref?.());

export class EtcdStorage implements Storage {
  readonly shared = true;
  /** The etcd3 client, on a thread of its own. */
  private readonly client: EtcdThread;
  private readonly prefix: string;
  private readonly requestTimeoutMs: number;
  private readonly maxValueBytes: number;
  /** Seats for writes in flight; the writesFirst resources (Leases: leadership, heartbeats) get the freed ones first. */
  private readonly seats: Seats;
  /** Storage resource prefixes whose writes go first. */
  private readonly writesFirst = new Set<string>();
  /** Storage resource prefix -> etcd resource segment, and back. */
  private readonly toEtcdResource = new Map<string, string>();
  private readonly fromEtcdResource = new Map<string, string>();

  private readonly listeners = new Map<Listener, number>();
  /** Told when events were compacted before this replica's watch saw them, and of revisions with none of their events. */
  private readonly hooks = new Map<Listener, SubscriberHooks>();
  /** The newest revision subscribers know of: emitted, or told as progress. */
  private reported = 0;
  /** The newest revision the live watch has delivered (every revision, whatever its key). */
  private lastRevision = 0;
  private readonly revisionWaiters = new RevisionWaiters();
  /** The newest compacted revision known (from compact_rev_key, our own compactions and watch cancellations). */
  private knownCompacted = 0;
  private stream: ThreadWatch | undefined;
  private closed = false;
  private watching: Promise<void> | undefined;

  private constructor(opts: EtcdStorageOptions) {
    this.prefix = opts.prefix ?? REGISTRY_ROOT;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.maxValueBytes = opts.maxValueBytes ?? MAX_OBJECT_BYTES;
    this.seats = new Seats(opts.maxWritesInFlight ?? 200);
    for (const r of opts.resources ?? []) {
      this.toEtcdResource.set(r.key, r.etcd);
      this.fromEtcdResource.set(r.etcd, r.key);
      if (r.writesFirst) this.writesFirst.add(r.key);
    }
    this.client = new EtcdThread({
      servers: opts.servers,
      caFile: opts.caFile,
      certFile: opts.certFile,
      keyFile: opts.keyFile,
      requestTimeoutMs: this.requestTimeoutMs,
    });
  }

  /** Connects (fails when etcd does not answer within the request timeout) and starts the live watch. */
  static async open(opts: EtcdStorageOptions): Promise<EtcdStorage> {
    const s = new EtcdStorage(opts);
    try {
      s.lastRevision = await s.currentRevision();
      s.knownCompacted = await s.compactedRevision();
    } catch (err) {
      await s.client.close();
      throw err;
    }
    s.watching = s.watchLoop();
    return s;
  }

  // ---- keys ----

  private toEtcd(key: string): Buffer {
    if (key !== REGISTRY_ROOT && !key.startsWith(REGISTRY_ROOT + '/')) throw new Error(`storage key ${JSON.stringify(key)} is not under ${REGISTRY_ROOT}/`);
    const resource = resourceOf(key);
    const etcd = resource && this.toEtcdResource.get(resource);
    if (etcd) return Buffer.from(`${this.prefix}/${etcd}/${key.slice(resource.length)}`);
    return Buffer.from(this.prefix + key.slice(REGISTRY_ROOT.length));
  }

  /** The storage key of an etcd key, or undefined when it lies outside the prefix. */
  private fromEtcd(key: Buffer): string | undefined {
    const k = key.toString();
    if (!k.startsWith(this.prefix + '/')) return undefined;
    const rest = k.slice(this.prefix.length + 1);
    const slash = rest.indexOf('/');
    const resource = slash > 0 ? this.fromEtcdResource.get(rest.slice(0, slash)) : undefined;
    if (resource) return resource + rest.slice(slash + 1);
    return REGISTRY_ROOT + k.slice(this.prefix.length);
  }

  private toObject(kv: IKeyValue): StoredObject {
    return {
      key: this.fromEtcd(kv.key)!,
      value: kv.value.toString(),
      modRevision: Number(kv.mod_revision),
      createRevision: Number(kv.create_revision),
    };
  }

  // ---- reads ----

  async currentRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY), keys_only: true }));
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) }));
    const stored = res.kvs[0] ? Number(res.kvs[0].value.toString()) || 0 : 0;
    this.knownCompacted = Math.max(this.knownCompacted, stored);
    return this.knownCompacted;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const res = await this.call(() => this.client.kv.range({ key: this.toEtcd(key) }));
    return res.kvs[0] ? this.toObject(res.kvs[0]) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const from = this.toEtcd(prefix);
    const start = opts.startKey && Buffer.compare(Buffer.from(opts.startKey), Buffer.from(prefix)) > 0 ? this.toEtcd(opts.startKey) : from;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const requested = opts.revision ?? 0;
    const range = (revision: number) =>
      this.call(() => this.client.kv.range({ key: start, range_end: rangeEnd(from), revision, limit }));
    let res;
    let revision = requested;
    try {
      res = await range(requested);
    } catch (err) {
      // As the SQLite store does: a revision not written yet reads the latest.
      if (!(err instanceof Error && /future revision/.test(err.message))) throw err;
      res = await range(0);
      revision = 0;
    }
    const items = res.kvs.map((kv) => this.toObject(kv));
    // `count` is every key in [start, end) at that revision, whatever the limit.
    const remaining = res.more ? Number(res.count) - items.length : 0;
    return { items, revision: revision || Number(res.header.revision), more: res.more, remaining };
  }

  /**
   * Every event under the prefix after `revision`, read from etcd's history
   * with a watch that ends at the revision current when called (every
   * revision is an event somewhere in the keyspace, so it is reached).
   */
  async eventsSince(revision: number, opts: EventsOptions = {}): Promise<EventsPage> {
    const current = await this.currentRevision();
    if (revision < this.knownCompacted) throw expired(revision, this.knownCompacted);
    const to = opts.revisions ? Math.min(current, revision + opts.revisions) : current;
    const page = { events: [] as StorageEvent[], revision: Math.max(revision, to), more: to < current };
    if (revision >= to) return page;
    const prefix = opts.prefix ?? '';
    // Every key is watched, so that each revision up to `to` is seen, whether or not its key is under the prefix.
    const stream = await this.call(() => this.client.watchClient.watch());
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new StorageError('Timeout', `etcd did not replay revisions ${revision + 1}..${to} within ${this.requestTimeoutMs}ms`)),
          this.requestTimeoutMs,
        );
        const done = (err?: Error) => (clearTimeout(timer), err ? reject(err) : resolve());
        stream.on('error', (err: Error) => done(toStorageError(err) as Error));
        stream.on('end', () => done(new StorageError('Unavailable', 'etcd ended the watch stream')));
        stream.on('data', (res: IWatchResponse) => {
          if (res.canceled) {
            const compacted = Number(res.compact_revision);
            if (compacted > 0) {
              this.knownCompacted = Math.max(this.knownCompacted, compacted - 1);
              return done(expired(revision, compacted - 1));
            }
            return done(new StorageError('Unavailable', `etcd cancelled the watch: ${res.cancel_reason}`));
          }
          for (const e of res.events) {
            const rev = Number(e.kv.mod_revision);
            if (rev > to) return done();
            const event = this.toEvent(e.type, e.kv, e.prev_kv);
            if (event?.key.startsWith(prefix)) page.events.push(event);
            if (rev === to) return done();
          }
        });
        stream.write({
          create_request: { key: ALL_KEYS, range_end: ALL_KEYS, start_revision: revision + 1, prev_kv: true },
        });
      });
    } finally {
      stream.cancel();
    }
    return page;
  }

  // ---- writes ----

  async create(key: string, value: string): Promise<number> {
    this.checkSize(key, value);
    const k = this.toEtcd(key);
    const res = await this.write(key, () =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Version', result: 'Equal', version: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) {
      const kv = res.responses[0].response_range.kvs[0];
      throw new StorageError('AlreadyExists', `${key} already exists`, kv ? this.toObject(kv) : undefined);
    }
    return Number(res.header.revision);
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<number> {
    this.checkSize(key, value);
    const k = this.toEtcd(key);
    return this.guarded(key, expectedModRevision, { request_put: { key: k, value: Buffer.from(value) } });
  }

  async delete(key: string, expectedModRevision: number): Promise<number> {
    return this.guarded(key, expectedModRevision, { request_delete_range: { key: this.toEtcd(key) } });
  }

  /** Runs `op` when the key is at `expected`; otherwise NotFound or Conflict with the current object. */
  private async guarded(key: string, expected: number, op: NonNullable<ITxnRequest['success']>[number]): Promise<number> {
    const k = this.toEtcd(key);
    const res = await this.write(key, () =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expected }],
        success: [op],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (res.succeeded) return Number(res.header.revision);
    const kv = res.responses[0].response_range.kvs[0];
    if (!kv) throw new StorageError('NotFound', `${key} not found`);
    const current = this.toObject(kv);
    throw new StorageError('Conflict', `${key} has been modified: expected revision ${expected}, current ${current.modRevision}`, current);
  }

  /** A write to `key` once it has a seat (a writesFirst resource's ahead of the rest); Timeout when none is free within the request deadline. */
  private async write<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const first = this.writesFirst.has(resourceOf(key) ?? '');
    if (!(await this.seats.take(first, this.requestTimeoutMs))) {
      throw new StorageError('Timeout', `no write to etcd could start within ${this.requestTimeoutMs}ms: ${this.seats.limit} in flight, ${this.seats.queued} waiting`);
    }
    try {
      return await this.call(fn);
    } finally {
      this.seats.release();
    }
  }

  private checkSize(key: string, value: string): void {
    const size = Buffer.byteLength(value) + Buffer.byteLength(key);
    if (size > this.maxValueBytes) throw new StorageError('TooLarge', `object is ${size} bytes, the limit is ${this.maxValueBytes}`);
  }

  // ---- compaction ----

  /**
   * Compacts etcd's history at `revision` and records it in compact_rev_key
   * (kube-apiserver's key), unless an equal or newer compaction is recorded.
   */
  async compact(revision: number): Promise<void> {
    const key = Buffer.from(COMPACT_REV_KEY);
    for (;;) {
      const cur = await this.call(() => this.client.kv.range({ key }));
      const kv = cur.kvs[0];
      const recorded = kv ? Number(kv.value.toString()) || 0 : 0;
      const target = Math.min(revision, Number(cur.header.revision));
      if (target <= recorded) {
        this.knownCompacted = Math.max(this.knownCompacted, recorded);
        return;
      }
      const version = kv ? Number(kv.version) : 0;
      const won = await this.recordCompaction(version, target);
      if (won === undefined) continue; // someone else recorded one in between: look again
      await this.physicalCompact(target);
      return;
    }
  }

  /**
   * One round of kube-apiserver's compactor: record `revision` in
   * compact_rev_key if its version is still `version` (the one this replica
   * last saw), and compact if so. Several replicas running this on a timer
   * take turns instead of compacting each time: only the one whose view of
   * the key is current wins a round. Returns the key's version afterwards.
   */
  async compactRound(version: number, revision: number): Promise<number> {
    const won = await this.recordCompaction(version, revision);
    if (won === undefined) {
      const cur = await this.call(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) }));
      return cur.kvs[0] ? Number(cur.kvs[0].version) : 0;
    }
    if (revision > 0) await this.physicalCompact(revision);
    return won;
  }

  /** Puts `revision` into compact_rev_key when its version is `version`; the new version, or undefined when it was not. */
  private async recordCompaction(version: number, revision: number): Promise<number | undefined> {
    const key = Buffer.from(COMPACT_REV_KEY);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [{ key, target: 'Version', result: 'Equal', version }],
        success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
      }),
    );
    return res.succeeded ? version + 1 : undefined;
  }

  private async physicalCompact(revision: number): Promise<void> {
    try {
      await this.call(() => this.client.kv.compact({ revision }));
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'Expired')) throw err; // already compacted further
    }
    this.knownCompacted = Math.max(this.knownCompacted, revision);
  }

  /**
   * Compacts every `intervalMs` (kube-apiserver: 5 minutes) to the revision
   * seen one interval earlier, so a window of one interval of history stays.
   * Returns a function that stops it.
   */
  startCompactor(intervalMs = 5 * 60_000): () => void {
    let version = 0;
    let lastSeen = 0;
    const timer = setInterval(() => {
      void (async () => {
        try {
          version = await this.compactRound(version, lastSeen);
          lastSeen = await this.currentRevision();
        } catch (err) {
          console.error('EtcdStorage: compaction failed, will retry:', (err as Error).message);
        }
      })();
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  // ---- events ----

  private toEvent(type: string, kv: IKeyValue, prev: IKeyValue | undefined): StorageEvent | undefined {
    const key = this.fromEtcd(kv.key);
    if (key === undefined) return undefined;
    const revision = Number(kv.mod_revision);
    if (type.toLowerCase() === 'delete') {
      if (!prev) {
        console.warn(`EtcdStorage: deletion of ${key} at ${revision} came without its last value; skipped`);
        return undefined;
      }
      const value = prev.value.toString();
      return { type: 'delete', key, value, prevValue: value, revision };
    }
    const value = kv.value.toString();
    if (Number(kv.version) === 1) return { type: 'create', key, value, revision };
    const event: StorageEvent = { type: 'update', key, value, revision };
    if (prev) event.prevValue = prev.value.toString();
    return event;
  }

  /**
   * The listener receives, in revision order and once, every event under the
   * prefix after the newest revision this instance had delivered when it
   * subscribed (at or after the revision it was opened at), one call per revision.
   */
  subscribe(listener: Listener, also: SubscriberHooks = {}): () => void {
    if (this.closed) throw new Error('EtcdStorage is closed');
    this.listeners.set(listener, this.lastRevision);
    this.hooks.set(listener, also);
    return () => {
      this.listeners.delete(listener);
      this.hooks.delete(listener);
    };
  }

  /** Resolves once the live watch has delivered `revision` (false after `timeoutMs`). */
  waitForRevision(revision: number, timeoutMs = this.requestTimeoutMs): Promise<boolean> {
    if (revision <= this.lastRevision) return Promise.resolve(true);
    return this.revisionWaiters.wait(revision, timeoutMs);
  }

  /** Keeps one watch open from `lastRevision + 1`, re-establishing it (on any member) after a failure. */
  private async watchLoop(): Promise<void> {
    let backoff = 100;
    let failing = false;
    while (!this.closed) {
      try {
        const stream = await this.client.watchClient.watch();
        this.stream = stream;
        await new Promise<void>((_resolve, reject) => {
          stream.on('error', reject);
          stream.on('end', () => reject(new Error('etcd ended the watch stream')));
          stream.on('data', (res: IWatchResponse) => {
            if (res.created && !res.canceled) {
              if (failing) console.warn(`EtcdStorage: watch re-established from revision ${this.lastRevision + 1}`);
              failing = false;
              backoff = 100;
            }
            if (res.canceled) {
              reject(this.watchCancelled(res));
              return;
            }
            // The created response's header is etcd's current revision, not how far this watch has got.
            if (!res.created) this.receive(res.events, res.header);
          });
          stream.write({
            create_request: {
              key: ALL_KEYS,
              range_end: ALL_KEYS,
              start_revision: this.lastRevision + 1,
              prev_kv: true,
              progress_notify: true,
            },
          });
        });
      } catch (err) {
        if (this.closed) break;
        if (!failing) console.error(`EtcdStorage: watch failed at revision ${this.lastRevision}, retrying: ${(err as Error).message}`);
        failing = true;
      } finally {
        this.stream?.cancel();
        this.stream = undefined;
      }
      if (this.closed) break;
      await delay(backoff);
      backoff = Math.min(backoff * 2, 2000);
    }
  }

  /**
   * A watch cancelled because its start revision was compacted (this replica
   * was cut off for longer than the compaction window): the events in between
   * are gone. Subscribers are told to read the current state again (as a
   * reflector relists after 410); the watch resumes at the oldest revision left.
   */
  private watchCancelled(res: IWatchResponse): Error {
    const compacted = Number(res.compact_revision);
    if (compacted > 0) {
      console.error(
        `EtcdStorage: revisions ${this.lastRevision + 1}..${compacted - 1} were compacted before this replica could watch them; subscribers read the current state again`,
      );
      this.knownCompacted = Math.max(this.knownCompacted, compacted - 1);
      this.lastRevision = Math.max(this.lastRevision, compacted - 1);
      for (const h of [...this.hooks.values()]) h.lost?.();
    }
    return new Error(`etcd cancelled the watch: ${res.cancel_reason || 'compacted'}`);
  }

  /** Delivers a watch response's events, one batch per revision, and advances lastRevision. */
  private receive(events: IWatchResponse['events'], header: IResponseHeader): void {
    let batch: StorageEvent[] = [];
    let batchRevision = 0;
    const flush = () => {
      if (batch.length) (this.emit(batch), (this.reported = batchRevision));
      batch = [];
    };
    for (const e of events) {
      const rev = Number(e.kv.mod_revision);
      if (rev <= this.lastRevision) continue; // already delivered before a reconnect
      if (rev !== batchRevision) {
        flush();
        this.advance(batchRevision);
        batchRevision = rev;
      }
      const event = this.toEvent(e.type, e.kv, e.prev_kv);
      if (event) batch.push(event);
    }
    flush();
    this.advance(batchRevision);
    // A progress notification (no events; etcd sends them only to watches that
    // have caught up): nothing is pending at or below its revision.
    if (events.length === 0 && header && Number(header.revision) > this.lastRevision) this.advance(Number(header.revision));
    // Revisions of keys outside the prefix (another apiserver's, another program's) are progress:
    // without it a subscriber that waits for etcd's current revision (a consistent LIST) waited
    // for a write of its own to come, 3 s while another prefix was written.
    if (this.lastRevision > this.reported) this.emit([], (this.reported = this.lastRevision));
  }

  private advance(revision: number): void {
    if (revision <= this.lastRevision) return;
    this.lastRevision = revision;
    this.revisionWaiters.reached(revision);
  }

  /** Delivers one revision's events, or with none, progress through `revision`: either goes the same way, in order. */
  private emit(events: StorageEvent[], revision = events[0].revision): void {
    for (const [listener, from] of [...this.listeners]) {
      if (revision <= from || !this.listeners.has(listener)) continue;
      try {
        if (events.length) listener(events);
        else this.hooks.get(listener)?.progress?.(revision);
      } catch (err) {
        console.error('EtcdStorage: a storage event listener threw:', err);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.hooks.clear();
    this.stream?.cancel();
    await this.watching?.catch(() => undefined);
    await this.client.close();
  }

  /** The etcd client's thread exits at once, as if it had crashed (tests of what callers and the watch get). */
  crashClientThreadForTest(): void {
    this.client.crashForTest();
  }

  /** Runs an etcd call, turning its failures into StorageErrors. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('EtcdStorage is closed');
    try {
      return await fn();
    } catch (err) {
      throw toStorageError(err);
    }
  }
}

/** `/registry/<group>/<plural>/` of a storage key at or below that depth, else undefined. */
function resourceOf(key: string): string | undefined {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) if (key[i] === '/' && ++slashes === 4) return key.slice(0, i + 1);
  return undefined;
}

function expired(revision: number, compacted: number): StorageError {
  return new StorageError('Expired', `revision ${revision} has been compacted (compacted revision ${compacted})`);
}

/** etcd and gRPC failures as StorageErrors; anything else unchanged. */
export function toStorageError(err: unknown): unknown {
  if (err instanceof StorageError || !(err instanceof Error)) return err;
  const msg = err.message;
  if (/required revision has been compacted/.test(msg)) return new StorageError('Expired', msg);
  if (/request is too large|message larger than max/i.test(msg)) return new StorageError('TooLarge', msg);
  if (err.name === 'GRPCDeadlineExceededError' || /deadline exceeded|request timed out|timed out/i.test(msg)) {
    return new StorageError('Timeout', `etcd did not answer in time: ${msg}`);
  }
  if (/unavailable|no leader|leader changed|ECONNREFUSED|No connection|connect|circuit|closed/i.test(msg) || (err as { code?: unknown }).code === 14) {
    return new StorageError('Unavailable', `etcd is unavailable: ${msg}`);
  }
  return err;
}

/** The end of etcd's range of keys starting with `prefix`: the prefix with its last byte below 0xff incremented. */
export function rangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return ALL_KEYS;
}
