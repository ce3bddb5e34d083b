// DaemonSet rollout arithmetic, shared by the server's DaemonSet controller
// and the SPA's rollout view: the maxSurge / maxUnavailable budgets, pod
// readiness and availability, the per-node rolling update decision of
// upstream's `rollingUpdate` (pkg/controller/daemon/update.go), and the
// message `kubectl rollout status` prints for a DaemonSet. Pure: plain
// objects in, plain objects out, the clock passed in.
import { scaledValueFromIntOrPercent, type IntOrString } from './intorstring.ts';
import { conditionOf, isConditionTrue } from './conditions.ts';
import { clashingHostPorts, formatHostPort, hostPortsOf, type PodSpecWithPorts } from './nodeports.ts';

export const ControllerRevisionHashLabel = 'controller-revision-hash';
export const PodTemplateGenerationLabel = 'pod-template-generation';
export const TemplateGenerationAnnotation = 'deprecated.daemonset.template.generation';

interface ContainerStatusLike {
  name?: string;
  ready?: boolean;
  started?: boolean;
  state?: { waiting?: { reason?: string; message?: string }; running?: unknown; terminated?: { reason?: string; message?: string; exitCode?: number } };
}

export interface PodLike {
  metadata?: {
    name?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  spec?: { nodeName?: string } & PodSpecWithPorts;
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string }[];
    initContainerStatuses?: ContainerStatusLike[];
    containerStatuses?: ContainerStatusLike[];
  };
}

export interface DaemonSetLike {
  metadata?: { name?: string; generation?: number; annotations?: Record<string, string> };
  spec?: {
    minReadySeconds?: number;
    updateStrategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    numberMisscheduled?: number;
  };
}

/** metav1.IsControlledBy: `o`'s controller reference names the object of this uid. */
export const controlledBy = (o: { metadata?: { ownerReferences?: { uid?: string; controller?: boolean }[] } }, uid: string | undefined) =>
  !!uid && (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid);

// ---- pods ------------------------------------------------------------------


/** podutil.IsPodReady: the Ready condition is True. */
export const isPodReady = (pod: PodLike) => isConditionTrue(pod, 'Ready');

/**
 * When a ready pod becomes (or became) available: its Ready transition plus
 * minReadySeconds. undefined when the pod is not ready.
 */
export function podAvailableAt(pod: PodLike, minReadySeconds = 0): number | undefined {
  const c = conditionOf(pod, 'Ready');
  if (c?.status !== 'True') return undefined;
  if (!minReadySeconds) return -Infinity;
  const since = Date.parse(c.lastTransitionTime ?? '');
  // A Ready condition without a transition time never counts as available for a while.
  return Number.isNaN(since) ? Infinity : since + minReadySeconds * 1000;
}

/** podutil.IsPodAvailable: ready, and for at least minReadySeconds (transition + minReadySeconds ≤ now). */
export function isPodAvailable(pod: PodLike, minReadySeconds: number, now: number): boolean {
  const at = podAvailableAt(pod, minReadySeconds);
  return at !== undefined && at <= now;
}

export const isTerminating = (pod: PodLike) => !!pod.metadata?.deletionTimestamp;

/**
 * podByCreationTimestampAndPhase: pods bound to a node first, then the older
 * first, then by name. The first pod of a node is the one its status counts.
 */
export function compareDaemonPods(a: PodLike, b: PodLike): number {
  const an = !!a.spec?.nodeName;
  const bn = !!b.spec?.nodeName;
  if (an !== bn) return an ? -1 : 1;
  const at = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (at !== bt) return at - bt;
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

// ---- the DaemonSet ---------------------------------------------------------

/** The `deprecated.daemonset.template.generation` annotation, or undefined when absent or unparsable. */
export function templateGenerationOf(ds: DaemonSetLike): number | undefined {
  const raw = ds.metadata?.annotations?.[TemplateGenerationAnnotation];
  if (raw === undefined || !/^-?[0-9]+$/.test(raw)) return undefined;
  return Number(raw);
}

/** util.IsPodUpdated: the pod's revision hash or its template generation is the current one. */
export function isPodUpdated(pod: PodLike, hash: string | undefined, templateGeneration: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = templateGeneration !== undefined && labels[PodTemplateGenerationLabel] === String(templateGeneration);
  const hashMatches = !!hash && labels[ControllerRevisionHashLabel] === hash;
  return hashMatches || templateMatches;
}

const isRollingUpdate = (ds: DaemonSetLike) => (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** util.SurgeCount: maxSurge of desiredNumberScheduled, a percentage rounded up; 0 unless RollingUpdate. */
export function surgeCount(ds: DaemonSetLike, desired: number): number {
  if (!isRollingUpdate(ds)) return 0;
  const v = ds.spec?.updateStrategy?.rollingUpdate?.maxSurge;
  return v === undefined ? 0 : scaledValueFromIntOrPercent(v, desired, true);
}

/**
 * util.UnavailableCount: maxUnavailable of desiredNumberScheduled. Upstream
 * passes roundUp=true here too (unlike Deployments, which round down), so 10%
 * of 15 nodes is 2, and any non-zero percentage of a non-empty set is ≥ 1.
 */
export function unavailableCount(ds: DaemonSetLike, desired: number): number {
  if (!isRollingUpdate(ds)) return 0;
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  if (!ru) return 0;
  return scaledValueFromIntOrPercent(ru.maxUnavailable, desired, true);
}

export const allowsSurge = (ds: DaemonSetLike) => surgeCount(ds, 1) > 0;

export interface RollingUpdateLimits {
  maxSurge: number;
  maxUnavailable: number;
}

/**
 * updatedDesiredNodeCounts: both budgets for this many desired nodes; an
 * impossible configuration (both 0) falls back to maxUnavailable 1, as the
 * API's validation default would have it.
 */
export function rollingUpdateLimits(ds: DaemonSetLike, desired: number): RollingUpdateLimits {
  let maxUnavailable = 0;
  let maxSurge = 0;
  try {
    maxUnavailable = unavailableCount(ds, desired);
    maxSurge = surgeCount(ds, desired);
  } catch {
    // An unparsable value (which validation rejects) behaves as 0.
  }
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

// ---- the rolling update ----------------------------------------------------

/** A node the DaemonSet has pods on, or should run on. */
export interface NodePods<P extends PodLike = PodLike> {
  nodeName: string;
  /** NodeShouldRunDaemonPod's shouldRun (false for a node that no longer exists). */
  shouldRun: boolean;
  /** The DaemonSet's pods on this node, terminating ones included. */
  pods: P[];
}

/**
 * findUpdatedPodsOnNode: the node's one new and one old pod, ignoring
 * terminating ones; ok=false when it has two of either kind (manage cleans up).
 */
export function findUpdatedPodsOnNode<P extends PodLike>(pods: P[], updated: (p: P) => boolean): { newPod?: P; oldPod?: P; ok: boolean } {
  let newPod: P | undefined;
  let oldPod: P | undefined;
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    if (updated(pod)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

export interface RollingUpdateInput<P extends PodLike = PodLike> {
  ds: DaemonSetLike;
  /** Every node with pods of this DaemonSet plus every node that should run one. */
  nodes: NodePods<P>[];
  /** The current revision's hash (controller-revision-hash); may be omitted by views that know only the template generation. */
  hash?: string;
  now: number;
}

export interface RollingUpdatePlan {
  desiredNumberScheduled: number;
  maxSurge: number;
  maxUnavailable: number;
  /** maxSurge = 0: nodes counted unavailable (no pod, two pods, an unavailable pod). */
  numUnavailable: number;
  /** maxSurge > 0: nodes surging (a new pod not yet available beside an old one, or excess pods). */
  numSurge: number;
  /** Names of old pods to delete now. */
  podsToDelete: string[];
  /** Nodes to create a new pod on now (surge only). */
  nodesToCreate: string[];
}

/**
 * What planRollingUpdate needs of one node, judged once: its pods reduced to
 * findUpdatedPodsOnNode's one new and one old pod and whether each is
 * available. A controller keeps these per node and judges again only the
 * nodes that changed (RollingUpdateTally), so a plan does not walk every pod.
 */
export interface RollingUpdateNode {
  shouldRun: boolean;
  /** Two new or two old pods (findUpdatedPodsOnNode not ok): manage cleans up first. */
  excess: boolean;
  /** The new pod, if any (terminating ones ignored). */
  newPod?: { available: boolean };
  /** The old pod, if any (terminating ones ignored). */
  oldPod?: { name: string; available: boolean };
}

export function rollingUpdateNode<P extends PodLike>(node: NodePods<P>, updated: (p: P) => boolean, available: (p: P) => boolean): RollingUpdateNode {
  const { newPod, oldPod, ok } = findUpdatedPodsOnNode(node.pods, updated);
  if (!ok) return { shouldRun: node.shouldRun, excess: true };
  const out: RollingUpdateNode = { shouldRun: node.shouldRun, excess: false };
  if (newPod) out.newPod = { available: available(newPod) };
  if (oldPod) out.oldPod = { name: oldPod.metadata?.name ?? '', available: available(oldPod) };
  return out;
}

/** maxSurge = 0: the node counts against maxUnavailable (no pod, two pods, an unavailable pod). */
const countsUnavailable = (n: RollingUpdateNode) =>
  n.excess || (!n.oldPod && !n.newPod) || (!!n.oldPod && !!n.newPod) || (n.newPod ? !n.newPod.available : !n.oldPod!.available);
/** Surge: the node counts against maxSurge (excess pods, or a new pod not yet available beside an old one). */
const countsSurging = (n: RollingUpdateNode) => n.excess || (!!n.oldPod && !!n.newPod && !n.newPod.available);
/** Surge: the node has an available pod (the old one while it has one). */
const countsAvailable = (n: RollingUpdateNode) => !n.excess && (n.oldPod ? n.oldPod.available : !!n.newPod?.available);

/**
 * Every node's RollingUpdateNode and the sums the plan needs, kept as nodes
 * change (set), so that planning costs what the plan does, not a walk of
 * every node's pods. The plan is upstream's rollingUpdate step, exactly:
 * planRollingUpdate is this tally filled from scratch.
 */
export class RollingUpdateTally {
  private readonly nodes = new Map<string, RollingUpdateNode>();
  private desired = 0;
  private unavailable = 0;
  private surging = 0;
  private available = 0;
  /** Nodes whose only (non-terminating) pod is an old one that is not available. */
  private readonly oldUnavailable = new Set<string>();
  /** Nodes whose only pod is an old, available one: candidates within the budget. */
  private readonly oldAvailable = new Set<string>();
  /** Nodes with an old pod beside an available new one. */
  private readonly newReady = new Set<string>();

  get size() {
    return this.nodes.size;
  }

  /** The node as judged now; undefined takes it out (neither should run nor has pods). */
  set(name: string, node: RollingUpdateNode | undefined) {
    const before = this.nodes.get(name);
    if (before) this.count(name, before, -1);
    if (node) {
      this.nodes.set(name, node);
      this.count(name, node, 1);
    } else this.nodes.delete(name);
  }

  private count(name: string, n: RollingUpdateNode, sign: 1 | -1) {
    if (n.shouldRun) this.desired += sign;
    if (countsUnavailable(n)) this.unavailable += sign;
    if (countsSurging(n)) this.surging += sign;
    if (countsAvailable(n)) this.available += sign;
    const mark = (set: Set<string>, on: boolean) => on && (sign > 0 ? set.add(name) : set.delete(name));
    const onlyOld = !n.excess && !!n.oldPod && !n.newPod;
    mark(this.oldUnavailable, onlyOld && !n.oldPod!.available);
    mark(this.oldAvailable, onlyOld && n.oldPod!.available);
    mark(this.newReady, !n.excess && !!n.oldPod && !!n.newPod?.available);
  }

  /**
   * One step of upstream's rollingUpdate on the nodes as last set, visiting
   * them in `order` (every node set, in the order the controller would visit
   * them). Walks `order` only as far as the plan takes nodes from it.
   */
  plan(ds: DaemonSetLike, order: readonly string[]): RollingUpdatePlan {
    const desired = this.desired;
    const { maxSurge, maxUnavailable } = rollingUpdateLimits(ds, desired);
    const plan: RollingUpdatePlan = { desiredNumberScheduled: desired, maxSurge, maxUnavailable, numUnavailable: 0, numSurge: 0, podsToDelete: [], nodesToCreate: [] };
    const oldName = (name: string) => this.nodes.get(name)!.oldPod!.name;
    const shouldRun = (name: string) => this.nodes.get(name)!.shouldRun;

    if (maxSurge === 0) {
      // Delete old pods while fewer than maxUnavailable nodes are without an
      // available pod; old pods that are unavailable anyway go at once.
      plan.numUnavailable = this.unavailable;
      const take = Math.min(this.oldAvailable.size, Math.max(0, maxUnavailable - this.unavailable));
      const replacements: string[] = [];
      const candidates: string[] = [];
      for (let i = 0; i < order.length && (replacements.length < this.oldUnavailable.size || candidates.length < take); i++) {
        const name = order[i];
        if (this.oldUnavailable.has(name)) replacements.push(oldName(name));
        else if (candidates.length < take && this.oldAvailable.has(name)) candidates.push(oldName(name));
      }
      plan.podsToDelete = [...replacements, ...candidates];
      return plan;
    }

    // Surge: a new pod goes up beside an available old one on at most maxSurge
    // nodes at a time; an unavailable old pod is replaced at once; an old pod
    // goes once the new one on its node is available. Pods on nodes that left
    // the desired set go only while more are available than desired.
    plan.numSurge = this.surging;
    let shouldNotRun = 0;
    let allowed = 0;
    let deleteNow = this.newReady.size;
    for (const name of this.oldAvailable) if (!shouldRun(name)) shouldNotRun++;
    for (const name of this.oldUnavailable) if (shouldRun(name)) allowed++;
    deleteNow += this.oldUnavailable.size - allowed;
    const takeCreate = Math.min(this.oldAvailable.size - shouldNotRun, Math.max(0, maxSurge - this.surging));
    const takeDelete = Math.max(0, Math.min(this.available - desired, shouldNotRun));
    const allowedNewNodes: string[] = [];
    const candidateNewNodes: string[] = [];
    const deletes: string[] = [];
    const shouldNotRunDeletes: string[] = [];
    for (
      let i = 0;
      i < order.length && (allowedNewNodes.length < allowed || deletes.length < deleteNow || candidateNewNodes.length < takeCreate || shouldNotRunDeletes.length < takeDelete);
      i++
    ) {
      const name = order[i];
      if (this.newReady.has(name)) deletes.push(oldName(name));
      else if (this.oldUnavailable.has(name)) {
        if (shouldRun(name)) allowedNewNodes.push(name);
        else deletes.push(oldName(name));
      } else if (this.oldAvailable.has(name)) {
        if (!shouldRun(name)) {
          if (shouldNotRunDeletes.length < takeDelete) shouldNotRunDeletes.push(oldName(name));
        } else if (candidateNewNodes.length < takeCreate) candidateNewNodes.push(name);
      }
    }
    plan.podsToDelete = [...deletes, ...shouldNotRunDeletes];
    plan.nodesToCreate = [...allowedNewNodes, ...candidateNewNodes];
    return plan;
  }
}

/**
 * One step of upstream's rollingUpdate, on a consistent snapshot. Nodes are
 * visited in the given order (upstream's is Go map order, i.e. random).
 */
export function planRollingUpdate<P extends PodLike>(input: RollingUpdateInput<P>): RollingUpdatePlan {
  const { ds, nodes, hash, now } = input;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const generation = templateGenerationOf(ds);
  const updated = (p: P) => isPodUpdated(p, hash, generation);
  const available = (p: P) => isPodAvailable(p, minReady, now);
  const tally = new RollingUpdateTally();
  for (const node of nodes) tally.set(node.nodeName, rollingUpdateNode(node, updated, available));
  return tally.plan(ds, nodes.map((n) => n.nodeName));
}

export interface RolloutBudget extends RollingUpdateLimits {
  desiredNumberScheduled: number;
  /** Nodes now counted against maxUnavailable (maxSurge = 0) or maxSurge (surge). */
  inUse: number;
  /** How many more nodes may now go unavailable (maxSurge = 0) or start surging (surge). */
  remaining: number;
  /** Which budget applies: the rollout surges or takes nodes down. */
  mode: 'surge' | 'unavailable' | 'none';
}

/** For views: how much of the rollout's budget is in use and how much is left now. */
export function rolloutBudget<P extends PodLike>(input: RollingUpdateInput<P>): RolloutBudget {
  if (!isRollingUpdate(input.ds)) {
    return { desiredNumberScheduled: input.nodes.filter((n) => n.shouldRun).length, maxSurge: 0, maxUnavailable: 0, inUse: 0, remaining: 0, mode: 'none' };
  }
  const plan = planRollingUpdate(input);
  const surge = plan.maxSurge > 0;
  const limit = surge ? plan.maxSurge : plan.maxUnavailable;
  const inUse = surge ? plan.numSurge : plan.numUnavailable;
  return {
    desiredNumberScheduled: plan.desiredNumberScheduled,
    maxSurge: plan.maxSurge,
    maxUnavailable: plan.maxUnavailable,
    inUse,
    remaining: Math.max(0, limit - inUse),
    mode: surge ? 'surge' : 'unavailable',
  };
}

/**
 * What one node adds to planRollingUpdate's counts: whether it counts against
 * maxUnavailable (maxSurge = 0) and against maxSurge (surge). The sums over
 * the nodes are the plan's numUnavailable and numSurge, so a view that keeps
 * them per node updates the budget as one node changes, without replanning
 * every node.
 */
export function nodeBudgetUse<P extends PodLike>(pods: P[], updated: (p: P) => boolean, available: (p: P) => boolean): { unavailable: 0 | 1; surge: 0 | 1 } {
  const n = rollingUpdateNode({ nodeName: '', shouldRun: true, pods }, updated, available);
  return { unavailable: countsUnavailable(n) ? 1 : 0, surge: countsSurging(n) ? 1 : 0 };
}

/** rolloutBudget from the per-node uses (nodeBudgetUse) summed over the nodes, `desired` of them should run the daemon. */
export function budgetFromUse(ds: DaemonSetLike, desired: number, use: { unavailable: number; surge: number }): RolloutBudget {
  if (!isRollingUpdate(ds)) return { desiredNumberScheduled: desired, maxSurge: 0, maxUnavailable: 0, inUse: 0, remaining: 0, mode: 'none' };
  const limits = rollingUpdateLimits(ds, desired);
  const surge = limits.maxSurge > 0;
  const inUse = surge ? use.surge : use.unavailable;
  return { desiredNumberScheduled: desired, ...limits, inUse, remaining: Math.max(0, (surge ? limits.maxSurge : limits.maxUnavailable) - inUse), mode: surge ? 'surge' : 'unavailable' };
}

// ---- stalls ----------------------------------------------------------------

const withDetail = (reason: string | undefined, message: string | undefined) => [reason, message].filter(Boolean).join(': ');

/**
 * Why a pod is not available, in full, from what its status says: not
 * scheduled (the scheduler's message), a container waiting (ImagePullBackOff,
 * CrashLoopBackOff with their messages), readiness not passing, or ready but
 * within minReadySeconds. undefined for an available pod.
 */
export function podNotAvailableReason(pod: PodLike, minReadySeconds: number, now: number): string | undefined {
  if (isPodAvailable(pod, minReadySeconds, now)) return undefined;
  const st = pod.status ?? {};
  if (isTerminating(pod)) return 'terminating';
  if (st.phase === 'Failed' || st.phase === 'Succeeded') return `pod ${st.phase.toLowerCase()}${st.reason || st.message ? ` (${withDetail(st.reason, st.message)})` : ''}`;
  const scheduled = conditionOf(pod, 'PodScheduled');
  if (!pod.spec?.nodeName && scheduled?.status === 'False') return `not scheduled: ${withDetail(scheduled.reason, scheduled.message) || 'waiting for the scheduler'}`;
  if (!pod.spec?.nodeName) return 'waiting for the scheduler';
  const waiting = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]
    .filter((c) => c.state?.waiting?.reason)
    .map((c) => `${c.name}: ${withDetail(c.state!.waiting!.reason, c.state!.waiting!.message)}`);
  if (waiting.length) return waiting.join('; ');
  if (isPodReady(pod)) return `ready, available after minReadySeconds (${minReadySeconds}s)`;
  const running = (st.containerStatuses ?? []).filter((c) => c.state?.running && !c.ready).map((c) => c.name);
  const ready = conditionOf(pod, 'Ready');
  if (running.length) return `readiness failing: ${running.join(', ')} running but not ready${ready?.message ? ` (${ready.message})` : ''}`;
  return withDetail(ready?.reason, ready?.message) || withDetail(st.reason, st.message) || `pod ${(st.phase ?? 'Pending').toLowerCase()}, not ready`;
}

/**
 * Surge with host ports: the new pod cannot be scheduled beside the old pod
 * that holds its ports, and the old pod goes only once the new one is
 * available, so that node never progresses (upstream's daemonset-surge KEP
 * names HostPort as the common case). Says so when `newPod` waits
 * unscheduled and one of `others` on its node holds a port it asks for.
 */
export function hostPortBlock(newPod: PodLike, others: PodLike[]): string | undefined {
  if (newPod.spec?.nodeName || isTerminating(newPod)) return undefined;
  const wanted = hostPortsOf(newPod.spec);
  if (!wanted.length) return undefined;
  for (const other of others) {
    if (other === newPod || ['Failed', 'Succeeded'].includes(other.status?.phase ?? '')) continue;
    const held = clashingHostPorts(wanted, hostPortsOf(other.spec));
    if (!held.length) continue;
    const ports = held.map(formatHostPort).join(', ');
    return `new pod cannot start: host port${held.length > 1 ? 's' : ''} ${ports} ${held.length > 1 ? 'are' : 'is'} held by the old pod ${other.metadata?.name ?? ''}; maxSurge with hostPort cannot progress — use maxUnavailable`;
  }
  return undefined;
}

export interface NodeStall {
  /** When the node's new pod was created (epoch ms). */
  since: number;
  reason: string;
}

/**
 * A node is stalled when its new pod has not become available within
 * `stallAfterMs` of its creation, whatever its old pod does: with surge the
 * old pod keeps serving while the new one fails, and that is still a stall.
 */
export function nodeStall(newPod: PodLike | undefined, others: PodLike[], opts: { minReadySeconds: number; now: number; stallAfterMs: number }): NodeStall | undefined {
  if (!newPod || isTerminating(newPod) || isPodAvailable(newPod, opts.minReadySeconds, opts.now)) return undefined;
  const since = Date.parse(newPod.metadata?.creationTimestamp ?? '');
  if (Number.isNaN(since) || opts.now - since <= opts.stallAfterMs) return undefined;
  const reason = hostPortBlock(newPod, others) ?? podNotAvailableReason(newPod, opts.minReadySeconds, opts.now) ?? 'new pod not available';
  return { since, reason };
}

export interface RolloutEstimate {
  /** Nodes finished per second, over what was observed. */
  pace?: number;
  /** Milliseconds left at that pace; absent while stalled or before any progress. */
  eta?: number;
  /** Nodes stalled now: no finish time is promised while any is. */
  stalled: number;
}

/**
 * The time left at the observed pace. `samples` are (time, nodes updated and
 * available) pairs as the rollout moved. While a node is stalled the rollout
 * will not finish at any pace, so no time is promised.
 */
export function rolloutEstimate(samples: { at: number; done: number }[], desired: number, stalled: number): RolloutEstimate {
  const first = samples.find((x) => x.done < desired);
  const last = samples[samples.length - 1];
  if (!first || !last || last.done <= first.done || last.at <= first.at) return { stalled };
  const pace = (last.done - first.done) / ((last.at - first.at) / 1000);
  if (stalled > 0) return { pace, stalled };
  return { pace, eta: desired > last.done ? ((desired - last.done) / pace) * 1000 : 0, stalled };
}

// ---- kubectl rollout status ------------------------------------------------

export interface RolloutStatus {
  /** kubectl stops watching (success, or the error below). */
  done: boolean;
  /** What kubectl prints, newline included; empty with an error. */
  message: string;
  /** kubectl's error, for strategies other than RollingUpdate. */
  error?: string;
}

/** kubectl's DaemonSetStatusViewer, word for word. */
export function rolloutStatus(ds: DaemonSetLike): RolloutStatus {
  if (ds.spec?.updateStrategy?.type !== 'RollingUpdate') {
    return { done: true, message: '', error: 'rollout status is only available for RollingUpdate strategy type' };
  }
  const name = JSON.stringify(ds.metadata?.name ?? '');
  const st = ds.status ?? {};
  const desired = st.desiredNumberScheduled ?? 0;
  const updated = st.updatedNumberScheduled ?? 0;
  const availableNow = st.numberAvailable ?? 0;
  if ((ds.metadata?.generation ?? 0) <= (st.observedGeneration ?? 0)) {
    if (updated < desired) {
      return { done: false, message: `Waiting for daemon set ${name} rollout to finish: ${updated} out of ${desired} new pods have been updated...\n` };
    }
    if (availableNow < desired) {
      return { done: false, message: `Waiting for daemon set ${name} rollout to finish: ${availableNow} of ${desired} updated pods are available...\n` };
    }
    return { done: true, message: `daemon set ${name} successfully rolled out\n` };
  }
  return { done: false, message: 'Waiting for daemon set spec update to be observed...\n' };
}
