// The embedded storage backend: a log-structured revision store in one SQLite
// file (the k3s kine design).
//
// Every write appends a row to `kine`; the row's AUTOINCREMENT id is the global
// revision (the Kubernetes resourceVersion). A row records the key (`name`),
// whether it created the key or deleted it, the revision that created this
// incarnation of the key, the revision it supersedes (`prev_revision`) and the
// value. The latest row of a key is its current state; a key whose latest row
// is a deletion tombstone does not exist.
//
// Optimistic concurrency: each write checks, inside an IMMEDIATE transaction,
// that the key's latest row is the one the caller expected, and the UNIQUE
// index on (name, prev_revision) makes it impossible for two writers (even in
// different processes) to both append a successor of the same row.
//
// Compaction deletes history at or below a revision while keeping, for every
// key, the row that was current at that revision; the compacted revision is
// remembered in `kine_meta`. Reads and event streams older than it are Expired.
//
// Writes run on a thread of their own (writer.ts, writerworker.ts: the one
// write connection, group commits, compaction, WAL checkpoints); reads run on
// this connection, synchronously (better-sqlite3), beside it: WAL lets readers
// go on while the writer appends.

import Database from 'better-sqlite3';
import { Writer, type WriteOp, type WriteOutcome, type WriterTimes } from './writer.ts';
import { commitStatsOn, recordGroup } from './commitstats.ts';
import {
  MAX_OBJECT_BYTES,
  StorageError,
  type EventsOptions,
  type EventsPage,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type StoredObject,
} from './storage.ts';

export interface SqliteStorageOptions {
  /** Values larger than this many UTF-8 bytes are rejected with TooLarge (default 1.5 MiB, etcd's request limit). */
  maxValueBytes?: number;
  /**
   * Tests only: makes a commit durable in place of the writer thread's fsync of
   * the write-ahead log (whose path it gets), on the event loop, group after
   * group, to watch the order.
   */
  syncWal?: (walFile: string) => Promise<void>;
  /** How often to look for writes by other processes while subscribers exist, in ms (default 100). */
  pollIntervalMs?: number;
  /** SQLite busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * How long after the group before them fewer than `commitGroupSize` writes
   * wait for more to share their group, in ms (default 25), while writers are
   * concurrent (some write came while others waited or were in flight, within
   * the last `CONCURRENT_MS`); otherwise a turn's writes go at its end, as
   * they do with 0.
   */
  commitIntervalMs?: number;
  /** How many waiting writes are a group worth sending at once (default 16). */
  commitGroupSize?: number;
  /**
   * Key prefixes of heartbeats (Leases, KindDefinition.heartbeats). Writes of
   * these alone wait up to `heartbeatIntervalMs` (default 100, etcd's backend
   * batch interval) after the group before them for 64 of them, where other
   * writes wait `commitIntervalMs` for `commitGroupSize`: any other write
   * takes the waiting ones along in its group.
   */
  heartbeatPrefixes?: readonly string[];
  heartbeatIntervalMs?: number;
}

type Listener = (events: StorageEvent[]) => void;

interface PendingWrite {
  op: WriteOp;
  resolve: (rev: number) => void;
  reject: (e: unknown) => void;
  /** When it was asked for (only while commitstats.ts counts). */
  at: number;
}

/** A group's outcomes from the writer thread, or why its transaction failed. */
type GroupAnswer = { outcomes: WriteOutcome[]; syncFailed?: unknown; ms?: WriterTimes } | { txFailed: unknown };
/** When a group was sent, answered (committed and synced) and delivered (only while commitstats.ts counts; 0 otherwise). */
type CommitTimes = { start: number; answered: number; delivered: number };

interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

interface EventRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  value: string;
  prev_value: string | null;
}

const SCHEMA_VERSION = 1;
const DEFAULT_MAX_VALUE_BYTES = MAX_OBJECT_BYTES;
/** Writers count as concurrent for this long after a write came while others waited or were in flight (see `write`). */
const CONCURRENT_MS = 1000;
/** How many heartbeats' writes are a group worth sending at once (see heartbeatPrefixes). */
const HEARTBEAT_GROUP_SIZE = 64;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  name            TEXT    NOT NULL,
  created         INTEGER NOT NULL,
  deleted         INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision   INTEGER NOT NULL,
  value           TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision ON kine (name, prev_revision);
CREATE INDEX IF NOT EXISTS kine_name_id ON kine (name, id);
CREATE TABLE IF NOT EXISTS kine_meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO kine_meta (name, value) VALUES ('compact_revision', 0);
`;

// The latest row of each key in [@lo, @hi) at or below @rev, live keys only, in
// key order. The newest id of each key comes from the (name, id) index alone,
// in key order (the inner ORDER BY, and m walked first, let SQLite keep that
// order for the outer one: no sort, and a LIMIT stops the walk early); only
// those rows are read. A MAX() with the row's other columns beside it read every
// revision of every key instead: with 265,000 revisions of 5000 Leases not yet
// compacted, a restart's first page (10,000 keys) took 1.0-1.6 s, against
// 0.17-0.45 s this way.
const LATEST_IN_RANGE = (upper: boolean, columns = 'k.id, k.name, k.created, k.deleted, k.create_revision, k.prev_revision, k.value') => `
  SELECT ${columns}
  FROM (
    SELECT name, MAX(id) AS id FROM kine
    WHERE name >= @lo ${upper ? 'AND name < @hi' : ''} AND id <= @rev
    GROUP BY name ORDER BY name
  ) AS m
  CROSS JOIN kine AS k ON k.id = m.id
  WHERE k.deleted = 0`;

/** A page of a list: the live keys from @lo (below @hi when bounded), in key order, at most @limit. */
export const LIST_PAGE = {
  bounded: `${LATEST_IN_RANGE(true)} ORDER BY m.name LIMIT @limit`,
  unbounded: `${LATEST_IN_RANGE(false)} ORDER BY m.name LIMIT @limit`,
};

// The events of the revisions in (@from, @to], with the value each replaced.
const EVENTS = (names: string) => `
  SELECT k.id, k.name, k.created, k.deleted, k.value, p.value AS prev_value
  FROM kine AS k LEFT JOIN kine AS p ON p.id = k.prev_revision
  WHERE k.id > @from AND k.id <= @to ${names} ORDER BY k.id`;

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly pollIntervalMs: number;
  private readonly walFile: string;
  private readonly syncWal: ((walFile: string) => Promise<void>) | undefined;
  /** The writer thread: every write statement runs there. */
  private readonly writer: Writer;

  private readonly stmt: ReturnType<SqliteStorage['prepare']>;
  /** Runs a function in a (deferred) transaction: everything in it reads one snapshot. */
  private readonly tx: <T>(fn: () => T) => T;

  /** Listeners, each with the revision it was subscribed at (it only gets later events). */
  private readonly listeners = new Map<Listener, number>();
  /** Highest revision handed to listeners (or skipped because there were none). */
  private lastDelivered = 0;
  /**
   * The newest revision this process knows committed: its own groups' writes,
   * and what it delivered of other processes'. A group sent while none is in
   * flight caps reads there, without a query (one took ~90 µs on the event
   * loop, read against the log the writer thread had just grown).
   */
  private committedRevision: number;
  private readonly queue: StorageEvent[][] = [];
  private delivering = false;
  private poller: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  private constructor(db: Database.Database, file: string, opts: SqliteStorageOptions) {
    this.db = db;
    this.walFile = `${file}-wal`;
    this.syncWal = opts.syncWal;
    this.writer = new Writer({
      file,
      busyTimeoutMs: opts.busyTimeoutMs ?? 5000,
      maxValueBytes: opts.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES,
      syncs: !opts.syncWal,
    });
    this.commitIntervalMs = opts.commitIntervalMs ?? 25;
    this.commitGroupSize = opts.commitGroupSize ?? 16;
    this.heartbeatPrefixes = opts.heartbeatPrefixes ?? [];
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 100;
    this.pollIntervalMs = opts.pollIntervalMs ?? 100;
    this.stmt = this.prepare();
    this.tx = db.transaction((fn: () => unknown) => fn()) as unknown as <T>(fn: () => T) => T;
    this.committedRevision = this.stmt.currentRevision.get()!.rev;
  }

  /** Opens (creating if needed) the store in `file`. The directory must exist. */
  static open(file: string, opts: SqliteStorageOptions = {}): SqliteStorage {
    const db = new Database(file, { timeout: opts.busyTimeoutMs ?? 5000 });
    try {
      db.pragma('journal_mode = WAL');
      // NORMAL: a commit only writes the WAL; this store fsyncs the WAL itself, on
      // its writer thread, before it acknowledges the commit's writes or hands out
      // their events (see write()), so an acknowledged write still survives power
      // loss while the event loop goes on meanwhile. Checkpoints sync as before.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = OFF');
      // This connection only reads (after the schema below); the writer thread checkpoints.
      db.pragma('wal_autocheckpoint = 0');
      db.transaction(() => {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > SCHEMA_VERSION) {
          throw new Error(`${file}: storage schema version ${version} is newer than this server understands (${SCHEMA_VERSION})`);
        }
        db.exec(SCHEMA);
        if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteStorage(db, file, opts);
  }

  private prepare() {
    const db = this.db;
    return {
      currentRevision: db
        .prepare<[], { rev: number }>(`SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0) AS rev`),
      compactRevision: db.prepare<[], { rev: number }>(
        `SELECT value AS rev FROM kine_meta WHERE name = 'compact_revision'`,
      ),
      latest: db.prepare<[string], Row>(`SELECT * FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`),
      latestAt: db.prepare<[string, number], Row>(`SELECT * FROM kine WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`),
      listBounded: db.prepare<{ lo: string; hi: string; rev: number; limit: number }, Row>(LIST_PAGE.bounded),
      listUnbounded: db.prepare<{ lo: string; rev: number; limit: number }, Row>(LIST_PAGE.unbounded),
      countBounded: db.prepare<{ lo: string; hi: string; rev: number }, { n: number }>(
        `SELECT COUNT(*) AS n FROM (${LATEST_IN_RANGE(true, 'k.id')})`,
      ),
      countUnbounded: db.prepare<{ lo: string; rev: number }, { n: number }>(
        `SELECT COUNT(*) AS n FROM (${LATEST_IN_RANGE(false, 'k.id')})`,
      ),
      events: db.prepare<{ from: number; to: number }, EventRow>(EVENTS('')),
      // `+`: the names only filter the rows of the revision range, walked in id order (the name index
      // would walk every revision of every key under the prefix, then sort them).
      eventsBounded: db.prepare<{ from: number; to: number; lo: string; hi: string }, EventRow>(EVENTS('AND +k.name >= @lo AND +k.name < @hi')),
      eventsUnbounded: db.prepare<{ from: number; to: number; lo: string }, EventRow>(EVENTS('AND +k.name >= @lo')),
    };
  }

  // ---- reads ----

  async currentRevision(): Promise<number> {
    return this.currentRev();
  }

  async compactedRevision(): Promise<number> {
    return this.compactRev();
  }

  async get(key: string): Promise<StoredObject | undefined> {
    // While a group is written but not yet synced, a read sees the store as before it, as lists and watches do.
    const row = this.durableCap === undefined ? this.stmt.latest.get(key) : this.stmt.latestAt.get(key, this.durableCap);
    return row && !row.deleted ? toObject(row) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    // A deferred transaction: everything below reads one snapshot.
    return this.tx((): ListResult => {
      const current = this.currentRev();
      const compacted = this.compactRev();
      const requested = opts.revision ?? 0;
      if (requested > 0 && requested < compacted) {
        throw new StorageError('Expired', `revision ${requested} has been compacted (compacted revision ${compacted})`);
      }
      const rev = requested > 0 && requested < current ? requested : current;
      const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
      const lo = opts.startKey && compareKeys(opts.startKey, prefix) > 0 ? opts.startKey : prefix;
      const hi = prefixEnd(prefix);
      const sqlLimit = limit ? limit + 1 : -1;
      const rows =
        hi === undefined
          ? this.stmt.listUnbounded.all({ lo, rev, limit: sqlLimit })
          : this.stmt.listBounded.all({ lo, hi, rev, limit: sqlLimit });
      const more = limit > 0 && rows.length > limit;
      if (more) rows.length = limit;
      let remaining = 0;
      if (more && !opts.uncounted) {
        // Keys after the last one returned: from its successor in key order.
        const after = rows[rows.length - 1].name + '\0';
        remaining =
          hi === undefined
            ? this.stmt.countUnbounded.get({ lo: after, rev })!.n
            : this.stmt.countBounded.get({ lo: after, hi, rev })!.n;
      }
      return { items: rows.map(toObject), revision: rev, more, remaining };
    });
  }

  async eventsSince(revision: number, opts: EventsOptions = {}): Promise<EventsPage> {
    return this.tx((): EventsPage => {
      const compacted = this.compactRev();
      if (revision < compacted) {
        throw new StorageError('Expired', `revision ${revision} has been compacted (compacted revision ${compacted})`);
      }
      const current = this.currentRev();
      const to = opts.revisions ? Math.min(current, revision + opts.revisions) : current;
      const range = { from: revision, to };
      const lo = opts.prefix ?? '';
      const hi = prefixEnd(lo);
      const rows = !lo
        ? this.stmt.events.all(range)
        : hi === undefined
          ? this.stmt.eventsUnbounded.all({ ...range, lo })
          : this.stmt.eventsBounded.all({ ...range, lo, hi });
      return { events: rows.map(toEvent), revision: Math.max(revision, to), more: to < current };
    });
  }

  // ---- writes ----

  async create(key: string, value: string): Promise<number> {
    return this.write({ type: 'create', key, value });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<number> {
    return this.write({ type: 'update', key, value, expected: expectedModRevision });
  }

  async delete(key: string, expectedModRevision: number): Promise<number> {
    return this.write({ type: 'delete', key, expected: expectedModRevision });
  }

  /** Writes waiting for the next group commit. */
  private pending: PendingWrite[] = [];
  /** Pending writes that are no heartbeat's (see heartbeatPrefixes). */
  private pendingOthers = 0;
  /** The send of the pending writes, due at `at` (performance.now()): at the end of the turn it was asked in, or of an interval. */
  private scheduled: { at: number; cancel(): void } | undefined;
  /** When the last group was sent (performance.now()); how long a smaller group than commitGroupSize waits after it (SqliteStorageOptions). */
  private lastSent = -Infinity;
  private readonly commitIntervalMs: number;
  private readonly commitGroupSize: number;
  private readonly heartbeatPrefixes: readonly string[];
  private readonly heartbeatIntervalMs: number;
  /** When a write last came while others waited or were in flight (performance.now()): writers are concurrent. */
  private lastOverlap = -Infinity;
  /** The groups sent to the writer thread and not yet settled. */
  private inFlight = 0;
  /** Settles the groups in the order they were sent, each after the ones before it. */
  private settling: Promise<void> = Promise.resolve();
  /** The number of the next group sent (see `held`). */
  private nextGroup = 0;
  /** Outcomes held back until the group numbered `until` (which carries the writes their listeners made) has settled. */
  private held: { until: number; settle: () => void }[] = [];
  /** While groups are in flight: the newest revision readers see (synced, and its events delivered). */
  private durableCap: number | undefined;

  /**
   * Group commit, as etcd batches its raft entries: the writes asked for
   * within one turn of the event loop, or within the commit interval after the
   * group before was sent, share one transaction, each in its own savepoint so
   * that one refused (a conflict) leaves the others. The group goes to the
   * writer thread whether or not the groups before it are answered: the thread
   * commits it with every group waiting in its queue (those that came while
   * it synced the log for the ones before) and answers them after one fsync
   * of the log, and the event loop goes on meanwhile. Each write resolves once its
   * transaction is durable and its events were delivered (groups settle in the
   * order they were sent); writes that listeners make meanwhile commit before
   * any of them resolves. Many small writes at once (a controller creating pods
   * on 5000 nodes) cost one transaction.
   *
   * The wait is for writes that come one by one from many clients, as 5000
   * kubelets renew their Leases, 500 a second, each in a turn of its own: a
   * group costs about the same CPU (the message to the writer thread and back,
   * a transaction, an fsync, a delivery) whether it carries one write or ten,
   * and on a disk whose fsync takes 50 µs no fsync lasts long enough for the
   * next writes to gather behind it, as they do behind etcd's on most disks.
   * So fewer writes than `commitGroupSize` wait up to `commitIntervalMs` after
   * the group before them: with 10 ms the Lease PUTs cost a third less of the
   * server's CPU than with none, and 25 ms with groups of 16 a seventh less
   * again (README, Size). A write after a quiet spell does not wait, nor do
   * the writes of a busy moment (a rollout's, the event recorder's lanes) once
   * there are enough of them, nor those of a lone client writing one object
   * after another: each of its writes comes after the one before is answered,
   * with nothing else waiting or in flight, so waiting would gather nothing.
   *
   * Heartbeats (heartbeatPrefixes) wait longer while only they wait: 5000
   * kubelets' Lease renewals then go in 10 groups a second rather than 40,
   * and the server's CPU for them fell by a tenth (README, Size). A Lease
   * renewed 100 ms later changes nothing (a node is unready after 40 s
   * without one), and a group of other writes carries the waiting ones along.
   */
  private write(op: WriteOp): Promise<number> {
    if (this.closed) return Promise.reject(new Error('SqliteStorage: closed'));
    return new Promise<number>((resolve, reject) => {
      const now = performance.now();
      if (this.pending.length || this.inFlight) this.lastOverlap = now;
      this.pending.push({ op, resolve, reject, at: commitStatsOn() ? now : 0 });
      if (!this.heartbeatPrefixes.some((p) => op.key.startsWith(p))) this.pendingOthers++;
      this.scheduleCommit(now);
    });
  }

  /** Sends the writes asked for so far at the end of this turn, or at the end of the commit interval while they are few and writers concurrent. */
  private scheduleCommit(now: number): void {
    const due = this.dueAt(now);
    if (this.scheduled) {
      // Due as soon already (a send at this turn's end is due now or before).
      if (due >= this.scheduled.at) return;
      // Enough writes came while they waited for the interval, or writes that wait less: they go sooner.
      this.scheduled.cancel();
    }
    const sendNow = () => {
      this.scheduled = undefined;
      this.send();
    };
    if (due > now) {
      const timer = setTimeout(sendNow, due - now);
      this.scheduled = { at: due, cancel: () => clearTimeout(timer) };
    } else {
      const immediate = setImmediate(sendNow);
      this.scheduled = { at: now, cancel: () => clearImmediate(immediate) };
    }
  }

  /** When the pending writes go (performance.now() time): `now`, at the end of this turn, or later, at the end of their interval. */
  private dueAt(now: number): number {
    if (now - this.lastOverlap >= CONCURRENT_MS) return now;
    const heartbeats = this.pendingOthers === 0;
    if (this.pending.length >= (heartbeats ? HEARTBEAT_GROUP_SIZE : this.commitGroupSize)) return now;
    return Math.max(now, this.lastSent + (heartbeats ? this.heartbeatIntervalMs : this.commitIntervalMs));
  }

  private send(): void {
    if (this.closed || this.pending.length === 0) return;
    this.lastSent = performance.now();
    const ops = this.pending.splice(0);
    this.pendingOthers = 0;
    const group = this.nextGroup++;
    const times: CommitTimes = { start: commitStatsOn() ? performance.now() : 0, answered: 0, delivered: 0 };
    // Until the group is written, its log synced and its events delivered,
    // readers (the poller, a new subscriber, a list) see the store as it was before it.
    if (this.inFlight++ === 0) this.durableCap = this.committedRevision;
    const answer = this.writer.commit(ops.map((o) => o.op)).then(
      (a): GroupAnswer => ({ outcomes: a.outcomes, syncFailed: a.syncFailed, ms: a.ms }),
      // The transaction failed (busy, disk, the writer thread died): none of its writes happened, or not known to.
      (error: unknown): GroupAnswer => ({ txFailed: error ?? new StorageError('Unavailable', 'SqliteStorage: transaction failed') }),
    );
    this.settling = this.settling.then(async () => {
      const a = await answer;
      // A test's own sync stands in for the writer thread's fsync.
      if (this.syncWal && 'outcomes' in a && a.outcomes.some((o) => 'rev' in o)) {
        await this.syncWal(this.walFile).catch((e: unknown) => void (a.syncFailed = e ?? new Error('SqliteStorage: fsync failed')));
      }
      this.settle(group, ops, a, times);
    });
  }

  private settle(group: number, ops: PendingWrite[], answer: GroupAnswer, times: CommitTimes): void {
    if (times.start) times.answered = performance.now();
    const last = --this.inFlight === 0;
    // Held outcomes whose listeners' writes have now settled go first.
    const settled: (() => void)[] = [];
    if (this.held.length) {
      const still: typeof this.held = [];
      for (const h of this.held) {
        if (h.until <= group) settled.push(h.settle);
        else still.push(h);
      }
      this.held = still;
    }
    if ('txFailed' in answer) {
      if (last) this.durableCap = undefined;
      for (const op of ops) settled.push(() => op.reject(answer.txFailed));
    } else {
      const { outcomes, syncFailed } = answer;
      const events: StorageEvent[] = [];
      for (let i = 0; i < ops.length; i++) {
        const o = outcomes[i];
        if ('rev' in o) {
          events.push(toWriteEvent(ops[i].op, o.rev, o.prev));
          if (o.rev > this.committedRevision) this.committedRevision = o.rev;
        }
      }
      // Written but not known to be durable (a failed sync) is in the log all the same, so it is delivered.
      if (last) this.durableCap = undefined;
      else if (events.length) this.durableCap = Math.max(this.durableCap!, events[events.length - 1].revision);
      const before = this.pending.length;
      try {
        this.pump(events);
      } catch (err) {
        // The writes are committed whatever happens here; the poller delivers later.
        console.error('SqliteStorage: delivering events failed, will retry:', err);
      }
      if (times.start) times.delivered = performance.now();
      const mine = ops.map((op, i) => {
        const o = outcomes[i];
        // Refused, as etcd fails a write whose WAL sync failed.
        if (syncFailed !== undefined && 'rev' in o) return () => op.reject(syncFailed);
        return 'rev' in o ? () => op.resolve(o.rev) : () => op.reject(refused(o.error));
      });
      // Listeners wrote while handling these events: those (in the next group sent) commit first.
      const held = this.pending.length > before;
      if (times.start) mine.push(() => recordGroup(ops.map((o) => o.at), times, performance.now(), held, answer.ms));
      if (held) for (const settle of mine) this.held.push({ until: this.nextGroup, settle });
      else settled.push(...mine);
    }
    for (const s of settled) s();
  }

  /** An online copy of the store into `file` (SQLite's backup API: reads and writes go on meanwhile). */
  async backup(file: string): Promise<void> {
    await this.db.backup(file);
  }

  /** The writer thread dies after its next commit, before answering: tests of what writers get then. */
  crashWriterForTest(): void {
    this.writer.crashAfterNextCommit();
  }

  /** The writer thread's next fsync of the log fails: tests of what writers get then. */
  failNextSyncForTest(): void {
    this.writer.failNextSyncForTest();
  }

  // ---- compaction ----

  /**
   * Compaction runs on the writer thread in steps of a few hundred revisions,
   * each its own transaction, with commits asked for meanwhile between them: a
   * minute of a busy cluster's writes compacted in one transaction held every
   * write behind it for over half a second. Compacting (old, m] then (m, rev]
   * deletes the same rows as (old, rev] at once.
   */
  async compact(revision: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.writer.compact(revision);
    } catch (err) {
      // Closed meanwhile: the thread stopped between steps; what it compacted stays compacted.
      if (!this.closed) throw err;
    }
  }

  // ---- events ----

  /**
   * The listener receives, in revision order and exactly once, every event with
   * a revision above `currentRevision()` as of this call: synchronously after
   * each commit made through this instance, and within `pollIntervalMs` for
   * commits made by other processes on the same file.
   */
  subscribe(listener: Listener): () => void {
    if (this.closed) throw new Error('SqliteStorage is closed');
    if (this.listeners.size === 0) {
      this.lastDelivered = this.currentRev();
      this.poller = setInterval(() => this.poll(), this.pollIntervalMs);
      this.poller.unref?.();
    } else {
      this.pump();
    }
    // Events already queued for delivery but at or below this revision are not for it.
    this.listeners.set(listener, this.lastDelivered);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.poller) {
        clearInterval(this.poller);
        this.poller = undefined;
      }
    };
  }

  private poll(): void {
    if (this.closed || this.listeners.size === 0) return;
    try {
      if (this.currentRev() > this.lastDelivered) this.pump();
    } catch (err) {
      // SQLITE_BUSY and the like: try again on the next tick.
      console.error('SqliteStorage: polling for new revisions failed:', err);
    }
  }

  /**
   * Hands every revision after `lastDelivered` to the listeners. `known` are the
   * events of a transaction that just committed; when they follow on directly
   * from `lastDelivered` they are used as they are, otherwise (another process
   * wrote in between) the log is read.
   */
  private pump(known?: StorageEvent[]): void {
    if (this.listeners.size === 0 || this.closed) return;
    if (known && known.length > 0 && known[0].revision === this.lastDelivered + 1) {
      this.lastDelivered = known[known.length - 1].revision;
      this.emit(known);
      return;
    }
    const { events, rev, compacted } = this.tx(() => {
      const rev = this.currentRev();
      const compacted = this.compactRev();
      const events = rev > this.lastDelivered ? this.stmt.events.all({ from: this.lastDelivered, to: rev }).map(toEvent) : [];
      return { events, rev, compacted };
    });
    if (rev <= this.lastDelivered) return;
    if (compacted > this.lastDelivered) {
      console.warn(
        `SqliteStorage: revisions ${this.lastDelivered + 1}..${compacted} were compacted by another process before they could be delivered`,
      );
    }
    this.lastDelivered = rev;
    if (rev > this.committedRevision) this.committedRevision = rev;
    if (events.length > 0) this.emit(events);
  }

  /** Delivers in order even when a listener writes (and so emits) while being called. */
  private emit(events: StorageEvent[]): void {
    this.queue.push(events);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let batch = this.queue.shift(); batch; batch = this.queue.shift()) {
        for (const [listener, from] of [...this.listeners]) {
          if (!this.listeners.has(listener)) continue;
          const mine = batch[0].revision > from ? batch : batch.filter((e) => e.revision > from);
          if (mine.length === 0) continue;
          try {
            listener(mine);
          } catch (err) {
            console.error('SqliteStorage: a storage event listener threw:', err);
          }
        }
      }
    } finally {
      this.delivering = false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes asked for before the close go, even if their commit interval had not run out.
    this.scheduled?.cancel();
    this.scheduled = undefined;
    this.send();
    this.closed = true;
    // Groups sent settle first (their writes are in the log already); writes asked for from now on are not made.
    await this.settling;
    for (const h of this.held.splice(0)) h.settle();
    for (const op of this.pending.splice(0)) op.reject(new Error('SqliteStorage: closed'));
    await this.writer.close();
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    this.listeners.clear();
    this.queue.length = 0;
    this.db.close();
  }

  private currentRev(): number {
    const rev = this.stmt.currentRevision.get()!.rev;
    return this.durableCap === undefined ? rev : Math.min(rev, this.durableCap);
  }

  private compactRev(): number {
    return this.stmt.compactRevision.get()?.rev ?? 0;
  }
}

/** The event of a write the writer thread accepted: `prev` is the value it replaced. */
function toWriteEvent(op: WriteOp, revision: number, prev: string | undefined): StorageEvent {
  if (op.type === 'create') return { type: 'create', key: op.key, value: op.value, revision };
  if (op.type === 'update') return { type: 'update', key: op.key, value: op.value, prevValue: prev, revision };
  return { type: 'delete', key: op.key, value: prev!, prevValue: prev, revision };
}

/** A refused write's reason as the writer thread gave it: a StorageError whatever went wrong. */
function refused(e: { code?: StorageError['code']; message: string; current?: StoredObject }): StorageError {
  return new StorageError(e.code ?? 'Unavailable', e.code ? e.message : `SqliteStorage: ${e.message}`, e.current);
}

function toObject(row: Row): StoredObject {
  return { key: row.name, value: row.value, modRevision: row.id, createRevision: row.create_revision };
}

function toEvent(row: EventRow): StorageEvent {
  const type = row.created ? 'create' : row.deleted ? 'delete' : 'update';
  const event: StorageEvent = { type, key: row.name, value: row.value, revision: row.id };
  if (type !== 'create' && row.prev_value !== null) event.prevValue = row.prev_value;
  return event;
}

/** Orders keys as SQLite's BINARY collation does (UTF-8 bytes, i.e. code points). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * The least string greater than every string starting with `prefix` (in code
 * point order, which is SQLite's UTF-8 byte order), or undefined when there is
 * none (the empty prefix). Keys under the prefix are exactly [prefix, end).
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last === 0xd800) last = 0xe000; // surrogates are not characters
    if (last <= 0x10ffff) {
      points.push(last);
      return String.fromCodePoint(...points);
    }
  }
  return undefined;
}
