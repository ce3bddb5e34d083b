// Callers waiting for a revision to be reached (a write's own event in the
// watch cache, a replica's etcd watch catching up to a read's revision), kept
// in revision order so that each step forward settles only those it reaches.
// On etcd every write of a 5000-node rollout waits here, thousands at once:
// sorting them again at every wait and every event was a third of the
// server's CPU.

interface Waiter {
  revision: number;
  settle(reached: boolean): void;
}

export class RevisionWaiters {
  /** In revision order (equal revisions in arrival order). */
  private readonly waiters: Waiter[] = [];

  get size() {
    return this.waiters.length;
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

  /** Every waiter at or below `revision` is resolved (true; one that timed out already stays false). */
  reached(revision: number): void {
    const n = this.atOrBelow(revision);
    if (n) for (const x of this.waiters.splice(0, n)) x.settle(true);
  }

  /** How many waiters wait for `revision` or an earlier one (they come first). */
  private atOrBelow(revision: number): number {
    let lo = 0;
    let hi = this.waiters.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.waiters[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
