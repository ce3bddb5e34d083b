// The controllers' work queue, as client-go's: a key is queued at most once
// and synced by one worker at a time (a key that changes while it syncs is
// synced again after), delayed adds, and a failed sync retried with
// per-key exponential back-off (5 ms doubling, as the default rate limiter).
// Syncs start only while the turn has room (turnbudget.ts): a burst of keys
// is started over several turns, with I/O polled between them.
import { inNextTurn, turnHasRoom } from './turnbudget.ts';

export interface WorkQueueOptions {
  concurrency?: number;
}

const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 1_000_000;

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly concurrency: number;
  private running = 0;
  private stopped = false;
  /** Promises startAfter waits for that have not settled. */
  private awaited = 0;

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    opts: WorkQueueOptions | number = {},
  ) {
    const o = typeof opts === 'number' ? { concurrency: opts } : opts;
    this.concurrency = o.concurrency ?? 8;
  }

  add(key: string) {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.queued.add(key);
    this.pump();
  }

  /** Adds `key` after `ms`; an earlier pending add of the same key wins. */
  after(key: string, ms: number) {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, ms);
    const t = this.timers.get(key);
    if (t && t.at <= at) return;
    if (t) clearTimeout(t.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, Math.max(0, ms));
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  /** The key's sync failed, or work it handed on did after it ended: the key is retried with its back-off. */
  fail(key: string) {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.after(key, Math.min(BASE_DELAY_MS * 2 ** n, MAX_DELAY_MS));
  }

  /**
   * Starts no sync until `ready` settles, as client-go's controllers start
   * their workers once their informers have synced (WaitForCacheSync): a sync
   * that ran on half an index would judge a node empty, or an IP free, that
   * the rest of the list shows otherwise. Keys added meanwhile wait their turn.
   */
  startAfter(ready: Promise<unknown>) {
    this.awaited++;
    const go = () => {
      this.awaited--;
      this.pump();
    };
    void ready.then(go, go);
  }

  private readonly pumpLater = () => this.pump();

  private pump() {
    if (this.awaited) return;
    while (!this.stopped && this.running < this.concurrency && this.queued.size) {
      if (!turnHasRoom()) {
        inNextTurn(this.pumpLater);
        return;
      }
      const key = this.queued.values().next().value!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.sync(key)
        .then(
          () => this.failures.delete(key),
          () => this.fail(key),
        )
        .finally(() => {
          this.running--;
          this.active.delete(key);
          if (this.dirty.delete(key)) this.add(key);
          this.pump();
        });
    }
  }

  stop() {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.queued.clear();
  }
}
