// The page side of the reachability worker: one worker for the app, fed what
// changed in the watch-driven lists of Pods, Namespaces, NetworkPolicies and
// Nodes (inputsync.ts; paced by sendDelay, so a burst of watch events is one
// recomputation and a rollout's stream does not keep the worker busy), and
// hooks that ask it questions and keep the last answer on screen while the
// next is computed.
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { count } from '../../../lib/words.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { podKind } from '../../../kinds/pod.ts';
import { namespaceKind } from '../../../kinds/namespace.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { useList } from '../../api/hooks.ts';
import type { ListChange } from '../../api/watch.ts';
import type { ClusterSummary } from './compute.ts';
import type { RequestBody, WorkerResponse } from './protocol.ts';
import { SentInput, type InputChanges } from './inputsync.ts';

/** The shortest wait before the page sends the worker what changed in the cluster (ms): a burst of watch events is one message. */
const SEND_MS = 150;
/** After a recomputation, the worker is left idle this many times as long as it took before the pods' next changes are sent. */
const IDLE_PER_BUSY = 2;
/** The longest the pods' changes wait after an answer (ms). */
const MAX_SEND_MS = 1000;

/**
 * How long after the worker's last answer the pods' changes are sent. A rollout at 5000 nodes
 * changes pods without pause; sent every SEND_MS, each recomputation of 60,000 pods (0.1-0.6 s)
 * followed the last, and the worker kept a core 70% busy, beside a page and an API server on two.
 * A change of the policies or namespaces (what a user edits and waits to see), or a list's last
 * page read, goes at SEND_MS.
 */
export const sendDelay = (lastTookMs: number, urgent: boolean) => (urgent ? SEND_MS : Math.min(MAX_SEND_MS, Math.max(SEND_MS, IDLE_PER_BUSY * lastTookMs)));

class ReachabilityWorker {
  private worker?: Worker;
  private seq = 0;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private users = 0;
  private idleTimer?: ReturnType<typeof setTimeout>;

  acquire() {
    this.users++;
    clearTimeout(this.idleTimer);
  }

  /** The last user gone, the worker is stopped after a while (navigating between views keeps it). */
  release() {
    if (--this.users > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.users > 0 || !this.worker) return;
      this.worker.terminate();
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(new Error('reachability worker stopped'));
      this.pending.clear();
      live.reset();
    }, 30_000);
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./reachability.worker.ts', import.meta.url), { type: 'module', name: 'reachability' });
    w.onmessage = (e: MessageEvent<WorkerResponse>) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if (e.data.ok) p.resolve(e.data.result);
      else p.reject(new Error(e.data.error));
    };
    w.onerror = (e) => {
      for (const p of this.pending.values()) p.reject(new Error(e.message || 'reachability worker failed'));
      this.pending.clear();
    };
    return (this.worker = w);
  }

  call<T>(body: RequestBody): Promise<T> {
    const id = ++this.seq;
    const w = this.ensure();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.postMessage({ ...body, id });
    });
  }
}

export const reachabilityWorker = new ReachabilityWorker();

// ---- the live cluster, as last sent to the worker ---------------------------

interface LiveState {
  summary?: ClusterSummary;
  /** Inputs changed and the worker has not answered for the latest yet. */
  computing: boolean;
  error?: string;
  /** A list has no first page yet. */
  loading: boolean;
  /**
   * While the lists are still read in pages: how many pods are read so far, of how many when the
   * server tells. The answers until
   * then are for those pods only, so a policy may seem to select none.
   */
  reading?: { read: number; of?: number };
}

interface LiveLists {
  pods: readonly KubeObject[];
  namespaces: readonly KubeObject[];
  policies: readonly KubeObject[];
  nodes: readonly KubeObject[];
}

const sent = new SentInput();
const countOf = (l: LiveLists) => l.pods.length + l.namespaces.length + l.policies.length + l.nodes.length;

const live = {
  state: { computing: true, loading: true } as LiveState,
  listeners: new Set<() => void>(),
  version: 0,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  lists: undefined as LiveLists | undefined,
  partial: false,
  set(patch: Partial<LiveState>) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  },
  /** A new worker: it is sent everything. */
  reset() {
    this.generation++;
    this.sentCount = -1;
    this.took = 0;
    sent.reset();
    this.set({ summary: undefined, computing: true });
  },
  /** A message to the worker is unanswered: the next waits for its answer. */
  inFlight: false,
  /**
   * The lists as they are now. What changed in them is sent sendDelay after the worker has
   * answered the last (a burst of watch events is one message; a rollout's steady stream is
   * paced, not held back). While a list is still read in pages (`partial`), the
   * lists are sent each time they have doubled: the worker computes each input whole (1.2 s at
   * 60,000 pods), and computing each part shown kept a core busy while the list loaded, which
   * took 27 s instead of 17.
   */
  submit(lists: LiveLists, partial = false, changes: { [K in keyof LiveLists]?: ListChange } = {}) {
    for (const list of Object.keys(lists) as (keyof LiveLists)[]) sent.observe(list, lists[list], changes[list]);
    const was = this.lists;
    // What a user waits to see: a policy or namespace edited, or the last page of a list read.
    this.urgent ||= !!was && (lists.policies !== was.policies || lists.namespaces !== was.namespaces || (this.partial && !partial));
    this.lists = lists;
    this.partial = partial;
    const size = countOf(lists);
    if (size !== this.sentCount && !this.state.computing) this.set({ computing: true });
    if (this.inFlight) return;
    if (partial && size < 2 * this.sentCount) return;
    const delay = sendDelay(this.took, this.urgent);
    // A pending send is brought forward for a policy's change, never put off.
    if (this.timer !== undefined) {
      if (performance.now() + delay >= this.due) return;
      clearTimeout(this.timer);
    }
    this.due = performance.now() + delay;
    this.timer = setTimeout(() => this.send(), delay);
  },
  /** When the pending send is due (performance.now() ms). */
  due: 0,
  /** Since the last send, the policies or namespaces changed or a list's last page was read: sent at SEND_MS, not paced. */
  urgent: false,
  /** How long the last recomputation took, from its message to the answer (ms). */
  took: 0,
  /** Bumped when the worker starts over: parts made for the one before are not sent. */
  generation: 0,
  /** Objects in the lists last sent: a different count is a change for sure, shown as computing at once (the parts take a while). */
  sentCount: -1,
  async send() {
    this.timer = undefined;
    this.urgent = false;
    this.inFlight = true;
    const generation = this.generation;
    this.sentCount = countOf(this.lists!);
    try {
      // Every part but the last is only taken in; the worker computes on the last.
      let last: InputChanges | undefined;
      for await (const part of sent.changes(this.lists!)) {
        if (generation !== this.generation) return;
        if (!this.state.computing) this.set({ computing: true });
        if (last) void reachabilityWorker.call({ type: 'input', changes: last }).catch(() => undefined);
        last = part;
      }
      if (!last || generation !== this.generation) return;
      const version = ++this.version;
      const asked = performance.now();
      try {
        const summary = await reachabilityWorker.call<ClusterSummary>({ type: 'input', changes: last, version });
        this.took = performance.now() - asked;
        if (version === this.version) this.set({ summary, computing: false, error: undefined });
      } catch (e) {
        if (version === this.version) this.set({ computing: false, error: (e as Error).message });
      }
    } finally {
      this.inFlight = false;
      // What came meanwhile.
      this.submit(this.lists!, this.partial);
    }
  },
};

/** The status while the pods are still read: the answers shown are for those read so far. */
export const readingText = ({ read, of }: { read: number; of?: number }) => `reading pods · ${count(read)} ${of === undefined ? 'so far' : `of ${count(of)}`}`;

/**
 * Keeps the worker fed with the live Pods, Namespaces, NetworkPolicies and Nodes; renders nothing.
 * A component of its own, rendered by the views that use the answers: a watch event re-renders it
 * alone. As a hook of the reachability page, every event of a rollout (hundreds a second at 5000
 * nodes) re-rendered the whole page, its matrix included.
 */
export function ReachabilityFeed(): null {
  const pods = useList(podKind);
  const namespaces = useList(namespaceKind);
  const policies = useList(networkPolicyKind);
  const nodes = useList(nodeKind);
  const loading = pods.isPending || namespaces.isPending || policies.isPending || nodes.isPending;
  const partial = pods.partial || namespaces.partial || policies.partial || nodes.partial;
  const read = partial ? pods.items.length : undefined;
  const of = partial ? pods.total : undefined;
  useEffect(() => {
    if (!loading)
      live.submit({ pods: pods.items, namespaces: namespaces.items, policies: policies.items, nodes: nodes.items }, partial, {
        pods: pods.data?.change,
        namespaces: namespaces.data?.change,
        policies: policies.data?.change,
        nodes: nodes.data?.change,
      });
  }, [loading, partial, pods.items, namespaces.items, policies.items, nodes.items]);
  useEffect(() => {
    const was = live.state.reading;
    if (live.state.loading !== loading || was?.read !== read || was?.of !== of) live.set({ loading, reading: read === undefined ? undefined : { read, of } });
  }, [loading, read, of]);
  return null;
}

/**
 * The latest summary of the live cluster, whether a recomputation is under way, and whether the
 * lists are still read; `busy`: the summary is not yet the whole cluster's as it is now (any of
 * those). Render a ReachabilityFeed with it.
 */
export function useLiveReachability(): LiveState & { busy: boolean } {
  useEffect(() => {
    reachabilityWorker.acquire();
    return () => reachabilityWorker.release();
  }, []);
  const state = useSyncExternalStore(
    (l) => (live.listeners.add(l), () => live.listeners.delete(l)),
    () => live.state,
  );
  return { ...state, busy: state.loading || state.reading !== undefined || state.computing };
}

export interface Answer<T> {
  /** The summary the answer was computed for (its groups are what indexes in the answer refer to). */
  summary?: ClusterSummary;
  data?: T;
  computing: boolean;
  error?: string;
}

/**
 * Asks the worker `body` for the current summary; asks again when the summary
 * or `key` changes, keeping the previous answer until the new one arrives.
 * `body` null: nothing to ask.
 */
export function useWorkerAnswer<T>(summary: ClusterSummary | undefined, key: string, body: RequestBody | null): Answer<T> {
  const [answer, setAnswer] = useState<Answer<T>>({ computing: true });
  const bodyRef = useRef(body);
  bodyRef.current = body;
  const active = !!summary && body !== null;
  useEffect(() => {
    if (!summary || !bodyRef.current) return;
    let cancelled = false;
    setAnswer((a) => ({ ...a, computing: true }));
    reachabilityWorker.call<T>(bodyRef.current).then(
      (data) => {
        if (cancelled) return;
        // Answered for a newer input than this summary: the next summary asks again.
        const version = (data as { version?: number } | undefined)?.version;
        if (version !== undefined && version !== summary.version) return;
        setAnswer({ summary, data, computing: false });
      },
      (e: Error) => !cancelled && setAnswer((a) => ({ ...a, computing: false, error: e.message })),
    );
    return () => {
      cancelled = true;
    };
  }, [summary, key, active]);
  return answer;
}
