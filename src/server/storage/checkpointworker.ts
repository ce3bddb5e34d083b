// The worker thread of Checkpointer (checkpointer.ts): a connection of its own
// to the SQLite file, one PASSIVE WAL checkpoint per 'checkpoint' message,
// closed on 'close'.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** What the Checkpointer gives the thread. */
export interface CheckpointWorkerData {
  file: string;
  busyTimeoutMs: number;
}

/** One checkpoint's answer: the log's frames and how many were copied back, or why it failed. */
export type CheckpointAnswer = { log: number; checkpointed: number } | { error: string };

const { file, busyTimeoutMs } = workerData as CheckpointWorkerData;
const db = new Database(file, { timeout: busyTimeoutMs });
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');

parentPort!.on('message', (m: 'checkpoint' | 'close') => {
  if (m === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  let answer: CheckpointAnswer;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    answer = { log: r.log, checkpointed: r.checkpointed };
  } catch (e) {
    answer = { error: String((e as Error)?.message ?? e) };
  }
  parentPort!.postMessage(answer);
});
