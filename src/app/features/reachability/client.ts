// The page side of the reachability worker: one worker for the app, fed by the
// watch-driven lists of Pods, Namespaces, NetworkPolicies and Nodes (debounced,
// so a burst of watch events is one recomputation), and hooks that ask it
// questions and keep the last answer on screen while the next is computed.
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { podKind } from '../../../kinds/pod.ts';
import { namespaceKind } from '../../../kinds/namespace.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { nodeKind } from '../../../kinds/node.ts';
import type { ContainerPortLike, NamespaceLike, NetworkPolicyLike, NodeLike, PodLike, ReachabilityInput } from '../../../lib/reachability/index.ts';
import { useList } from '../../api/hooks.ts';
import type { ClusterSummary } from './compute.ts';
import type { RequestBody, WorkerResponse } from './protocol.ts';

const DEBOUNCE_MS = 150;

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
}

const live = {
  state: { computing: true } as LiveState,
  listeners: new Set<() => void>(),
  signature: '',
  version: 0,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  set(patch: Partial<LiveState>) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  },
  reset() {
    this.signature = '';
    this.set({ summary: undefined, computing: true });
  },
  /** Debounced: a burst of watch events is one recomputation. */
  submit(signature: string, build: () => ReachabilityInput) {
    if (signature === this.signature) return;
    this.signature = signature;
    if (!this.state.computing) this.set({ computing: true });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const version = ++this.version;
      reachabilityWorker.call<ClusterSummary>({ type: 'input', input: build(), version }).then(
        (summary) => {
          if (version === this.version) this.set({ summary, computing: false, error: undefined });
        },
        (e: Error) => version === this.version && this.set({ computing: false, error: e.message }),
      );
    }, DEBOUNCE_MS);
  },
};

const trimPod = (o: KubeObject): PodLike => {
  const p = o as PodLike & KubeObject;
  const ports = (cs?: { ports?: ContainerPortLike[] }[]) =>
    cs?.map((c) => ({ ports: Array.isArray(c?.ports) ? c.ports.map((x) => ({ name: x?.name, containerPort: x?.containerPort, protocol: x?.protocol })) : undefined }));
  return {
    metadata: { name: p.metadata.name, namespace: p.metadata.namespace, labels: p.metadata.labels },
    spec: { nodeName: p.spec?.nodeName, hostNetwork: p.spec?.hostNetwork, containers: ports(p.spec?.containers), initContainers: ports(p.spec?.initContainers) },
    status: { podIP: p.status?.podIP, podIPs: p.status?.podIPs },
  };
};
const trimNamespace = (o: KubeObject): NamespaceLike => ({ metadata: { name: o.metadata.name, labels: o.metadata.labels } });
const trimNode = (o: KubeObject): NodeLike => ({ metadata: { name: o.metadata.name }, status: { addresses: (o as NodeLike & KubeObject).status?.addresses } });
const trimPolicy = (o: KubeObject): NetworkPolicyLike => ({ metadata: { name: o.metadata.name, namespace: o.metadata.namespace }, spec: (o as NetworkPolicyLike & KubeObject).spec });

// What the engine reads of each object, as text, cached per object version: node heartbeats and
// pod condition updates change resourceVersion but not reachability, and must not recompute.
const relevantText = new WeakMap<KubeObject, string>();
function relevant<T>(o: KubeObject, trim: (o: KubeObject) => T): string {
  let t = relevantText.get(o);
  if (t === undefined) relevantText.set(o, (t = JSON.stringify(trim(o))));
  return t;
}
const signatureOf = (pods: KubeObject[], namespaces: KubeObject[], policies: KubeObject[], nodes: KubeObject[]) =>
  [pods.map((o) => relevant(o, trimPod)), namespaces.map((o) => relevant(o, trimNamespace)), policies.map((o) => relevant(o, trimPolicy)), nodes.map((o) => relevant(o, trimNode))]
    .map((l) => l.join('\n'))
    .join('\u0000');

/** Keeps the worker fed with the live cluster; returns the latest summary and whether a recomputation is under way. */
export function useLiveReachability(): LiveState & { loading: boolean } {
  const pods = useList(podKind);
  const namespaces = useList(namespaceKind);
  const policies = useList(networkPolicyKind);
  const nodes = useList(nodeKind);
  const loading = pods.isPending || namespaces.isPending || policies.isPending || nodes.isPending;
  useEffect(() => {
    reachabilityWorker.acquire();
    return () => reachabilityWorker.release();
  }, []);
  useEffect(() => {
    if (loading) return;
    live.submit(signatureOf(pods.items, namespaces.items, policies.items, nodes.items), () => ({
      pods: pods.items.map(trimPod),
      namespaces: namespaces.items.map(trimNamespace),
      policies: policies.items.map(trimPolicy),
      nodes: nodes.items.map(trimNode),
    }));
  }, [loading, pods.items, namespaces.items, policies.items, nodes.items]);
  const state = useSyncExternalStore(
    (l) => (live.listeners.add(l), () => live.listeners.delete(l)),
    () => live.state,
  );
  return { ...state, loading };
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
