// Where a write's time goes in the SQLite store's group commit, for the
// cluster bench (bench/cluster-server.ts turns it on and prints it): off by
// default, when it costs one test per group. Times in ms, in 0.1 ms buckets
// (constant memory however long a bench runs).

import { Histogram } from '../histogram.ts';

/** In 0.1 ms buckets up to 2 s. */
const histogram = () => new Histogram(20_000, 0.1);

/**
 * The phases of a write, each from the end of the one before: asked for -> its
 * group sent to the writer thread (queued), -> answered, committed and synced,
 * and the groups before it settled (writer), -> its events delivered (deliver),
 * -> settled (held: until its listeners' writes settled).
 */
const PHASES = ['queued', 'writer', 'deliver', 'held', 'total'] as const;
type Phase = (typeof PHASES)[number];

let on = false;
let started = 0;
let phases: Record<Phase, Histogram>;
let groups: Histogram;
/** Within `writer`: the thread's transaction, and from its end until the fsync covering it ended. */
let writerCommit: Histogram;
let writerSync: Histogram;
let heldGroups = 0;
/** How long the cache took from a batch's arrival to its last event applied. */
let cacheLag: Histogram;

export function resetCommitStats(enable = true) {
  on = enable;
  started = performance.now();
  phases = Object.fromEntries(PHASES.map((p) => [p, histogram()])) as Record<Phase, Histogram>;
  groups = histogram();
  writerCommit = histogram();
  writerSync = histogram();
  heldGroups = 0;
  cacheLag = histogram();
}
resetCommitStats(false);

export const commitStatsOn = () => on;

/** One group's writes: when each was asked for, and when the group reached each phase's end. */
export function recordGroup(
  asked: number[],
  t: { start: number; answered: number; delivered: number },
  settled: number,
  held: boolean,
  writer?: { commit: number; sync: number },
) {
  if (!on) return;
  groups.add(asked.length);
  if (writer) {
    writerCommit.add(writer.commit, asked.length);
    writerSync.add(writer.sync, asked.length);
  }
  if (held) heldGroups++;
  const n = asked.length;
  for (const a of asked) {
    // Not counted when asked for: before the stats were reset.
    if (a <= 0) continue;
    phases.queued.add(t.start - a);
    phases.total.add(settled - a);
  }
  phases.writer.add(t.answered - t.start, n);
  phases.deliver.add(t.delivered - t.answered, n);
  phases.held.add(settled - t.delivered, n);
}

export function recordCacheLag(ms: number) {
  if (on) cacheLag.add(ms);
}

export function commitStats() {
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds: Math.round(seconds * 10) / 10,
    groupsPerSecond: Math.round((groups.summary().n / seconds) * 10) / 10,
    groupSize: groups.summary(),
    heldGroups,
    ...Object.fromEntries(PHASES.map((p) => [p, phases[p].summary()])),
    writerCommit: writerCommit.summary(),
    writerSync: writerSync.summary(),
    cacheLag: cacheLag.summary(),
  };
}
