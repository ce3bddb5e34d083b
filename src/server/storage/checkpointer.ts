// WAL checkpoints of the SQLite store, run on a worker thread with a
// connection of its own. A checkpoint copies the write-ahead log back into
// the database file and fsyncs both; left to SQLite's auto-checkpoint it runs
// inside the commit that crosses 1000 pages, on the event loop, and costs
// more than the commits themselves (tens of ms each, every ~4 MB written).
// A PASSIVE checkpoint from another connection runs beside the writer; the
// writer restarts the log from its start once a checkpoint has caught up.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CheckpointAnswer, CheckpointWorkerData } from './checkpointworker.ts';

/** Bytes written to the log between checkpoints (SQLite's own default is 1000 pages, ~4 MB). */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

export class Checkpointer {
  private worker: Worker | undefined;
  private written = 0;
  private running = false;
  private closed = false;
  /** Waiting for the checkpoint in progress to end. */
  private waiters: (() => void)[] = [];
  /**
   * The last checkpoint did not reach the end of the log (the writer appended
   * meanwhile). SQLite starts the log over only once a checkpoint reached its
   * end, so under writes that never pause it would grow without bound: the
   * writer then lets one checkpoint run with no commit beside it (catchUp).
   */
  behind = false;
  /** The checkpoint in progress runs with the writer held. */
  private held = false;

  /** `fallback` runs when the worker cannot (its thread failed): the connection checkpoints itself again. */
  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
    private readonly fallback: () => void,
  ) {}

  /** Notes `bytes` more in the log; starts a checkpoint once enough has piled up. */
  wrote(bytes: number): void {
    this.written += bytes;
    if (this.written >= CHECKPOINT_BYTES) this.checkpoint();
  }

  private checkpoint(held = false): void {
    if (this.running || this.closed || (!held && this.written < CHECKPOINT_BYTES)) return;
    const w = this.start();
    if (!w) return;
    this.running = true;
    this.held = held;
    this.written = 0;
    w.postMessage('checkpoint');
  }

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    let w: Worker;
    try {
      // The worker runs TypeScript like this process (as the body decoder's, bodies.ts): tsx's loader first, then the entry.
      const entry = new URL('./checkpointworker.ts', import.meta.url).href;
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
      const workerData: CheckpointWorkerData = { file: this.file, busyTimeoutMs: this.busyTimeoutMs };
      w = new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData });
    } catch (e) {
      this.fail(e);
      return undefined;
    }
    w.unref();
    w.on('message', (m: CheckpointAnswer) => {
      this.running = false;
      // A busy checkpoint is tried again with the next few MB; the log grows meanwhile.
      if ('error' in m) console.warn(`SqliteStorage: WAL checkpoint failed: ${m.error}`);
      // One run beside the writer cannot tell what was appended after it looked; one with the writer held can.
      else this.behind = !this.held || m.checkpointed < m.log;
      this.held = false;
      for (const resolve of this.waiters.splice(0)) resolve();
      if (this.written >= CHECKPOINT_BYTES) this.checkpoint();
    });
    w.on('error', (e) => this.fail(e));
    w.on('exit', () => {
      if (this.worker === w && !this.closed) this.fail(new Error('the checkpoint worker exited'));
    });
    this.worker = w;
    return w;
  }

  /**
   * A checkpoint with the writer held (the caller commits nothing until this
   * resolves): it copies only what was appended since the last one, and
   * reaches the log's end, so the next commit starts the log over.
   */
  async catchUp(): Promise<void> {
    for (let i = 0; i < 3 && this.behind && !this.closed; i++) {
      if (!this.running) this.checkpoint(true);
      if (!this.running) return;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private fail(e: unknown): void {
    console.warn(`SqliteStorage: checkpoints go back to the writing connection: ${(e as Error)?.message ?? e}`);
    this.closed = true;
    this.worker = undefined;
    this.running = false;
    this.behind = false;
    for (const resolve of this.waiters.splice(0)) resolve();
    this.fallback();
  }

  /** Closes the worker's connection (after a checkpoint in progress) and ends its thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.waiters.splice(0)) resolve();
    const w = this.worker;
    this.worker = undefined;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.postMessage('close');
    const timer = setTimeout(() => void w.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
