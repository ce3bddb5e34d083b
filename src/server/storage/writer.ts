// The event loop's side of the SQLite store's writer thread (writerworker.ts):
// sends a group commit's writes, or a compaction, and answers each with what
// the thread did (threadrequests.ts: should the thread die, the writes waiting
// on it fail with Unavailable and the next request starts a new thread).
import { ThreadRequests } from './threadrequests.ts';
import { StorageError, type StorageErrorCode, type StoredObject } from './storage.ts';

/** What the thread is started with. */
export interface WriterWorkerData {
  file: string;
  busyTimeoutMs: number;
  maxValueBytes: number;
  /** Whether the thread syncs the log before it answers a commit (false: a test's own sync stands in for it). */
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
 * A group's outcomes in order (and, should the log's sync have failed, why: then its
 * writes are in the log but not known to be durable), the revision compaction reached,
 * or why the transaction failed (nothing written).
 */
export type WriterAnswer = { outcomes: WriteOutcome[]; syncFailed?: string; ms?: WriterTimes } | { compacted: number } | { failed: string };

/** How long the thread took over a group: its transaction, then until the sync that covers it ended. */
export interface WriterTimes {
  commit: number;
  sync: number;
}

export class Writer {
  private readonly thread: ThreadRequests<Extract<WriterRequest, { id: number }>, WriterAnswer>;

  constructor(data: WriterWorkerData) {
    this.thread = new ThreadRequests({ from: import.meta.url, entry: './writerworker.ts', workerData: data, name: 'the SQLite writer thread' });
  }

  /**
   * Runs the writes in one transaction, each in a savepoint of its own (refused
   * alone), and answers once the log is synced past them. Groups may be sent
   * before the ones before them are answered; they are answered in order.
   */
  async commit(ops: WriteOp[]): Promise<{ outcomes: WriteOutcome[]; syncFailed?: string; ms?: WriterTimes }> {
    const answer = await this.thread.request({ type: 'commit', ops });
    if ('outcomes' in answer) return answer;
    throw new StorageError('Unavailable', 'failed' in answer ? answer.failed : 'unexpected answer from the SQLite writer');
  }

  /** Compacts to `revision` (in steps, commits running between them); the compacted revision. */
  async compact(revision: number): Promise<number> {
    const answer = await this.thread.request({ type: 'compact', revision });
    if ('compacted' in answer) return answer.compacted;
    throw new StorageError('Unavailable', 'failed' in answer ? answer.failed : 'unexpected answer from the SQLite writer');
  }

  /**
   * The thread dies after its next commit, before answering (tests of what its
   * writers get). Not worker.terminate(): that during a SQLite call aborts the process.
   */
  crashAfterNextCommit(): void {
    this.thread.post({ type: 'crash' } satisfies WriterRequest);
  }

  /** The thread's next sync of the log fails (tests of what writers get then). */
  failNextSyncForTest(): void {
    this.thread.post({ type: 'fail-sync' } satisfies WriterRequest);
  }

  /** Closes the thread's connection (after what it is doing) and ends it. */
  close(): Promise<void> {
    return this.thread.close({ type: 'close' } satisfies WriterRequest, 10_000);
  }
}
