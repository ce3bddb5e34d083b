// The one storage interface. SQLite (embedded default, sqlite.ts) and etcd v3
// (several API server replicas, etcd.ts) implement it; the registry and the
// watch cache know nothing else about where objects live.
//
// Keys are strings like `/registry/apps/daemonsets/<namespace>/<name>`; values
// are the object's JSON without `metadata.resourceVersion`, which is the
// store's modification revision and is filled in on the way out.

export interface StoredObject {
  key: string;
  value: string;
  /** The revision that last wrote this key: the object's resourceVersion. */
  modRevision: number;
  /** The revision that created this incarnation of the key. */
  createRevision: number;
}

export interface StorageEvent {
  type: 'create' | 'update' | 'delete';
  key: string;
  /** The new value; for a delete, the last value before deletion. */
  value: string;
  /** The value before this event, for update and delete. */
  prevValue?: string;
  /** The revision of this event. */
  revision: number;
}

export interface ListOptions {
  /** Read at this revision (0 or absent: latest). Older than the compacted revision -> Expired. */
  revision?: number;
  /** First key to return (inclusive), for paging. */
  startKey?: string;
  /** At most this many items (0 or absent: all). */
  limit?: number;
  /** The caller reads on from here and needs no `remaining`: left 0 where counting costs a walk of the keys (SQLite). */
  uncounted?: boolean;
}

export interface EventsOptions {
  /** Only the events of keys under this prefix. */
  prefix?: string;
  /** Read at most this many revisions on from the one asked for (0 or absent: up to the newest). */
  revisions?: number;
}

export interface EventsPage {
  events: StorageEvent[];
  /** The events are complete through this revision. */
  revision: number;
  /** Newer revisions exist: read on from `revision`. */
  more: boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the list was read at. */
  revision: number;
  /** More items exist after the last one returned. */
  more: boolean;
  /** How many items remain after this page (when `more`). */
  remaining: number;
}

/** The largest key plus value a write may store: etcd's default request limit (1.5 MiB). */
export const MAX_OBJECT_BYTES = 1572864;

/**
 * Timeout: the store did not answer within its deadline (the write may or may not have happened);
 * Unavailable: the store cannot be reached or has no quorum. Both are the server's trouble, not the client's.
 */
export type StorageErrorCode = 'AlreadyExists' | 'Conflict' | 'NotFound' | 'Expired' | 'TooLarge' | 'Timeout' | 'Unavailable';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    /** For Conflict/NotFound: the current object, when known. */
    readonly current?: StoredObject,
  ) {
    super(message);
  }
}

/** What a subscriber is told besides its events (Storage.subscribe). */
export interface SubscriberHooks {
  lost?(): void;
  progress?(revision: number): void;
}

export interface Storage {
  /**
   * Other processes write to it too (etcd with several replicas): a read of
   * the latest state must first bring this process's cache up to date.
   */
  readonly shared?: boolean;
  /** The newest revision written (0 for an empty store). */
  currentRevision(): Promise<number>;
  /** Revisions at or below this one are gone; reading or watching from them gives Expired. */
  compactedRevision(): Promise<number>;

  get(key: string): Promise<StoredObject | undefined>;
  /** Keys under `prefix`, in key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;

  /** Fails with AlreadyExists when the key exists. Returns the new revision. */
  create(key: string, value: string): Promise<number>;
  /** Fails with NotFound, or Conflict when the stored modRevision differs. */
  update(key: string, value: string, expectedModRevision: number): Promise<number>;
  /** Fails with NotFound, or Conflict when the stored modRevision differs. Returns the deletion revision. */
  delete(key: string, expectedModRevision: number): Promise<number>;

  /**
   * The events after `revision`, in order, through the revision the page ends at; Expired when
   * `revision` is older than the compacted one. A page of `revisions` keeps a reader of a long
   * history to a bounded read at a time.
   */
  eventsSince(revision: number, opts?: EventsOptions): Promise<EventsPage>;
  /**
   * Live events, in revision order, delivered after they are durable. Returns an unsubscribe function.
   * `lost`: events were lost (etcd compacted them while this replica's watch was cut off); the
   * subscriber must read the current state again. Live events go on from after the loss.
   * `progress`: every event through `revision` has been delivered, though that revision was none
   * of the subscriber's (etcd: a write outside the prefix).
   */
  subscribe(listener: (events: StorageEvent[]) => void, also?: SubscriberHooks): () => void;

  /** Forget history at or below `revision` (the latest value of each live key is always kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
