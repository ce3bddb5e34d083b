// Searches in sorted arrays.

/**
 * The first index in [from, to) whose element is not `before` the sought
 * place, where `before(i)` holds for a prefix of the range and not after it
 * (a lower bound by binary search); `to` when it holds throughout.
 */
export function firstNotBefore(from: number, to: number, before: (i: number) => boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
