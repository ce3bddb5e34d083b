// The rollout of one DaemonSet as the view shows it: every node that should
// run the daemon with its pods (new or old revision, ready, available since,
// restarts), stalled nodes, nodes left out and why, misscheduled pods, and
// the budget in force. Pure, from the objects the watches deliver; relies only
// on what a real cluster has too: owner references, the
// `controller-revision-hash` and `pod-template-generation` labels and the
// DaemonSet's ControllerRevisions.
import type { KubeObject } from '../../../kinds/kind.ts';
import { uidOf, type ListChange } from '../../api/watch.ts';
import type { ListChanges } from '../../api/listchanges.ts';
import { daemonPodNodeName, daemonPodTolerations, nodeShouldRunDaemonPod, type DaemonPlacement } from '../../../lib/daemonnodes.ts';
import { deepEqual } from '../../../lib/json.ts';
import {
  ControllerRevisionHashLabel,
  budgetFromUse,
  compareDaemonPods,
  controlledBy,
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
  /** The stalled rows, in the rows' order. */
  stalled: NodeRow[];
  excluded: ExcludedNode[];
  /** Pods whose node no longer exists or that are not bound. */
  orphans: PodCell[];
  currentHash?: string;
  budget: RolloutBudget;
  counts: { desired: number; updated: number; ready: number; available: number; updatedAvailable: number; stalled: number };
  /** The rows' groups (by the grouping label) with their nodes per state, '' last. */
  groups: GroupCounts[];
  /** The DaemonSet's pods (on any node, or none) per controller-revision-hash. */
  podsPerHash: ReadonlyMap<string, number>;
  /** RolloutIndex's version this model is of. */
  version: number;
}

const stripPatch = (template: unknown) => {
  if (!template || typeof template !== 'object') return template;
  const { $patch: _, ...rest } = template as Record<string, unknown>;
  return rest;
};

/** The revisions of `ds`, newest first, each with its number and hash. */
export function revisionsOf(ds: KubeObject, revisions: KubeObject[]) {
  return revisions
    .filter((r) => controlledBy(r, ds.metadata.uid))
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
  /** The namespace's pods (or those of the DaemonSet's selector: only its own are looked at). */
  pods: readonly KubeObject[];
  nodes: readonly KubeObject[];
  revisions: KubeObject[];
  now: number;
  /** A node whose new pod is not available this long (ms) after its creation is stalled. */
  stallAfterMs: number;
  /** Label whose value groups the nodes (e.g. topology.kubernetes.io/zone); '' for none. */
  groupBy: string;
  /** The watch's changes of the pods (nodes) list: those since the list given last are all that is looked at. */
  podChanges?: ListChanges;
  nodeChanges?: ListChanges;
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
  /** The Node it was derived from, and whether the daemon belongs there (kept while the Node object is the same). */
  node: KubeObject;
  placement: DaemonPlacement;
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
 * The rollout model kept up to date incrementally. Each update takes in only
 * what the watches changed (their ListChange, or else a comparison with the
 * last lists by object identity: the watch replaces an object when it
 * changes, and keeps every other one), so only nodes whose pods or Node
 * changed, or whose time came (minReadySeconds passing, a new pod stalling),
 * are derived again, and the rows, counts and groups are changed for those
 * nodes alone: a pod event during a 5000-node rollout costs one node's work
 * and one copy of the rows array, not passes over 5000 nodes and 10,000 pods.
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
  /** The last pods taken in, by uid. */
  private pods = new Map<string, KubeObject>();
  /** The lists last taken in: the same array again has nothing new. */
  private podList: readonly KubeObject[] = [];
  private nodeList: readonly KubeObject[] = [];
  /** Names of every pod of the DaemonSet seen, gone ones too (their events still arrive). */
  private podNames = new Set<string>();
  /** The nodes by name, in the order they first came. */
  private nodes = new Map<string, KubeObject>();
  /** The DaemonSet's pods by the node they are for ('' for none). */
  private podsOf = new Map<string, Map<string, KubeObject>>();
  private nodeOfPod = new Map<string, string>();
  private hashOfPod = new Map<string, string>();
  private perHash = new Map<string, number>();
  private entries = new Map<string, NodeEntry>();
  private nextChange = Infinity;
  private now = 0;
  // What the model is made of, kept as entries come and go.
  private rows: NodeRow[] = [];
  /** Each row's position in `rows`. */
  private rowAt = new Map<string, number>();
  /** `rows` was handed out in a model: copied before it changes. */
  private rowsShared = false;
  private use = { unavailable: 0, surge: 0 };
  private counts = { desired: 0, updated: 0, ready: 0, available: 0, updatedAvailable: 0, stalled: 0 };
  private groupCounts = new Map<string, GroupCounts>();
  /**
   * The model's nodes left out and pods on no known node, kept until a change touches them: made
   * afresh, they were a look at every node and every node's pods on each model (~1-6 ms at 5000
   * nodes, several times a second in a rollout).
   */
  private excluded: ExcludedNode[] = [];
  private orphans: PodCell[] = [];
  private excludedMoved = true;
  /** The nodes whose row is stalled (a handful, where a filter of the rows looked at every node on each model). */
  private stalledNames = new Set<string>();
  private orphansMoved = true;
  private cached?: RolloutModel;
  /** Bumped whenever the model changes. */
  version = 0;

  /** Brings the model to these lists and this time; true when it changed. */
  update({ ds, pods, nodes, revisions, now, stallAfterMs, groupBy, podChanges, nodeChanges }: RolloutInput): boolean {
    const dirty = new Set<string>();
    const spec = ds.spec as any;
    const currentHash = currentHashOf(ds, revisionsOf(ds, revisions));
    // What every node's entry is derived from. The rest of the template (its image: a rollout's start)
    // and the revision it is at are looked at below, pod by pod: re-deriving every node there held the
    // main thread ~100-300 ms at 5000 nodes, twice as each rollout began (template, then its revision).
    const templateSpec = spec?.template?.spec;
    const key = JSON.stringify([
      ds.metadata.uid,
      templateSpec?.nodeName,
      templateSpec?.nodeSelector,
      templateSpec?.affinity,
      templateSpec?.tolerations,
      spec?.minReadySeconds,
      stallAfterMs,
      groupBy,
    ]);
    const generation = templateGenerationOf(ds);
    let all = false;
    this.now = now;
    if (ds.metadata.uid !== this.ds?.metadata.uid) {
      // Another DaemonSet (or the same name made again): which pods are its own is read again.
      this.pods = new Map();
      this.podList = [];
      this.podNames.clear();
      this.podsOf.clear();
      this.nodeOfPod.clear();
      this.hashOfPod.clear();
      this.perHash.clear();
    }
    if (key !== this.key) {
      this.key = key;
      this.minReady = spec?.minReadySeconds ?? 0;
      this.stallAfterMs = stallAfterMs;
      this.groupBy = groupBy;
      this.tolerations = daemonPodTolerations(spec?.template?.spec);
      all = true;
    } else if (currentHash !== this.currentHash || generation !== this.generation) {
      // A new template or revision: only the nodes with a pod it makes new (or no longer new) change.
      for (const [nodeName, on] of this.podsOf)
        for (const p of on.values())
          if (isPodUpdated(p, this.currentHash, this.generation) !== isPodUpdated(p, currentHash, generation)) {
            dirty.add(nodeName);
            break;
          }
    }
    this.currentHash = currentHash;
    this.generation = generation;
    // The budget (model()) reads the update strategy from the DaemonSet itself.
    const strategyMoved = JSON.stringify(spec?.updateStrategy) !== JSON.stringify((this.ds?.spec as any)?.updateStrategy);
    this.ds = ds;

    // Pods: the DaemonSet's own, by the node they are for. The same list as last time (the view renders
    // for other lists too) is not looked through again; a list the watch says how it changed, only there.
    let podsMoved = false;
    if (pods !== this.podList) {
      const changes = podChanges?.take(this.podList, pods);
      if (changes) for (const c of changes) podsMoved = this.takePodChange(c, ds, dirty) || podsMoved;
      else podsMoved = this.takePods(pods, ds, dirty);
    }
    this.podList = pods;
    let nodesMoved = false;
    if (nodes !== this.nodeList) {
      const changes = nodeChanges?.take(this.nodeList, nodes);
      if (changes) for (const c of changes) nodesMoved = this.takeNodeChange(c, dirty) || nodesMoved;
      else nodesMoved = this.takeNodes(nodes, dirty);
    }
    this.nodeList = nodes;

    // The clock.
    if (!all && now >= this.nextChange) for (const [name, e] of this.entries) if (e.changesAt <= now) dirty.add(name);

    if (all || nodesMoved) this.excludedMoved = this.orphansMoved = true;
    // (Pods on no known node are few or none; while there are some, their cells follow the clock too.)
    if (this.orphans.length) this.orphansMoved = true;
    for (const name of dirty) if (!this.nodes.has(name)) this.orphansMoved = true;
    if (all) {
      this.entries.clear();
      this.rows = [];
      this.rowAt.clear();
      this.rowsShared = false;
      this.use = { unavailable: 0, surge: 0 };
      this.counts = { desired: 0, updated: 0, ready: 0, available: 0, updatedAvailable: 0, stalled: 0 };
      this.groupCounts.clear();
      this.stalledNames.clear();
      for (const node of this.nodes.values()) this.put(node.metadata.name!, this.derive(node, now));
    } else {
      for (const name of dirty) {
        const node = this.nodes.get(name);
        this.put(name, node && this.derive(node, now));
      }
    }
    if (all || dirty.size) {
      this.nextChange = Infinity;
      for (const e of this.entries.values()) if (e.changesAt < this.nextChange) this.nextChange = e.changesAt;
    }
    if (all || nodesMoved || podsMoved || dirty.size || strategyMoved) {
      this.cached = undefined;
      this.version++;
      return true;
    }
    return false;
  }

  /** Takes in every pod of the list (a list not known to follow the last one); true when one of the DaemonSet's came or went. */
  private takePods(pods: readonly KubeObject[], ds: KubeObject, dirty: Set<string>): boolean {
    const nextPods = new Map<string, KubeObject>();
    for (const p of pods) nextPods.set(uidOf(p), p);
    let moved = false;
    for (const [uid, p] of nextPods) if (this.pods.get(uid) !== p) moved = this.place(uid, p, ds, dirty) || moved;
    for (const uid of this.pods.keys()) if (!nextPods.has(uid)) moved = this.unplace(uid, dirty) || moved;
    this.pods = nextPods;
    return moved;
  }

  /** Takes in what the watch changed (a replaced pod is both removed and added). */
  private takePodChange(change: ListChange, ds: KubeObject, dirty: Set<string>): boolean {
    let moved = false;
    for (const p of change.removed) {
      const uid = uidOf(p);
      if (this.pods.get(uid) !== p) continue;
      this.pods.delete(uid);
      moved = this.unplace(uid, dirty) || moved;
    }
    for (const p of change.added) {
      const uid = uidOf(p);
      this.pods.set(uid, p);
      moved = this.place(uid, p, ds, dirty) || moved;
    }
    return moved;
  }

  /** Places pod `uid` (new or changed) on its node, if it is the DaemonSet's; true when the pods per hash moved. */
  private place(uid: string, p: KubeObject, ds: KubeObject, dirty: Set<string>): boolean {
    let moved = this.unplace(uid, dirty);
    if (!controlledBy(p, ds.metadata.uid)) return moved;
    const nodeName = daemonPodNodeName(p as never) ?? '';
    this.nodeOfPod.set(uid, nodeName);
    this.podNames.add(p.metadata.name!);
    let on = this.podsOf.get(nodeName);
    if (!on) this.podsOf.set(nodeName, (on = new Map()));
    on.set(uid, p);
    dirty.add(nodeName);
    const hash = p.metadata.labels?.[ControllerRevisionHashLabel];
    if (hash) {
      this.hashOfPod.set(uid, hash);
      this.perHash.set(hash, (this.perHash.get(hash) ?? 0) + 1);
      moved = true;
    }
    return moved;
  }

  /** Forgets where pod `uid` was placed, marking that node for derivation; true when the pods per hash moved. */
  private unplace(uid: string, dirty: Set<string>): boolean {
    const was = this.nodeOfPod.get(uid);
    if (was === undefined) return false;
    this.nodeOfPod.delete(uid);
    const on = this.podsOf.get(was);
    on?.delete(uid);
    if (on && !on.size) this.podsOf.delete(was);
    dirty.add(was);
    const hash = this.hashOfPod.get(uid);
    if (hash === undefined) return false;
    this.hashOfPod.delete(uid);
    const n = (this.perHash.get(hash) ?? 1) - 1;
    if (n > 0) this.perHash.set(hash, n);
    else this.perHash.delete(hash);
    return true;
  }

  /** Takes in every node of the list; true when one came or went. */
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
    // Nodes already known keep their place; new ones come after them.
    for (const name of this.nodes.keys()) if (nextNodes.has(name)) this.nodes.set(name, nextNodes.get(name)!);
    for (const name of [...this.nodes.keys()]) if (!nextNodes.has(name)) this.nodes.delete(name);
    for (const [name, n] of nextNodes) if (!this.nodes.has(name)) this.nodes.set(name, n);
    return nodesMoved;
  }

  /** Takes in what the watch changed; true when a node came or went. */
  private takeNodeChange(change: ListChange, dirty: Set<string>): boolean {
    const added = new Map<string, KubeObject>();
    for (const n of change.added) added.set(n.metadata.name!, n);
    let nodesMoved = false;
    for (const n of change.removed) {
      const name = n.metadata.name!;
      if (added.has(name) || this.nodes.get(name) !== n) continue;
      this.nodes.delete(name);
      dirty.add(name);
      nodesMoved = true;
    }
    for (const [name, n] of added) {
      if (!this.nodes.has(name)) nodesMoved = true;
      this.nodes.set(name, n);
      dirty.add(name);
    }
    return nodesMoved;
  }

  /** Whether a pod of this name is or was one of the DaemonSet's. */
  isDaemonPod = (name: string) => this.podNames.has(name);

  /** Sets node `name`'s entry (undefined: the node is gone), moving the rows, counts and groups by the difference. */
  private put(name: string, next: NodeEntry | undefined) {
    const prev = this.entries.get(name);
    if (prev?.excluded || next?.excluded) this.excludedMoved = true;
    if (prev) this.count(prev, -1);
    if (next) {
      this.entries.set(name, next);
      this.count(next, 1);
    } else this.entries.delete(name);
    const at = this.rowAt.get(name);
    if (!prev?.row && !next?.row) return;
    // The rows array handed out in the last model stays as it was.
    if (this.rowsShared) {
      this.rows = this.rows.slice();
      this.rowsShared = false;
    }
    if (next?.row) {
      if (at !== undefined) this.rows[at] = next.row;
      else this.rowAt.set(name, this.rows.push(next.row) - 1);
    } else if (at !== undefined) {
      // Rarely (a node gone or left out): the rows after it move up one.
      this.rows.splice(at, 1);
      this.rowAt.delete(name);
      for (let i = at; i < this.rows.length; i++) this.rowAt.set(this.rows[i].nodeName, i);
    }
  }

  /** Adds (sign 1) or takes away (-1) an entry's part of the counts, the budget in use and its group's counts. */
  private count(e: NodeEntry, sign: 1 | -1) {
    if (e.planned) {
      this.use.unavailable += sign * e.use.unavailable;
      this.use.surge += sign * e.use.surge;
    }
    const row = e.row;
    if (!row) return;
    const c = this.counts;
    c.desired += sign;
    c.updated += sign * e.counts.updated;
    c.ready += sign * e.counts.ready;
    c.available += sign * e.counts.available;
    if (row.state === 'updated') c.updatedAvailable += sign;
    if (row.state === 'stalled') {
      c.stalled += sign;
      if (sign > 0) this.stalledNames.add(row.nodeName);
      else this.stalledNames.delete(row.nodeName);
    }
    let g = this.groupCounts.get(row.group);
    if (!g) this.groupCounts.set(row.group, (g = { group: row.group, total: 0, states: zeroStates() }));
    g.total += sign;
    g.states[row.state] += sign;
    if (g.total === 0) this.groupCounts.delete(row.group);
  }

  private cell(p: KubeObject, now: number, nodePods: KubeObject[] = []) {
    return podCell(p, isPodUpdated(p, this.currentHash, this.generation), this.minReady, now, nodePods);
  }

  private derive(node: KubeObject, now: number): NodeEntry {
    const nodeName = node.metadata.name!;
    const nodePods = [...(this.podsOf.get(nodeName)?.values() ?? [])].sort(compareDaemonPods);
    // Where the daemon belongs depends on the Node and on the template's placement only (the key: a change
    // there derives every node afresh), not on its image: a rollout's start re-derives every node.
    const prev = this.entries.get(nodeName);
    const placement = prev?.node === node ? prev.placement : nodeShouldRunDaemonPod(node as any, this.ds as any, this.tolerations);
    const cells = nodePods.map((p) => this.cell(p, now, nodePods));
    const updated = (p: KubeObject) => isPodUpdated(p, this.currentHash, this.generation);
    const entry: NodeEntry = {
      node,
      placement,
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
    if (this.excludedMoved) {
      this.excludedMoved = false;
      this.excluded = [];
      for (const name of this.nodes.keys()) {
        const x = this.entries.get(name)?.excluded;
        if (x) this.excluded.push(x);
      }
    }
    if (this.orphansMoved) {
      this.orphansMoved = false;
      this.orphans = [];
      const now = this.now;
      for (const [nodeName, on] of this.podsOf) {
        if (nodeName && this.nodes.has(nodeName)) continue;
        const list = [...on.values()];
        this.orphans.push(...list.map((p) => this.cell(p, now, nodeName ? list : [])));
      }
    }
    const { excluded, orphans } = this;
    const counts = { ...this.counts };
    const budget = budgetFromUse(this.ds as never, counts.desired, { ...this.use });
    const groups = [...this.groupCounts.values()]
      .map((g) => ({ group: g.group, total: g.total, states: { ...g.states } }))
      .sort((a, b) => (a.group === '' ? 1 : b.group === '' ? -1 : a.group.localeCompare(b.group)));
    const stalled = [...this.stalledNames].map((name) => this.rowAt.get(name)!).sort((a, b) => a - b).map((i) => this.rows[i]);
    this.rowsShared = true;
    this.cached = { rows: this.rows, stalled, excluded, orphans, currentHash: this.currentHash, budget, counts, groups, podsPerHash: new Map(this.perHash), version: this.version };
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
