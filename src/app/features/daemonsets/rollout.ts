// The rollout of one DaemonSet as the view shows it: every node that should
// run the daemon with its pods (new or old revision, ready, available since,
// restarts), stalled nodes, nodes left out and why, misscheduled pods, and
// the budget in force. Pure, from the objects the watches deliver; relies only
// on what a real cluster has too: owner references, the
// `controller-revision-hash` and `pod-template-generation` labels and the
// DaemonSet's ControllerRevisions.
import type { KubeObject } from '../../../kinds/kind.ts';
import { daemonPodNodeName, nodeShouldRunDaemonPod } from '../../../lib/daemonnodes.ts';
import { deepEqual } from '../../../lib/json.ts';
import {
  ControllerRevisionHashLabel,
  compareDaemonPods,
  isPodReady,
  isPodUpdated,
  isTerminating,
  nodeStall,
  podAvailableAt,
  podNotAvailableReason,
  hostPortBlock,
  rolloutBudget,
  templateGenerationOf,
  type NodePods,
  type RolloutBudget,
} from '../../../lib/rollout.ts';

export type PodState = 'available' | 'ready' | 'running' | 'pending' | 'failed' | 'terminating';

export interface PodCell {
  name: string;
  uid: string;
  revision: 'new' | 'old';
  hash?: string;
  phase: string;
  state: PodState;
  ready: boolean;
  /** Epoch ms the pod became (or becomes) available; undefined when not ready. */
  availableSince?: number;
  restarts: number;
  createdAt: number;
  /** Why it is not available, in full, from its conditions or containers. */
  message?: string;
}

export type NodeState = 'updated' | 'progressing' | 'old' | 'missing' | 'stalled';

export interface NodeRow {
  nodeName: string;
  node?: KubeObject;
  /** The node's value of the grouping label ('' when absent). */
  group: string;
  pods: PodCell[];
  state: NodeState;
  /** For stalled nodes: since when (epoch ms) and why. */
  stalledSince?: number;
  stalledMessage?: string;
}

export interface ExcludedNode {
  nodeName: string;
  reason: string;
  /** Daemon pods still running there (misscheduled unless the node may keep them). */
  pods: PodCell[];
  misscheduled: boolean;
}

export interface RolloutModel {
  rows: NodeRow[];
  excluded: ExcludedNode[];
  /** Pods whose node no longer exists or that are not bound. */
  orphans: PodCell[];
  currentHash?: string;
  budget: RolloutBudget;
  counts: { desired: number; updated: number; ready: number; available: number; updatedAvailable: number; stalled: number };
}

export const isOwnedBy = (o: KubeObject, owner: KubeObject) => (o.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.metadata.uid);

const stripPatch = (template: unknown) => {
  if (!template || typeof template !== 'object') return template;
  const { $patch: _, ...rest } = template as Record<string, unknown>;
  return rest;
};

/** The revisions of `ds`, newest first, each with its number and hash. */
export function revisionsOf(ds: KubeObject, revisions: KubeObject[]) {
  return revisions
    .filter((r) => isOwnedBy(r, ds))
    .map((r) => ({
      object: r,
      revision: Number((r as any).revision ?? 0),
      hash: r.metadata.labels?.[ControllerRevisionHashLabel] ?? r.metadata.name!.split('-').pop()!,
      template: stripPatch((r as any).data?.spec?.template) as KubeObject | undefined,
    }))
    .sort((a, b) => b.revision - a.revision);
}

/** The hash of the revision holding the DaemonSet's current template, if the controller has written it. */
export function currentHashOf(ds: KubeObject, revisions: ReturnType<typeof revisionsOf>): string | undefined {
  const template = (ds.spec as any)?.template;
  return revisions.find((r) => deepEqual(r.template, template))?.hash;
}

function podCell(pod: KubeObject, updated: boolean, minReadySeconds: number, now: number, nodePods: KubeObject[]): PodCell {
  const status = pod.status as any;
  const ready = isPodReady(pod);
  const availableAt = podAvailableAt(pod, minReadySeconds);
  const readySince = Date.parse((status?.conditions ?? []).find((c: any) => c.type === 'Ready')?.lastTransitionTime ?? '');
  const phase: string = status?.phase ?? 'Pending';
  const state: PodState = isTerminating(pod)
    ? 'terminating'
    : phase === 'Failed'
      ? 'failed'
      : availableAt !== undefined && availableAt <= now
        ? 'available'
        : ready
          ? 'ready'
          : phase === 'Running'
            ? 'running'
            : 'pending';
  return {
    name: pod.metadata.name!,
    uid: pod.metadata.uid!,
    revision: updated ? 'new' : 'old',
    hash: pod.metadata.labels?.[ControllerRevisionHashLabel],
    phase,
    state,
    ready,
    availableSince: availableAt === undefined ? undefined : availableAt === -Infinity ? (Number.isNaN(readySince) ? undefined : readySince) : availableAt,
    restarts: (status?.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0),
    createdAt: Date.parse(pod.metadata.creationTimestamp ?? '') || now,
    message: (updated ? hostPortBlock(pod as never, nodePods as never) : undefined) ?? podNotAvailableReason(pod as never, minReadySeconds, now),
  };
}

export interface RolloutInput {
  ds: KubeObject;
  pods: KubeObject[];
  nodes: KubeObject[];
  revisions: KubeObject[];
  now: number;
  /** A node whose new pod is not available this long (ms) after its creation is stalled. */
  stallAfterMs: number;
  /** Label whose value groups the nodes (e.g. topology.kubernetes.io/zone); '' for none. */
  groupBy: string;
}

export function buildRollout({ ds, pods, nodes, revisions, now, stallAfterMs, groupBy }: RolloutInput): RolloutModel {
  const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
  const generation = templateGenerationOf(ds);
  const currentHash = currentHashOf(ds, revisionsOf(ds, revisions));
  const owned = pods.filter((p) => isOwnedBy(p, ds));
  const byNode = new Map<string, KubeObject[]>();
  const orphans: PodCell[] = [];
  const cell = (p: KubeObject, nodePods: KubeObject[] = []) => podCell(p, isPodUpdated(p, currentHash, generation), minReady, now, nodePods);
  for (const p of owned) {
    // Pods the scheduler has not bound yet belong to the node their affinity names.
    const nodeName = daemonPodNodeName(p as never);
    if (!nodeName) orphans.push(cell(p));
    else {
      const list = byNode.get(nodeName);
      if (list) list.push(p);
      else byNode.set(nodeName, [p]);
    }
  }

  const rows: NodeRow[] = [];
  const excluded: ExcludedNode[] = [];
  const planNodes: NodePods[] = [];
  const known = new Set<string>();
  for (const node of nodes) {
    const nodeName = node.metadata.name!;
    known.add(nodeName);
    const nodePods = (byNode.get(nodeName) ?? []).sort(compareDaemonPods);
    const placement = nodeShouldRunDaemonPod(node as any, ds as any);
    if (nodePods.length || placement.shouldRun) planNodes.push({ nodeName, shouldRun: placement.shouldRun, pods: nodePods as any });
    const cells = nodePods.map((p) => cell(p, nodePods));
    if (!placement.shouldRun) {
      excluded.push({ nodeName, reason: placement.reason ?? 'not eligible', pods: cells, misscheduled: cells.length > 0 && !placement.shouldContinueRunning });
      continue;
    }
    const live = cells.filter((c) => c.state !== 'terminating');
    const fresh = live.find((c) => c.revision === 'new');
    const old = live.find((c) => c.revision === 'old');
    let state: NodeState;
    if (fresh?.state === 'available' && !old) state = 'updated';
    else if (fresh) state = 'progressing';
    else if (old) state = 'old';
    else state = 'missing';
    const row: NodeRow = { nodeName, node, group: groupBy ? (node.metadata.labels?.[groupBy] ?? '') : '', pods: cells, state };
    const stall = fresh && nodeStall(nodePods.find((p) => p.metadata.uid === fresh.uid) as never, nodePods as never, { minReadySeconds: minReady, now, stallAfterMs });
    if (stall) {
      row.state = 'stalled';
      row.stalledSince = stall.since;
      row.stalledMessage = stall.reason;
    }
    rows.push(row);
  }
  for (const [nodeName, list] of byNode) if (!known.has(nodeName)) orphans.push(...list.map((p) => cell(p, list)));

  const budget = rolloutBudget({ ds: ds as any, nodes: planNodes as any, hash: currentHash, now });
  const live = (r: NodeRow) => r.pods.filter((c) => c.state !== 'terminating');
  const counts = {
    desired: rows.length,
    updated: rows.filter((r) => live(r).some((c) => c.revision === 'new')).length,
    ready: rows.filter((r) => live(r).some((c) => c.ready)).length,
    available: rows.filter((r) => live(r).some((c) => c.state === 'available')).length,
    updatedAvailable: rows.filter((r) => r.state === 'updated').length,
    stalled: rows.filter((r) => r.state === 'stalled').length,
  };
  return { rows, excluded, orphans, currentHash, budget, counts };
}

/** A readable duration: 45s, 3m 20s, 2h 5m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? ` ${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? ` ${m % 60}m` : ''}`;
}
