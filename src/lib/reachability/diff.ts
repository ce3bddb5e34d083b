// What an edit changes: two matrices (before and after, same port and
// protocol) compared pair by pair over the pods present in both. Answers are
// bitsets, so a deny-all over 5000 pods (25 million newly denied pairs) stays
// a few megabytes; diffPairs lists the first ones for display.
import { podKey } from './model.ts';
import type { MatrixDiff, PodRef, ReachabilityMatrix } from './types.ts';

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const compareRefs = (a: PodRef, b: PodRef) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function diffMatrices(before: ReachabilityMatrix, after: ReachabilityMatrix): MatrixDiff {
  if (before.port !== after.port || before.protocol !== after.protocol) {
    throw new Error(`cannot compare ${before.protocol} ${before.port} with ${after.protocol} ${after.port}`);
  }
  const beforeIndex = new Map(before.pods.map((p, i) => [podKey(p), i]));
  const afterIndex = new Map(after.pods.map((p, i) => [podKey(p), i]));
  const pods = before.pods.filter((p) => afterIndex.has(podKey(p))).sort(compareRefs);
  const addedPods = after.pods.filter((p) => !beforeIndex.has(podKey(p)));
  const removedPods = before.pods.filter((p) => !afterIndex.has(podKey(p)));
  const n = pods.length;
  const rowWords = (n + 31) >>> 5;
  const newlyAllowed = new Uint32Array(n * rowWords);
  const newlyDenied = new Uint32Array(n * rowWords);
  let newlyAllowedCount = 0;
  let newlyDeniedCount = 0;
  const bi = Int32Array.from(pods, (p) => beforeIndex.get(podKey(p))!);
  const ai = Int32Array.from(pods, (p) => afterIndex.get(podKey(p))!);
  // Same pods in the same order (the usual what-if): compare whole words.
  const aligned = n === before.pods.length && n === after.pods.length && bi.every((x, i) => x === i) && ai.every((x, i) => x === i);
  for (let i = 0; i < n; i++) {
    const bRow = bi[i] * before.rowWords;
    const aRow = ai[i] * after.rowWords;
    const out = i * rowWords;
    if (aligned) {
      for (let w = 0; w < rowWords; w++) {
        const b = before.bits[bRow + w];
        const a = after.bits[aRow + w];
        const plus = (a & ~b) >>> 0;
        const minus = (b & ~a) >>> 0;
        if (plus) {
          newlyAllowed[out + w] = plus;
          newlyAllowedCount += popcount(plus);
        }
        if (minus) {
          newlyDenied[out + w] = minus;
          newlyDeniedCount += popcount(minus);
        }
      }
      continue;
    }
    for (let j = 0; j < n; j++) {
      const b = (before.bits[bRow + (bi[j] >>> 5)] >>> (bi[j] & 31)) & 1;
      const a = (after.bits[aRow + (ai[j] >>> 5)] >>> (ai[j] & 31)) & 1;
      if (a === b) continue;
      if (a) {
        newlyAllowed[out + (j >>> 5)] |= 1 << (j & 31);
        newlyAllowedCount++;
      } else {
        newlyDenied[out + (j >>> 5)] |= 1 << (j & 31);
        newlyDeniedCount++;
      }
    }
  }
  return { port: after.port, protocol: after.protocol, pods, rowWords, newlyAllowed, newlyDenied, newlyAllowedCount, newlyDeniedCount, addedPods, removedPods };
}

/** The first `limit` pairs of one side of a diff, in row order. */
export function diffPairs(diff: MatrixDiff, which: 'newlyAllowed' | 'newlyDenied', limit = 1000): { from: PodRef; to: PodRef }[] {
  const bits = diff[which];
  const out: { from: PodRef; to: PodRef }[] = [];
  const n = diff.pods.length;
  for (let i = 0; i < n && out.length < limit; i++) {
    for (let w = 0; w < diff.rowWords && out.length < limit; w++) {
      let x = bits[i * diff.rowWords + w];
      while (x !== 0 && out.length < limit) {
        const low = x & -x;
        out.push({ from: diff.pods[i], to: diff.pods[(w << 5) + 31 - Math.clz32(low)] });
        x ^= low;
      }
    }
  }
  return out;
}
