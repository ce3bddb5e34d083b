// Requests to a storage worker thread (the SQLite writer, the etcd client),
// each answered by a message with its id. The thread is started at once and
// again by the first request after it died; it keeps the process alive only
// while a request waits on it. Should it die, what waits on it fails with
// Unavailable (a write in flight may or may not have happened), never waits
// for ever.
import type { Worker } from 'node:worker_threads';
import { startTsxWorker } from '../tsxworker.ts';
import { StorageError } from './storage.ts';

export interface ThreadOptions<Answer> {
  /** The caller's `import.meta.url` and the thread's module relative to it. */
  from: string;
  entry: string;
  workerData: unknown;
  /** What the thread is called in errors ("the SQLite writer thread"). */
  name: string;
  /** Messages that answer no request (the etcd watches' responses). */
  onOther?: (m: Answer) => void;
  /** The thread is gone; `err` is what its requests failed with. */
  onStopped?: (err: StorageError) => void;
}

/** A request as sent, before its id is set. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export class ThreadRequests<Request extends { id: number }, Answer> {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: unknown) => void }>();

  /** Starts the thread at once: loading its module takes a while, and the first requests should not wait for it. */
  constructor(private readonly opts: ThreadOptions<Answer>) {
    this.start();
  }

  /** Sends `m` with a new `id`; resolves with the message that answers it (the one carrying that id). */
  request(m: WithoutId<Request>): Promise<Answer> {
    const w = this.start();
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) w.ref();
      w.postMessage({ ...m, id });
    });
  }

  /** Sends `m`, answered by nothing (starting a thread if there is none). */
  post(m: unknown): void {
    this.start().postMessage(m);
  }

  /** Sends `m` to the thread that runs now, if one does. */
  postIfRunning(m: unknown): void {
    this.worker?.postMessage(m);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = startTsxWorker(this.opts.from, this.opts.entry, { workerData: this.opts.workerData });
    w.unref();
    w.on('message', (m: Answer & { id?: number }) => {
      const waiter = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!waiter) return this.opts.onOther?.(m);
      this.waiting.delete(m.id!);
      if (this.waiting.size === 0) w.unref();
      waiter.resolve(m as Answer);
    });
    w.on('error', (e) => this.stopped(w, e));
    w.on('exit', (code) => this.stopped(w, new Error(`exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  private stopped(w: Worker, e: unknown): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    const err = new StorageError('Unavailable', `${this.opts.name} stopped: ${(e as Error)?.message ?? e}`);
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiting) waiter.reject(err);
    this.opts.onStopped?.(err);
  }

  /** Sends `closing` (the thread finishes what it is doing and exits), and ends it after `graceMs` if it has not. */
  async close(closing: unknown, graceMs: number): Promise<void> {
    const w = this.worker;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    w.postMessage(closing);
    const timer = setTimeout(() => void w.terminate(), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
