// What applying an edit does to running pods, said before Apply: a kind
// whose controller runs pods from a template (KindDefinition.rollout) rolls
// out new pods when, and only when, the template changes.
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';
import { deepEqual } from '../../../lib/json.ts';
import { plural } from '../../../lib/words.ts';
import { changedPaths, getIn, k8sPath } from '../../editors/form/draft.ts';

export interface Impact {
  rollsOut: boolean;
  /** One sentence for the review. */
  summary: string;
  /** The template fields that changed (`spec.template.spec.containers[0].image`). */
  fields: string[];
}


/** Compares the stored object with the server's dry-run answer (both defaulted, so defaults alone never count as a change). */
export function rolloutImpact(kind: KindDefinition, stored: KubeObject | undefined, proposed: KubeObject): Impact | undefined {
  const rollout = kind.rollout;
  if (!rollout || !stored) return undefined;
  const before = getIn(stored, rollout.template);
  const after = getIn(proposed, rollout.template);
  const where = k8sPath(rollout.template);
  if (deepEqual(before, after)) return { rollsOut: false, summary: `Pods are not replaced: the pod template (${where}) is unchanged.`, fields: [] };
  const fields = changedPaths(before, after, [...rollout.template]);
  const { count, per } = rollout.pods(proposed);
  const summary = rollout.automatic(proposed)
    ? `This change rolls out new pods on ${plural(count, per)}: the pod template (${where}) changed, so every pod is replaced as the update strategy allows.`
    : `This change makes a new revision of the pod template (${where}); the update strategy replaces the pods on ${plural(count, per)} only as they are deleted.`;
  return { rollsOut: true, summary, fields };
}
