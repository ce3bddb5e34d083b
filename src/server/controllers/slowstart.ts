// The DaemonSet controller's pod creates, in slow-start rounds as upstream's
// slowStartBatch: one create, then two, four, … each round waiting for the
// one before, and a failure stopping the rest. Kept per DaemonSet across its
// syncs rather than inside one sync: a sync hands its nodes over and goes on
// (its key is free for the next event), and nodes handed over while a round is
// in flight go out in the next round instead of waiting for the whole batch
// and a later sync. A run of rounds starts from one create, and again from one
// after a failure; a run that ran dry goes on at its size if nodes come within
// `resumeMs` of its last round (one rollout's stream of nodes, with gaps shorter
// than a write), so that each burst does not climb from one again.

export interface SlowStartOptions {
  /** The largest round (upstream's burstReplicas bounds a batch). */
  maxRound: number;
  /** How long after a run's last successful round the next run goes on at its size (0: always from one, as upstream's slowStartBatch per sync). */
  resumeMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Hears the failure that stopped a run (the nodes still waiting are dropped); `awaited`: some `add` heard it too. */
  failed: (e: unknown, awaited: boolean) => void;
}

interface Waiter {
  left: Set<string>;
  revision: number;
  resolve: (r: { revision: number }) => void;
  reject: (e: unknown) => void;
}

export class SlowStartCreates {
  private readonly waiting = new Set<string>();
  private readonly inFlight = new Set<string>();
  private readonly waiters = new Set<Waiter>();
  private running = false;
  private stopped = false;
  /** The last round failed (cleared by a round without failure). */
  failing = false;
  /** The size the next round would have had, and when the last run's last round (all created) ended. */
  private resume = { size: 1, at: -Infinity };

  /** `create` creates the pod for one node and gives the revision written. */
  constructor(
    private readonly create: (node: string) => Promise<number>,
    private readonly opts: SlowStartOptions,
  ) {}

  /** The node's create is waiting for its round or in flight. */
  has(node: string) {
    return this.waiting.has(node) || this.inFlight.has(node);
  }

  /** Nodes waiting or in flight. */
  get size() {
    return this.waiting.size + this.inFlight.size;
  }

  /**
   * Hands nodes over (those already handed over are not created twice). With
   * `wait`, the promise settles once these nodes' creates did, with the newest
   * revision written, or fails with the failure that stopped them; without,
   * it settles at once and a failure is only heard by `failed`.
   */
  add(nodes: readonly string[], wait = true): Promise<{ revision: number }> {
    const left = new Set<string>();
    for (const n of nodes) {
      if (!this.has(n)) this.waiting.add(n);
      left.add(n);
    }
    const done = new Promise<{ revision: number }>((resolve, reject) => {
      if (!left.size || !wait) resolve({ revision: 0 });
      else this.waiters.add({ left, revision: 0, resolve, reject });
    });
    if (!this.running && this.waiting.size) void this.run();
    return done;
  }

  /** Drops the nodes still waiting for their round (a new template, the DaemonSet gone); rounds in flight finish. */
  clear() {
    for (const n of this.waiting) this.settle(n, 0);
    this.waiting.clear();
  }

  stop() {
    this.stopped = true;
    this.clear();
  }

  /** Settles a node for those waiting on it; returns how many of them it failed. */
  private settle(node: string, revision: number, failure?: { reason: unknown }): number {
    let rejected = 0;
    for (const w of this.waiters) {
      if (!w.left.delete(node)) continue;
      w.revision = Math.max(w.revision, revision);
      if (failure) {
        this.waiters.delete(w);
        w.reject(failure.reason);
        rejected++;
      } else if (!w.left.size) {
        this.waiters.delete(w);
        w.resolve({ revision: w.revision });
      }
    }
    return rejected;
  }

  private async run() {
    this.running = true;
    try {
      const now = this.opts.now ?? Date.now;
      const resumeMs = this.opts.resumeMs ?? 0;
      const first = resumeMs > 0 && now() - this.resume.at <= resumeMs ? this.resume.size : 1;
      for (let size = first; this.waiting.size && !this.stopped; size = Math.min(size * 2, this.opts.maxRound)) {
        const round = [...this.waiting].slice(0, size);
        for (const n of round) {
          this.waiting.delete(n);
          this.inFlight.add(n);
        }
        const results = await Promise.allSettled(round.map((n) => this.create(n)));
        let failure: { reason: unknown } | undefined;
        let awaited = 0;
        results.forEach((r, i) => {
          this.inFlight.delete(round[i]);
          if (r.status === 'fulfilled') this.settle(round[i], r.value);
          else {
            failure ??= { reason: r.reason };
            awaited += this.settle(round[i], 0, failure);
          }
        });
        this.failing = !!failure;
        if (failure) {
          // As slowStartBatch: the first failure stops the batch; the rest wait for a later sync.
          for (const n of this.waiting) awaited += this.settle(n, 0, failure);
          this.waiting.clear();
          this.opts.failed(failure.reason, awaited > 0);
          this.resume = { size: 1, at: -Infinity };
          break;
        }
        this.resume = { size: Math.min(size * 2, this.opts.maxRound), at: now() };
      }
    } finally {
      this.running = false;
    }
  }
}
