// Cordon, uncordon and drain, as kubectl does them: cordon is a merge patch
// of spec.unschedulable (true, or removed); drain cordons, then evicts the
// node's pods through the eviction subresource, leaving DaemonSet-owned pods
// alone (kubectl drain --ignore-daemonsets), and waits until they are gone. One node from its page; many
// from the Nodes list, as `kubectl cordon -l <selector>`, a few at a time.
import { nodeKind } from '../../../kinds/node.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { podKind, podsOnNode } from '../../../kinds/pod.ts';
import { refersTo, type KubeObject } from '../../../kinds/kind.ts';
import { plural } from '../../../lib/words.ts';
import { api, KubeError, type Connection } from '../../api/client.ts';

export const cordon = (conn: Connection, name: string, unschedulable: boolean) =>
  api.mergePatch(conn, nodeKind, undefined, name, { spec: { unschedulable: unschedulable || null } });

export const isCordoned = (node: KubeObject) => !!(node.spec as { unschedulable?: boolean } | undefined)?.unschedulable;

/** Where a node's drain stands; `onProgress` hears it after each change. */
export interface DrainProgress {
  /** Pods asked to leave (namespace/name), in the order asked. */
  evicted: string[];
  /** Left in place: DaemonSet, mirror and finished pods. */
  skipped: string[];
  /** Evicted and not gone yet: their containers are stopping (the grace period). */
  terminating: string[];
  /** Evictions the server refused for now (429: a disruption budget allows none now), asked again after a wait, with its words. */
  refused: { pod: string; message: string }[];
}

export interface DrainOptions {
  signal?: AbortSignal;
  onProgress?(progress: DrainProgress): void;
  /** Wait before an eviction refused with 429 is asked again, when the server names none: kubectl's 5 s. */
  retryMs?: number;
  /** How often the node's pods are read while evicted ones are still there: kubectl's 1 s. */
  pollMs?: number;
}

export class DrainStopped extends Error {}

const idOf = (p: KubeObject) => `${p.metadata.namespace}/${p.metadata.name}`;

/** Pods drain leaves: a DaemonSet's (its controller would make them again at once), the kubelet's mirror pods (no eviction removes them), finished ones. */
export function staysOnDrain(p: KubeObject) {
  const phase = (p.status as { phase?: string } | undefined)?.phase;
  return (
    !!p.metadata.ownerReferences?.some((r) => r.controller && refersTo(r, daemonSetKind)) ||
    !!p.metadata.annotations?.['kubernetes.io/config.mirror'] ||
    phase === 'Succeeded' ||
    phase === 'Failed'
  );
}

/** Resolves after `ms`, or rejects as stopped when `signal` is. */
const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new DrainStopped('Stopped'));
    const timer = setTimeout(() => (signal?.removeEventListener('abort', stopped), resolve()), ms);
    const stopped = () => (clearTimeout(timer), reject(new DrainStopped('Stopped')));
    signal?.addEventListener('abort', stopped, { once: true });
  });

/**
 * kubectl drain --ignore-daemonsets: cordon (when not already), evict every
 * pod but those that stay, each eviction refused with 429 asked again until it
 * is taken, then wait until the evicted pods are gone (their uid no longer on
 * the node), so that "drained" means the node runs none of them. Stopping
 * (`signal`) rejects with DrainStopped, saying what was left.
 */
export async function drain(conn: Connection, name: string, opts: DrainOptions = {}): Promise<DrainProgress> {
  const { signal, onProgress, retryMs = 5000, pollMs = 1000 } = opts;
  const node = await api.get(conn, nodeKind, undefined, name);
  if (!isCordoned(node)) await cordon(conn, name, true);
  const podsThere = () => api.list(conn, podKind, undefined, { fieldSelector: podsOnNode(name) }).then((l) => l.items);
  const pods = await podsThere();
  const progress: DrainProgress = { evicted: [], skipped: pods.filter(staysOnDrain).map(idOf), terminating: [], refused: [] };
  const tell = () => onProgress?.({ ...progress, evicted: [...progress.evicted], terminating: [...progress.terminating], refused: [...progress.refused] });
  const leaving = new Map<string, string>(); // uid -> namespace/name, evicted and maybe still there
  const stopped = (what: string) => new DrainStopped(`Stopped ${what}`);
  tell();

  const evict = async (p: KubeObject) => {
    const id = idOf(p);
    for (;;) {
      if (signal?.aborted) throw stopped(`before ${id} was evicted`);
      try {
        await api.action(conn, podKind, p.metadata.namespace, p.metadata.name!, 'eviction', {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
        });
      } catch (e) {
        // Gone already: what the eviction was for.
        if ((e as { code?: number }).code === 404) break;
        if ((e as { code?: number }).code !== 429) throw e;
        progress.refused = [...progress.refused.filter((r) => r.pod !== id), { pod: id, message: (e as Error).message }];
        tell();
        await pause(e instanceof KubeError && e.retryAfterSeconds ? e.retryAfterSeconds * 1000 : retryMs, signal).catch(() => {
          throw stopped(`before ${id} was evicted`);
        });
        continue;
      }
      break;
    }
    progress.refused = progress.refused.filter((r) => r.pod !== id);
    progress.evicted.push(id);
    progress.terminating.push(id);
    leaving.set(p.metadata.uid!, id);
    tell();
  };
  // Each pod apart, as kubectl does: one held by its budget holds no other, one that fails stops no other.
  const failed = (await Promise.allSettled(pods.filter((p) => !staysOnDrain(p)).map(evict))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;

  while (leaving.size) {
    const there = new Set((await podsThere()).map((p) => p.metadata.uid));
    for (const uid of leaving.keys()) if (!there.has(uid)) leaving.delete(uid);
    progress.terminating = [...leaving.values()];
    tell();
    if (!leaving.size) break;
    await pause(pollMs, signal).catch(() => {
      throw stopped(`while ${plural(leaving.size, 'evicted pod')} ${leaving.size === 1 ? 'was' : 'were'} still terminating`);
    });
  }
  return progress;
}

/** Nodes worked on at once from the list: kubectl takes one after another; 1,667 nodes so took it 332 s to cordon. */
export const NODES_AT_ONCE = 8;
/**
 * Nodes drained at once: most of a drain is waiting for evicted pods to stop (a list a second), so
 * more wait side by side: with 8, 300 nodes of one evicted pod each held the other 1,367 back 75 s.
 */
export const DRAINS_AT_ONCE = 32;

/**
 * Runs `act` for each name, `atOnce` at a time, until all are settled or
 * `signal` stops it (no more are taken; those in flight end as the signal
 * tells them: a patch finishes, a drain stops); `settled` hears each outcome.
 * A failure stops nothing else: a node deleted meanwhile is one node.
 */
export async function forEachNode<T>(names: readonly string[], act: (name: string) => Promise<T>, settled: (name: string, error?: unknown, result?: T) => void, signal?: AbortSignal, atOnce = NODES_AT_ONCE) {
  let next = 0;
  const worker = async () => {
    while (next < names.length && !signal?.aborted) {
      const name = names[next++];
      try {
        const result = await act(name);
        settled(name, undefined, result);
      } catch (e) {
        settled(name, e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, names.length) }, worker));
}
