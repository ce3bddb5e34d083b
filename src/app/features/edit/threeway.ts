// A 409 as three objects: what the edit began from (base), the server's
// version now (theirs) and the edit (mine). Each side's changes are the
// fields it changed against base; a field both changed to different values
// is a conflict the user settles, field by field, before the edit is rebased.
import type { KubeObject } from '../../../kinds/kind.ts';
import { deepEqual } from '../../../lib/json.ts';
import { userFields } from '../../api/writeasseen.ts';
import { getIn, k8sPath, setIn, type Segment } from '../../editors/form/draft.ts';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The paths of the smallest values that differ (a missing map counts as empty, so two new labels are two changes). */
export function changedLeaves(before: unknown, after: unknown, path: Segment[] = []): Segment[][] {
  if (deepEqual(before, after)) return [];
  const b = before === undefined && isObject(after) ? {} : before;
  const a = after === undefined && isObject(before) ? {} : after;
  if (isObject(b) && isObject(a)) {
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
    return keys.flatMap((k) => changedLeaves(b[k], a[k], [...path, k]));
  }
  if (Array.isArray(b) && Array.isArray(a) && b.length === a.length) return b.flatMap((x, i) => changedLeaves(x, a[i], [...path, i]));
  return [path];
}

export interface Conflict {
  /** The field both sides changed (`spec.template.spec.containers[0].image`). */
  field: string;
  path: Segment[];
  base: unknown;
  theirs: unknown;
  mine: unknown;
}

export interface ThreeWay {
  theirChanges: string[];
  myChanges: string[];
  conflicts: Conflict[];
}

const isPrefix = (p: Segment[], q: Segment[]) => p.length <= q.length && p.every((s, i) => s === q[i]);

export function threeWay(base: KubeObject, theirs: KubeObject, mine: KubeObject): ThreeWay {
  const [b, t, m] = [userFields(base), userFields(theirs), userFields(mine)];
  const their = changedLeaves(b, t);
  const my = changedLeaves(b, m);
  const conflicts: Conflict[] = [];
  for (const x of my) {
    for (const y of their) {
      const at = isPrefix(x, y) ? x : isPrefix(y, x) ? y : undefined;
      if (!at || deepEqual(getIn(t, at), getIn(m, at))) continue;
      if (conflicts.some((c) => isPrefix(c.path, at))) continue;
      // A wider conflict replaces the narrower ones inside it.
      for (let i = conflicts.length - 1; i >= 0; i--) if (isPrefix(at, conflicts[i].path)) conflicts.splice(i, 1);
      conflicts.push({ field: k8sPath(at), path: at, base: getIn(b, at), theirs: getIn(t, at), mine: getIn(m, at) });
    }
  }
  return { theirChanges: their.map(k8sPath), myChanges: my.map(k8sPath), conflicts };
}

/**
 * My changes replayed on their version: every field I changed that they did
 * not, and for each conflict the side chosen. The result carries their
 * resourceVersion, so the server accepts it as an edit of what it has now.
 */
export function rebase(base: KubeObject, theirs: KubeObject, mine: KubeObject, choices: Record<string, 'mine' | 'theirs'>): KubeObject {
  const { conflicts } = threeWay(base, theirs, mine);
  const [b, m] = [userFields(base), userFields(mine)];
  let out: KubeObject = theirs;
  const settled = new Set<string>();
  for (const leaf of changedLeaves(b, m)) {
    const conflict = conflicts.find((c) => isPrefix(c.path, leaf) || isPrefix(leaf, c.path));
    if (!conflict) {
      out = setIn(out, leaf, getIn(m, leaf));
      continue;
    }
    if (choices[conflict.field] !== 'mine' || settled.has(conflict.field)) continue;
    settled.add(conflict.field);
    out = setIn(out, conflict.path, getIn(m, conflict.path));
  }
  return out;
}

