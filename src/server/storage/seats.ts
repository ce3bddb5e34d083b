// Seats for the writes one server has in flight to etcd at once, in two
// priority levels, as API Priority and Fairness keeps kube-apiserver's
// leader-election and node-heartbeat requests apart from the workload's: a
// write takes a seat when one is free, else queues in its level, and a freed
// seat goes to the high level's queue first. A write that waits longer than
// its deadline for a seat is not sent at all.
//
// Without a bound, every simulated kubelet and controller writes at once: etcd
// queues thousands of transactions, each waits behind all of them, and a Lease
// renewal (the controllers' leadership, a node's heartbeat) outlives its
// deadline as a pod status does.

interface Waiter {
  seated: (ok: boolean) => void;
  timer: NodeJS.Timeout;
  /** Gave up (its deadline passed): left in the queue, skipped when a seat frees. */
  gone?: boolean;
}

export class Seats {
  private taken = 0;
  private readonly high: Waiter[] = [];
  private readonly low: Waiter[] = [];

  constructor(readonly limit: number) {}

  /** Writes in flight now. */
  get inFlight(): number {
    return this.taken;
  }

  private waiting = 0;

  /** Writes waiting for a seat now. */
  get queued(): number {
    return this.waiting;
  }

  /** Resolves true once a seat is taken (release it after the write), false when none came within `timeoutMs`. */
  take(high: boolean, timeoutMs: number): Promise<boolean> {
    if (this.taken < this.limit) {
      this.taken++;
      return Promise.resolve(true);
    }
    this.waiting++;
    return new Promise((resolve) => {
      const w: Waiter = {
        seated: resolve,
        timer: setTimeout(() => {
          w.gone = true;
          this.waiting--;
          resolve(false);
        }, timeoutMs),
      };
      (high ? this.high : this.low).push(w);
    });
  }

  /** Frees a seat: the longest waiter of the high level takes it, else of the low. */
  release() {
    let next: Waiter | undefined;
    do next = this.high.shift() ?? this.low.shift();
    while (next?.gone);
    if (!next) {
      this.taken--;
      return;
    }
    this.waiting--;
    clearTimeout(next.timer);
    next.seated(true);
  }
}
