// What an edit changes: two matrices (before and after, same port and
// protocol) compared over the pods present in both, through their classes:
// pods of one class before and one class after (a joint class) change
// alike, so the work and the answer follow joint classes squared, plus the
// own-node pairs, not pods squared (60,000 pods: 3.6 billion pairs). diffPairs
// lists the first changed pairs for display.
import { podKey } from './model.ts';
import { matrixClassAllowed, type MatrixDiff, type PodRef, type ReachabilityMatrix } from './types.ts';

const compareRefs = (a: PodRef, b: PodRef) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The pods of two matrices lined up, and their joint classes: the same for every port of two analyses. */
interface Joint {
  pods: PodRef[];
  addedPods: PodRef[];
  removedPods: PodRef[];
  /** Each matrix's pod index -> the common pods' index, or -1. */
  beforeAt: Int32Array;
  afterAt: Int32Array;
  joint: Int32Array;
  members: number[][];
  /** Each joint class's class before and after. */
  sides: [number, number][];
}

/** By the matrices' own pods and classes (an engine's matrices share them): a what-if of nine ports lines 60,000 pods up once. */
const joints = new WeakMap<Int32Array, WeakMap<Int32Array, Joint>>();

function jointOf(before: ReachabilityMatrix, after: ReachabilityMatrix): Joint {
  let byAfter = joints.get(before.podClass);
  if (!byAfter) joints.set(before.podClass, (byAfter = new WeakMap()));
  let j = byAfter.get(after.podClass);
  if (!j) byAfter.set(after.podClass, (j = lineUp(before, after)));
  return j;
}

function lineUp(before: ReachabilityMatrix, after: ReachabilityMatrix): Joint {
  const beforeIndex = new Map(before.pods.map((p, i) => [podKey(p), i]));
  const afterIndex = new Map(after.pods.map((p, i) => [podKey(p), i]));
  const pods = before.pods.filter((p) => afterIndex.has(podKey(p))).sort(compareRefs);
  const addedPods = after.pods.filter((p) => !beforeIndex.has(podKey(p)));
  const removedPods = before.pods.filter((p) => !afterIndex.has(podKey(p)));
  const beforeAt = new Int32Array(before.pods.length).fill(-1);
  const afterAt = new Int32Array(after.pods.length).fill(-1);
  // Joint classes: the class before and the class after of each pod.
  const ids = new Map<number, number>();
  const joint = new Int32Array(pods.length);
  const members: number[][] = [];
  const sides: [number, number][] = [];
  pods.forEach((p, k) => {
    const bi = beforeIndex.get(podKey(p))!;
    const ai = afterIndex.get(podKey(p))!;
    beforeAt[bi] = k;
    afterAt[ai] = k;
    const b = before.podClass[bi];
    const a = after.podClass[ai];
    const key = b * after.classCount + a;
    let x = ids.get(key);
    if (x === undefined) ids.set(key, (x = members.push([]) - 1)), sides.push([b, a]);
    members[x].push(k);
    joint[k] = x;
  });
  return { pods, addedPods, removedPods, beforeAt, afterAt, joint, members, sides };
}

export function diffMatrices(before: ReachabilityMatrix, after: ReachabilityMatrix): MatrixDiff {
  if (before.port !== after.port || before.protocol !== after.protocol) {
    throw new Error(`cannot compare ${before.protocol} ${before.port} with ${after.protocol} ${after.port}`);
  }
  const { pods, addedPods, removedPods, beforeAt, afterAt, joint, members, sides } = jointOf(before, after);
  const n = pods.length;
  const J = members.length;
  const cells = new Int8Array(J * J);
  let newlyAllowedCount = 0;
  let newlyDeniedCount = 0;
  for (let x = 0; x < J; x++) {
    for (let y = 0; y < J; y++) {
      const was = matrixClassAllowed(before, sides[x][0], sides[y][0]);
      const is = matrixClassAllowed(after, sides[x][1], sides[y][1]);
      if (was === is) continue;
      cells[x * J + y] = is ? 1 : -1;
      if (is) newlyAllowedCount += members[x].length * members[y].length;
      else newlyDeniedCount += members[x].length * members[y].length;
    }
  }
  // The own-node pairs (allowed where their classes are not), in the common pods' numbering.
  const common = (m: ReachabilityMatrix, at: Int32Array) => {
    const out = new Set<number>();
    for (const key of m.ownNode) {
      const i = Math.floor(key / m.pods.length);
      const k = at[i];
      const l = at[key - i * m.pods.length];
      if (k >= 0 && l >= 0) out.add(k * n + l);
    }
    return out;
  };
  const ownBefore = common(before, beforeAt);
  const ownAfter = common(after, afterAt);
  const cell = (key: number) => cells[joint[Math.floor(key / n)] * J + joint[key % n]];
  // A pair allowed before by its own node is not newly allowed, nor one allowed after newly denied;
  // where the classes agree (both deny), the own-node pairs alone change.
  for (const key of ownBefore) {
    if (cell(key) === 1) newlyAllowedCount--;
    else if (cell(key) === 0 && !ownAfter.has(key)) newlyDeniedCount++;
  }
  for (const key of ownAfter) {
    if (cell(key) === -1) newlyDeniedCount--;
    else if (cell(key) === 0 && !ownBefore.has(key)) newlyAllowedCount++;
  }
  return { port: after.port, protocol: after.protocol, pods, joint, members, cells, ownBefore, ownAfter, newlyAllowedCount, newlyDeniedCount, addedPods, removedPods };
}

/** The first `limit` pairs of one side of a diff, in row order. */
export function diffPairs(diff: MatrixDiff, which: 'newlyAllowed' | 'newlyDenied', limit = 1000): { from: PodRef; to: PodRef }[] {
  const want = which === 'newlyAllowed' ? 1 : -1;
  const n = diff.pods.length;
  const J = diff.members.length;
  // A pair of a changed cell that its own node kept allowed (before, for newly allowed; after, for newly denied).
  const kept = want === 1 ? diff.ownBefore : diff.ownAfter;
  const other = want === 1 ? diff.ownAfter : diff.ownBefore;
  // The cells of each row class that changed this way, and the own-node pairs that change alone, by row.
  const columns = Array.from({ length: J }, (_, x) => Array.from({ length: J }, (_, y) => y).filter((y) => diff.cells[x * J + y] === want));
  const alone = new Map<number, number[]>();
  for (const key of other) {
    const i = Math.floor(key / n);
    if (diff.cells[diff.joint[i] * J + diff.joint[key - i * n]] === 0 && !kept.has(key)) alone.get(i)?.push(key - i * n) ?? alone.set(i, [key - i * n]);
  }
  const out: { from: PodRef; to: PodRef }[] = [];
  for (let i = 0; i < n && out.length < limit; i++) {
    const to = columns[diff.joint[i]].flatMap((y) => diff.members[y]).concat(alone.get(i) ?? []);
    if (!to.length) continue;
    to.sort((a, b) => a - b);
    for (const j of to) {
      if (out.length === limit) break;
      if (!kept.has(i * n + j)) out.push({ from: diff.pods[i], to: diff.pods[j] });
    }
  }
  return out;
}
