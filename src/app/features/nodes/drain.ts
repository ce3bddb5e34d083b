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
import { api, errorText, KubeError, type Connection } from '../../api/client.ts';

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
 * (`signal`) rejects with DrainStopped, saying what was left. The node is as
 * the caller holds it from a watch (the node page's, the list's), not read
 * again: kubectl reads it first, and a zone's drain read 1,667 nodes so.
 */
export async function drain(conn: Connection, node: KubeObject, opts: DrainOptions = {}): Promise<DrainProgress> {
  const { signal, onProgress, retryMs = 5000, pollMs = 1000 } = opts;
  const name = node.metadata.name!;
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
 * Runs `act` for each node, `atOnce` at a time, until all are settled or
 * `signal` stops it (no more are taken; those in flight end as the signal
 * tells them: a patch finishes, a drain stops); `settled` hears each outcome.
 * A failure stops nothing else: a node deleted meanwhile is one node.
 */
export async function forEachNode<N, T>(nodes: readonly N[], act: (node: N) => Promise<T>, settled: (node: N, error?: unknown, result?: T) => void, signal?: AbortSignal, atOnce = NODES_AT_ONCE) {
  let next = 0;
  const worker = async () => {
    while (next < nodes.length && !signal?.aborted) {
      const node = nodes[next++];
      try {
        const result = await act(node);
        settled(node, undefined, result);
      } catch (e) {
        settled(node, e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, nodes.length) }, worker));
}

/** What draining some nodes would do, from the pods on them now. */
export interface DrainOutlook {
  /** Nodes whose pods were read. */
  nodes: number;
  /** Of those, the nodes with a pod to evict. */
  nodesToEvict: number;
  /** Pods it evicts. */
  evict: number;
  /** Pods it leaves in place (staysOnDrain). */
  stay: number;
  /** Pods it evicts that no controller owns (namespace/name): once evicted, nothing makes them again (kubectl drain wants --force). */
  orphans: string[];
  /** Pods it evicts whose emptyDir data goes with them (kubectl drain wants --delete-emptydir-data). */
  scratch: string[];
  /** Nodes whose pods could not be read, with why. */
  unread: { node: string; message: string }[];
}

export const noOutlook = (): DrainOutlook => ({ nodes: 0, nodesToEvict: 0, evict: 0, stay: 0, orphans: [], scratch: [], unread: [] });

/** `outlook` with one more node's pods counted in. */
export function withNodePods(outlook: DrainOutlook, pods: readonly KubeObject[]): DrainOutlook {
  const leave = pods.filter((p) => !staysOnDrain(p));
  const orphans = leave.filter((p) => !p.metadata.ownerReferences?.some((r) => r.controller)).map(idOf);
  const scratch = leave.filter((p) => (p.spec as { volumes?: { emptyDir?: unknown }[] } | undefined)?.volumes?.some((v) => v.emptyDir)).map(idOf);
  return {
    ...outlook,
    nodes: outlook.nodes + 1,
    nodesToEvict: outlook.nodesToEvict + Number(leave.length > 0),
    evict: outlook.evict + leave.length,
    stay: outlook.stay + pods.length - leave.length,
    orphans: orphans.length ? [...outlook.orphans, ...orphans] : outlook.orphans,
    scratch: scratch.length ? [...outlook.scratch, ...scratch] : outlook.scratch,
  };
}

/**
 * The outlook of draining `names`, their pods read node by node (each a list by
 * spec.nodeName, as drain reads them), `onProgress` hearing it grow, until all
 * are read or `signal` stops it. A node whose pods cannot be read is told in
 * `unread` and stops nothing else.
 */
export async function readDrainOutlook(conn: Connection, names: readonly string[], opts: { signal?: AbortSignal; onProgress(outlook: DrainOutlook): void }): Promise<DrainOutlook> {
  let outlook = noOutlook();
  await forEachNode(
    names,
    (name) => api.list(conn, podKind, undefined, { fieldSelector: podsOnNode(name) }),
    (name, error, list) => {
      if (opts.signal?.aborted) return;
      outlook = error ? { ...outlook, unread: [...outlook.unread, { node: name, message: errorText(error) }] } : withNodePods(outlook, list!.items);
      opts.onProgress(outlook);
    },
    opts.signal,
  );
  return outlook;
}
