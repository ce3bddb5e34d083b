// How much of the SQLite store's history is kept. etcd under kube-apiserver
// keeps 5 to 10 minutes (a compaction every 5 minutes, to the revision seen at
// the one before), and clients count on it: a paged LIST continued minutes
// later, a list at an older revision. Counted in revisions instead (10,000),
// the history was 20 seconds at 5000 nodes, whose Lease renewals alone are 500
// revisions a second. So the store keeps what was written in the last
// `keepMs`, and never fewer than `minRevisions`, which a quiet cluster's few
// minutes would not reach.

/** The history a store keeps by default: kube-apiserver's compaction interval. */
export const HISTORY_MS = 5 * 60_000;
export const MIN_HISTORY_REVISIONS = 10_000;

export class HistoryRetention {
  /** Revisions seen, oldest first, with when. */
  private readonly seen: { at: number; revision: number }[] = [];

  constructor(
    private readonly keepMs = HISTORY_MS,
    private readonly minRevisions = MIN_HISTORY_REVISIONS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes the newest revision; returns the revision history may be compacted to (0: nothing yet). */
  compactTo(revision: number): number {
    const now = this.now();
    this.seen.push({ at: now, revision });
    // The newest revision seen at least keepMs ago: everything after it is kept.
    let old = 0;
    while (this.seen.length > 1 && now - this.seen[0].at >= this.keepMs) old = this.seen.shift()!.revision;
    return Math.max(0, Math.min(old, revision - this.minRevisions));
  }
}
