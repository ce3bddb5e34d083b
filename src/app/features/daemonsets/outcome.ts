// What a rollout did: each node's new pod, when it was made and when it became
// available, set against the plan (RolloutForecast.tsx's PlanVsActual) and kept
// with it once the rollout ends (planstore.ts).
import type { KubeObject } from '../../../kinds/kind.ts';
import { ControllerRevisionHashLabel } from '../../../lib/rollout.ts';
import { podAvailableTime } from '../../../lib/rolloutplan.ts';
import type { Outcome } from './planstore.ts';

/** What outcomeOf reads of a pod. */
interface PodFacts {
  /** The uid of its controller. */
  owner?: string;
  hash?: string;
  deleting: boolean;
  node?: string;
  /** Epoch ms; NaN when unknown. */
  created: number;
  minReady: number;
  available?: number;
}

/**
 * By pod object: the watch replaces a pod when it changes, so each is read once instead of on each
 * look (a look at 5000 pods, a date parsed and the conditions read for each, was ~25 ms on a loaded
 * machine, and the live plan view looks again about fifty times in a rollout).
 */
const podFacts = new WeakMap<KubeObject, PodFacts>();

function factsOf(p: KubeObject, minReady: number): PodFacts {
  let f = podFacts.get(p);
  if (!f || f.minReady !== minReady) {
    f = {
      owner: p.metadata.ownerReferences?.find((r) => r.controller)?.uid,
      hash: p.metadata.labels?.[ControllerRevisionHashLabel],
      deleting: !!p.metadata.deletionTimestamp,
      node: (p.spec as any)?.nodeName,
      created: Date.parse(p.metadata.creationTimestamp ?? ''),
      minReady,
      available: podAvailableTime(p as never, minReady),
    };
    podFacts.set(p, f);
  }
  return f;
}

/** What happened: each node's new pod created and available (epoch ms), for the pods of `hash`. */
export function outcomeOf(ds: KubeObject, pods: KubeObject[], hash: string, start: number): Outcome {
  const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
  const nodes: Outcome['nodes'] = {};
  let finishedAt: number | undefined;
  for (const p of pods) {
    const f = factsOf(p, minReady);
    if (f.owner === undefined || f.owner !== ds.metadata.uid || f.hash !== hash || f.deleting || !f.node) continue;
    nodes[f.node] = { created: f.created || start, available: f.available };
    if (f.available !== undefined) finishedAt = Math.max(finishedAt ?? 0, f.available);
  }
  return { start, nodes, finishedAt };
}
