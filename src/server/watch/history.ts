// The watch cache's recent events, a window for each resource, as
// kube-apiserver keeps one watch cache per resource. At 5000 nodes the
// kubelets' Lease renewals alone are 500 events a second; in one window shared
// by every resource they pushed every other resource's events out within
// 20 s, so a client that took longer to list Events than that got 410 Expired
// when it went on to watch from its list's revision. The windows share one
// bound on the events kept (the memory they hold): past it, the largest
// windows give up their oldest events, so a resource that changes rarely
// keeps its events while the busy ones share the rest.
import type { CacheEvent } from './cache.ts';
import { firstNotBefore } from '../../lib/sorted.ts';

/** Events kept over every resource when not told (twice what the one shared window kept). */
export const DEFAULT_HISTORY_EVENTS = 20_000;

/** One resource's events in revision order. */
class Window {
  events: CacheEvent[] = [];
  constructor(
    /** The window holds every event of its resource after this revision. */
    public start: number,
  ) {}

  /** Lets go of the oldest events, keeping `n`. */
  keep(n: number) {
    const drop = this.events.length - n;
    if (drop <= 0) return;
    this.start = this.events[drop - 1].revision;
    this.events = this.events.slice(drop);
  }

  /** Events after `from` (not before start). */
  after(from: number): CacheEvent[] {
    const h = this.events;
    return h.slice(firstNotBefore(0, h.length, (j) => h[j].revision <= from));
  }
}

/**
 * The most each window may keep so that all of them keep at most `budget`
 * events: every window at or under it keeps all of its events, those over it
 * the same number (water-filling; `sizes` are the windows' sizes).
 */
export function fairShare(sizes: number[], budget: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    if (sorted[i] > share) return share;
    left -= sorted[i];
  }
  return sorted.at(-1) ?? 0;
}

export class WatchHistory {
  private readonly windows = new Map<string, Window>();
  private kept = 0;
  /** Every window holds the events after this revision, until it lets some go (see reset). */
  private start = 0;

  constructor(
    /** The most events kept over every resource (the server's `watchCacheSize`). */
    private readonly budget: number,
  ) {}

  /** Keeps an event of `resource` (its key's resource prefix). */
  push(resource: string, event: CacheEvent) {
    let w = this.windows.get(resource);
    if (!w) this.windows.set(resource, (w = new Window(this.start)));
    w.events.push(event);
    // Cut back an eighth past the bound, not at every event: cutting 20,000 entries at each
    // write cost more than the write (a 5000-node rollout).
    if (++this.kept > this.budget + (this.budget >> 3)) this.cut();
  }

  private cut() {
    const windows = [...this.windows.values()];
    const most = fairShare(
      windows.map((w) => w.events.length),
      this.budget,
    );
    this.kept = 0;
    for (const w of windows) {
      w.keep(most);
      this.kept += w.events.length;
    }
  }

  /** Forgets every event: the history holds the events after `revision` on. */
  reset(revision: number) {
    this.windows.clear();
    this.kept = 0;
    this.start = revision;
  }

  /** The revision after which the history of `resource` (every resource when undefined) is whole. */
  startOf(resource: string | undefined): number {
    if (resource !== undefined) return this.windows.get(resource)?.start ?? this.start;
    let start = this.start;
    for (const w of this.windows.values()) start = Math.max(start, w.start);
    return start;
  }

  /**
   * The events after `from` of `resource` (of every resource, in revision
   * order, when undefined), or undefined when the history no longer reaches
   * back to `from`.
   */
  since(from: number, resource: string | undefined): CacheEvent[] | undefined {
    if (from < this.startOf(resource)) return undefined;
    if (resource !== undefined) return this.windows.get(resource)?.after(from) ?? [];
    const all: CacheEvent[] = [];
    for (const w of this.windows.values()) for (const e of w.after(from)) all.push(e);
    return all.sort((a, b) => a.revision - b.revision);
  }
}
