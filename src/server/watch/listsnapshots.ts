// The key-ordered lists a paged LIST was cut from, kept while their client
// pages through them. A continue token names the revision of the list's first
// page; once the cache has moved on (at 5000 nodes the Lease renewals alone
// are 500 writes a second), a later page at that revision had to be read from
// the store's history, a query per page slower the larger the list (50,000
// pods: ~0.4 s a page, `kubectl get pods -A` 50 s), and a client slower than
// the kept history got 410 Expired. kube-apiserver answers such pages from its
// watch cache's snapshots (ListFromCacheSnapshot); so does this: the cache's
// list of a prefix is never changed in place (a write makes a new one), so the
// one a first page was cut from is the list at that revision, for the pages
// after it. A snapshot is dropped once unused for SNAPSHOT_IDLE_MS, and at
// most MAX_SNAPSHOTS are kept (the objects they alone hold are old versions);
// a page whose snapshot is gone is read from the store, as before.
import type { CachedObject } from './cache.ts';

/** A client that took longer than this for its next page has given up, or will be served from the store. */
const SNAPSHOT_IDLE_MS = 75_000;
const MAX_SNAPSHOTS = 8;

interface Snapshot {
  items: CachedObject[];
  usedAt: number;
}

export class ListSnapshots {
  private readonly kept = new Map<string, Snapshot>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps the list of `prefix` at `revision` for the pages after the first. */
  keep(prefix: string, revision: number, items: CachedObject[]) {
    const key = `${revision}\x00${prefix}`;
    this.kept.delete(key);
    this.kept.set(key, { items, usedAt: this.now() });
    this.expire();
    while (this.kept.size > MAX_SNAPSHOTS) this.kept.delete(this.kept.keys().next().value!);
  }

  /** The list of `prefix` at `revision`, when it is still kept. */
  at(prefix: string, revision: number): CachedObject[] | undefined {
    this.expire();
    const key = `${revision}\x00${prefix}`;
    const s = this.kept.get(key);
    if (!s) return undefined;
    // Most recently used last: the oldest unused goes first when there are too many.
    this.kept.delete(key);
    this.kept.set(key, s);
    s.usedAt = this.now();
    return s.items;
  }

  get size() {
    return this.kept.size;
  }

  private expire() {
    const now = this.now();
    for (const [key, s] of this.kept) if (now - s.usedAt > SNAPSHOT_IDLE_MS) this.kept.delete(key);
  }
}
