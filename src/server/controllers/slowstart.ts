// The DaemonSet controller's pod creates, started slowly as upstream's
// slowStartBatch: one create, then two, four, … so that a create that cannot
// succeed (a quota, a webhook) fails once rather than for every node, and the
// first failure stops the rest. Kept per DaemonSet across its syncs rather
// than inside one sync: a sync hands its nodes over and goes on (its key is
// free for the next event).
//
// The bound is a window of creates in flight, not a batch that must finish as
// a whole: it starts at one and grows by one for each create that succeeds
// (so it doubles each time the creates in flight come back, as the batches
// do), up to `maxRound`. A node handed over while creates are in flight starts
// at once if the window has room, instead of waiting for every create of a
// round begun before it came: in a rollout the nodes come as a stream, and a
// round's wait was one write's latency added to each node's chain. What is
// in flight is never more than one plus the creates that succeeded, as with
// the batches.
//
// A run starts from one create, and again from one after a failure; a run that
// ran dry goes on at its size if nodes come within `resumeMs` of its last
// success (one rollout's stream of nodes, with gaps shorter than a write), so
// that each burst does not climb from one again.

export interface SlowStartOptions {
  /** The largest window (upstream's burstReplicas bounds a batch). */
  maxRound: number;
  /** How long after a run's last success the next run goes on at its size (0: always from one, as upstream's slowStartBatch per sync). */
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
  /** Creates in flight, by node: the run each belongs to. */
  private readonly inFlight = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  /** The run's number: a failure ends a run, and what its creates still in flight bring no longer moves the window. */
  private run = 0;
  /** Creates in flight at most. */
  private window = 1;
  /** When the last create succeeded. */
  private lastSuccess = -Infinity;
  /** A create failed, and none begun after the failure has succeeded yet. */
  failing = false;

  /** `create` creates the pod for one node and gives the revision written. */
  constructor(
    private readonly create: (node: string) => Promise<number>,
    private readonly opts: SlowStartOptions,
  ) {}

  /** The node's create is waiting for room in the window or in flight. */
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
    if (!this.size) {
      // The run ran dry: a new one starts from one, unless this comes just after it: then it goes on at its size.
      const resumeMs = this.opts.resumeMs ?? 0;
      if (!(resumeMs > 0 && (this.opts.now ?? Date.now)() - this.lastSuccess <= resumeMs)) this.window = 1;
    }
    const left = new Set<string>();
    for (const n of nodes) {
      if (!this.has(n)) this.waiting.add(n);
      left.add(n);
    }
    const done = new Promise<{ revision: number }>((resolve, reject) => {
      if (!left.size || !wait) resolve({ revision: 0 });
      else this.waiters.add({ left, revision: 0, resolve, reject });
    });
    this.pump();
    return done;
  }

  /** Drops the nodes still waiting for room (a new template, the DaemonSet gone); creates in flight finish. */
  clear() {
    for (const n of this.waiting) this.settle(n, 0);
    this.waiting.clear();
  }

  stop() {
    this.stopped = true;
    this.clear();
  }

  /** Starts waiting creates while the window has room. */
  private pump() {
    if (this.stopped) return;
    for (const n of this.waiting) {
      if (this.inFlight.size >= this.window) break;
      this.waiting.delete(n);
      this.inFlight.set(n, this.run);
      const run = this.run;
      this.create(n).then(
        (rv) => this.done(n, run, rv),
        (e) => this.done(n, run, 0, { reason: e }),
      );
    }
  }

  private done(node: string, run: number, revision: number, failure?: { reason: unknown }) {
    this.inFlight.delete(node);
    if (!failure) {
      this.settle(node, revision);
      if (run === this.run) {
        this.failing = false;
        this.lastSuccess = (this.opts.now ?? Date.now)();
        this.window = Math.min(this.window + 1, this.opts.maxRound);
      }
      this.pump();
      return;
    }
    let awaited = this.settle(node, 0, failure);
    if (run !== this.run) return; // its run was stopped already
    // As slowStartBatch: the first failure stops the run; the rest wait for a later sync.
    this.run++;
    this.failing = true;
    this.window = 1;
    this.lastSuccess = -Infinity;
    for (const n of this.waiting) awaited += this.settle(n, 0, failure);
    this.waiting.clear();
    this.opts.failed(failure.reason, awaited > 0);
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
}
