// Node heartbeats as the kubelet and the node lifecycle controller exchange
// them since NodeLease went GA (KEP-589): the kubelet renews a small Lease
// named after its node in `kube-node-lease` every renewInterval (0.25 of the
// 40 s lease duration, i.e. every nodeStatusUpdateFrequency), and posts its
// NodeStatus only when it changed or every nodeStatusReportFrequency (5 min).
// The lifecycle controller counts a node as heard from when either its Lease
// renewTime or its Ready condition's heartbeat moved, and marks it Unknown
// once nothing moved for nodeMonitorGracePeriod (50 s since 1.29).
import { apiVersionOf, type KubeObject } from '../../kinds/kind.ts';
import { leaseKind } from '../../kinds/coordination.ts';
import { nodeKind } from '../../kinds/node.ts';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** metav1.MicroTime as the API writes it: RFC 3339 with six fractional digits. */
export const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** What the kubelet's node lease timing derives from its heartbeat interval (nodeStatusUpdateFrequency, 10 s upstream). */
export function leaseTiming(heartbeatSeconds: number) {
  return {
    /** nodeLeaseDurationSeconds: 40 s for the 10 s renew interval (renewInterval = 0.25 * duration). */
    leaseDurationSeconds: Math.max(1, Math.round(4 * heartbeatSeconds)),
    /** nodeMonitorGracePeriod: 50 s for 10 s heartbeats, five missed renewals. */
    gracePeriodMs: 5 * heartbeatSeconds * 1000,
    /** nodeMonitorPeriod: 5 s upstream; never more than a fifth of the grace period. */
    monitorPeriodMs: Math.min(5000, heartbeatSeconds * 1000),
  };
}

/**
 * The Lease the kubelet holds for its node, owned by the Node so that the
 * garbage collector removes it with the node (the kubelet's setNodeOwnerFunc).
 */
export function nodeLease(node: KubeObject, leaseDurationSeconds: number, now: number): KubeObject {
  const name = node.metadata.name!;
  return {
    apiVersion: apiVersionOf(leaseKind),
    kind: leaseKind.kind,
    metadata: { name, namespace: NODE_LEASE_NAMESPACE, ownerReferences: [nodeOwner(node)] },
    spec: { holderIdentity: name, leaseDurationSeconds, renewTime: microTime(now) },
  };
}

const nodeOwner = (node: KubeObject) => ({ apiVersion: apiVersionOf(nodeKind), kind: nodeKind.kind, name: node.metadata.name!, uid: node.metadata.uid! });

/** A renewal of an existing lease, in place: the renew time, and holder, duration and owner should another writer have changed them. */
export function renewNodeLease(lease: KubeObject, node: KubeObject, leaseDurationSeconds: number, now: number) {
  const spec = ((lease.spec as any) ??= {});
  spec.holderIdentity = node.metadata.name;
  spec.leaseDurationSeconds = leaseDurationSeconds;
  spec.renewTime = microTime(now);
  const owners = lease.metadata.ownerReferences ?? [];
  if (!owners.some((o) => o.kind === nodeKind.kind && o.uid === node.metadata.uid)) lease.metadata.ownerReferences = [...owners, nodeOwner(node)];
}

/**
 * The lifecycle controller's view of each node's health (nodeHealthData):
 * when it last saw the node's Lease renewed or its status heartbeat move,
 * by its own clock, as upstream's probeTimestamp.
 */
export class NodeHealth {
  private readonly seen = new Map<string, { heartbeat?: string; ready?: string; renewTime?: string; probeAt: number }>();

  private entry(name: string, now: number) {
    let h = this.seen.get(name);
    if (!h) this.seen.set(name, (h = { probeAt: now }));
    return h;
  }

  /** A node as the controller sees it: a new heartbeat or Ready status counts as hearing from it. */
  observeNode(name: string, ready: { status?: string; lastHeartbeatTime?: string } | undefined, now: number) {
    const h = this.entry(name, now);
    if (ready?.lastHeartbeatTime !== h.heartbeat || ready?.status !== h.ready) {
      h.heartbeat = ready?.lastHeartbeatTime;
      h.ready = ready?.status;
      h.probeAt = now;
    }
  }

  /** A node's Lease: only a later renewTime counts (upstream compares RenewTime, not the object). */
  observeLease(name: string, renewTime: string | undefined, now: number) {
    const h = this.entry(name, now);
    if (renewTime && (!h.renewTime || renewTime > h.renewTime)) {
      h.renewTime = renewTime;
      h.probeAt = now;
    }
  }

  forget(name: string) {
    this.seen.delete(name);
  }

  /** Nothing heard from the node for longer than the grace period. */
  stale(name: string, now: number, gracePeriodMs: number): boolean {
    const h = this.seen.get(name);
    return !!h && now - h.probeAt > gracePeriodMs;
  }

  names() {
    return this.seen.keys();
  }
}
