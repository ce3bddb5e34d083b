// Pod garbage collection (K/pkg/controller/podgc/gc_controller.go), the parts
// a cluster without real kubelets needs:
//
// - orphaned pods: a pod bound to a node that does not exist is force-deleted
//   (grace 0) once the node has stayed missing for a quarantine period
//   (40 s upstream; a few seconds here, configurable), whether it was running
//   or already terminating — no kubelet is left to finish it. Before the
//   delete it is marked Failed with a DisruptionTarget condition
//   (reason DeletionByPodGC, "PodGC: node no longer exists"), as upstream does.
// - terminating pods on an out-of-service node: a pod being deleted on a node
//   that is not Ready and carries the `node.kubernetes.io/out-of-service` taint
//   is marked Failed and force-deleted at once.
//
// Upstream's periodic sweep (every 20 s) is replaced by the watch: a pod that
// lands on a missing node, or a node that goes away with pods on it, starts
// that node's quarantine. The threshold-based deletion of terminated pods
// (--terminated-pod-gc-threshold, 12500) is not done.
import type { KubeObject } from '../../kinds/kind.ts';
import { podKind } from '../../kinds/pod.ts';
import { nodeKind } from '../../kinds/node.ts';
import { rfc3339 } from '../../lib/duration.ts';
import type { CacheEvent } from '../watch/cache.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';
import { isConditionTrue } from '../../lib/conditions.ts';

export interface PodGCOptions {
  /** Seconds a node must stay missing before its pods are force-deleted (upstream: 40). */
  quarantineSeconds?: number;
}

export const DEFAULT_QUARANTINE_SECONDS = 5;
const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

const isTerminated = (pod: KubeObject) => {
  const phase = (pod as any).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};
const nodeNameOf = (pod: KubeObject | undefined): string | undefined => (pod as any)?.spec?.nodeName || undefined;
const outOfService = (node: KubeObject) => ((node as any).spec?.taints ?? []).some((t: any) => t.key === OUT_OF_SERVICE_TAINT);

export function startPodGC(ctx: ControllerContext, opts: PodGCOptions = {}): () => void {
  const client = ctx.client.as(controllerIdentity('pod-garbage-collector'));
  const { cache } = ctx;
  const podStore = ctx.stores.get(podKind)!;
  const nodeStore = ctx.stores.get(nodeKind)!;
  const quarantineMs = Math.max(0, (opts.quarantineSeconds ?? DEFAULT_QUARANTINE_SECONDS) * 1000);

  /** Node name -> cache keys of the pods bound to it. */
  const podsByNode = new Map<string, Set<string>>();

  const nodeAt = (name: string) => cache.get(nodeStore.keyFor(undefined, name))?.object;
  const podsOn = (name: string) =>
    [...(podsByNode.get(name) ?? [])].map((k) => cache.get(k)?.object).filter((p): p is KubeObject => !!p && nodeNameOf(p) === name);

  function index(key: string, pod: KubeObject | undefined, previous: KubeObject | undefined) {
    const before = nodeNameOf(previous);
    const now = nodeNameOf(pod);
    if (before && before !== now) {
      const set = podsByNode.get(before);
      set?.delete(key);
      if (set && !set.size) podsByNode.delete(before);
    }
    if (now) {
      let set = podsByNode.get(now);
      if (!set) podsByNode.set(now, (set = new Set()));
      set.add(key);
    }
  }

  /** markFailedAndDeletePod: Failed (unless already terminated), then deleted with grace 0. */
  async function forceDelete(pod: KubeObject, condition?: { reason: string; message: string }) {
    const { namespace, name, uid } = pod.metadata;
    if (!isTerminated(pod)) {
      await client
        .update(
          podKind,
          namespace,
          name!,
          (o) => {
            if (o.metadata.uid !== uid || isTerminated(o)) return;
            const status = ((o as any).status ??= {});
            status.phase = 'Failed';
            if (condition) {
              const conditions: any[] = (status.conditions ??= []);
              const next = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(new Date()), ...condition };
              const i = conditions.findIndex((c) => c.type === 'DisruptionTarget');
              if (i < 0) conditions.push(next);
              else if (conditions[i].status !== 'True' || conditions[i].reason !== condition.reason) conditions[i] = next;
            }
          },
          'status',
        )
        .catch(ignoreGone);
    }
    await client.delete(podKind, namespace, name!, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(ignoreGone);
  }

  async function sync(item: string) {
    const sep = item.indexOf(':');
    const [what, nodeName] = [item.slice(0, sep), item.slice(sep + 1)];
    const node = nodeAt(nodeName);
    if (what === 'missing') {
      // The quarantine is over: the node is still gone, so are its pods.
      if (node) return;
      await Promise.all(podsOn(nodeName).map((p) => forceDelete(p, { reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' })));
      return;
    }
    if (!node || isConditionTrue(node, 'Ready') || !outOfService(node)) return;
    await Promise.all(podsOn(nodeName).filter((p) => p.metadata.deletionTimestamp).map((p) => forceDelete(p)));
  }

  const queue = new WorkQueue(sync, 4);
  const quarantine = (nodeName: string) => queue.after(`missing:${nodeName}`, quarantineMs);

  function checkPod(pod: KubeObject) {
    const nodeName = nodeNameOf(pod);
    if (!nodeName) return;
    const node = nodeAt(nodeName);
    if (!node) quarantine(nodeName);
    else if (pod.metadata.deletionTimestamp && outOfService(node) && !isConditionTrue(node, 'Ready')) queue.add(`out-of-service:${nodeName}`);
  }

  function onPod(e: CacheEvent) {
    const pod = e.type === 'DELETED' ? undefined : e.object.object;
    index(e.key, pod, e.type === 'DELETED' ? e.object.object : e.previous);
    if (pod) checkPod(pod);
  }

  function onNode(e: CacheEvent) {
    const name = e.object.object.metadata.name!;
    if (!podsByNode.get(name)?.size) return;
    if (e.type === 'DELETED') quarantine(name);
    else if (outOfService(e.object.object) && !isConditionTrue(e.object.object, 'Ready')) queue.add(`out-of-service:${name}`);
  }

  const informer = inform(cache, {
    list: [
      [
        podStore.resourcePrefix,
        (c) => {
          index(c.key, c.object, undefined);
          checkPod(c.object);
        },
      ],
    ],
    watch: [
      [podStore.resourcePrefix, onPod],
      [nodeStore.resourcePrefix, onNode],
    ],
  });
  queue.startAfter(informer.synced);

  return () => {
    queue.stop();
    informer.stop();
  };
}

function ignoreGone(e: any): undefined {
  if (e?.code === 404 || e?.code === 409) return undefined;
  throw e;
}
