// Options shared by the simulated node agents and the simulated CSI
// attacher: their delays and the fault annotations.
import { createHash } from 'node:crypto';

export interface SimulationOptions {
  /** Label selector of the nodes whose kubelet is simulated (`--simulate-nodes`); all nodes when absent. */
  nodes?: string;
  /** Extra simulated nodes to register, named `sim-node-00001`… (`--sim-nodes N`). */
  extraNodes?: number;
  /** Seconds between node status heartbeats (kubelet's nodeStatusUpdateFrequency). */
  heartbeatSeconds?: number;
  /** Seconds between node status posts when nothing changed (kubelet's nodeStatusReportFrequency); heartbeats go to the node's Lease. */
  nodeStatusReportSeconds?: number;
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
    nodeStatusReportSeconds: o.nodeStatusReportSeconds ?? 300,
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
 * `make` kept per name: simulated image references and sizes are hashes of the
 * image's name, asked for on every pod and node status, for the same few images
 * on thousands of nodes. Bounded: emptied past 10,000 names.
 */
export function memoByName<T>(make: (name: string) => T): (name: string) => T {
  const made = new Map<string, T>();
  return (name) => {
    let v = made.get(name);
    if (v === undefined) {
      if (made.size >= 10_000) made.clear();
      made.set(name, (v = make(name)));
    }
    return v;
  };
}
