// Where the plan made before a rollout is kept so the rollout can be judged
// against it: the browser's local storage, one record per DaemonSet (uid) and
// pod template. Nothing is written to the cluster: a ControllerRevision
// annotation would not be upstream's, and the pods of a past revision are
// deleted by the next rollout, so the outcome (each node's new pod created
// and available) is kept beside the plan once the rollout is seen to finish.
// Another browser, or a rollout started by kubectl, has no review plan: the
// rollout view then records the plan it makes when it first sees the rollout.
import type { KubeObject } from '../../../kinds/kind.ts';
import { deepEqual } from '../../../lib/json.ts';
import type { RolloutPlan } from '../../../lib/rolloutplan.ts';

export interface PlanRecord {
  uid: string;
  namespace?: string;
  name?: string;
  /** The pod template the plan is for. */
  template: unknown;
  madeAt: number;
  /** 'review': shown before Apply; 'first seen': made by the rollout view when no review plan was there. */
  source: 'review' | 'first seen';
  /** Budget in words: `maxUnavailable 3 of 30`. */
  budget: string;
  p10: number;
  p50: number;
  p90: number;
  completes: boolean;
  paceSource: string;
  waves: { nodes: string[]; endsAt?: number; stalls: string[] }[];
  /** Expected finish per node, ms from the rollout's start. */
  nodeFinish: Record<string, number>;
  outcome?: Outcome;
}

export interface Outcome {
  /** The rollout's start: its ControllerRevision's creation (epoch ms). */
  start: number;
  /** Per node, epoch ms its new pod was created and became available. */
  nodes: Record<string, { created: number; available?: number }>;
  finishedAt?: number;
}

const KEY = 'kube-workbench.rollout-plans';
const KEEP = 20;

/** The records as last read or written: a 5000-node plan keeps a finish time per node, and the live view reads the plans every few seconds. */
let cached: PlanRecord[] | undefined;
if (typeof window !== 'undefined') window.addEventListener('storage', (e) => e.key === KEY && (cached = undefined));

/** A copy of the array (callers change it and write it back); the records are shared. */
function readAll(): PlanRecord[] {
  if (!cached) {
    try {
      const v = JSON.parse(localStorage.getItem(KEY) ?? '[]');
      cached = Array.isArray(v) ? v : [];
    } catch {
      cached = [];
    }
  }
  return cached.slice();
}

let version = 0;
/** Bumped by every write here: views that keep what they read know when to read again. */
export const plansVersion = () => version;

function writeAll(records: PlanRecord[]) {
  version++;
  cached = records.slice(-KEEP);
  try {
    localStorage.setItem(KEY, JSON.stringify(records.slice(-KEEP)));
  } catch {
    // Full or unavailable storage: the plan is simply not kept.
  }
}

export function recordFrom(ds: KubeObject, template: unknown, plan: RolloutPlan, source: PlanRecord['source'], now: number): PlanRecord {
  const f = plan.forecast;
  return {
    uid: ds.metadata.uid ?? '',
    namespace: ds.metadata.namespace,
    name: ds.metadata.name,
    template,
    madeAt: now,
    source,
    budget: plan.mode === 'surge' ? `maxSurge ${plan.maxSurge} of ${plan.desired}` : plan.mode === 'unavailable' ? `maxUnavailable ${plan.maxUnavailable} of ${plan.desired}` : 'OnDelete',
    p10: f?.p10 ?? 0,
    p50: f?.p50 ?? 0,
    p90: f?.p90 ?? 0,
    completes: f?.completes ?? false,
    paceSource: f?.pace.source ?? '',
    waves: plan.waves.map((w) => ({ nodes: w.steps.map((s) => s.nodeName), endsAt: w.endsAt, stalls: w.steps.filter((s) => s.stall).map((s) => s.nodeName) })),
    nodeFinish: f?.nodeFinish ?? {},
  };
}

/** The plan kept for this DaemonSet's template, if any. */
export function findPlan(uid: string | undefined, template: unknown): PlanRecord | undefined {
  if (!uid) return undefined;
  return readAll().findLast((r) => r.uid === uid && deepEqual(r.template, template));
}

/** Every plan kept for this DaemonSet, newest first. */
export function plansOf(uid: string | undefined): PlanRecord[] {
  return readAll()
    .filter((r) => r.uid === uid)
    .reverse();
}

/** Keeps a plan, replacing an earlier one for the same template unless `onlyIfAbsent`. */
export function savePlan(record: PlanRecord, onlyIfAbsent = false) {
  const all = readAll();
  const i = all.findIndex((r) => r.uid === record.uid && deepEqual(r.template, record.template));
  if (i >= 0) {
    if (onlyIfAbsent) return;
    all.splice(i, 1);
  }
  all.push(record);
  writeAll(all);
}

/** Keeps what happened beside the plan. */
export function saveOutcome(uid: string, template: unknown, outcome: Outcome) {
  const all = readAll();
  const i = all.findIndex((x) => x.uid === uid && deepEqual(x.template, template));
  if (i < 0 || deepEqual(all[i].outcome, outcome)) return;
  // A new record: the one read before (and shown) stays as it was.
  all[i] = { ...all[i], outcome };
  writeAll(all);
}
