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
import {
  ControllerRevisionHashLabel,
  allowsSurge,
  compareDaemonPods,
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
  metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
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

/** Per-node update times observed (ms): the pod's start (created → available) and the hand-off before it (slot freed → pod created). */
export interface Pace {
  startup: number[];
  handoff: number[];
  /** Where the samples come from, for the reader. */
  source: string;
}

/** What the planner assumes when no rollout has been observed anywhere. */
export const DEFAULT_PACE: Pace = { startup: [5000], handoff: [2000], source: 'no rollout observed; assumed 5 s per pod start and 2 s per hand-off' };

export interface RevisionLike {
  metadata: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  revision?: number;
}

/**
 * The pace of one revision's rollout, from its pods: each pod's start is its
 * creation to its availability (Ready transition + minReadySeconds); its
 * hand-off is the time from the slot it took being freed to its creation,
 * which covers the old pod's termination and the controller's reaction. The
 * controller takes a freed slot for the next node, first come first served,
 * so the pods created before the first one finished are the first wave
 * (freed by the rollout's start), and the j-th pod after them took the slot
 * the j-th finished pod freed. A revision that replaced nothing (the
 * DaemonSet's first) gives starts only. Samples are in creation order.
 */
export function observePace(input: { pods: PlanPodLike[]; revision: RevisionLike; minReadySeconds?: number; rolling: boolean }): { startup: number[]; handoff: number[]; finishedAt?: number } {
  const hash = input.revision.metadata.labels?.[ControllerRevisionHashLabel] ?? input.revision.metadata.name?.split('-').pop();
  const start = Date.parse(input.revision.metadata.creationTimestamp ?? '');
  const minReady = input.minReadySeconds ?? 0;
  const done: { created: number; available: number }[] = [];
  for (const p of input.pods) {
    if (p.metadata?.labels?.[ControllerRevisionHashLabel] !== hash || isTerminating(p)) continue;
    const created = Date.parse(p.metadata?.creationTimestamp ?? '');
    const ready = Date.parse(conditionOf(p, 'Ready')?.lastTransitionTime ?? '');
    if (conditionOf(p, 'Ready')?.status !== 'True' || Number.isNaN(created) || Number.isNaN(ready)) continue;
    done.push({ created, available: ready + minReady * 1000 });
  }
  done.sort((a, b) => a.created - b.created);
  const startup = done.map((d) => Math.max(0, d.available - d.created));
  const handoff: number[] = [];
  if (input.rolling && !Number.isNaN(start) && done.length) {
    const finishes = done.map((d) => d.available).sort((a, b) => a - b);
    const firstWave = done.filter((d) => d.created < finishes[0]).length;
    done.forEach((d, i) => {
      const freed = i < firstWave ? start : finishes[i - firstWave];
      if (freed !== undefined && d.created >= freed) handoff.push(d.created - freed);
    });
  }
  return { startup, handoff, finishedAt: done.length ? Math.max(...done.map((d) => d.available)) : undefined };
}

/**
 * The pace to plan with: this DaemonSet's latest rollout with enough samples,
 * else the cluster's (other DaemonSets' rollouts, merged by the caller), else
 * the default. Missing hand-offs (a DaemonSet never rolled) come from the next source.
 */
export function choosePace(own: { startup: number[]; handoff: number[] } | undefined, cluster: { startup: number[]; handoff: number[] } | undefined, min = 3): Pace {
  const enough = (x: number[] | undefined) => !!x && x.length >= min;
  const startup = enough(own?.startup) ? { v: own!.startup, from: 'this DaemonSet' } : enough(cluster?.startup) ? { v: cluster!.startup, from: 'the cluster' } : undefined;
  const handoff = enough(own?.handoff) ? { v: own!.handoff, from: 'this DaemonSet' } : enough(cluster?.handoff) ? { v: cluster!.handoff, from: 'the cluster' } : undefined;
  if (!startup) return DEFAULT_PACE;
  const h = handoff ?? { v: DEFAULT_PACE.handoff, from: 'assumed (2 s)' };
  const source = startup.from === h.from ? `${startup.from}'s last rollout (${startup.v.length} pods)` : `pod starts from ${startup.from} (${startup.v.length} pods), hand-offs from ${h.from}`;
  return { startup: startup.v, handoff: h.v, source };
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

/** mulberry32: a small seeded generator, so a plan is the same every time it is drawn. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
 * Runs the rollout as the controller's pipeline many times: the first wave
 * (and nodes already progressing) start at once; each later node starts when
 * fewer than `limit` nodes are in flight, at the moment the one before it
 * freed its slot. A node takes a hand-off plus a pod start drawn from the
 * observed ones (a removal, the hand-off only); a stalled node never frees
 * its slot.
 */
function forecastRollout(plan: RolloutPlan, inFlight: SimNode[], pace: Pace, now: number, runs: number, seed: number): Forecast {
  const rand = random(seed);
  // Block bootstrap: the pace drifts within a rollout (load comes and goes),
  // so each run draws from one stretch of the observed rollout, not from all
  // of it; the spread across runs then shows that drift.
  const BLOCKS = 4;
  const blocks = (xs: number[]) => {
    const k = Math.max(1, Math.min(BLOCKS, Math.floor(xs.length / 3)));
    return Array.from({ length: BLOCKS }, (_, b) => {
      const i = b % k;
      const part = xs.slice(Math.floor((i * xs.length) / k), Math.floor(((i + 1) * xs.length) / k));
      return part.length ? part : xs;
    });
  };
  const startupBlocks = blocks(pace.startup);
  const handoffBlocks = blocks(pace.handoff);
  let block = 0;
  const draw = (b: number[][]) => {
    const xs = b[block];
    return xs[Math.floor(rand() * xs.length)] ?? 0;
  };
  // Taken at once whatever the budget: the first wave's new pods on empty nodes and replacements of unavailable old pods.
  const all = plan.waves.flatMap((w) => w.steps.map((s) => ({ ...s, wave: w.index })));
  const immediate = (s: (typeof all)[number]) => s.wave === 0 && (s.beyondBudget || s.action === 'create');
  const steps = [...all.filter(immediate), ...all.filter((s) => !immediate(s))];
  const firstWave = all.filter(immediate).length;
  const limit = Math.max(1, plan.mode === 'surge' ? plan.maxSurge : plan.maxUnavailable);
  const totals: number[] = [];
  const waveEnds: number[][] = plan.waves.map(() => []);
  const nodeSum: Record<string, number> = {};
  let completes = !plan.stalls.some((s) => s.kind === 'stall') && plan.notReached.length === 0;
  for (let run = 0; run < runs; run++) {
    const heap = new MinHeap();
    block = Math.floor(rand() * BLOCKS);
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
      const at = Math.max(0, draw(startupBlocks) - (now - (n.startedAt ?? now)));
      heap.push(at);
      finish(n.name, at);
    }
    let i = 0;
    const start = (at: number) => {
      const s = steps[i++];
      inUse++;
      if (s.stall) return; // holds its slot for good
      const done = at + draw(handoffBlocks) + (s.action === 'remove' ? 0 : draw(startupBlocks));
      heap.push(done);
      finish(s.nodeName, done, s.wave);
    };
    while (i < firstWave) start(0);
    while (i < steps.length && inUse < limit) start(0);
    while (i < steps.length && heap.size) {
      const t = heap.pop();
      inUse--;
      while (i < steps.length && inUse < limit) start(t);
    }
    if (i < steps.length) completes = false;
    totals.push(end);
    waveEnd.forEach((t, w) => waveEnds[w].push(t));
  }
  totals.sort((a, b) => a - b);
  plan.waves.forEach((w, k) => (w.endsAt = quantile(waveEnds[k].sort((a, b) => a - b), 0.5)));
  const nodeFinish: Record<string, number> = {};
  for (const [k, v] of Object.entries(nodeSum)) nodeFinish[k] = v / runs;
  return { p10: quantile(totals, 0.1), p50: quantile(totals, 0.5), p90: quantile(totals, 0.9), completes, nodeFinish, pace };
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
  if (plan.strategy === 'OnDelete') return `OnDelete: ${plan.manual.length} node${plan.manual.length === 1 ? '' : 's'} change only as their pods are deleted`;
  const nodes = plan.waves.reduce((n, w) => n + w.steps.length, 0);
  const budget = plan.mode === 'surge' ? `maxSurge ${plan.maxSurge}` : `maxUnavailable ${plan.maxUnavailable}`;
  const f = plan.forecast;
  const time = f ? `, about ${fmt(f.p50)} (${fmt(f.p10)}–${fmt(f.p90)})` : '';
  return `${plan.waves.length} wave${plan.waves.length === 1 ? '' : 's'} over ${nodes} node${nodes === 1 ? '' : 's'} under ${budget} of ${plan.desired}${time}${f && !f.completes ? ', then stalls' : ''}`;
}

// ---- from what the API serves ------------------------------------------------------

/** What a plan is made from: lists as the API serves them (any namespace; ownership is checked). */
export interface ClusterView {
  nodes: PlanNodeLike[];
  pods: PlanPodLike[];
  revisions: (RevisionLike & { metadata: RevisionLike['metadata'] & { ownerReferences?: OwnerRef[] }; data?: any })[];
  /** Other DaemonSets, for the cluster's pace when this one has none. */
  daemonSets?: PlanDaemonSetWithMeta[];
}

interface OwnerRef {
  uid?: string;
  controller?: boolean;
}

export interface PlanDaemonSetWithMeta extends PlanDaemonSetLike {
  metadata?: PlanDaemonSetLike['metadata'] & { uid?: string; namespace?: string };
  spec?: PlanDaemonSetLike['spec'] & { template?: any };
}

const controlledBy = (o: { metadata?: { ownerReferences?: OwnerRef[] } }, uid: string | undefined) => !!uid && (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid);

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

/** The samples of this DaemonSet's latest observable rollout (the newest revision with pods that became available). */
export function ownPace(ds: PlanDaemonSetWithMeta, view: Pick<ClusterView, 'pods' | 'revisions'>): { startup: number[]; handoff: number[] } | undefined {
  const pods = view.pods.filter((p) => controlledBy(p as never, ds.metadata?.uid));
  for (const r of revisionsOfDaemonSet(ds, view)) {
    const o = observePace({ pods, revision: r.object, minReadySeconds: ds.spec?.minReadySeconds, rolling: r.revision > 1 });
    if (o.startup.length) return o;
  }
  return undefined;
}

/** The pace to plan `ds` with: its own last rollout, else the other DaemonSets', else the default. */
export function paceFor(ds: PlanDaemonSetWithMeta, view: ClusterView): Pace {
  const own = ownPace(ds, view);
  let cluster: { startup: number[]; handoff: number[] } | undefined;
  if (!own || own.startup.length < 3 || own.handoff.length < 3) {
    cluster = { startup: [], handoff: [] };
    for (const other of view.daemonSets ?? []) {
      if (other.metadata?.uid === ds.metadata?.uid) continue;
      const o = ownPace(other, view);
      if (o) (cluster.startup.push(...o.startup), cluster.handoff.push(...o.handoff));
    }
  }
  return choosePace(own, cluster);
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
  let pace = current ? paceFor(current, view) : choosePace(undefined, clusterSamples(view));
  // The last rollout ran (most likely) under the strategy stored now. Hand-offs differ between the
  // modes — without surge the old pod's stop comes before the next node's pod — and that stop
  // time is not observable once the old pods are gone, so the forecast only says so.
  const surging = (d: PlanDaemonSetLike) => {
    try {
      return allowsSurge(d);
    } catch {
      return false;
    }
  };
  if (current && surging(current) !== surging(proposed) && pace.source.includes('this DaemonSet')) {
    pace = { ...pace, source: `${pace.source}; observed ${surging(current) ? 'with' : 'without'} surge, planned ${surging(proposed) ? 'with' : 'without'}: the old pods' stop time ${surging(proposed) ? 'no longer delays each node, so this may run shorter' : 'now delays each node, so this may run longer'}` };
  }
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

function clusterSamples(view: ClusterView) {
  const out = { startup: [] as number[], handoff: [] as number[] };
  for (const ds of view.daemonSets ?? []) {
    const o = ownPace(ds, view);
    if (o) (out.startup.push(...o.startup), out.handoff.push(...o.handoff));
  }
  return out;
}
