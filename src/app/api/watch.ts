// One shared watch per list query. A list (React Query) gives the starting
// resourceVersion; the watch then applies ADDED/MODIFIED/DELETED to the cached
// list once per animation frame, keyed by uid; it resumes from the last
// resourceVersion (BOOKMARKs move it on), re-lists on 410 Expired, reconnects
// with backoff, and stops a little after the last observer leaves.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { apiBase, authHeaders, kindPath, type Connection, type KubeStatus } from './client.ts';

export interface ListState {
  /** Objects by uid. A new Map each time the list changes, so React sees the change. */
  items: Map<string, KubeObject>;
  resourceVersion: string;
  /** Only the first pages of a list being read: shown, but not watched from until complete. */
  partial?: boolean;
}

export type WatchHealth = 'live' | 'connecting' | 'reconnecting' | 'offline';

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & Partial<KubeStatus>;
}

/** Where the transport ends up: an event, or the end of the stream (with the reason). */
interface StreamHandlers {
  onOpen(): void;
  onEvent(e: WatchEvent): void;
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

function openFetchStream(conn: Connection, url: string, h: StreamHandlers): Stream {
  const ac = new AbortController();
  (async () => {
    const res = await fetch(apiBase(conn) + url, { headers: { Accept: 'application/json', ...authHeaders(conn) }, signal: ac.signal });
    if (!res.ok || !res.body) throw Object.assign(new Error(`watch failed: HTTP ${res.status}`), { code: res.status });
    h.onOpen();
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) h.onEvent(JSON.parse(line));
      }
    }
  })().then(
    () => h.onClose(),
    (e) => h.onClose(ac.signal.aborted ? undefined : e),
  );
  return { close: () => ac.abort() };
}

function openWebSocketStream(conn: Connection, url: string, h: StreamHandlers, onUnsupported: () => void): Stream {
  const base = new URL(apiBase(conn));
  const wsUrl = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}${base.pathname.replace(/\/$/, '')}${url}`;
  // The token rides in a subprotocol (browsers cannot set Authorization on a WebSocket). The
  // apiserver never echoes that one back and refuses it alone ("missing additional subprotocol"),
  // so a second, plain protocol is offered for it to choose; watch events are JSON text either way.
  const protocols = conn.token ? [WATCH_PROTOCOL, `base64url.bearer.authorization.k8s.io.${base64url(conn.token)}`] : [];
  let opened = false;
  let closed = false;
  const ws = new WebSocket(wsUrl, protocols);
  ws.onopen = () => {
    opened = true;
    wsSupport.set(apiBase(conn), true);
    h.onOpen();
  };
  ws.onmessage = (m) => {
    if (typeof m.data === 'string') h.onEvent(JSON.parse(m.data));
  };
  ws.onclose = () => {
    if (closed) return;
    closed = true;
    if (!opened && !wsSupport.get(apiBase(conn))) onUnsupported();
    // A socket refused before it opened (401, 403, the server gone) is a failure, retried with back-off.
    else h.onClose(opened ? undefined : new Error('watch refused'));
  };
  return {
    close: () => {
      closed = true;
      ws.close();
    },
  };
}

export class ListWatch {
  private refs = 0;
  private stream: Stream | undefined;
  private pending: WatchEvent[] = [];
  private flushScheduled = false;
  private retry = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private lingerTimer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  /** Bumped whenever the current stream is abandoned, so its late callbacks are ignored. */
  private generation = 0;
  health: WatchHealth = 'connecting';
  /** The server refused the list (401, 403) or lacks the resource (404): an answer, not a dead connection. */
  refused = false;

  constructor(
    private readonly queryClient: QueryClient,
    readonly key: QueryKey,
    private readonly conn: Connection,
    private readonly kind: KindDefinition,
    private readonly namespace: string | undefined,
    /** Lists the kind afresh (the list query's own function). */
    private readonly list: () => Promise<ListState>,
    private readonly onHealth: () => void,
  ) {}

  private relist(): Promise<ListState> {
    return this.queryClient.fetchQuery<ListState>({ queryKey: this.key, queryFn: this.list, staleTime: 0 });
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

  private async connect() {
    if (!this.running) return;
    let state = this.state();
    // After repeated failures, list again: a list says why (401 asks for credentials, 403 is
    // shown where it happens), which a refused socket cannot, and catches up on what was missed.
    if (!state || state.partial || this.retry >= 2) {
      try {
        state = await this.relist();
        this.refused = false;
      } catch (e) {
        const code = (e as { code?: number }).code ?? 0;
        this.refused = code === 401 || code === 403 || code === 404;
        return this.scheduleReconnect(true);
      }
    }
    if (!this.running) return;
    const q = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', resourceVersion: state.resourceVersion });
    const url = `${kindPath(this.kind, this.namespace)}?${q}`;
    const generation = ++this.generation;
    const current = () => generation === this.generation && this.running;
    const handlers: StreamHandlers = {
      onOpen: () => {
        if (!current()) return;
        this.retry = 0;
        this.setHealth('live');
      },
      onEvent: (e) => current() && this.receive(e),
      onClose: (error) => {
        if (!current()) return;
        this.stream = undefined;
        this.flush();
        this.scheduleReconnect(!!error);
      },
    };
    const base = apiBase(this.conn);
    const useWs = typeof WebSocket !== 'undefined' && wsSupport.get(base) !== false;
    this.stream = useWs
      ? openWebSocketStream(this.conn, url, handlers, () => {
          wsSupport.set(base, false);
          if (current()) this.stream = openFetchStream(this.conn, url, handlers);
        })
      : openFetchStream(this.conn, url, handlers);
  }

  private scheduleReconnect(failed: boolean) {
    if (!this.running) return;
    // A stream the server ended cleanly (timeoutSeconds) resumes at once.
    if (!failed) {
      this.retry = 0;
      this.connect();
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
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      if (typeof document !== 'undefined' && !document.hidden && typeof requestAnimationFrame !== 'undefined') requestAnimationFrame(() => this.flush());
      else setTimeout(() => this.flush(), 50);
    }
  }

  /** Applies every pending event in one cache update. */
  private flush() {
    this.flushScheduled = false;
    if (!this.pending.length) return;
    const events = this.pending;
    this.pending = [];
    const state = this.state();
    if (!state) return;
    let items: Map<string, KubeObject> | undefined;
    let resourceVersion = state.resourceVersion;
    for (const e of events) {
      const rv = e.object?.metadata?.resourceVersion;
      if (rv) resourceVersion = rv;
      if (e.type === 'BOOKMARK') continue;
      const uid = e.object.metadata.uid!;
      items ??= new Map(state.items);
      if (e.type === 'DELETED') items.delete(uid);
      else items.set(uid, e.object);
    }
    if (!items) {
      // Only bookmarks: remember where to resume without re-rendering anyone.
      state.resourceVersion = resourceVersion;
      return;
    }
    this.queryClient.setQueryData<ListState>(this.key, { items, resourceVersion });
  }
}
