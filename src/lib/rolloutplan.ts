// A DaemonSet rollout before (and while) it happens: the waves of nodes the
// DaemonSet controller will take, in its order and under its budget, the
// nodes it leaves out or will stall on, and how long it should take at the
// pace this DaemonSet (or the cluster) has shown. Pure: plain API objects in,
// the clock and the random seed passed in.
//
// The waves come from running the controller's own arithmetic
// (planRollingUpdate in rollout.ts, node placement in daemonnodes.ts) on a
// pretend cluster in lock step: every node started in a wave becomes
// available at the end of that wave unless it is expected to stall, and the
// next sync then takes the next nodes. The controller visits nodes in name
// order (src/server/controllers/daemonset.ts sorts them), so the order is the
// controller's. Time is forecast separately, on the same order: the
// controller is a pipeline (a freed slot of the budget is taken at the next
// sync, not at the end of a wave), so nodes are started as slots free up and
// each node takes a per-node update time drawn from the observed ones; many
// such runs give the spread (p10–p90).
import { conditionOf } from './conditions.ts';
import { deepEqual } from './json.ts';
import { daemonPodNodeName, nodeShouldRunDaemonPod } from './daemonnodes.ts';
import { hostPortsOf } from './nodeports.ts';
import { seededRandom } from './random.ts';
import { plural } from './words.ts';
import {
  ControllerRevisionHashLabel,
  allowsSurge,
  compareDaemonPods,
  controlledBy,
  isPodAvailable,
  isTerminating,
  planRollingUpdate,
  podAvailableAt,
  podNotAvailableReason,
  rollingUpdateLimits,
  type DaemonSetLike,
  type NodePods,
  type PodLike,
} from './rollout.ts';

/**
 * Fault annotations of the simulated kubelet (src/server/controllers/simulation.ts):
 * a node that cannot pull images, and pods whose readiness fails or which crash.
 * A real cluster shows the same faults in pod statuses, which are read too.
 */
export const SimulatedFaults = {
  nodeImagePullError: 'sim.k8s.io/image-pull-error',
  podFailReadiness: 'sim.k8s.io/fail-readiness',
  podCrash: 'sim.k8s.io/crash',
} as const;

export interface PlanNodeLike {
  metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string };
  spec?: { taints?: { key?: string; value?: string; effect?: string }[]; unschedulable?: boolean };
  status?: unknown;
}

export interface PlanPodLike extends PodLike {
  metadata?: PodLike['metadata'] & { uid?: string; annotations?: Record<string, string> };
  spec?: PodLike['spec'] & { affinity?: any };
}

export interface PlanDaemonSetLike extends DaemonSetLike {
  spec?: DaemonSetLike['spec'] & { template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any } };
}

// ---- pace --------------------------------------------------------------------

/**
 * Per-node update times observed (ms). A node's time in the rollout is its
 * hand-off (the slot it takes freed → its new pod created) and its pod's start
 * (created → available). Without surge the hand-off holds the old pod's stop
 * (the controller deletes it, the kubelet stops it, and only then is the new
 * pod created); with surge it does not. `stop` is that part, learned from the
 * kubelets' events, so a plan can switch between the two.
 */
export interface Pace {
  startup: number[];
  handoff: number[];
  /** Where the samples come from, for the reader. */
  source: string;
  /** The samples were taken from whole-second timestamps (creationTimestamp, condition times): the rounding is taken out of their spread. */
  resolutionMs?: number;
  /** The hand-offs were observed with surge (true) or without (false); unknown: used as they are. */
  observedSurge?: boolean;
  /** The old pod's stop: its deletion (the kubelet's Killing) → the new pod's creation on the node, per node of rollouts without surge. */
  stop?: number[];
  /** The same stops by the past rollout they were seen in: each run draws from one of them, as the stop moves with the rollout too. */
  stopByRollout?: number[][];
  /** No stop observed: the range it is taken from (one draw per run, as it is one unknown for the whole rollout). */
  stopEstimate?: { low: number; high: number; why: string };
  /** Relative spread of the pace between stretches of the observed rollout, drawn once per run (the pace drifts as load comes and goes). */
  drift?: number;
  /** Relative spread of the pace from one rollout to the next, from the kubelets' events of past rollouts; drawn once per run with the drift. */
  between?: number;
}

/** What the planner assumes when no rollout has been observed anywhere. */
export const DEFAULT_PACE: Pace = { startup: [5000], handoff: [2000], source: 'no rollout observed; assumed 5 s per pod start and 2 s per hand-off', drift: 0.25 };

export interface RevisionLike {
  metadata: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  revision?: number;
}

/** Whole-second timestamps (as the API serves creationTimestamp and condition times) carry up to a second of rounding. */
const resolutionOf = (ts: string | undefined) => (ts && !ts.includes('.') ? 1000 : 1);

/**
 * The pace of one revision's rollout, from its pods: each pod's start is its
 * creation to its availability (Ready transition + minReadySeconds); its
 * hand-off is the time from the slot it took being freed to its creation,
 * which covers the old pod's termination (without surge) and the
 * controller's reaction. The controller takes a freed slot for the next node,
 * first come first served, so the pods created before the first one finished
 * are the first wave (freed by the rollout's start), and each pod after them
 * took the earliest slot freed and not yet taken (a pod still on its way
 * took one too). A rollout begun while the last was under way first replaces
 * that one's pods still starting, at once and beyond the budget (the
 * strategy's maxUnavailable + maxSurge): their finishes free no slot, and
 * counted as slots they made each later pod's hand-off longer by a pod's
 * start (to a minute, on 27 nodes one at a time). A pod for a node that
 * joined after the rollout began replaced nothing, and a rollback's first
 * wave began at a time its revision does not show: neither gives a hand-off.
 * A revision that replaced nothing (the DaemonSet's first) gives starts
 * only. Samples are in creation order.
 */
export function observePace(input: {
  pods: PlanPodLike[];
  revision: RevisionLike;
  minReadySeconds?: number;
  rolling: boolean;
  faults?: Faults;
  budget?: number;
  /** Made current after this (a rollback makes an old revision current again, keeping its creation time). */
  notBefore?: number;
  /** When each node joined the cluster: a pod made for a node that joined during the rollout replaced nothing. */
  joined?: Map<string, number>;
}): { startup: number[]; handoff: number[]; finishedAt?: number; startedAt?: number; resolutionMs: number } {
  const hash = input.revision.metadata.labels?.[ControllerRevisionHashLabel] ?? input.revision.metadata.name?.split('-').pop();
  const revisionMade = Date.parse(input.revision.metadata.creationTimestamp ?? '');
  // A revision made current again began its rollout at some unknown time after: its first wave's hand-offs are not known.
  const start = (input.notBefore ?? -Infinity) > revisionMade ? NaN : revisionMade;
  const began = Math.max(revisionMade, input.notBefore ?? -Infinity);
  const minReady = input.minReadySeconds ?? 0;
  /** The revision's pods; `available` for those that became so (the others hold their slot still); `slot`: it replaced a pod. */
  const made: { created: number; available?: number; faulted: boolean; slot: boolean }[] = [];
  let resolutionMs = 1;
  for (const p of input.pods) {
    if (p.metadata?.labels?.[ControllerRevisionHashLabel] !== hash || isTerminating(p)) continue;
    const created = Date.parse(p.metadata?.creationTimestamp ?? '');
    if (Number.isNaN(created)) continue;
    const joined = input.joined?.get(daemonPodNodeName(p) ?? '');
    // Neither took a slot of the budget nor freed one: a pod for a node that came after the rollout began.
    const slot = !(joined !== undefined && joined > began);
    const ready = Date.parse(conditionOf(p, 'Ready')?.lastTransitionTime ?? '');
    if (conditionOf(p, 'Ready')?.status !== 'True' || Number.isNaN(ready)) {
      made.push({ created, faulted: false, slot });
      continue;
    }
    resolutionMs = Math.max(resolutionMs, resolutionOf(p.metadata?.creationTimestamp), resolutionOf(conditionOf(p, 'Ready')?.lastTransitionTime));
    const fault = input.faults?.get(p.metadata?.name ?? '');
    made.push({ created, available: ready + minReady * 1000, faulted: fault !== undefined && fault <= ready, slot });
  }
  made.sort((a, b) => a.created - b.created);
  const done = made.filter((d): d is typeof d & { available: number } => d.available !== undefined);
  // A pod held up by a fault on its way to Ready still took its slot and freed it (the hand-offs count it), but its start timed the fault.
  const startup = done.filter((d) => !d.faulted).map((d) => Math.max(0, d.available - d.created));
  const handoff: number[] = [];
  const replaced = made.filter((d) => d.slot);
  if (input.rolling && replaced.some((d) => d.available !== undefined)) {
    const finishes = replaced.flatMap((d) => (d.available === undefined ? [] : [d.available])).sort((a, b) => a - b);
    const firstWave = replaced.filter((d) => d.created < finishes[0]).length;
    // More in the first wave than the budget: the excess replaced pods still starting, and the first finishes freed no slot.
    const freed = finishes.slice(Math.max(0, firstWave - (input.budget ?? Infinity)));
    replaced.forEach((d, i) => {
      const slot = i < firstWave ? (Number.isNaN(start) ? undefined : start) : freed[i - firstWave];
      // Within a timestamp's rounding, a pod seen created before its slot was freed took it at once.
      if (slot !== undefined && d.created >= slot - resolutionMs) handoff.push(Math.max(0, d.created - slot));
    });
  }
  return { startup, handoff, finishedAt: done.length ? Math.max(...done.map((d) => d.available)) : undefined, startedAt: Number.isNaN(start) ? undefined : start, resolutionMs };
}

// ---- what the kubelets recorded ------------------------------------------------------

/** An Event as core/v1 or events.k8s.io/v1 serves it (the fields read here). */
export interface EventLike {
  metadata?: { name?: string };
  type?: string;
  reason?: string;
  involvedObject?: { kind?: string; name?: string; uid?: string };
  regarding?: { kind?: string; name?: string; uid?: string };
  source?: { component?: string; host?: string };
  deprecatedSource?: { component?: string; host?: string };
  reportingController?: string;
  reportingComponent?: string;
  reportingInstance?: string;
  firstTimestamp?: string;
  deprecatedFirstTimestamp?: string;
  eventTime?: string;
}

/**
 * When an event was recorded (epoch ms). The recorder names an event
 * `<object>.<hex nanoseconds>` (client-go's makeEvent), finer than its
 * whole-second timestamps; a name that does not agree with the timestamp
 * within a second is someone else's, and the timestamp is used.
 */
export function eventRecordedAt(e: EventLike): number | undefined {
  const stamp = Date.parse(e.eventTime ?? e.firstTimestamp ?? e.deprecatedFirstTimestamp ?? '');
  const hex = /\.([0-9a-f]{12,16})$/.exec(e.metadata?.name ?? '')?.[1];
  const fromName = hex ? Number(BigInt(`0x${hex}`) / 1000n) / 1000 : NaN;
  if (!Number.isNaN(fromName) && (Number.isNaN(stamp) || Math.abs(fromName - stamp) < 1000 + 1)) return fromName;
  return Number.isNaN(stamp) ? undefined : stamp;
}

const kubeletOf = (e: EventLike) => (e.source?.component ?? e.deprecatedSource?.component ?? e.reportingComponent ?? e.reportingController) === 'kubelet';

/** The first time a kubelet warned of a fault on each pod (by name): an image it could not pull, a crash, a rejection. */
export type Faults = Map<string, number>;

const faultsOfEvents = new WeakMap<readonly EventLike[], Faults>();

/**
 * The pods a fault held up, and from when. A pod that waited on a node that
 * could not pull its image, or crashed before it was Ready, timed the fault
 * and whoever fixed it, not the cluster's pace: the plan forecasts such
 * stalls from the nodes and pods it sees (nodeStallReason), so their times
 * are not pace samples. A failing readiness probe (Unhealthy) is left in: a
 * slow start gives those too.
 */
export function faultsOf(events: readonly EventLike[] | undefined): Faults {
  if (!events) return new Map();
  let out = faultsOfEvents.get(events);
  if (out) return out;
  out = new Map();
  for (const e of events) {
    if (e.type !== 'Warning' || e.reason === 'Unhealthy' || !kubeletOf(e)) continue;
    const io = e.involvedObject ?? e.regarding;
    const at = eventRecordedAt(e);
    if (io?.kind !== 'Pod' || !io.name || at === undefined) continue;
    out.set(io.name, Math.min(out.get(io.name) ?? Infinity, at));
  }
  faultsOfEvents.set(events, out);
  return out;
}

const median = (xs: number[]) => {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

/** The pods a DaemonSet names: `<name>-` and the API server's five generated characters. */
export const daemonPodNamePattern = (dsName: string) => new RegExp(`^${dsName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[a-z0-9]{5}$`);

/**
 * The old pods' stop, from what the kubelets recorded. On a node, a pod of
 * the DaemonSet killed (the kubelet's Killing) and the next pod of the
 * DaemonSet there starting its containers (Started), with no newer pod up
 * beside it before the kill (that is a surge clean-up, which nothing waits
 * for), is a hand-off without surge: Killing → Started covers the stop, the
 * controller's reaction to the pod being gone and the new pod's start to
 * Started. The last part is measured on the pods still there (created →
 * Started) and taken off. Past revisions' pods are gone, their events are
 * not (an hour by default), so this sees rollouts the pods no longer show.
 */
export function observeStops(input: { events: EventLike[]; isDaemonPod: (name: string) => boolean; pods: PlanPodLike[]; rolloutStarts?: number[] }): { stop: number[]; byRollout: number[][]; startToStarted?: number; between?: number } {
  type Seen = { first: number; started?: number; killed?: number };
  // A pod whose containers started only after a fault (its node could not pull the image) timed the fault, not a stop.
  const faults = faultsOf(input.events);
  const heldUp = (name: string | undefined, started: number) => (faults.get(name ?? '') ?? Infinity) <= started;
  const byNode = new Map<string, Map<string, Seen>>();
  const startedByUid = new Map<string, number>();
  for (const e of input.events) {
    const io = e.involvedObject ?? e.regarding;
    if (!io?.name || !input.isDaemonPod(io.name)) continue;
    if (!kubeletOf(e)) continue;
    const host = e.source?.host ?? e.deprecatedSource?.host ?? e.reportingInstance;
    const at = eventRecordedAt(e);
    if (!host || at === undefined) continue;
    let pods = byNode.get(host);
    if (!pods) byNode.set(host, (pods = new Map()));
    const s = pods.get(io.name) ?? { first: at };
    s.first = Math.min(s.first, at);
    if (e.reason === 'Started') {
      s.started = Math.min(s.started ?? Infinity, at);
      if (io.uid) startedByUid.set(io.uid, s.started);
    }
    if (e.reason === 'Killing') s.killed = Math.min(s.killed ?? Infinity, at);
    pods.set(io.name, s);
  }
  // created → Started on the pods still there; a whole-second creationTimestamp is on average half a second early.
  const lags: number[] = [];
  for (const p of input.pods) {
    const started = p.metadata?.uid ? startedByUid.get(p.metadata.uid) : undefined;
    const created = Date.parse(p.metadata?.creationTimestamp ?? '');
    if (started === undefined || Number.isNaN(created) || heldUp(p.metadata?.name, started)) continue;
    lags.push(started - created - resolutionOf(p.metadata?.creationTimestamp) / 2);
  }
  const startToStarted = median(lags);
  const stop: number[] = [];
  // Per past rollout (the ControllerRevisions' creation times bound them), the mean of what the events time on each node:
  // without surge Killing → the next Started, with surge the new pod's Started → the old pod's Killing.
  const starts = [...(input.rolloutStarts ?? [])].sort((a, b) => a - b);
  const perRollout = new Map<string, number[]>();
  const stopsPerRollout = new Map<number, number[]>();
  const rolloutOf = (at: number) => starts.filter((t) => t <= at + 1000).length;
  const note = (kind: string, at: number, gap: number) => {
    const k = `${kind}@${rolloutOf(at)}`;
    const list = perRollout.get(k);
    if (list) list.push(gap);
    else perRollout.set(k, [gap]);
  };
  const WINDOW = 10 * 60_000; // a later pod than this is the next rollout's, not a replacement
  for (const pods of byNode.values()) {
    const list = [...pods.entries()].map(([name, seen]) => ({ ...seen, name })).sort((a, b) => a.first - b.first);
    for (const a of list) {
      if (a.killed === undefined) continue;
      const newer = list.find((c) => c !== a && c.first > a.first && c.first < a.killed!);
      if (newer) {
        if (newer.started !== undefined && a.killed - newer.started < WINDOW) note('surge', newer.started, a.killed - newer.started);
        continue;
      }
      const b = list.find((c) => c !== a && c.first >= a.killed! && c.started !== undefined);
      if (!b || b.started! - a.killed > WINDOW || heldUp(b.name, b.started!)) continue;
      note('no surge', a.killed, b.started! - a.killed);
      if (startToStarted === undefined) continue;
      const one = Math.max(0, b.started! - a.killed - startToStarted);
      stop.push(one);
      const r = rolloutOf(a.killed);
      stopsPerRollout.set(r, [...(stopsPerRollout.get(r) ?? []), one]);
    }
  }
  const byRollout = starts.length ? [...stopsPerRollout.values()].filter((xs) => xs.length >= 3) : [];
  return { stop, byRollout, startToStarted, between: dispersionBetween(perRollout) };
}

/**
 * How much the pace moved from one rollout to the next: the spread of the
 * per-rollout means (of rollouts with at least 3 nodes timed) around their
 * kind's mean, pooled over the kinds, in relative terms; undefined until two
 * rollouts of a kind are seen.
 */
function dispersionBetween(perRollout: Map<string, number[]>): number | undefined {
  const byKind = new Map<string, number[]>();
  for (const [k, gaps] of perRollout) {
    if (gaps.length < 3) continue;
    const kind = k.slice(0, k.indexOf('@'));
    const m = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    if (m <= 0) continue;
    byKind.set(kind, [...(byKind.get(kind) ?? []), Math.log(m)]);
  }
  let sum = 0;
  let dof = 0;
  for (const logs of byKind.values()) {
    if (logs.length < 2) continue;
    const m = logs.reduce((a, b) => a + b, 0) / logs.length;
    sum += logs.reduce((a, x) => a + (x - m) ** 2, 0);
    dof += logs.length - 1;
  }
  return dof ? Math.sqrt(sum / dof) : undefined;
}

/** Relative spread of the mean node time between four stretches (in creation order) of an observed rollout. */
export function driftOf(startup: number[], handoff: number[]): number | undefined {
  const BLOCKS = 4;
  if (startup.length < BLOCKS * 3) return undefined;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const part = (xs: number[], b: number) => xs.slice(Math.floor((b * xs.length) / BLOCKS), Math.floor(((b + 1) * xs.length) / BLOCKS));
  const blocks = Array.from({ length: BLOCKS }, (_, b) => mean(part(startup, b)) + (handoff.length >= BLOCKS ? mean(part(handoff, b)) : 0));
  const m = mean(blocks);
  if (m <= 0) return undefined;
  return Math.sqrt(blocks.reduce((a, x) => a + (x - m) ** 2, 0) / (BLOCKS - 1)) / m;
}

type Samples = { startup: number[]; handoff: number[]; resolutionMs?: number; surge?: boolean };

/**
 * The pace to plan with: this DaemonSet's latest rollout with enough samples,
 * else the cluster's (other DaemonSets' rollouts, merged by the caller), else
 * the default. Missing hand-offs (a DaemonSet never rolled) come from the next source.
 */
export function choosePace(own: Samples | undefined, cluster: Samples | undefined, min = 3): Pace {
  const enough = (x: number[] | undefined) => !!x && x.length >= min;
  const startup = enough(own?.startup) ? { v: own!.startup, from: 'this DaemonSet', s: own! } : enough(cluster?.startup) ? { v: cluster!.startup, from: 'the cluster', s: cluster! } : undefined;
  const handoff = enough(own?.handoff) ? { v: own!.handoff, from: 'this DaemonSet', s: own! } : enough(cluster?.handoff) ? { v: cluster!.handoff, from: 'the cluster', s: cluster! } : undefined;
  if (!startup) return DEFAULT_PACE;
  const h = handoff ?? { v: DEFAULT_PACE.handoff, from: 'assumed (2 s)', s: undefined };
  const source = startup.from === h.from ? `${startup.from}'s last rollout (${startup.v.length} pods)` : `pod starts from ${startup.from} (${startup.v.length} pods), hand-offs from ${h.from}`;
  const pace: Pace = { startup: startup.v, handoff: h.v, source, resolutionMs: Math.max(startup.s.resolutionMs ?? 1, h.s?.resolutionMs ?? 1) };
  if (h.s?.surge !== undefined) pace.observedSurge = h.s.surge;
  const drift = startup.s === h.s ? driftOf(startup.v, h.v) : driftOf(startup.v, []);
  if (drift !== undefined) pace.drift = drift;
  return pace;
}

// ---- the plan ------------------------------------------------------------------

export type StepAction =
  /** The old pod goes (maxSurge 0) or a new pod goes up beside it (surge). */
  | 'replace'
  /** No pod there now: the controller creates one at once. */
  | 'create'
  /** The node left the DaemonSet's set: its old pod is deleted, nothing replaces it. */
  | 'remove';

export interface PlanStep {
  nodeName: string;
  action: StepAction;
  /** Expected never to become available (and so to hold its share of the budget): why. */
  stall?: string;
  /** Taken at once, beyond the budget, because its old pod is not available now. */
  beyondBudget?: boolean;
}

export interface Wave {
  index: number;
  steps: PlanStep[];
  /** The budget in force: maxUnavailable (maxSurge 0) or maxSurge. */
  limit: number;
  /** Nodes counted against it when the wave starts, held by nodes stalled in earlier waves. */
  held: number;
  /** Forecast, from the rollout's start (ms): when the wave's last node should be done (p50 over runs). */
  endsAt?: number;
}

export interface PlanStall {
  nodeName: string;
  reason: string;
  /** stall: holds the budget for good; risk: failing now, replaced at once, may fail again. */
  kind: 'stall' | 'risk';
}

export interface Forecast {
  /** Time to finish every node the rollout can reach (ms), p10 / p50 / p90 over the runs. */
  p10: number;
  p50: number;
  p90: number;
  /** The rollout finishes (no stalled node holds it back). */
  completes: boolean;
  /** Expected finish per node (ms from the start, mean over runs). */
  nodeFinish: Record<string, number>;
  /** Mean per node over the runs (ms): the hand-off as planned (the old pod's stop added or taken off) and the pod's start. */
  perNode: { handoff: number; startup: number };
  pace: Pace;
}

export interface RolloutPlan {
  strategy: 'RollingUpdate' | 'OnDelete';
  mode: 'unavailable' | 'surge' | 'none';
  desired: number;
  maxUnavailable: number;
  maxSurge: number;
  waves: Wave[];
  /** Nodes already on the planned template and available. */
  done: string[];
  /** Nodes the DaemonSet leaves out, and what happens to a pod there. */
  excluded: { nodeName: string; reason: string; pod?: 'removed in the rollout' | 'kept (misscheduled)' | 'evicted at once' }[];
  /** Nodes expected to stall, or at risk. */
  stalls: PlanStall[];
  /** Desired nodes the rollout never gets to: the budget stays held by stalled nodes. */
  notReached: string[];
  /** Nodes with their pods replaced only as they are deleted (OnDelete). */
  manual: string[];
  forecast?: Forecast;
}

export interface PlanInput {
  /** The DaemonSet as it will be (the planned template and strategy). */
  ds: PlanDaemonSetLike;
  nodes: PlanNodeLike[];
  /** The DaemonSet's pods now, of any revision. */
  pods: PlanPodLike[];
  /** Which of those already run the planned template (default: none, a template change). */
  isNew?: (pod: PlanPodLike) => boolean;
  now: number;
  /** Per-node times; omit for waves only. A new pod already in progress counts the time it has had since its creation. */
  pace?: Pace;
  /** Runs of the pipeline for the spread (default 200), and the seed of their draws (the same plan every time). */
  runs?: number;
  seed?: number;
}

const NEW = '__planned__';

const faultOnTemplate = (ds: PlanDaemonSetLike): string | undefined => {
  const ann = ds.spec?.template?.metadata?.annotations ?? {};
  if (ann[SimulatedFaults.podFailReadiness] === 'true') return `the new pods fail readiness (template annotation ${SimulatedFaults.podFailReadiness})`;
  if (ann[SimulatedFaults.podCrash] === 'true') return `the new pods crash-loop (template annotation ${SimulatedFaults.podCrash})`;
  return undefined;
};

/** Why a node that should run the new pod will not get it available, or undefined. */
function nodeStallReason(node: PlanNodeLike, pods: PlanPodLike[], ds: PlanDaemonSetLike, surge: boolean): string | undefined {
  const ready = conditionOf(node as never, 'Ready');
  if (ready && ready.status !== 'True') return `node ${ready.status === 'Unknown' ? 'unreachable' : 'NotReady'}: the kubelet will not start the new pod${ready.reason ? ` (${ready.reason})` : ''}`;
  if (node.metadata.annotations?.[SimulatedFaults.nodeImagePullError] === 'true') return `image pulls fail on this node (annotation ${SimulatedFaults.nodeImagePullError})`;
  const pulling = pods.find((p) => [...(p.status?.containerStatuses ?? [])].some((c) => ['ImagePullBackOff', 'ErrImagePull'].includes(c.state?.waiting?.reason ?? '')));
  if (pulling) return `image pulls fail on this node now (pod ${pulling.metadata?.name} waits in ImagePullBackOff)`;
  const template = faultOnTemplate(ds);
  if (template) return template;
  if (surge && hostPortsOf(ds.spec?.template?.spec).length) return 'maxSurge with a host port: the new pod cannot be scheduled beside the old pod holding the port';
  return undefined;
}

interface SimNode {
  name: string;
  shouldRun: boolean;
  old?: { available: boolean };
  fresh?: { available: boolean };
  stall?: string;
  /** For the forecast: when a new pod already in progress was created. */
  startedAt?: number;
}

const syntheticPod = (node: string, revision: 'old' | 'new', available: boolean): PodLike => ({
  metadata: { name: `${revision}/${node}`, labels: revision === 'new' ? { [ControllerRevisionHashLabel]: NEW } : {} },
  spec: { nodeName: node },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: available ? 'True' : 'False' }] },
});

/** Plans the rollout of `ds` over the cluster as it is now. */
export function planRollout(input: PlanInput): RolloutPlan {
  const { ds, nodes, pods, now } = input;
  const isNew = input.isNew ?? (() => false);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const strategy = (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'OnDelete' ? 'OnDelete' : 'RollingUpdate';

  const byNode = new Map<string, PlanPodLike[]>();
  for (const p of pods) {
    const n = daemonPodNodeName(p as never);
    if (!n) continue;
    const list = byNode.get(n);
    if (list) list.push(p);
    else byNode.set(n, [p]);
  }

  const plan: RolloutPlan = { strategy, mode: 'none', desired: 0, maxUnavailable: 0, maxSurge: 0, waves: [], done: [], excluded: [], stalls: [], notReached: [], manual: [] };
  const sim: SimNode[] = [];
  const sorted = [...nodes].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const placements = sorted.map((node) => ({ node, placement: nodeShouldRunDaemonPod(node as never, ds as never) }));
  const desired = placements.filter((x) => x.placement.shouldRun).length;
  plan.desired = desired;
  let limits = { maxSurge: 0, maxUnavailable: 0 };
  if (strategy === 'RollingUpdate') {
    limits = rollingUpdateLimits(ds, desired);
    plan.mode = limits.maxSurge > 0 ? 'surge' : 'unavailable';
  }
  plan.maxSurge = limits.maxSurge;
  plan.maxUnavailable = limits.maxUnavailable;
  const surge = plan.mode === 'surge';

  for (const { node, placement } of placements) {
    const name = node.metadata.name ?? '';
    const live = (byNode.get(name) ?? []).filter((p) => !isTerminating(p) && !['Failed', 'Succeeded'].includes(p.status?.phase ?? '')).sort(compareDaemonPods);
    const freshPod = live.find((p) => isNew(p));
    const oldPod = live.find((p) => !isNew(p));
    if (!placement.shouldRun) {
      const reason = placement.reason ?? 'not eligible';
      const entry: RolloutPlan['excluded'][number] = { nodeName: name, reason };
      if (live.length) entry.pod = placement.shouldContinueRunning ? 'kept (misscheduled)' : 'evicted at once';
      plan.excluded.push(entry);
      // An old pod that may stay is still the rolling update's business (maxSurge 0 deletes it within the budget).
      if (live.length && placement.shouldContinueRunning && strategy === 'RollingUpdate' && oldPod && !freshPod) {
        sim.push({ name, shouldRun: false, old: { available: isPodAvailable(oldPod, minReady, now) } });
      }
      continue;
    }
    const stall = nodeStallReason(node, live, ds, surge);
    const fresh = freshPod ? { available: isPodAvailable(freshPod, minReady, now) } : undefined;
    if (fresh?.available && !oldPod) {
      plan.done.push(name);
      continue;
    }
    if (strategy === 'OnDelete') {
      if (oldPod || !freshPod) plan.manual.push(name);
      continue;
    }
    const entry: SimNode = { name, shouldRun: true, stall };
    if (oldPod) entry.old = { available: isPodAvailable(oldPod, minReady, now) };
    if (fresh) {
      entry.fresh = fresh;
      entry.startedAt = Date.parse(freshPod!.metadata?.creationTimestamp ?? '') || now;
    }
    if (stall) plan.stalls.push({ nodeName: name, reason: stall, kind: 'stall' });
    else if (oldPod && !entry.old!.available && !isTerminating(oldPod)) {
      plan.stalls.push({ nodeName: name, kind: 'risk', reason: `readiness failing now (${podNotAvailableReason(oldPod, minReady, now) ?? 'not available'}): replaced at once, beyond the budget` });
    }
    sim.push(entry);
  }
  if (strategy === 'OnDelete') return plan;

  // The budget resolved once for the whole set, so the lock step may leave
  // finished nodes out (they count in neither maxUnavailable nor maxSurge, and
  // add one each to "available" and "desired" where both are compared).
  const fixed: DaemonSetLike = {
    spec: { minReadySeconds: 0, updateStrategy: { type: 'RollingUpdate', rollingUpdate: surge ? { maxSurge: limits.maxSurge, maxUnavailable: 0 } : { maxUnavailable: limits.maxUnavailable, maxSurge: 0 } } },
  };
  const limit = surge ? limits.maxSurge : limits.maxUnavailable;
  const byName = new Map(sim.map((n) => [n.name, n]));
  // Nodes whose new pod is already up but not yet available (a running rollout): in flight, in no wave.
  const progressing = sim.filter((n) => n.fresh && !n.fresh.available);
  let active = sim;
  const started = new Set<string>();
  for (let index = 0; active.length; index++) {
    const steps: PlanStep[] = [];
    const held = active.filter((n) => n.stall && n.fresh).length;
    // manage: a desired node without any pod gets one at once.
    for (const n of active) {
      if (n.shouldRun && !n.old && !n.fresh) {
        n.fresh = { available: false };
        steps.push({ nodeName: n.name, action: 'create', ...(n.stall ? { stall: n.stall } : {}) });
        started.add(n.name);
      }
    }
    const entries: NodePods[] = active.map((n) => ({
      nodeName: n.name,
      shouldRun: n.shouldRun,
      pods: [...(n.old ? [syntheticPod(n.name, 'old', n.old.available)] : []), ...(n.fresh ? [syntheticPod(n.name, 'new', n.fresh.available)] : [])],
    }));
    const step = planRollingUpdate({ ds: fixed, nodes: entries, hash: NEW, now: 0 });
    let cleaned = 0;
    for (const podName of step.podsToDelete) {
      const n = byName.get(podName.slice(podName.indexOf('/') + 1))!;
      const wasUnavailable = !n.old?.available;
      n.old = undefined;
      if (n.fresh) {
        cleaned++; // surge: the old pod goes once the new one is available
        continue;
      }
      if (n.shouldRun) n.fresh = { available: false };
      steps.push({ nodeName: n.name, action: n.shouldRun ? 'replace' : 'remove', ...(n.stall && n.shouldRun ? { stall: n.stall } : {}), ...(wasUnavailable ? { beyondBudget: true } : {}) });
      started.add(n.name);
    }
    for (const nodeName of step.nodesToCreate) {
      const n = byName.get(nodeName)!;
      n.fresh = { available: false };
      steps.push({ nodeName, action: 'replace', ...(n.stall ? { stall: n.stall } : {}), ...(n.old && !n.old.available ? { beyondBudget: true } : {}) });
      started.add(nodeName);
    }
    // Nothing started or finished: done, unless a pod in flight becomes available at the end of this wave and frees its slot.
    const inFlight = active.some((n) => n.fresh && !n.fresh.available && !n.stall);
    if (!steps.length && !cleaned && !inFlight) break;
    // The end of the wave: what was started is available, unless it stalls.
    for (const n of active) if (n.fresh && !n.stall && !n.fresh.available) n.fresh.available = true;
    if (steps.length) plan.waves.push({ index: plan.waves.length, steps: steps.sort((a, b) => (a.nodeName < b.nodeName ? -1 : 1)), limit, held });
    active = active.filter((n) => (n.shouldRun ? !(n.fresh?.available && !n.old) : !!n.old));
    if (index > sim.length + 2) break; // cannot happen: every wave starts or finishes a node
  }
  plan.notReached = active.filter((n) => n.shouldRun && !started.has(n.name) && !n.fresh).map((n) => n.name);
  const removed = new Set(plan.waves.flatMap((w) => w.steps.filter((s) => s.action === 'remove').map((s) => s.nodeName)));
  for (const e of plan.excluded) if (removed.has(e.nodeName)) e.pod = 'removed in the rollout';
  if (input.pace) plan.forecast = forecastRollout(plan, progressing, input.pace, now, input.runs ?? 200, input.seed ?? 1);
  return plan;
}

// ---- the forecast ----------------------------------------------------------------

/** A binary min-heap of numbers. */
class MinHeap {
  private a: number[] = [];
  get size() {
    return this.a.length;
  }
  push(v: number) {
    const a = this.a;
    a.push(v);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p] <= a[i]) break;
      const x = a[p];
      a[p] = a[i];
      a[i] = x;
      i = p;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l] < a[m]) m = l;
        if (r < a.length && a[r] < a[m]) m = r;
        if (m === i) break;
        const x = a[m];
        a[m] = a[i];
        a[i] = x;
        i = m;
      }
    }
    return top;
  }
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] : 0);

/**
 * Timestamps in whole seconds put up to a second of rounding into each
 * observed duration (the difference of two roundings: variance 1/6 s²). Left
 * in, it widens the samples, and the slowest node of each wave — which sets
 * the pace of a pipeline — comes out a rounding too slow. Taken out: the
 * samples are pulled towards their mean until their variance is what
 * remains after the rounding's.
 */
function withoutRounding(xs: number[], resolutionMs = 1): number[] {
  if (xs.length < 2 || resolutionMs <= 1) return xs;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
  const k = v > 0 ? Math.sqrt(Math.max(0, v - resolutionMs ** 2 / 6) / v) : 1;
  return xs.map((x) => m + (x - m) * k);
}

/**
 * Runs the rollout as the controller's pipeline many times: the first wave
 * (and nodes already progressing) start at once; each later node starts when
 * fewer than `limit` nodes are in flight, at the moment the one before it
 * freed its slot. A node takes a hand-off plus a pod start drawn from the
 * observed ones (a removal, the hand-off only); a stalled node never frees
 * its slot. The hand-off is the planned mode's: observed with surge and
 * planned without, each node adds an old pod's stop; the other way, the mean
 * stop comes off. Each run also draws, once, what is one unknown for the
 * whole rollout: the pace's drift (how far a stretch of the observed rollout
 * strayed from the rest) and, when no stop was observed, the stop time from
 * its estimated range. So the spread (p10–p90 over runs) is what the
 * evidence leaves open, not only the luck of the draws.
 */
function forecastRollout(plan: RolloutPlan, inFlight: SimNode[], pace: Pace, now: number, runs: number, seed: number): Forecast {
  const rand = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const pick = (xs: number[]) => xs[Math.floor(rand() * xs.length)] ?? 0;
  const startup = withoutRounding(pace.startup, pace.resolutionMs);
  const handoff = withoutRounding(pace.handoff, pace.resolutionMs);
  const stops = pace.stop?.length ? pace.stop : undefined;
  const stopMean = stops ? stops.reduce((a, b) => a + b, 0) / stops.length : 0;
  const surge = plan.mode === 'surge';
  // +1: the old pods' stop now delays each node; -1: it no longer does.
  const shift = pace.observedSurge === undefined || pace.observedSurge === surge ? 0 : surge ? -1 : 1;
  let note = '';
  if (shift) {
    const how = stops ? `${stops.length} stops observed in the kubelets' events (mean ${(stopMean / 1000).toFixed(1)} s)` : pace.stopEstimate ? `no stop observed: ${pace.stopEstimate.why}` : 'no stop observed or estimated';
    note = `; observed ${pace.observedSurge ? 'with' : 'without'} surge, planned ${surge ? 'with' : 'without'}: each node's hand-off ${shift > 0 ? 'gains' : 'loses'} the old pod's stop (${how})`;
  }
  // Taken at once whatever the budget: the first wave's new pods on empty nodes and replacements of unavailable old pods.
  const all = plan.waves.flatMap((w) => w.steps.map((s) => ({ ...s, wave: w.index })));
  const immediate = (s: (typeof all)[number]) => s.wave === 0 && (s.beyondBudget || s.action === 'create');
  const steps = [...all.filter(immediate), ...all.filter((s) => !immediate(s))];
  const firstWave = all.filter(immediate).length;
  const limit = Math.max(1, plan.mode === 'surge' ? plan.maxSurge : plan.maxUnavailable);
  const totals: number[] = [];
  const waveEnds: number[][] = plan.waves.map(() => []);
  const nodeSum: Record<string, number> = {};
  const drawn = { handoff: 0, startup: 0, n: 0 };
  let completes = !plan.stalls.some((s) => s.kind === 'stall') && plan.notReached.length === 0;
  for (let run = 0; run < runs; run++) {
    const heap = new MinHeap();
    const factor = Math.exp(Math.hypot(pace.drift ?? 0, pace.between ?? 0) * normal());
    // The stops of one past rollout, drawn for this run, when they were seen in several.
    const runStops = pace.stopByRollout?.length ? pace.stopByRollout[Math.floor(rand() * pace.stopByRollout.length)] : stops;
    const runStopMean = runStops ? runStops.reduce((a, b) => a + b, 0) / runStops.length : stopMean;
    const runStop = stops ? undefined : pace.stopEstimate ? pace.stopEstimate.low + rand() * (pace.stopEstimate.high - pace.stopEstimate.low) : 0;
    const handoffDraw = () => {
      let h = pick(handoff);
      if (shift > 0) h += runStop ?? pick(runStops!);
      if (shift < 0) h = Math.max(0, h - (runStop ?? runStopMean));
      drawn.handoff += h * factor;
      drawn.n++;
      return h;
    };
    const startupDraw = () => {
      const u = pick(startup);
      drawn.startup += u * factor;
      return u;
    };
    let inUse = 0;
    let end = 0;
    const waveEnd = plan.waves.map(() => 0);
    const finish = (name: string, at: number, wave?: number) => {
      nodeSum[name] = (nodeSum[name] ?? 0) + at;
      end = Math.max(end, at);
      if (wave !== undefined) waveEnd[wave] = Math.max(waveEnd[wave], at);
    };
    // Already progressing: the time spent so far counts.
    for (const n of inFlight) {
      inUse++;
      if (n.stall) continue;
      const at = Math.max(0, pick(startup) * factor - (now - (n.startedAt ?? now)));
      heap.push(at);
      finish(n.name, at);
    }
    let i = 0;
    const start = (at: number) => {
      const s = steps[i++];
      inUse++;
      if (s.stall) return; // holds its slot for good
      const done = at + (handoffDraw() + (s.action === 'remove' ? 0 : startupDraw())) * factor;
      heap.push(done);
      finish(s.nodeName, done, s.wave);
      // With surge the old pod goes once the new one is available; the DaemonSet's status counts a node updated
      // by its oldest pod, so the rollout is done (as kubectl rollout status says) only once that pod is gone too.
      if (surge && s.action === 'replace') end = Math.max(end, done + (runStop ?? pick(runStops ?? [0])) * factor);
    };
    while (i < firstWave) start(0);
    while (i < steps.length && inUse < limit) start(0);
    while (i < steps.length && heap.size) {
      const t = heap.pop();
      inUse--;
      while (i < steps.length && inUse < limit) start(t);
    }
    if (i < steps.length) completes = false;
    // The DaemonSet's status then says so, at the controller's reaction (a hand-off without the stop).
    // And the times learned from run from a whole-second start to whole-second ends: a rounding either way.
    const reaction = Math.max(0, pick(handoff) - (pace.observedSurge === false ? (runStop ?? runStopMean) : 0));
    const rounding = ((pace.resolutionMs ?? 1) > 1 ? rand() + rand() - 1 : 0) * (pace.resolutionMs ?? 1);
    totals.push(steps.length ? Math.max(0, end + reaction * factor + rounding) : end);
    waveEnd.forEach((t, w) => waveEnds[w].push(t));
  }
  totals.sort((a, b) => a - b);
  plan.waves.forEach((w, k) => (w.endsAt = quantile(waveEnds[k].sort((a, b) => a - b), 0.5)));
  const nodeFinish: Record<string, number> = {};
  for (const [k, v] of Object.entries(nodeSum)) nodeFinish[k] = v / runs;
  const perNode = { handoff: drawn.handoff / Math.max(1, drawn.n), startup: drawn.startup / Math.max(1, drawn.n) };
  return { p10: quantile(totals, 0.1), p50: quantile(totals, 0.5), p90: quantile(totals, 0.9), completes, nodeFinish, perNode, pace: note ? { ...pace, source: pace.source + note } : pace };
}

/** When a pod became (or becomes) available, epoch ms; undefined when not ready. */
export function podAvailableTime(pod: PlanPodLike, minReadySeconds: number): number | undefined {
  const at = podAvailableAt(pod, minReadySeconds);
  if (at === undefined) return undefined;
  if (at !== -Infinity) return at;
  const t = Date.parse(conditionOf(pod, 'Ready')?.lastTransitionTime ?? '');
  return Number.isNaN(t) ? undefined : t;
}

/** A one-line description of a plan: waves, budget and time. */
export function describePlan(plan: RolloutPlan, fmt: (ms: number) => string): string {
  if (plan.strategy === 'OnDelete') return `OnDelete: ${plural(plan.manual.length, 'node')} change only as their pods are deleted`;
  const nodes = plan.waves.reduce((n, w) => n + w.steps.length, 0);
  const budget = plan.mode === 'surge' ? `maxSurge ${plan.maxSurge}` : `maxUnavailable ${plan.maxUnavailable}`;
  const f = plan.forecast;
  const time = f ? `, about ${fmt(f.p50)} (${fmt(f.p10)}–${fmt(f.p90)})` : '';
  return `${plural(plan.waves.length, 'wave')} over ${plural(nodes, 'node')} under ${budget} of ${plan.desired}${time}${f && !f.completes ? ', then stalls' : ''}`;
}

// ---- from what the API serves ------------------------------------------------------

/** What a plan is made from: lists as the API serves them (any namespace; ownership is checked). */
export interface ClusterView {
  nodes: PlanNodeLike[];
  pods: PlanPodLike[];
  revisions: (RevisionLike & { metadata: RevisionLike['metadata'] & { ownerReferences?: OwnerRef[] }; data?: any })[];
  /** Other DaemonSets, for the cluster's pace when this one has none. */
  daemonSets?: PlanDaemonSetWithMeta[];
  /** The events about the namespace's pods (callers select them by the pod kind): the kubelets' Killing and Started show the old pods' stop. */
  events?: EventLike[];
}

interface OwnerRef {
  uid?: string;
  controller?: boolean;
}

export interface PlanDaemonSetWithMeta extends PlanDaemonSetLike {
  metadata?: PlanDaemonSetLike['metadata'] & { uid?: string; namespace?: string };
  spec?: PlanDaemonSetLike['spec'] & { template?: any };
}

const withoutPatch = (t: any) => {
  if (!t || typeof t !== 'object') return t;
  const { $patch: _, ...rest } = t;
  return rest;
};

/** The DaemonSet's revisions, newest first, with their hash and template. */
export function revisionsOfDaemonSet(ds: PlanDaemonSetWithMeta, view: Pick<ClusterView, 'revisions'>) {
  return view.revisions
    .filter((r) => controlledBy(r, ds.metadata?.uid))
    .map((r) => ({ object: r, revision: Number(r.revision ?? 0), hash: r.metadata.labels?.[ControllerRevisionHashLabel] ?? r.metadata.name?.split('-').pop() ?? '', template: withoutPatch(r.data?.spec?.template) }))
    .sort((a, b) => b.revision - a.revision);
}

/** The hash of the revision holding this template, once the controller has written it. */
export function hashOfTemplate(ds: PlanDaemonSetWithMeta, view: Pick<ClusterView, 'revisions'>, template: unknown = ds.spec?.template): string | undefined {
  return revisionsOfDaemonSet(ds, view).find((r) => deepEqual(r.template, template))?.hash;
}

/** The DaemonSet's strategy surges (a strategy the API would refuse counts as none). */
const surging = (d: PlanDaemonSetLike) => {
  try {
    return allowsSurge(d);
  } catch {
    return false;
  }
};

/**
 * The samples of this DaemonSet's latest observable rollout (the newest
 * revision with pods that became available). It ran, most likely, under the
 * strategy stored now: that says whether its hand-offs held the old pods' stop.
 */
export function ownPace(ds: PlanDaemonSetWithMeta, view: Pick<ClusterView, 'pods' | 'revisions' | 'events'> & { nodes?: ClusterView['nodes'] }): (ReturnType<typeof observePace> & { surge: boolean }) | undefined {
  const pods = view.pods.filter((p) => controlledBy(p as never, ds.metadata?.uid));
  const faults = faultsOf(view.events);
  // The pods a rollout has on their way at most, by the strategy stored now (as `surge` below).
  const { maxUnavailable, maxSurge } = rollingUpdateLimits(ds, ds.status?.desiredNumberScheduled ?? pods.length);
  const joined = joinedOf(view.nodes);
  const revisions = revisionsOfDaemonSet(ds, view);
  const createdAt = (r: (typeof revisions)[number]) => Date.parse(r.object.metadata.creationTimestamp ?? '') || -Infinity;
  for (const r of revisions) {
    // Revisions numbered below it were current before it: a rollback to it began after they were made.
    const notBefore = Math.max(-Infinity, ...revisions.filter((o) => o.revision < r.revision).map(createdAt));
    const o = observePace({ pods, revision: r.object, minReadySeconds: ds.spec?.minReadySeconds, rolling: r.revision > 1, faults, budget: maxUnavailable + maxSurge, notBefore, joined });
    if (o.startup.length) return { ...o, surge: surging(ds) };
  }
  return undefined;
}

const joinedOfNodes = new WeakMap<readonly PlanNodeLike[], Map<string, number>>();

/** When each node joined the cluster (its creation), read once per list: the cluster's pace asks it of every DaemonSet. */
function joinedOf(nodes: readonly PlanNodeLike[] | undefined): Map<string, number> {
  if (!nodes) return new Map();
  let out = joinedOfNodes.get(nodes);
  if (!out) joinedOfNodes.set(nodes, (out = new Map(nodes.map((n) => [n.metadata.name ?? '', Date.parse(n.metadata.creationTimestamp ?? '')]))));
  return out;
}

/** Too few samples of its own (under three starts or hand-offs; a DaemonSet never updated has no hand-offs): the other DaemonSets' rollouts give the pace. */
export const needsClusterPace = (own: ReturnType<typeof ownPace>) => !own || own.startup.length < 3 || own.handoff.length < 3;

/** The pods of the other DaemonSets a plan reads for the cluster's pace, at most (one DaemonSet's whatever its size). */
export const DONOR_PODS = 10_000;

/**
 * The other DaemonSets whose pods give the cluster's pace (clusterSamples
 * reads the pods the view holds): the latest rollouts first (those that
 * replaced pods, with hand-offs, before first rollouts), as far as `maxPods`
 * of their pods by their status, at least one. A review then reads those
 * DaemonSets' pods, not the namespace's: ten DaemonSets on 5000 nodes are
 * 50,000 pods, 15 s and ~120 MB of the page's heap to read, for the samples
 * of one rollout or two.
 */
export function paceDonors(ds: PlanDaemonSetWithMeta | undefined, view: Pick<ClusterView, 'revisions' | 'daemonSets'>, maxPods = DONOR_PODS): PlanDaemonSetWithMeta[] {
  const ranked = (view.daemonSets ?? [])
    .filter((d) => d.metadata?.uid && d.metadata.uid !== ds?.metadata?.uid)
    .map((d) => {
      const newest = revisionsOfDaemonSet(d, view)[0];
      return { d, replaced: (newest?.revision ?? 0) > 1, at: Date.parse(newest?.object.metadata.creationTimestamp ?? '') || 0 };
    })
    .sort((a, b) => Number(b.replaced) - Number(a.replaced) || b.at - a.at);
  const out: PlanDaemonSetWithMeta[] = [];
  let pods = 0;
  for (const { d } of ranked) {
    const n = (d.status?.desiredNumberScheduled ?? 0) + (d.status?.numberMisscheduled ?? 0);
    if (out.length && pods + n > maxPods) break;
    out.push(d);
    pods += n;
  }
  return out;
}

/** Samples of every other DaemonSet's last rollout in the view (those whose pods it holds), merged; their hand-offs' mode only when they all agree. */
function clusterSamples(view: ClusterView, except?: string): Samples {
  const out: Samples = { startup: [], handoff: [], resolutionMs: 1 };
  const modes = new Set<boolean>();
  for (const other of view.daemonSets ?? []) {
    if (except && other.metadata?.uid === except) continue;
    const o = ownPace(other, view);
    if (!o) continue;
    out.startup.push(...o.startup);
    out.handoff.push(...o.handoff);
    out.resolutionMs = Math.max(out.resolutionMs ?? 1, o.resolutionMs ?? 1);
    if (o.handoff.length) modes.add(!!o.surge);
  }
  if (modes.size === 1) out.surge = [...modes][0];
  return out;
}

/**
 * The old pods' stop for `ds`: observed on its own nodes' events, else on
 * the other DaemonSets' in the view; unobserved, estimated from the
 * cluster's own figures: a kubelet stops a pod's containers in about the
 * time it takes to start them (created → Started, or the whole start when
 * even that is not recorded), so anywhere from nothing to twice that, never
 * beyond the pod's termination grace period.
 */
function stopsFor(ds: PlanDaemonSetWithMeta | undefined, view: ClusterView, startup: number[]): Pick<Pace, 'stop' | 'stopByRollout' | 'stopEstimate'> & { note?: string; between?: number } {
  const events = view.events ?? [];
  const names = (list: (PlanDaemonSetWithMeta | undefined)[]) => {
    const patterns = list.filter((d) => d?.metadata?.name).map((d) => daemonPodNamePattern(d!.metadata!.name!));
    return (name: string) => patterns.some((p) => p.test(name));
  };
  const rolloutStarts = ds ? revisionsOfDaemonSet(ds, view).map((r) => Date.parse(r.object.metadata.creationTimestamp ?? '')).filter((t) => !Number.isNaN(t)) : [];
  const own = ds ? observeStops({ events, isDaemonPod: names([ds]), pods: view.pods, rolloutStarts }) : { stop: [] as number[], byRollout: [], between: undefined };
  const between = own.between;
  if (own.stop.length >= 3) return { stop: own.stop, ...(own.byRollout.length >= 2 ? { stopByRollout: own.byRollout } : {}), between, note: `the old pods' stop from this DaemonSet's events (${own.stop.length} nodes)` };
  const cluster = observeStops({ events, isDaemonPod: names(view.daemonSets ?? []), pods: view.pods });
  if (cluster.stop.length >= 3) return { stop: cluster.stop, between, note: `the old pods' stop from the cluster's events (${cluster.stop.length} nodes)` };
  const lag = own.startToStarted ?? cluster.startToStarted;
  const typical = lag ?? median(startup) ?? DEFAULT_PACE.startup[0];
  const grace = ((ds?.spec?.template?.spec?.terminationGracePeriodSeconds as number | undefined) ?? 30) * 1000;
  const high = Math.min(grace, 2 * typical);
  return { between, stopEstimate: { low: 0, high, why: `taken as 0–${(high / 1000).toFixed(1)} s, twice a pod's ${lag !== undefined ? 'start to Started' : 'whole start'} here` } };
}

const BETWEEN_ASSUMED = 0.1;

/** The pace to plan `ds` with (undefined: a new DaemonSet): its own last rollout, else the other DaemonSets', else the default; and the old pods' stop. */
export function paceFor(ds: PlanDaemonSetWithMeta | undefined, view: ClusterView): Pace {
  const own = ds ? ownPace(ds, view) : undefined;
  const cluster = needsClusterPace(own) ? clusterSamples(view, ds?.metadata?.uid) : undefined;
  const pace = choosePace(own, cluster);
  const { note, between, ...stops } = stopsFor(ds, view, pace.startup);
  // Until two rollouts of a kind are in the events, how much the pace moves between rollouts is not known: 10% is assumed, and said.
  const spread = between !== undefined ? `the pace moved ${(between * 100).toFixed(0)}% between past rollouts` : 'the pace between rollouts not yet seen (10% assumed)';
  return { ...pace, ...stops, between: between ?? BETWEEN_ASSUMED, source: `${pace.source}${note ? `; ${note}` : ''}; ${spread}` };
}

/**
 * The plan for a change from `current` (undefined when creating) to
 * `proposed`. A template change replaces every pod; a strategy change alone
 * shows how the rollout in progress continues, or, with none in progress,
 * how the next template change would roll (`hypothetical`).
 */
export function planChange(input: { current?: PlanDaemonSetWithMeta; proposed: PlanDaemonSetWithMeta; view: ClusterView; now: number; runs?: number }): { plan: RolloutPlan; hypothetical: boolean } {
  const { current, proposed, view, now } = input;
  const pods = current ? view.pods.filter((p) => controlledBy(p as never, current.metadata?.uid)) : [];
  const pace = paceFor(current, view);
  const templateChanged = !current || !deepEqual(current.spec?.template, proposed.spec?.template);
  let isNew: ((p: PlanPodLike) => boolean) | undefined;
  let hypothetical = false;
  if (!templateChanged) {
    const hash = hashOfTemplate(current!, view);
    const generation = current!.metadata?.annotations?.['deprecated.daemonset.template.generation'];
    const fresh = (p: PlanPodLike) => (!!hash && p.metadata?.labels?.[ControllerRevisionHashLabel] === hash) || (!!generation && p.metadata?.labels?.['pod-template-generation'] === generation);
    hypothetical = pods.every((p) => fresh(p) && isPodAvailable(p, proposed.spec?.minReadySeconds ?? 0, now));
    isNew = hypothetical ? undefined : fresh;
  }
  return { plan: planRollout({ ds: proposed, nodes: view.nodes, pods, isNew, now, pace, runs: input.runs }), hypothetical };
}
