// Options and plumbing shared by the simulated node agents and the simulated
// CSI attacher: their delays, and a small keyed work queue so that a burst of
// watch events for one object costs one sync.
import { createHash } from 'node:crypto';

export interface SimulationOptions {
  /** Label selector of the nodes whose kubelet is simulated (`--simulate-nodes`); all nodes when absent. */
  nodes?: string;
  /** Extra simulated nodes to register, named `sim-node-00001`… (`--sim-nodes N`). */
  extraNodes?: number;
  /** Seconds between node status heartbeats (kubelet's nodeStatusUpdateFrequency). */
  heartbeatSeconds?: number;
  /** Seconds from a pod being bound to its containers running. */
  podStartSeconds?: number;
  /** Seconds from containers running to the pod being Ready. */
  podReadySeconds?: number;
  /** Seconds the kubelet takes to stop a terminating pod's containers before deleting it (capped by its grace period). */
  podStopSeconds?: number;
  /** First CrashLoopBackOff delay; doubles per restart up to 300 s, as the kubelet's back-off does. */
  crashBackoffSeconds?: number;
  /** Seconds an assigned dynamic kubelet config must stay active to become lastKnownGood (10 minutes upstream). */
  soakSeconds?: number;
  /** Seconds an attach or detach takes. */
  attachSeconds?: number;
  /** CSI driver names the simulated attacher handles. */
  drivers?: string[];
}

export type Timing = Required<Omit<SimulationOptions, 'nodes' | 'extraNodes' | 'drivers'>>;

export function timingOf(o: SimulationOptions): Timing {
  return {
    heartbeatSeconds: o.heartbeatSeconds ?? 10,
    podStartSeconds: o.podStartSeconds ?? 1,
    podReadySeconds: o.podReadySeconds ?? 2,
    podStopSeconds: o.podStopSeconds ?? 1,
    crashBackoffSeconds: o.crashBackoffSeconds ?? 10,
    soakSeconds: o.soakSeconds ?? 600,
    attachSeconds: o.attachSeconds ?? 1,
  };
}

export const DEFAULT_DRIVERS = ['csi.sim.k8s.io', 'hostpath.csi.k8s.io'];

/** Fault-injection annotations (documented in README). */
export const Annotations = {
  nodeNotReady: 'sim.k8s.io/not-ready',
  nodeUnreachable: 'sim.k8s.io/unreachable',
  /** On a node: pods that have not started yet cannot pull their images (ImagePullBackOff); the node stays Ready. */
  nodeImagePullError: 'sim.k8s.io/image-pull-error',
  podFailReadiness: 'sim.k8s.io/fail-readiness',
  podCrash: 'sim.k8s.io/crash',
  attachError: 'sim.k8s.io/attach-error',
  detachError: 'sim.k8s.io/detach-error',
} as const;

export const isTrue = (annotations: Record<string, string> | undefined, key: string) => annotations?.[key] === 'true';

export const hex = (s: string, len = 64) => createHash('sha256').update(s).digest('hex').slice(0, len);

/**
 * A keyed work queue (client-go's workqueue in miniature): a key added while
 * queued is synced once; a key added while its sync runs is synced again
 * afterwards; at most `concurrency` syncs run at once. `after` re-adds a key
 * later, keeping only the earliest pending timer per key.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private running = 0;
  private stopped = false;

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    private readonly concurrency = 8,
  ) {}

  add(key: string) {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.queued.add(key);
    this.pump();
  }

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
    this.timers.set(key, { at, timer });
  }

  private pump() {
    while (!this.stopped && this.running < this.concurrency && this.queued.size) {
      const key = this.queued.values().next().value!;
      this.queued.delete(key);
      this.active.add(key);
      this.running++;
      void this.sync(key)
        .catch(() => this.after(key, 1000)) // a failed write is retried, as a requeue with back-off would
        .finally(() => {
          this.running--;
          this.active.delete(key);
          if (this.dirty.delete(key)) this.queued.add(key);
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
