// Callers waiting for a revision to be reached (a write's own event in the
// watch cache, a replica's etcd watch catching up to a read's revision), kept
// in revision order so that each step forward settles only those it reaches.
// On etcd every write of a 5000-node rollout waits here, thousands at once:
// sorting them again at every wait and every event was a third of the
// server's CPU.

import { firstNotBefore } from '../../lib/sorted.ts';

interface Waiter {
  revision: number;
  settle(reached: boolean): void;
}

export class RevisionWaiters {
  /** From `head` on, in revision order (equal revisions in arrival order); before it, settled. */
  private waiters: Waiter[] = [];
  private head = 0;

  get size() {
    return this.waiters.length - this.head;
  }

  /** Resolves true once reached(r) is called with r >= `revision`, false after `timeoutMs`. */
  wait(revision: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let done = false;
      const timer = setTimeout(() => settle(false), timeoutMs);
      const settle = (reached: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(reached);
      };
      // After every waiter at or below this revision: most waits are for the newest revision, at the end.
      this.waiters.splice(this.atOrBelow(revision), 0, { revision, settle });
    });
  }

  /**
   * Every waiter at or below `revision` is resolved (true; one that timed out already stays false).
   * The settled ones are cut off the front only once they are half the array: a cache far behind its
   * storage steps forward a revision at a time under tens of thousands of waiters, and moving them
   * all at every step took a fifth of the server's CPU.
   */
  reached(revision: number): void {
    const end = this.atOrBelow(revision);
    for (; this.head < end; this.head++) this.waiters[this.head].settle(true);
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    } else if (this.head === this.waiters.length) {
      this.waiters.length = 0;
      this.head = 0;
    }
  }

  /** Where the waiters for revisions above `revision` start (those at or below come first). */
  private atOrBelow(revision: number): number {
    return firstNotBefore(this.head, this.waiters.length, (i) => this.waiters[i].revision <= revision);
  }
}
