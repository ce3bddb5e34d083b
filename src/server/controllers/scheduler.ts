// The default scheduler, as much of it as the simulated cluster needs: pods
// without a node (DaemonSet pods among them, which carry only a required
// node affinity on `metadata.name`, as upstream's controller writes them)
// are bound through `pods/binding` to a node that passes the filters
// NodeUnschedulable, TaintToleration, NodeAffinity (nodeSelector and required
// affinity) and NodePorts. A pod no node fits stays Pending with
// PodScheduled=False, reason Unschedulable and the scheduler's message
// ("0/1 nodes are available: 1 node(s) didn't have free ports for the
// requested pod ports. …"), and is tried again when a pod leaves or a node
// changes. So a surge pod that asks for the host port its old pod holds
// waits until that pod is gone, as upstream (which is why surge with
// hostPort never progresses). Resources (NodeResourcesFit) are not counted:
// simulated nodes have room for any pod. Scoring spreads pods to the node
// with the fewest.
import { podKind } from '../../kinds/pod.ts';
import { nodeKind } from '../../kinds/node.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { nodeAffinityMismatch, toleratesTaint, type Taint, type Toleration } from '../../lib/daemonnodes.ts';
import { clashingHostPorts, hostPortsOf, NodePortsUnfitReason, type HostPort } from '../../lib/nodeports.ts';
import { rfc3339 } from '../../lib/duration.ts';
import type { UserInfo } from '../auth/authn.ts';
import type { CacheEvent } from '../watch/cache.ts';
import type { ControllerContext } from './context.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';
import { trace, tracing } from './rollouttrace.ts';
import { EventBroadcaster, referenceTo } from '../events/recorder.ts';

export const schedulerIdentity: UserInfo = { name: 'system:kube-scheduler', groups: ['system:authenticated'] };
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** One filter's verdict on a node: undefined when it passes; `resolvable` when preemption could help (NodePorts). */
type Unfit = { reason: string; resolvable?: boolean };

const isTerminal = (p: KubeObject) => ['Succeeded', 'Failed'].includes((p.status as any)?.phase);
const podKey = (p: KubeObject) => `${p.metadata.namespace}/${p.metadata.name}`;

/** Pods this scheduler should place: unbound, ours, not gated, not finished or going. */
function wantsScheduling(p: KubeObject): boolean {
  const spec = p.spec as any;
  if (spec?.nodeName || p.metadata.deletionTimestamp || isTerminal(p)) return false;
  if ((spec?.schedulerName || DEFAULT_SCHEDULER) !== DEFAULT_SCHEDULER) return false;
  return !(spec?.schedulingGates ?? []).length;
}

export const PreFilteredOut = 'node is filtered out by the prefilter result';

/**
 * The scheduler's FitError message: how many nodes failed for each reason
 * (sorted, as upstream sorts the histogram), then what preemption found.
 * `filteredOut` nodes the PreFilter left out count as one reason, given as a
 * number: a daemon pod names one node of thousands.
 */
export function fitErrorMessage(allNodes: number, unfit: Unfit[], filteredOut = 0): string {
  if (allNodes === 0) return 'no nodes available to schedule pods';
  const histogram = (reasons: string[], extra: [string, number] | undefined) => {
    const counts = new Map<string, number>();
    if (extra && extra[1] > 0) counts.set(extra[0], extra[1]);
    for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
  };
  const notHelpful = 'Preemption is not helpful for scheduling';
  const preemption = unfit.map((u) => (u.resolvable ? 'No preemption victims found for incoming pod' : notHelpful));
  return `0/${allNodes} nodes are available: ${histogram(
    unfit.map((u) => u.reason),
    [PreFilteredOut, filteredOut],
  )}. preemption: 0/${allNodes} nodes are available: ${histogram(preemption, [notHelpful, filteredOut])}.`;
}

/** Required node affinity terms that each name nodes by metadata.name (NodeAffinity PreFilter): only those nodes are candidates. */
function preFilterNodeNames(pod: KubeObject): Set<string> | undefined {
  const terms: any[] = (pod.spec as any)?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (!terms.length) return undefined;
  const names = new Set<string>();
  for (const term of terms) {
    const field = (term?.matchFields ?? []).find((f: any) => f?.key === 'metadata.name' && f.operator === 'In');
    if (!field) return undefined; // a term without one could match any node
    for (const v of field.values ?? []) names.add(v);
  }
  return names;
}

export function startScheduler(ctx: ControllerContext): () => void {
  const { cache } = ctx;
  const client = ctx.client.as(schedulerIdentity);
  const broadcaster = new EventBroadcaster();
  const events = broadcaster.newRecorder(client, { component: 'default-scheduler' });
  const podStore = ctx.stores.get(podKind)!;
  const nodeStore = ctx.stores.get(nodeKind)!;

  /** Host ports in use per node: pods bound there (terminating ones too) or assumed while their binding is written. */
  const portsOnNode = new Map<string, Map<string, HostPort[]>>();
  const nodeOfPod = new Map<string, string>();
  /** Pods that did not fit, by the one node they may go to ('' for pods that may go anywhere). */
  const waiting = new Map<string, Set<string>>();
  const waitingFor = new Map<string, string>();

  function place(key: string, nodeName: string | undefined, ports: HostPort[]) {
    const before = nodeOfPod.get(key);
    if (before && before !== nodeName) {
      portsOnNode.get(before)?.delete(key);
      if (!portsOnNode.get(before)?.size) portsOnNode.delete(before);
    }
    if (!nodeName) {
      nodeOfPod.delete(key);
      return;
    }
    nodeOfPod.set(key, nodeName);
    let m = portsOnNode.get(nodeName);
    if (!m) portsOnNode.set(nodeName, (m = new Map()));
    m.set(key, ports);
  }

  function park(key: string, target: string) {
    unpark(key);
    let s = waiting.get(target);
    if (!s) waiting.set(target, (s = new Set()));
    s.add(key);
    waitingFor.set(key, target);
  }
  function unpark(key: string) {
    const t = waitingFor.get(key);
    if (t === undefined) return;
    waiting.get(t)?.delete(key);
    if (!waiting.get(t)?.size) waiting.delete(t);
    waitingFor.delete(key);
  }
  /** Something changed on `nodeName`: pods waiting for it (and pods that may go anywhere) try again. */
  function retry(nodeName: string) {
    for (const t of [nodeName, '']) for (const key of waiting.get(t) ?? []) queue.add(key);
  }

  const getNode = (name: string) => cache.get(nodeStore.keyFor(undefined, name))?.object;
  const nodeNames = new Set<string>();

  /** The filters, in upstream's order; the first that fails names the node's reason. */
  function filter(pod: KubeObject, node: KubeObject, tolerations: Toleration[], wanted: HostPort[]): Unfit | undefined {
    const spec = pod.spec as any;
    const nodeSpec = node.spec as any;
    if (nodeSpec?.unschedulable && !tolerations.some((t) => toleratesTaint(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))) {
      return { reason: 'node(s) were unschedulable' };
    }
    const taint = ((nodeSpec?.taints ?? []) as Taint[]).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerations.some((x) => toleratesTaint(x, t)));
    if (taint) return { reason: `node(s) had untolerated taint {${taint.key ?? ''}: ${taint.value ?? ''}}` };
    if (nodeAffinityMismatch(spec, node as any)) return { reason: "node(s) didn't match Pod's node affinity/selector" };
    if (wanted.length) {
      const used = [...(portsOnNode.get(node.metadata.name!)?.entries() ?? [])].filter(([k]) => k !== podKey(pod)).flatMap(([, ports]) => ports);
      if (clashingHostPorts(wanted, used).length) return { reason: NodePortsUnfitReason, resolvable: true };
    }
    return undefined;
  }

  async function schedule(key: string) {
    const [ns, name] = key.split('/');
    trace('sch.sync', name);
    const pod = cache.get(podStore.keyFor(ns, name))?.object;
    if (!pod || !wantsScheduling(pod)) {
      unpark(key);
      return;
    }
    const spec = pod.spec as any;
    const tolerations: Toleration[] = spec?.tolerations ?? [];
    const wanted = hostPortsOf(spec);
    // Node names come from the watch, not a cache listing: a daemon pod looks at one node, not all.
    const only = preFilterNodeNames(pod);
    const candidates = [...(only ?? nodeNames)].map(getNode).filter((n): n is KubeObject => !!n);
    const unfit: Unfit[] = [];
    let best: KubeObject | undefined;
    let bestLoad = Infinity;
    for (const node of candidates) {
      const why = filter(pod, node, tolerations, wanted);
      if (why) {
        unfit.push(why);
        continue;
      }
      // Score: the node with the fewest pods, then by name.
      const load = portsOnNode.get(node.metadata.name!)?.size ?? 0;
      if (load < bestLoad || (load === bestLoad && node.metadata.name! < best!.metadata.name!)) {
        best = node;
        bestLoad = load;
      }
    }
    if (!best) {
      park(key, only?.size === 1 ? [...only][0] : '');
      // Nodes the PreFilter left out count too, as upstream words it.
      await markUnschedulable(pod, fitErrorMessage(nodeNames.size, unfit, Math.max(0, nodeNames.size - candidates.length)));
      return;
    }
    unpark(key);
    // Assume the pod on its node before the binding is written, so pods
    // scheduled meanwhile see its ports (the scheduler cache's assume).
    const nodeName = best.metadata.name!;
    place(key, nodeName, wanted);
    trace('sch.bind.req', name);
    try {
      await client.update(
        podKind,
        ns,
        name,
        (o) => {
          if (o.metadata.uid !== pod.metadata.uid || (o.spec as any)?.nodeName || o.metadata.deletionTimestamp) throw new Skip();
          (o.spec as any).nodeName = nodeName;
          const conds: any[] = ((o.status as any) ??= {}).conditions ?? [];
          const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(new Date()) };
          const i = conds.findIndex((c) => c.type === 'PodScheduled');
          if (i < 0) conds.push(scheduled);
          else if (conds[i].status !== 'True') conds[i] = scheduled;
          (o.status as any).conditions = conds;
        },
        'binding',
      );
      trace('sch.bind.done', name);
      events.event(referenceTo(podKind, pod), 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${nodeName}`);
    } catch (e: any) {
      const current = cache.get(podStore.keyFor(ns, name))?.object;
      const bound = (current?.spec as any)?.nodeName;
      place(key, current && bound ? bound : undefined, wanted); // forget the assumption unless the pod is bound
      if (e instanceof Skip || e?.code === 404) return;
      throw e;
    }
  }

  async function markUnschedulable(pod: KubeObject, message: string) {
    const current = ((pod.status as any)?.conditions ?? []).find((c: any) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === 'Unschedulable' && current.message === message) return;
    await client
      .update(
        podKind,
        pod.metadata.namespace,
        pod.metadata.name!,
        (o) => {
          if (o.metadata.uid !== pod.metadata.uid || (o.spec as any)?.nodeName) throw new Skip();
          const st = ((o.status as any) ??= {});
          const conds: any[] = st.conditions ?? [];
          const i = conds.findIndex((c) => c.type === 'PodScheduled');
          const now = rfc3339(new Date());
          const next = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: i >= 0 && conds[i].status === 'False' ? conds[i].lastTransitionTime : now, reason: 'Unschedulable', message };
          if (i < 0) conds.push(next);
          else conds[i] = next;
          st.conditions = conds;
        },
        'status',
      )
      .catch((e) => {
        if (!(e instanceof Skip) && e?.code !== 404) throw e;
      });
  }

  // Upstream schedules one pod at a time and writes each binding in a goroutine
  // of its own, so bindings do not wait for one another. Here the filtering and
  // the assume run in one synchronous stretch (one pod at a time all the same),
  // and a wide queue lets the binding writes of many pods share a group commit
  // instead of eight at a time taking turns at it.
  const queue = new WorkQueue(schedule, 1000);

  function onPod(type: CacheEvent['type'] | 'SYNC', pod: KubeObject) {
    const key = podKey(pod);
    const nodeName = (pod.spec as any)?.nodeName as string | undefined;
    const before = nodeOfPod.get(key);
    if (tracing && type === 'ADDED') trace('sch.see.added', pod.metadata.name!);
    // Finished pods free their ports (the scheduler's informer leaves them out).
    const holds = type !== 'DELETED' && !!nodeName && !isTerminal(pod);
    place(key, holds ? nodeName : undefined, holds ? hostPortsOf(pod.spec as any) : []);
    if (before && !holds) retry(before);
    if (type === 'DELETED') {
      unpark(key);
      return;
    }
    // A pod that changed may fit now (our own Unschedulable write comes back
    // here too, and finds the same message, so it is not written again).
    if (wantsScheduling(pod)) queue.add(key);
    else unpark(key);
  }

  const schedulingView = (n: KubeObject) => ({ labels: n.metadata.labels, unschedulable: (n.spec as any)?.unschedulable, taints: (n.spec as any)?.taints });
  function onNode(e: CacheEvent) {
    const node = e.object.object;
    if (e.type === 'DELETED') nodeNames.delete(node.metadata.name!);
    else nodeNames.add(node.metadata.name!);
    if (e.type === 'MODIFIED' && e.previous && JSON.stringify(schedulingView(e.previous)) === JSON.stringify(schedulingView(node))) return;
    retry(node.metadata.name!);
    if (e.type === 'DELETED') portsOnNode.delete(node.metadata.name!);
  }

  const informer = inform(cache, {
    list: [
      [nodeStore.resourcePrefix, (c) => nodeNames.add(c.object.metadata.name!)],
      [podStore.resourcePrefix, (c) => onPod('SYNC', c.object)],
    ],
    watch: [
      [podStore.resourcePrefix, (e) => onPod(e.type, e.object.object)],
      [nodeStore.resourcePrefix, onNode],
    ],
  });
  queue.startAfter(informer.synced);

  return () => {
    broadcaster.stop();
    queue.stop();
    informer.stop();
  };
}

class Skip extends Error {}
