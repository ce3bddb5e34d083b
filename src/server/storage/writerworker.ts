// The SQLite store's writer thread (started by writer.ts): it owns the one
// write connection and runs every group commit's transaction, compaction and
// WAL checkpoints, so that none of SQLite's write statements run on the
// server's event loop (they were a fifth of its time in a 5000-node rollout).
// The event loop sends each group's writes and gets back each one's outcome,
// only once the log is synced past them (unless a test syncs it instead).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { StorageError, type StoredObject } from './storage.ts';
import type { WriterAnswer, WriterRequest, WriteOp, WriteOutcome, WriterWorkerData } from './writer.ts';

const { file, busyTimeoutMs, maxValueBytes, syncs } = workerData as WriterWorkerData;

/** Bytes written to the log between checkpoints (SQLite's own default is 1000 pages, ~4 MB). */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** Bytes the write-ahead log's file is cut back to when the log starts over (twice the checkpoint interval). */
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;
/** Revisions compacted per transaction: commits asked for meanwhile run between the steps. */
const COMPACT_STEP = 500;

interface Row {
  id: number;
  name: string;
  deleted: number;
  create_revision: number;
  value: string;
}

const db = new Database(file, { timeout: busyTimeoutMs });
db.pragma('synchronous = NORMAL');
// This thread checkpoints between commits (below), never inside one.
db.pragma('wal_autocheckpoint = 0');
// When the log starts over its file is cut back to this size (SQLite otherwise keeps it at the largest it reached).
db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);

const stmt = {
  currentRevision: db.prepare<[], { rev: number }>(`SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0) AS rev`),
  compactRevision: db.prepare<[], { rev: number }>(`SELECT value AS rev FROM kine_meta WHERE name = 'compact_revision'`),
  setCompactRevision: db.prepare<[number]>(`UPDATE kine_meta SET value = ? WHERE name = 'compact_revision'`),
  latest: db.prepare<[string], Row>(`SELECT id, name, deleted, create_revision, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`),
  insert: db.prepare<[string, number, number, number, number, string]>(
    `INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)`,
  ),
  setCreateRevision: db.prepare<[number]>(`UPDATE kine SET create_revision = id WHERE id = ?`),
  // Rows at or below @rev superseded by a newer row at or below @rev. Only rows
  // written after the previous compaction (@old) can newly supersede something.
  compactSuperseded: db.prepare<{ old: number; rev: number }>(
    `DELETE FROM kine WHERE id IN (
       SELECT older.id FROM kine AS newer
       JOIN kine AS older ON older.name = newer.name AND older.id < newer.id
       WHERE newer.id > @old AND newer.id <= @rev)`,
  ),
  compactTombstones: db.prepare<{ old: number; rev: number }>(`DELETE FROM kine WHERE deleted = 1 AND id > @old AND id <= @rev`),
};

/** better-sqlite3's transaction wrapper: `.immediate(fn)` for a group, `(fn)` nested (a savepoint) per write. */
const tx = db.transaction((fn: () => unknown) => fn()) as unknown as { <T>(fn: () => T): T; immediate<T>(fn: () => T): T };

const toObject = (row: Row): StoredObject => ({ key: row.name, value: row.value, modRevision: row.id, createRevision: row.create_revision });

function checkSize(key: string, value: string): void {
  const size = Buffer.byteLength(value) + Buffer.byteLength(key);
  if (size > maxValueBytes) throw new StorageError('TooLarge', `object is ${size} bytes, the limit is ${maxValueBytes}`);
}

/** The key's live latest row, which must be at `expected`. */
function current(key: string, expected: number): Row {
  const latest = stmt.latest.get(key);
  if (!latest || latest.deleted) throw new StorageError('NotFound', `${key} not found`);
  if (latest.id !== expected) {
    throw new StorageError('Conflict', `${key} has been modified: expected revision ${expected}, current ${latest.id}`, toObject(latest));
  }
  return latest;
}

function append(key: string, created: number, deleted: number, createRev: number, prevRev: number, value: string): number {
  try {
    return Number(stmt.insert.run(key, created, deleted, createRev, prevRev, value).lastInsertRowid);
  } catch (err) {
    // Unreachable while every writer checks inside an IMMEDIATE transaction; the
    // index is the backstop against a writer that does not.
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const latest = stmt.latest.get(key);
      throw new StorageError('Conflict', `${key} has been modified concurrently`, latest && !latest.deleted ? toObject(latest) : undefined);
    }
    throw err;
  }
}

/** One write; its outcome carries what the event loop needs to make the event (the value before it). */
function apply(op: WriteOp): WriteOutcome {
  if (op.type === 'create') {
    checkSize(op.key, op.value);
    const latest = stmt.latest.get(op.key);
    if (latest && !latest.deleted) throw new StorageError('AlreadyExists', `${op.key} already exists`, toObject(latest));
    const rev = append(op.key, 1, 0, 0, latest?.id ?? 0, op.value);
    stmt.setCreateRevision.run(rev);
    return { rev };
  }
  if (op.type === 'update') {
    checkSize(op.key, op.value);
    const latest = current(op.key, op.expected);
    return { rev: append(op.key, 0, 0, latest.create_revision, latest.id, op.value), prev: latest.value };
  }
  const latest = current(op.key, op.expected);
  return { rev: append(op.key, 0, 1, latest.create_revision, latest.id, latest.value), prev: latest.value };
}

function refusal(e: unknown): WriteOutcome {
  if (e instanceof StorageError) return { error: { code: e.code, message: e.message, current: e.current } };
  return { error: { message: String((e as Error)?.message ?? e) } };
}

/** Log bytes since the last checkpoint, and whether that one stopped short of the log's end (a reader held it). */
let written = 0;
let behind = false;

/**
 * A PASSIVE checkpoint between commits: no commit of this connection runs beside
 * it, so it reaches the log's end unless a reader holds an older snapshot, and
 * the next commit starts the log over; one that stopped short runs again
 * before the next commit (SQLite restarts the log only after a complete one).
 */
function checkpoint(): void {
  if (written < CHECKPOINT_BYTES && !behind) return;
  written = 0;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    behind = r.checkpointed < r.log;
  } catch (e) {
    // Busy (another process): tried again with the next few MB.
    behind = false;
    console.warn(`SqliteStorage: WAL checkpoint failed: ${(e as Error)?.message ?? e}`);
  }
}

function commit(ops: WriteOp[]): WriterAnswer & { wrote?: boolean } {
  const outcomes: WriteOutcome[] = [];
  try {
    tx.immediate(() => {
      for (const op of ops) {
        try {
          outcomes.push(tx(() => apply(op))); // nested: a savepoint, so a refused write leaves the others
        } catch (e) {
          outcomes.push(refusal(e));
        }
      }
    });
  } catch (e) {
    // The transaction itself failed (busy, disk): none of its writes happened.
    return { failed: String((e as Error)?.message ?? e) };
  }
  let wrote = false;
  for (let i = 0; i < ops.length; i++) {
    if ('rev' in outcomes[i]) {
      written += ops[i].key.length + (ops[i].value?.length ?? 0);
      wrote = true;
    }
  }
  return { outcomes, wrote };
}

/**
 * Making commits durable: fdatasync(2) of the log, on this thread, after
 * committing every group that waits in this thread's queue (a group's answer
 * waits for a sync begun after its commit), so that one sync covers all of
 * them. Answers go in the order their groups came. The descriptor stays open
 * (SQLite keeps the log's file while a connection is open) and is opened
 * again should a sync fail on it.
 *
 * On this thread rather than on libuv's pool: the pool's thread hop (a wake-up
 * of a pool thread, then of this one) cost more CPU than the sync itself. At
 * 300 Lease writes a second, a store syncing on the pool spent 513-555 µs of
 * CPU per write over its threads, 450-497 syncing here (the two side by side,
 * three rounds); the groups that come while a sync runs wait for it either
 * way, then commit together before the next.
 *
 * fdatasync, as SQLite and etcd sync their logs: the log is rewritten in place
 * once a checkpoint let it start over, so its size rarely changes, and only a
 * changed size must reach the file system's journal with the data. fsync(2)
 * also commits the changed modification time, which on ext4 makes the sync
 * wait for the journal, and the journal for the database file's new blocks
 * (it grows through a rollout): a loop syncing a 4 MB file rewritten in place
 * beside a growing file had its longest sync 38-642 ms with fsync (over 100
 * ms in 3 of 5 runs of 20 s), 30-106 ms with fdatasync (once), in turns.
 */
const walFile = `${file}-wal`;
let walFd: number | undefined;
/** Committed groups' answers, in order, waiting for the next sync. */
let unsynced: { id: number; answer: WriterAnswer; wrote: boolean; began: number; committed: number }[] = [];
let failNextSync = false;

function committed(id: number, answer: WriterAnswer & { wrote?: boolean }, began: number): void {
  const { wrote = false, ...rest } = answer as WriterAnswer & { wrote?: boolean };
  unsynced.push({ id, answer: rest as WriterAnswer, wrote: wrote && syncs, began, committed: performance.now() });
}

/** Syncs the log past the groups committed so far (if any wrote) and answers them; then checkpoints, while the event loop delivers their events. */
function syncAndAnswer(): void {
  if (closed || unsynced.length === 0) return;
  const batch = unsynced;
  unsynced = [];
  const error = batch.some((b) => b.wrote) ? syncWal() : undefined;
  const now = performance.now();
  for (const b of batch) {
    const failed = error !== undefined && b.wrote && 'outcomes' in b.answer;
    const ms = { commit: b.committed - b.began, sync: now - b.committed };
    parentPort!.postMessage({ id: b.id, ...b.answer, ms, ...(failed ? { syncFailed: String((error as Error)?.message ?? error) } : {}) });
  }
  checkpoint();
}

/** fdatasync of the log; the error, if it failed on a descriptor opened again too. */
function syncWal(retried = false): unknown {
  if (failNextSync) {
    failNextSync = false;
    return new Error('EIO: sync failed (a test asked for it)');
  }
  let fd: number;
  try {
    fd = walFd ??= fs.openSync(walFile, 'r');
  } catch (e) {
    return e;
  }
  try {
    fs.fdatasyncSync(fd);
    return undefined;
  } catch (e) {
    walFd = undefined;
    try {
      fs.closeSync(fd);
    } catch {
      // Closed already, or nothing more to learn from it.
    }
    return retried ? e : syncWal(true);
  }
}

/** One step of compaction towards `revision`: the compacted revision after it, and whether it got there. */
function compactStep(revision: number): { rev: number; done: boolean } {
  return tx.immediate(() => {
    const old = stmt.compactRevision.get()?.rev ?? 0;
    const target = Math.min(revision, stmt.currentRevision.get()!.rev);
    if (target <= old) return { rev: old, done: true };
    const rev = Math.min(target, old + COMPACT_STEP);
    stmt.compactSuperseded.run({ old, rev });
    stmt.compactTombstones.run({ old, rev });
    stmt.setCompactRevision.run(rev);
    return { rev, done: rev >= target };
  });
}

/** Compaction in steps, a turn of this thread's loop between them so that commits asked for meanwhile go first. */
function compact(id: number, revision: number): void {
  if (closed) return;
  let answer: WriterAnswer;
  try {
    const { rev, done } = compactStep(revision);
    if (!done) {
      setImmediate(() => compact(id, revision));
      return;
    }
    answer = { compacted: rev };
  } catch (e) {
    answer = { failed: String((e as Error)?.message ?? e) };
  }
  parentPort!.postMessage({ id, ...answer });
  checkpoint();
}

let closed = false;
let crash = false;

function handle(m: WriterRequest): void {
  if (m.type === 'close') {
    closed = true;
    if (walFd !== undefined) fs.closeSync(walFd);
    db.close();
    parentPort!.close();
    return;
  }
  if (m.type === 'crash') {
    crash = true;
    return;
  }
  if (m.type === 'fail-sync') {
    failNextSync = true;
    return;
  }
  if (m.type === 'compact') return compact(m.id, m.revision);
  const began = performance.now();
  const answer = commit(m.ops);
  // Dies between the commit and its answer, the worst moment (tests of what the writers get).
  if (crash) process.exit(1);
  committed(m.id, answer, began);
}

parentPort!.on('message', (m: WriterRequest) => {
  handle(m);
  // The groups sent meanwhile commit now, so that one sync covers them all.
  for (let next = receiveMessageOnPort(parentPort!); next && !closed; next = receiveMessageOnPort(parentPort!)) handle(next.message as WriterRequest);
  syncAndAnswer();
});
