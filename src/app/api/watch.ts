// One shared watch per list query. A list (React Query) gives the starting
// resourceVersion; the watch then applies ADDED/MODIFIED/DELETED to the cached
// list once per animation frame, keyed by uid; it resumes from the last
// resourceVersion (BOOKMARKs move it on), re-lists on 410 Expired, reconnects
// with backoff, and stops a little after the last observer leaves.
// Every watch flushes in the one frame flush below, its cache updates one
// React Query batch: a page of pods, nodes, events and a DaemonSet hears of a
// frame's changes together. Alone, each list had its own 50 ms timer in a
// hidden tab (a render per list), and events that came just before the tab
// hid waited for a frame that came only when it showed again.
// A flush costs the events it applies, not the list: the items are an array
// copied (a memcpy) and changed in place by position, and the new state says
// what changed, so that views update what they derived instead of deriving it
// again. At 50,000 pods a flush that rebuilt a Map of every item, and views
// that went over every item, held the main thread ~25 ms per frame.
import { defaultScheduler, notifyManager, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { apiBase, isRefusal, KubeError, kindPath, selecting, send, type Connection, type KubeStatus, type Selection } from './client.ts';
import { jsonBatches } from '../../lib/ndjson.ts';
import { openSocket } from './wire.ts';
import { dropManagedFields } from './unmanaged.ts';
import { idleTime, type IdleTime } from './idletime.ts';

export interface ListState {
  /** The objects, in no particular order (one per uid). A new array each time the list changes, so React sees the change. */
  items: readonly KubeObject[];
  resourceVersion: string;
  /** Only the first pages of a list being read: shown, but not watched from until complete. */
  partial?: boolean;
  /** How `items` differs from the items of the state before it. */
  change?: ListChange;
  /** How many objects the server holds, when known: while a list is read in pages, and always for a list kept to its newest (Newest). */
  total?: number;
  /** Only while a list is read in pages (a part of it): how many of its objects have been read so far (those let go included). */
  read?: number;
}

/**
 * A list kept to the newest `max` of its objects by `at`, the rest let go as it is read and as the
 * watch adds more: the Events page's, as a cluster may hold 400,000 events (ten DaemonSets
 * rolled out on 5000 nodes, kept for the hour events live), which no tab could hold.
 */
export interface Newest {
  max: number;
  at(o: KubeObject): number;
}

/** A kept list grows to this many times its `max` before the oldest are let go (a sort each time). */
const NEWEST_SLACK = 1.25;

/** `items` trimmed to the newest `max` (the same array when within `slack` times that), in their order; `dropped` hears the index of each let go. */
export function keepNewest(items: readonly KubeObject[], newest: Newest, slack = NEWEST_SLACK, dropped?: (index: number) => void): readonly KubeObject[] {
  const n = items.length;
  if (n <= newest.max * slack) return items;
  // Plain loops: Float64Array.from with a mapping function, and filters with closures, took the
  // Events page's trims 1.5 s of main thread while 228,000 events loaded (42 trims of 25,000).
  const at = new Float64Array(n);
  for (let i = 0; i < n; i++) at[i] = newest.at(items[i]);
  const cutoff = at.slice().sort()[n - newest.max];
  // Those newer than the cutoff, then those at it until there are `max`.
  let room = newest.max;
  for (let i = 0; i < n; i++) if (at[i] > cutoff) room--;
  const kept: KubeObject[] = [];
  for (let i = 0; i < n; i++) {
    if (at[i] > cutoff || (at[i] === cutoff && room-- > 0)) kept.push(items[i]);
    else dropped?.(i);
  }
  return kept;
}

/** `from` with `removed` taken out and `added` put in gives the new items (a replaced object is in both). */
export interface ListChange {
  from: readonly KubeObject[];
  removed: KubeObject[];
  added: KubeObject[];
}

export const uidOf = (o: KubeObject) => o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** Items indexed per idle step ahead of a list's first change (~1.5 ms for 2,000 on a quiet core). */
const PREPARE_PART = 2_000;

/**
 * Items with their positions by uid, so that replacing, adding or removing a
 * few costs those few and one copy of the array. Removing moves the last item
 * into the hole, hence "no particular order".
 */
export class IndexedItems {
  items: readonly KubeObject[] = [];
  private at = new Map<string, number>();
  /** An index being made ahead (prepare): the items, their index so far, and the next to index. */
  private preparing: { items: readonly KubeObject[]; at: Map<string, number>; next: number } | undefined;

  /** Starts over from these items (a new list); an index of them being made ahead is finished, not begun again. */
  reset(items: readonly KubeObject[]) {
    const ahead = this.preparing?.items === items ? this.preparing : { items, at: new Map<string, number>(), next: 0 };
    this.preparing = undefined;
    for (let i = ahead.next; i < items.length; i++) ahead.at.set(uidOf(items[i]), i);
    this.items = items;
    this.at = ahead.at;
  }

  /**
   * Indexes `items` ahead of their first change, a part at a time in idle time: made in the frame of
   * the first change, a list of 60,000 pods took that frame 35 ms more than the next ones. Given up
   * when the index is reset to other items or changed meanwhile (or another is made ahead).
   */
  async prepare(items: readonly KubeObject[], idle: IdleTime, part = PREPARE_PART) {
    if (this.items === items || this.preparing?.items === items) return;
    const p = (this.preparing = { items, at: new Map<string, number>(), next: 0 });
    while (p.next < items.length) {
      await idle.room();
      if (this.preparing !== p) return;
      const t0 = performance.now();
      for (const end = Math.min(items.length, p.next + part); p.next < end; p.next++) p.at.set(uidOf(items[p.next]), p.next);
      idle.took(performance.now() - t0);
    }
    this.reset(items);
  }

  has(uid: string): boolean {
    return this.at.has(uid);
  }

  /** Sets each uid to its object (undefined: removes it), in a copy of the items; undefined when nothing changed. */
  apply(updates: Map<string, KubeObject | undefined>): ListChange | undefined {
    const from = this.items;
    let items: KubeObject[] | undefined;
    const removed: KubeObject[] = [];
    const added: KubeObject[] = [];
    for (const [uid, next] of updates) {
      const i = this.at.get(uid);
      const prev = i === undefined ? undefined : (items ?? from)[i];
      if (prev === next) continue;
      items ??= from.slice();
      if (prev) removed.push(prev);
      if (next) {
        added.push(next);
        if (i === undefined) this.at.set(uid, items.push(next) - 1);
        else items[i] = next;
      } else {
        const last = items.pop()!;
        if (i! < items.length) {
          items[i!] = last;
          this.at.set(uidOf(last), i!);
        }
        this.at.delete(uid);
      }
    }
    if (!items) return undefined;
    this.preparing = undefined;
    this.items = items;
    return { from, removed, added };
  }
}

export type WatchHealth = 'live' | 'connecting' | 'reconnecting' | 'offline';

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & Partial<KubeStatus>;
}

/** Where the transport ends up: events (a batch at a time, in order), or the end of the stream (with the reason). */
interface StreamHandlers {
  onOpen(): void;
  onEvents(events: WatchEvent[]): void;
  onClose(error?: unknown): void;
}

interface Stream {
  close(): void;
}

const wsSupport = new Map<string, boolean>();

/** Any protocol name serves for a watch; this one only says what the socket carries. */
const WATCH_PROTOCOL = 'watch.json.k8s.io';

/** Unpadded base64url of the UTF-8 bytes, as the apiserver decodes the token protocol. */
function base64url(text: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A stream's events' objects without managedFields unless `managedFields` (unmanaged.ts; the wire worker cuts them from a socket's messages). */
function openFetchStream(conn: Connection, url: string, managedFields: boolean, h: StreamHandlers): Stream {
  const ac = new AbortController();
  (async () => {
    const res = await send(conn, url, { signal: ac.signal });
    if (!res.ok || !res.body) throw Object.assign(new Error(`watch failed: HTTP ${res.status}`), { code: res.status });
    h.onOpen();
    for await (const events of jsonBatches(res.body)) {
      if (!managedFields) for (const e of events) if (e.object) e.object = dropManagedFields(e.object);
      h.onEvents(events);
    }
  })().then(
    () => h.onClose(),
    (e) => h.onClose(ac.signal.aborted ? undefined : e),
  );
  return { close: () => ac.abort() };
}

function openWebSocketStream(conn: Connection, url: string, managedFields: boolean, h: StreamHandlers, onUnsupported: () => void): Stream {
  const base = new URL(apiBase(conn));
  const wsUrl = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}${base.pathname.replace(/\/$/, '')}${url}`;
  // The token rides in a subprotocol (browsers cannot set Authorization on a WebSocket). The
  // apiserver never echoes that one back and refuses it alone ("missing additional subprotocol"),
  // so a second, plain protocol is offered for it to choose; watch events are JSON text either way.
  const protocols = conn.token ? [WATCH_PROTOCOL, `base64url.bearer.authorization.k8s.io.${base64url(conn.token)}`] : [];
  // In the wire worker where there is one: its messages come a batch per task (wireserve.ts).
  return openSocket(wsUrl, protocols, managedFields, {
    onOpen: () => {
      wsSupport.set(apiBase(conn), true);
      h.onOpen();
    },
    onMessages: (events) => h.onEvents(events as WatchEvent[]),
    onClose: (opened) => {
      if (!opened && !wsSupport.get(apiBase(conn))) onUnsupported();
      // A socket refused before it opened (401, 403, the server gone) is a failure, retried with back-off.
      else h.onClose(opened ? undefined : new Error('watch refused'));
    },
  });
}

const runNow = (f: () => void) => f();

/** How often a tab without frames (hidden, or no rAF at all) applies watch events. */
const UNFRAMED_FLUSH_MS = 50;

/**
 * The one flush of every watch with events waiting: at the next animation frame, or on a
 * timer where frames do not come (no rAF; a hidden tab, whose frames stop until it shows
 * again: its lists still apply their events, so it is current when it shows). The cache
 * updates of a flush are one React Query batch, so their observers hear of them together.
 */
const frameFlush = {
  due: new Set<ListWatch>(),
  frame: undefined as number | undefined,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  watchingVisibility: false,

  add(w: ListWatch) {
    this.due.add(w);
    if (this.frame === undefined && this.timer === undefined) this.request();
  },

  request() {
    if (typeof document !== 'undefined' && !this.watchingVisibility) {
      this.watchingVisibility = true;
      // A tab hidden while a frame was asked for gets no frame (the timer takes over), and one
      // shown again draws at its next frame rather than at a timer a hidden tab slowed down.
      document.addEventListener('visibilitychange', () => {
        if (this.frame === undefined && this.timer === undefined) return;
        this.cancel();
        this.request();
      });
    }
    const framed = typeof document !== 'undefined' && !document.hidden && typeof requestAnimationFrame !== 'undefined';
    if (framed) this.frame = requestAnimationFrame(() => this.run());
    else this.timer = setTimeout(() => this.run(), UNFRAMED_FLUSH_MS);
  },

  cancel() {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    clearTimeout(this.timer);
    this.frame = this.timer = undefined;
  },

  run() {
    clearTimeout(this.timer);
    this.frame = this.timer = undefined;
    const due = [...this.due];
    this.due.clear();
    // The views hear of the flush at its end, in this task: React renders them in the microtask after
    // this frame callback, and the browser draws them in this very frame. React Query's own scheduler
    // tells them in a timer task, which waits behind every socket message queued meanwhile (hundreds a
    // second in a 5000-node rollout, one task each) and is drawn a frame later at best.
    tellViewsNow(() => {
      for (const w of due) {
        try {
          w.flush();
        } catch (e) {
          // One list's failure is reported without keeping the others' events from their views.
          queueMicrotask(() => {
            throw e;
          });
        }
      }
    });
  },
};

/**
 * Runs `change` (changes to the query cache) and tells the views at its end, in this task: React
 * renders them in the microtask after it, not in a timer task of React Query's own scheduler.
 */
export function tellViewsNow(change: () => void) {
  notifyManager.setScheduler(runNow);
  try {
    notifyManager.batch(change);
  } finally {
    notifyManager.setScheduler(defaultScheduler);
  }
}

export class ListWatch {
  private refs = 0;
  private stream: Stream | undefined;
  private pending: WatchEvent[] = [];
  /** The cached items with their positions, kept across flushes (rebuilt when a list replaced them). */
  private indexed = new IndexedItems();
  private retry = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  /** Bumped whenever the current stream is abandoned, so its late callbacks are ignored. */
  private generation = 0;
  health: WatchHealth = 'connecting';
  /** The server refused the list (401, 403) or lacks the resource (404): an answer, not a dead connection. */
  refused = false;
  /** The revision of a list still read in pages that the stream watches from: its events wait for the whole list (see listing). */
  private held: string | undefined;

  constructor(
    private readonly queryClient: QueryClient,
    readonly key: QueryKey,
    private readonly conn: Connection,
    private readonly kind: KindDefinition,
    private readonly namespace: string | undefined,
    /**
     * `list` lists the kind afresh (the list query's own function); `probe` asks the same list for
     * nothing (hooks.ts, NO_OBJECT), to hear whether and how the server answers.
     */
    private readonly reads: { list: () => Promise<ListState>; probe: () => Promise<unknown> },
    private readonly onHealth: () => void,
    /** Watches only the objects it selects, as the list did. */
    private readonly selection?: Selection,
    /** Keeps only the newest, as the list did. */
    private readonly newest?: Newest,
  ) {}

  private relist(): Promise<ListState> {
    return this.queryClient.fetchQuery<ListState>({ queryKey: this.key, queryFn: this.reads.list, staleTime: 0, structuralSharing: false });
  }

  /**
   * Probes the server through the list's query: a failure is the list's error (shown where the list
   * is), an answer clears it and leaves the list as it is.
   */
  private probe(state: ListState): Promise<ListState> {
    const queryFn = () => this.reads.probe().then(() => this.state() ?? state);
    return this.queryClient.fetchQuery<ListState>({ queryKey: this.key, queryFn, staleTime: 0, structuralSharing: false });
  }

  /** Some view uses this list now (or did a moment ago). */
  get inUse(): boolean {
    return this.running;
  }

  acquire() {
    this.refs++;
    clearTimeout(this.lingerTimer);
    if (!this.running) {
      this.running = true;
      this.connect();
    }
  }

  release() {
    if (--this.refs > 0) return;
    // Linger so that moving between views that share the list does not re-list.
    this.lingerTimer = setTimeout(() => this.stop(), 5000);
  }

  private dropStream() {
    this.generation++;
    this.stream?.close();
    this.stream = undefined;
  }

  stop() {
    this.running = false;
    clearTimeout(this.retryTimer);
    // The list's index goes with the watch (the query may outlive it, or be collected).
    this.indexed = new IndexedItems();
    this.dropHeld();
    this.dropStream();
    this.setHealth('connecting');
  }

  private setHealth(h: WatchHealth) {
    if (this.health !== h) {
      this.health = h;
      this.onHealth();
    }
  }

  private state(): ListState | undefined {
    return this.queryClient.getQueryData<ListState>(this.key);
  }

  /**
   * The list is being read in pages at `resourceVersion`: the watch starts from it now, its events
   * held until the list is whole (connect), not once the list is read. 637,000 Events took the tab
   * 45 s to read, and 5000 nodes' Lease renewals (500 revisions a second) move a server's history
   * past a revision sooner than that: the watch from the list's revision got 410 Expired, and the
   * list was read again.
   */
  listing(resourceVersion: string) {
    if (!this.running || this.stream || this.held !== undefined || !resourceVersion) return;
    this.held = resourceVersion;
    this.open(resourceVersion);
  }

  /** Stops the stream opened while the list was read; what it held goes with it (the next stream starts from the list's revision). */
  private dropHeld() {
    if (this.held === undefined) return;
    this.held = undefined;
    this.dropStream();
    this.pending = [];
  }

  private async connect() {
    if (!this.running) return;
    let state = this.state();
    // After repeated failures, probe the list: an answer says why (401 asks for credentials, 403
    // is shown where it happens), which a refused socket cannot. The watch then goes on from the
    // list's revision, and what was missed comes as its events; an ERROR from it (410 Expired, or a
    // revision the server does not have) reads the list again. Read again whole on every reconnect,
    // a list of 55,000 pods cost the tab 11 s and 470 MB of heap after each restart of the server,
    // which keeps its history. A server started on another store whose revision has passed the
    // list's goes unnoticed, as it does by client-go's informers.
    if (!state || state.partial || this.retry >= 2) {
      if (state?.partial) this.listing(state.resourceVersion);
      try {
        state = !state || state.partial ? await this.relist() : await this.probe(state);
        this.refused = false;
      } catch (e) {
        this.dropHeld();
        this.refused = isRefusal(e);
        return this.scheduleReconnect(true, e instanceof KubeError ? e.retryAfterSeconds : undefined);
      }
    }
    if (!this.running) return;
    void this.indexed.prepare(state.items, idleTime());
    if (this.held !== undefined) {
      // The stream opened while the list was read goes on, its held events applied to the whole list;
      // unless the list is of another revision (read again whole after a 410 between its pages).
      if (this.stream && this.held === state.resourceVersion) {
        this.held = undefined;
        return this.flush();
      }
      this.dropHeld();
    }
    this.open(state.resourceVersion);
  }

  /** Opens the watch stream from `resourceVersion`. */
  private open(resourceVersion: string) {
    const q = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', resourceVersion, ...selecting(this.selection) });
    const url = `${kindPath(this.kind, this.namespace)}?${q}`;
    const generation = ++this.generation;
    const current = () => generation === this.generation && this.running;
    const handlers: StreamHandlers = {
      onOpen: () => {
        if (!current()) return;
        this.retry = 0;
        this.setHealth('live');
      },
      onEvents: (events) => {
        // An ERROR drops the stream: the events after it in the batch are not of this stream any more.
        for (const e of events) if (current()) this.receive(e);
      },
      onClose: (error) => {
        if (!current()) return;
        this.stream = undefined;
        // Opened while the list was read: connect, waiting for the list, opens the next stream from its revision.
        if (this.held !== undefined) return this.dropHeld();
        this.flush();
        this.scheduleReconnect(!!error);
      },
    };
    const base = apiBase(this.conn);
    const useWs = typeof WebSocket !== 'undefined' && wsSupport.get(base) !== false;
    const keep = this.selection?.managedFields === true;
    this.stream = useWs
      ? openWebSocketStream(this.conn, url, keep, handlers, () => {
          wsSupport.set(base, false);
          if (current()) this.stream = openFetchStream(this.conn, url, keep, handlers);
        })
      : openFetchStream(this.conn, url, keep, handlers);
  }

  /** `retryAfterSeconds`: what a server that answered asked for (429 while it loads its store), waited instead of backing off. */
  private scheduleReconnect(failed: boolean, retryAfterSeconds?: number) {
    if (!this.running) return;
    // A stream the server ended cleanly (timeoutSeconds) resumes at once.
    if (!failed) {
      this.retry = 0;
      this.connect();
      return;
    }
    if (retryAfterSeconds !== undefined) {
      // Not offline: the server answered, and said when to ask again (as client-go, which honours Retry-After).
      this.setHealth('reconnecting');
      this.retryTimer = setTimeout(() => this.connect(), retryAfterSeconds * 1000);
      return;
    }
    this.retry++;
    if (this.refused) this.setHealth('connecting');
    else this.setHealth(this.retry > 2 ? 'offline' : 'reconnecting');
    const delay = Math.min(30_000, 500 * 2 ** Math.min(this.retry, 6)) * (0.8 + Math.random() * 0.4);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private receive(e: WatchEvent) {
    if (e.type === 'ERROR') {
      // Opened while the list was read: connect, waiting for the list, opens the next stream from its revision.
      if (this.held !== undefined) return this.dropHeld();
      // 410 Expired: our resourceVersion is gone; list again and watch from there.
      this.dropStream();
      this.pending = [];
      void this.relist().then(
        () => this.connect(),
        () => this.scheduleReconnect(true),
      );
      return;
    }
    this.retry = 0;
    this.setHealth('live');
    this.pending.push(e);
    frameFlush.add(this);
  }

  /** Applies every pending event in one cache update (called by the frame flush, and as a stream ends). */
  flush() {
    // Held until the list the stream started from is whole (see listing).
    if (!this.pending.length || this.held !== undefined) return;
    const events = this.pending;
    this.pending = [];
    const state = this.state();
    if (!state) return;
    let resourceVersion = state.resourceVersion;
    // The last event of each uid wins; the index turns them into one change.
    const updates = new Map<string, KubeObject | undefined>();
    let total = state.total;
    for (const e of events) {
      const rv = e.object?.metadata?.resourceVersion;
      if (rv) resourceVersion = rv;
      if (e.type === 'BOOKMARK') continue;
      updates.set(uidOf(e.object), e.type === 'DELETED' ? undefined : e.object);
      if (total !== undefined) total += e.type === 'ADDED' ? 1 : e.type === 'DELETED' ? -1 : 0;
    }
    // Bookmarks alone need no index (one made ahead goes on being made).
    if (updates.size && this.indexed.items !== state.items) this.indexed.reset(state.items);
    const change = updates.size ? this.indexed.apply(updates) : undefined;
    if (!change) {
      // Only bookmarks (or nothing that changes an item): remember where to resume without re-rendering anyone.
      state.resourceVersion = resourceVersion;
      state.total = total;
      return;
    }
    const kept = this.newest ? keepNewest(this.indexed.items, this.newest) : this.indexed.items;
    if (kept === this.indexed.items) {
      this.queryClient.setQueryData<ListState>(this.key, { items: kept, resourceVersion, change, total });
      return;
    }
    // The oldest let go: a list the views take in whole.
    this.indexed.reset(kept);
    this.queryClient.setQueryData<ListState>(this.key, { items: kept, resourceVersion, total });
  }
}
