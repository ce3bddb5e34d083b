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

/** One key per record (the DaemonSet's uid, when the plan was made, a number): a write stores that record alone. */
const PREFIX = 'kube-workbench.rollout-plan.';
/** Where every record was kept, as one array: read once and moved to keys of their own. */
const OLD_KEY = 'kube-workbench.rollout-plans';
const KEEP = 20;

/** A record and the key it is stored under. */
interface Entry {
  record: PlanRecord;
  key: string;
}

/**
 * The records as last read or written, oldest first: a 5000-node plan keeps a finish time per node,
 * and the live view reads the plans every few seconds. Each with the key it is stored under.
 */
let cached: Entry[] | undefined;
if (typeof window !== 'undefined') window.addEventListener('storage', (e) => (e.key === null || e.key === OLD_KEY || e.key.startsWith(PREFIX)) && (cached = undefined));

function entries(): Entry[] {
  if (cached) return cached;
  const read: Entry[] = [];
  try {
    moveOldRecords();
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key?.startsWith(PREFIX)) continue;
      try {
        read.push({ record: decodeRecord(JSON.parse(localStorage.getItem(key) ?? 'null')), key });
      } catch {
        // A record this build cannot read is left alone.
      }
    }
  } catch {
    // Unavailable storage: plans are kept for this page only.
  }
  return (cached = read.sort((a, b) => a.record.madeAt - b.record.madeAt));
}

/** The records, oldest first: a copy of the array (callers look for their own); the records are shared. */
const readAll = (): PlanRecord[] => entries().map((e) => e.record);

let version = 0;
/** Bumped by every write here: views that keep what they read know when to read again. */
export const plansVersion = () => version;

/**
 * Stores `record`, in place of `replaced` (under its key) or as the newest under a key of its own; past KEEP, or when the
 * storage is full, the oldest other records go first. Local storage holds ~5.2 million characters
 * per origin: when every record was one array, a 5000-node DaemonSet's plan with its outcome took
 * ~600,000 of them, and past eight such the array no longer fitted and no plan was kept again.
 */
function store(record: PlanRecord, replaced?: Entry) {
  version++;
  const all = entries();
  const key = replaced?.key ?? newKey(record, all);
  const entry = { record, key };
  const at = replaced ? all.indexOf(replaced) : -1;
  if (at >= 0) all[at] = entry;
  else all.push(entry);
  const oldestOther = () => all.find((e) => e !== entry);
  while (all.length > KEEP) forget(all, oldestOther()!);
  const text = JSON.stringify(encodeRecord(record));
  for (;;) {
    try {
      localStorage.setItem(key, text);
      return;
    } catch (e) {
      // Full: the oldest other record goes, and the write is tried again. Unavailable: the page keeps them.
      const oldest = oldestOther();
      if ((e as DOMException)?.name !== 'QuotaExceededError' || !oldest) return;
      forget(all, oldest);
    }
  }
}

function forget(all: Entry[], entry: Entry) {
  const i = all.indexOf(entry);
  if (i >= 0) all.splice(i, 1);
  try {
    localStorage.removeItem(entry.key);
  } catch {
    // Unavailable storage holds nothing to remove.
  }
}

function newKey(record: PlanRecord, all: { key: string }[]) {
  const base = `${PREFIX}${record.uid}.${record.madeAt}`;
  let key = base;
  for (let n = 1; all.some((e) => e.key === key); n++) key = `${base}.${n}`;
  return key;
}

function moveOldRecords() {
  const old = localStorage.getItem(OLD_KEY);
  if (old === null) return;
  localStorage.removeItem(OLD_KEY);
  let records: PlanRecord[] = [];
  try {
    const v = JSON.parse(old);
    if (Array.isArray(v)) records = v;
  } catch {
    return;
  }
  const keys: { key: string }[] = [];
  for (const r of records.slice(-KEEP)) {
    const key = newKey(r, keys);
    keys.push({ key });
    try {
      localStorage.setItem(key, JSON.stringify(encodeRecord(r)));
    } catch {
      // What does not fit now is not kept.
    }
  }
}

/**
 * A record as stored: each node's name once (`names`), the waves' nodes, their finish and their
 * outcome by index into it, finish times in whole ms, outcome times as ms from the rollout's start:
 * a 5000-node plan with its outcome in ~200,000 characters instead of ~600,000.
 */
interface StoredRecord extends Omit<PlanRecord, 'waves' | 'nodeFinish' | 'outcome'> {
  v: 2;
  names: string[];
  waves: { nodes: number[]; endsAt?: number; stalls: number[] }[];
  finish: (number | null)[];
  outcome?: { start: number; finishedAt?: number; created: (number | null)[]; available: (number | null)[] };
}

export function encodeRecord(r: PlanRecord): StoredRecord {
  const index = new Map<string, number>();
  const at = (name: string) => {
    let i = index.get(name);
    if (i === undefined) index.set(name, (i = index.size));
    return i;
  };
  const { waves, nodeFinish, outcome, ...rest } = r;
  const storedWaves = waves.map((w) => ({ nodes: w.nodes.map(at), ...(w.endsAt !== undefined && { endsAt: w.endsAt }), stalls: w.stalls.map(at) }));
  for (const n of Object.keys(nodeFinish)) at(n);
  for (const n of Object.keys(outcome?.nodes ?? {})) at(n);
  const names = [...index.keys()];
  const stored: StoredRecord = { ...rest, v: 2, names, waves: storedWaves, finish: names.map((n) => (nodeFinish[n] === undefined ? null : Math.round(nodeFinish[n]))) };
  if (outcome) {
    const of = (n: string, t: number | undefined) => (outcome.nodes[n] === undefined || t === undefined ? null : t - outcome.start);
    stored.outcome = {
      start: outcome.start,
      ...(outcome.finishedAt !== undefined && { finishedAt: outcome.finishedAt }),
      created: names.map((n) => of(n, outcome.nodes[n]?.created)),
      available: names.map((n) => of(n, outcome.nodes[n]?.available)),
    };
  }
  return stored;
}

export function decodeRecord(s: StoredRecord): PlanRecord {
  if (s?.v !== 2 || !Array.isArray(s.names)) throw new Error('not a stored plan');
  const { v: _, names, waves, finish, outcome, ...rest } = s;
  const nodeFinish: Record<string, number> = {};
  names.forEach((n, i) => finish[i] !== null && finish[i] !== undefined && (nodeFinish[n] = finish[i]!));
  const record: PlanRecord = { ...rest, waves: waves.map((w) => ({ nodes: w.nodes.map((i) => names[i]), ...(w.endsAt !== undefined && { endsAt: w.endsAt }), stalls: w.stalls.map((i) => names[i]) })), nodeFinish };
  if (outcome) {
    const nodes: Outcome['nodes'] = {};
    names.forEach((n, i) => {
      const c = outcome.created[i];
      if (c === null || c === undefined) return;
      const a = outcome.available[i];
      nodes[n] = a === null || a === undefined ? { created: outcome.start + c } : { created: outcome.start + c, available: outcome.start + a };
    });
    record.outcome = { start: outcome.start, nodes, ...(outcome.finishedAt !== undefined && { finishedAt: outcome.finishedAt }) };
  }
  return record;
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
  const earlier = entries().find((e) => e.record.uid === record.uid && deepEqual(e.record.template, record.template));
  if (earlier && onlyIfAbsent) return;
  // The earlier plan's key goes with it: the new one is stored under a key of its own (its time), as the newest.
  if (earlier) forget(entries(), earlier);
  store(record);
}

/** Keeps what happened beside the plan. */
export function saveOutcome(uid: string, template: unknown, outcome: Outcome) {
  const entry = entries().find((e) => e.record.uid === uid && deepEqual(e.record.template, template));
  if (!entry || deepEqual(entry.record.outcome, outcome)) return;
  // A new record: the one read before (and shown) stays as it was.
  store({ ...entry.record, outcome }, entry);
}
