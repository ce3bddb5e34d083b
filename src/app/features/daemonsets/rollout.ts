// The rollout of one DaemonSet as the view shows it: every node that should
// run the daemon with its pods (new or old revision, ready, available since,
// restarts), stalled nodes, nodes left out and why, misscheduled pods, and
// the budget in force. Pure, from the objects the watches deliver; relies only
// on what a real cluster has too: owner references, the
// `controller-revision-hash` and `pod-template-generation` labels and the
// DaemonSet's ControllerRevisions.
import type { KubeObject } from '../../../kinds/kind.ts';
import { daemonPodNodeName, daemonPodTolerations, nodeShouldRunDaemonPod } from '../../../lib/daemonnodes.ts';
import { deepEqual } from '../../../lib/json.ts';
import {
  ControllerRevisionHashLabel,
  TemplateGenerationAnnotation,
  budgetFromUse,
  compareDaemonPods,
  isPodAvailable,
  nodeBudgetUse,
  isPodReady,
  isPodUpdated,
  isTerminating,
  nodeStall,
  podAvailableAt,
  podNotAvailableReason,
  hostPortBlock,
  templateGenerationOf,
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
  /** The newest resourceVersion of the node and its pods (what the row shows). */
  resourceVersion: string;
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
  /** The rows' groups (by the grouping label) with their nodes per state, '' last. */
  groups: GroupCounts[];
  /** RolloutIndex's version this model is of. */
  version: number;
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
  /** The namespace's pods. */
  pods: readonly KubeObject[];
  nodes: readonly KubeObject[];
  revisions: KubeObject[];
  now: number;
  /** A node whose new pod is not available this long (ms) after its creation is stalled. */
  stallAfterMs: number;
  /** Label whose value groups the nodes (e.g. topology.kubernetes.io/zone); '' for none. */
  groupBy: string;
}

/** The model of one moment, from scratch (RolloutIndex keeps it up to date as the watches move). */
export function buildRollout(input: RolloutInput): RolloutModel {
  const index = new RolloutIndex();
  index.update(input);
  return index.model();
}

export const NODE_STATES: NodeState[] = ['stalled', 'missing', 'progressing', 'old', 'updated'];

export interface GroupCounts {
  /** The grouping label's value ('' when absent). */
  group: string;
  total: number;
  states: Record<NodeState, number>;
}

/** What one node adds to the model, kept until its pods, its Node or the clock change it. */
interface NodeEntry {
  row?: NodeRow;
  excluded?: ExcludedNode;
  /** In planRollingUpdate's node set: it should run the daemon or has pods. */
  planned: boolean;
  use: { unavailable: number; surge: number };
  counts: { updated: number; ready: number; available: number };
  /** Epoch ms when the clock alone changes this node (a pod turns available, a new pod stalls). */
  changesAt: number;
}

const zeroStates = (): Record<NodeState, number> => ({ stalled: 0, missing: 0, progressing: 0, old: 0, updated: 0 });

/**
 * The rollout model kept up to date incrementally. Each update compares the
 * watched lists with the last ones by object identity (the watch replaces an
 * object when it changes, and keeps every other one), so only nodes whose
 * pods or Node changed, or whose time came (minReadySeconds passing, a new
 * pod stalling), are derived again: a pod event during a 5000-node rollout
 * costs one node's work plus a pass over references, not 5000 nodes' pods.
 * A change of the DaemonSet's template, revision, strategy or of the view's
 * options derives every node again.
 */
export class RolloutIndex {
  private key = '';
  private ds!: KubeObject;
  private minReady = 0;
  private generation: number | undefined;
  private currentHash: string | undefined;
  private stallAfterMs = 0;
  private groupBy = '';
  private tolerations: ReturnType<typeof daemonPodTolerations> = [];
  /** The last lists, by uid. */
  private pods: ReadonlyMap<string, KubeObject> = new Map();
  /** The lists last taken in: the same array again has nothing new. */
  private podList: readonly KubeObject[] = [];
  private nodeList: readonly KubeObject[] = [];
  /** Names of every pod of the DaemonSet seen, gone ones too (their events still arrive). */
  private podNames = new Set<string>();
  private nodes = new Map<string, KubeObject>();
  /** The DaemonSet's pods by the node they are for ('' for none). */
  private podsOf = new Map<string, Map<string, KubeObject>>();
  private nodeOfPod = new Map<string, string>();
  private entries = new Map<string, NodeEntry>();
  private nextChange = Infinity;
  private now = 0;
  private cached?: RolloutModel;
  /** Bumped whenever the model changes. */
  version = 0;

  /** Brings the model to these lists and this time; true when it changed. */
  update({ ds, pods, nodes, revisions, now, stallAfterMs, groupBy }: RolloutInput): boolean {
    const dirty = new Set<string>();
    const spec = ds.spec as any;
    const currentHash = currentHashOf(ds, revisionsOf(ds, revisions));
    const key = JSON.stringify([
      ds.metadata.uid,
      spec?.template,
      spec?.minReadySeconds,
      spec?.updateStrategy,
      ds.metadata.annotations?.[TemplateGenerationAnnotation],
      currentHash,
      stallAfterMs,
      groupBy,
    ]);
    let all = false;
    this.now = now;
    if (ds.metadata.uid !== this.ds?.metadata.uid) {
      // Another DaemonSet (or the same name made again): which pods are its own is read again.
      this.pods = new Map();
      this.podList = [];
      this.podNames.clear();
      this.podsOf.clear();
      this.nodeOfPod.clear();
    }
    if (key !== this.key) {
      this.key = key;
      this.minReady = spec?.minReadySeconds ?? 0;
      this.generation = templateGenerationOf(ds);
      this.currentHash = currentHash;
      this.stallAfterMs = stallAfterMs;
      this.groupBy = groupBy;
      this.tolerations = daemonPodTolerations(spec?.template?.spec);
      all = true;
    }
    this.ds = ds;

    // Pods: the DaemonSet's own, by the node they are for. The same list as last time (the view renders
    // for other lists too) is not looked through again.
    if (pods !== this.podList) this.takePods(pods, ds, dirty);
    this.podList = pods;
    let nodesMoved = false;
    if (nodes !== this.nodeList) nodesMoved = this.takeNodes(nodes, dirty);
    this.nodeList = nodes;

    // The clock.
    if (!all && now >= this.nextChange) for (const [name, e] of this.entries) if (e.changesAt <= now) dirty.add(name);

    const names = all ? new Set([...this.nodes.keys(), ...this.entries.keys()]) : dirty;
    for (const name of names) {
      const node = this.nodes.get(name);
      if (node) this.entries.set(name, this.derive(node, now));
      else this.entries.delete(name);
    }
    if (all || names.size) {
      this.nextChange = Infinity;
      for (const e of this.entries.values()) if (e.changesAt < this.nextChange) this.nextChange = e.changesAt;
    }
    if (all || nodesMoved || names.size) {
      this.cached = undefined;
      this.version++;
      return true;
    }
    return false;
  }

  private takePods(pods: readonly KubeObject[], ds: KubeObject, dirty: Set<string>) {
    const nextPods = new Map<string, KubeObject>();
    for (const p of pods) nextPods.set(p.metadata.uid!, p);
    for (const [uid, p] of nextPods) {
      if (this.pods.get(uid) === p) continue;
      this.unplace(uid, dirty);
      if (!isOwnedBy(p, ds)) continue;
      const nodeName = daemonPodNodeName(p as never) ?? '';
      this.nodeOfPod.set(uid, nodeName);
      this.podNames.add(p.metadata.name!);
      let on = this.podsOf.get(nodeName);
      if (!on) this.podsOf.set(nodeName, (on = new Map()));
      on.set(uid, p);
      dirty.add(nodeName);
    }
    for (const uid of this.pods.keys()) if (!nextPods.has(uid)) this.unplace(uid, dirty);
    this.pods = nextPods;
  }

  /** Takes in the nodes; true when one came or went. */
  private takeNodes(nodes: readonly KubeObject[], dirty: Set<string>): boolean {
    let nodesMoved = false;
    const nextNodes = new Map<string, KubeObject>();
    for (const n of nodes) {
      const name = n.metadata.name!;
      nextNodes.set(name, n);
      if (this.nodes.get(name) !== n) {
        dirty.add(name);
        if (!this.nodes.has(name)) nodesMoved = true;
      }
    }
    for (const name of this.nodes.keys()) {
      if (nextNodes.has(name)) continue;
      dirty.add(name);
      nodesMoved = true;
    }
    this.nodes = nextNodes;
    return nodesMoved;
  }

  /** Whether a pod of this name is or was one of the DaemonSet's. */
  isDaemonPod = (name: string) => this.podNames.has(name);

  /** Forgets where pod `uid` was placed, marking that node for derivation. */
  private unplace(uid: string, dirty: Set<string>) {
    const was = this.nodeOfPod.get(uid);
    if (was === undefined) return;
    this.nodeOfPod.delete(uid);
    const on = this.podsOf.get(was);
    on?.delete(uid);
    if (on && !on.size) this.podsOf.delete(was);
    dirty.add(was);
  }

  private cell(p: KubeObject, now: number, nodePods: KubeObject[] = []) {
    return podCell(p, isPodUpdated(p, this.currentHash, this.generation), this.minReady, now, nodePods);
  }

  private derive(node: KubeObject, now: number): NodeEntry {
    const nodeName = node.metadata.name!;
    const nodePods = [...(this.podsOf.get(nodeName)?.values() ?? [])].sort(compareDaemonPods);
    const placement = nodeShouldRunDaemonPod(node as any, this.ds as any, this.tolerations);
    const cells = nodePods.map((p) => this.cell(p, now, nodePods));
    const updated = (p: KubeObject) => isPodUpdated(p, this.currentHash, this.generation);
    const entry: NodeEntry = {
      planned: placement.shouldRun || nodePods.length > 0,
      use: nodeBudgetUse(nodePods, updated, (p) => isPodAvailable(p as never, this.minReady, now)),
      counts: { updated: 0, ready: 0, available: 0 },
      changesAt: Infinity,
    };
    // A pod turns available minReadySeconds after it became ready.
    for (const p of nodePods) {
      const at = podAvailableAt(p as never, this.minReady);
      if (at !== undefined && at > now && at < entry.changesAt) entry.changesAt = at;
    }
    if (!placement.shouldRun) {
      entry.excluded = { nodeName, reason: placement.reason ?? 'not eligible', pods: cells, misscheduled: cells.length > 0 && !placement.shouldContinueRunning };
      return entry;
    }
    const live = cells.filter((c) => c.state !== 'terminating');
    const fresh = live.find((c) => c.revision === 'new');
    const old = live.find((c) => c.revision === 'old');
    let state: NodeState;
    if (fresh?.state === 'available' && !old) state = 'updated';
    else if (fresh) state = 'progressing';
    else if (old) state = 'old';
    else state = 'missing';
    const row: NodeRow = { nodeName, node, group: this.groupBy ? (node.metadata.labels?.[this.groupBy] ?? '') : '', pods: cells, state, resourceVersion: maxResourceVersion(node, nodePods) };
    const freshPod = fresh && nodePods.find((p) => p.metadata.uid === fresh.uid);
    const stall = freshPod && nodeStall(freshPod as never, nodePods as never, { minReadySeconds: this.minReady, now, stallAfterMs: this.stallAfterMs });
    if (stall) {
      row.state = 'stalled';
      row.stalledSince = stall.since;
      row.stalledMessage = stall.reason;
    } else if (freshPod && fresh.state !== 'available') {
      // Not stalled yet: it is once stallAfterMs has passed since the new pod was made.
      const at = Date.parse(freshPod.metadata.creationTimestamp ?? '') + this.stallAfterMs + 1;
      if (at > now && at < entry.changesAt) entry.changesAt = at;
    }
    entry.row = row;
    entry.counts = { updated: live.some((c) => c.revision === 'new') ? 1 : 0, ready: live.some((c) => c.ready) ? 1 : 0, available: live.some((c) => c.state === 'available') ? 1 : 0 };
    return entry;
  }

  /** The model now; the same object until the next change. */
  model(): RolloutModel {
    if (this.cached) return this.cached;
    const rows: NodeRow[] = [];
    const excluded: ExcludedNode[] = [];
    const use = { unavailable: 0, surge: 0 };
    const counts = { desired: 0, updated: 0, ready: 0, available: 0, updatedAvailable: 0, stalled: 0 };
    const groups = new Map<string, GroupCounts>();
    // In the nodes' list order, as the lists come.
    for (const name of this.nodes.keys()) {
      const e = this.entries.get(name);
      if (!e) continue;
      if (e.planned) {
        use.unavailable += e.use.unavailable;
        use.surge += e.use.surge;
      }
      if (e.excluded) excluded.push(e.excluded);
      const row = e.row;
      if (!row) continue;
      rows.push(row);
      counts.desired++;
      counts.updated += e.counts.updated;
      counts.ready += e.counts.ready;
      counts.available += e.counts.available;
      if (row.state === 'updated') counts.updatedAvailable++;
      if (row.state === 'stalled') counts.stalled++;
      let g = groups.get(row.group);
      if (!g) groups.set(row.group, (g = { group: row.group, total: 0, states: zeroStates() }));
      g.total++;
      g.states[row.state]++;
    }
    const orphans: PodCell[] = [];
    const now = this.now;
    for (const [nodeName, on] of this.podsOf) {
      if (nodeName && this.nodes.has(nodeName)) continue;
      const list = [...on.values()];
      orphans.push(...list.map((p) => this.cell(p, now, nodeName ? list : [])));
    }
    const budget = budgetFromUse(this.ds as never, counts.desired, use);
    const sortedGroups = [...groups.values()].sort((a, b) => (a.group === '' ? 1 : b.group === '' ? -1 : a.group.localeCompare(b.group)));
    this.cached = { rows, excluded, orphans, currentHash: this.currentHash, budget, counts, groups: sortedGroups, version: this.version };
    return this.cached;
  }
}

/** The newest resourceVersion among a node and its daemon pods: the version of the row that shows them. */
function maxResourceVersion(node: KubeObject, pods: KubeObject[]): string {
  let best = node.metadata.resourceVersion ?? '0';
  for (const p of pods) {
    const rv = p.metadata.resourceVersion ?? '0';
    if (rv.length > best.length || (rv.length === best.length && rv > best)) best = rv;
  }
  return best;
}

/** A readable duration: 45s, 3m 20s, 2h 5m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? ` ${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? ` ${m % 60}m` : ''}`;
}
