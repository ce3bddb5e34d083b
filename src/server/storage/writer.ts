// The event loop's side of the SQLite store's writer thread (writerworker.ts):
// sends a group commit's writes, or a compaction, and answers each with what
// the thread did. Should the thread die, the writes waiting on it fail with
// Unavailable (never wait for ever) and the next request starts a new thread.
import type { Worker } from 'node:worker_threads';
import { startTsxWorker } from '../tsxworker.ts';
import { StorageError, type StorageErrorCode, type StoredObject } from './storage.ts';

/** What the thread is started with. */
export interface WriterWorkerData {
  file: string;
  busyTimeoutMs: number;
  maxValueBytes: number;
  /** Whether the thread fsyncs the log before it answers a commit (false: a test's own sync stands in for it). */
  syncs: boolean;
}

/** One write of a group: the key, its new value, and (update, delete) the revision the caller read. */
export type WriteOp =
  | { type: 'create'; key: string; value: string }
  | { type: 'update'; key: string; value: string; expected: number }
  | { type: 'delete'; key: string; expected: number; value?: undefined };

/** A write's outcome: its revision and (update, delete) the value it replaced, or why it was refused. */
export type WriteOutcome =
  | { rev: number; prev?: string }
  | { error: { code?: StorageErrorCode; message: string; current?: StoredObject } };

export type WriterRequest =
  | { type: 'commit'; id: number; ops: WriteOp[] }
  | { type: 'compact'; id: number; revision: number }
  | { type: 'close' }
  | { type: 'crash' }
  | { type: 'fail-sync' };

/**
 * A group's outcomes in order (and, should the log's fsync have failed, why: then its
 * writes are in the log but not known to be durable), the revision compaction reached,
 * or why the transaction failed (nothing written).
 */
export type WriterAnswer = { outcomes: WriteOutcome[]; syncFailed?: string; ms?: WriterTimes } | { compacted: number } | { failed: string };

/** How long the thread took over a group: its transaction, then until the fsync that covers it ended. */
export interface WriterTimes {
  commit: number;
  sync: number;
}

export class Writer {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (a: WriterAnswer) => void; reject: (e: unknown) => void }>();

  /** Starts the thread at once: loading its module takes a while, and the first writes should not wait for it. */
  constructor(private readonly data: WriterWorkerData) {
    this.start();
  }

  /**
   * Runs the writes in one transaction, each in a savepoint of its own (refused
   * alone), and answers once the log is synced past them. Groups may be sent
   * before the ones before them are answered; they are answered in order.
   */
  async commit(ops: WriteOp[]): Promise<{ outcomes: WriteOutcome[]; syncFailed?: string; ms?: WriterTimes }> {
    const answer = await this.request({ type: 'commit', id: 0, ops });
    if ('outcomes' in answer) return answer;
    throw new StorageError('Unavailable', 'failed' in answer ? answer.failed : 'unexpected answer from the SQLite writer');
  }

  /** Compacts to `revision` (in steps, commits running between them); the compacted revision. */
  async compact(revision: number): Promise<number> {
    const answer = await this.request({ type: 'compact', id: 0, revision });
    if ('compacted' in answer) return answer.compacted;
    throw new StorageError('Unavailable', 'failed' in answer ? answer.failed : 'unexpected answer from the SQLite writer');
  }

  private request(m: WriterRequest & { id: number }): Promise<WriterAnswer> {
    const w = this.start();
    m.id = this.nextId++;
    return new Promise<WriterAnswer>((resolve, reject) => {
      this.waiting.set(m.id, { resolve, reject });
      // The thread keeps the process alive only while something waits on it.
      if (this.waiting.size === 1) w.ref();
      w.postMessage(m);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = startTsxWorker(import.meta.url, './writerworker.ts', { workerData: this.data });
    w.unref();
    w.on('message', (m: WriterAnswer & { id: number }) => {
      const waiter = this.waiting.get(m.id);
      if (!waiter) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) w.unref();
      waiter.resolve(m);
    });
    w.on('error', (e) => this.stopped(w, e));
    w.on('exit', (code) => this.stopped(w, new Error(`exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  /** The thread is gone: what waited on it fails (a commit in progress may or may not have happened). */
  private stopped(w: Worker, e: unknown): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    const err = new StorageError('Unavailable', `the SQLite writer thread stopped: ${(e as Error)?.message ?? e}`);
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiting) waiter.reject(err);
  }

  /**
   * The thread dies after its next commit, before answering (tests of what its
   * writers get). Not worker.terminate(): that during a SQLite call aborts the process.
   */
  crashAfterNextCommit(): void {
    this.start().postMessage({ type: 'crash' } satisfies WriterRequest);
  }

  /** The thread's next fsync of the log fails (tests of what writers get then). */
  failNextSyncForTest(): void {
    this.start().postMessage({ type: 'fail-sync' } satisfies WriterRequest);
  }

  /** Closes the thread's connection (after what it is doing) and ends it. */
  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.postMessage({ type: 'close' } satisfies WriterRequest);
    const timer = setTimeout(() => void w.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
