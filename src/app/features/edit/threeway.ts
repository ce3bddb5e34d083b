// A 409 as three objects: what the edit began from (base), the server's
// version now (theirs) and the edit (mine). Each side's changes are the
// fields it changed against base; a field both changed to different values
// is a conflict the user settles, field by field, before the edit is rebased.
import type { KubeObject } from '../../../kinds/kind.ts';
import { deepEqual } from '../../../lib/json.ts';
import { KubeError } from '../../api/client.ts';
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

/** What neither side edits: the server's bookkeeping of every write, and status. */
const bookkeeping = (o: KubeObject) => {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = o.metadata ?? {};
  const { status: _s, ...rest } = o;
  return { ...rest, metadata };
};

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
  const [b, t, m] = [bookkeeping(base), bookkeeping(theirs), bookkeeping(mine)];
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
  const [b, m] = [bookkeeping(base), bookkeeping(mine)];
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

/** What a user edits of an object: all but its status and the server's bookkeeping. */
export function userFields(o: KubeObject) {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
  const { status: _status, ...rest } = o;
  return { ...rest, metadata };
}

/**
 * Sends a write carrying the resourceVersion the edit began from. A 409
 * caused only by writes to what the user does not edit (status, by
 * controllers and node agents) is not a conflict: the write is sent again on
 * the server's version (`moved` is told of it). Controllers write status in
 * bursts (a new DaemonSet's pods coming up node by node), faster than a
 * read and a write go round, so after the first resend each waits a little
 * longer (0.1 s, doubling, at most 1 s) for the burst to pass; this goes on
 * for up to `tries` sends (about 3.5 s in all by default); any other change
 * is the caller's conflict.
 */
export async function writePastStatusMoves<T>(
  base: KubeObject,
  write: (resourceVersion: string | undefined) => Promise<T>,
  read: () => Promise<KubeObject>,
  moved: (theirs: KubeObject) => void,
  tries = 8,
  pause = (resent: number) => (resent <= 1 ? 0 : Math.min(100 * 2 ** (resent - 2), 1000)),
): Promise<T> {
  const mine = userFields(base);
  let resourceVersion = base.metadata.resourceVersion;
  for (let sent = 1; ; sent++) {
    try {
      return await write(resourceVersion);
    } catch (e) {
      if (!(e instanceof KubeError && e.code === 409) || sent >= tries) throw e;
      const wait = pause(sent);
      if (wait) await new Promise((done) => setTimeout(done, wait));
      const theirs = await read();
      if (!deepEqual(mine, userFields(theirs))) throw e;
      moved(theirs);
      resourceVersion = theirs.metadata.resourceVersion;
    }
  }
}
