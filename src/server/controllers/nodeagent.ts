// Simulated node agents in the style of KWOK: for each simulated node a
// kubelet that registers the node (for `--sim-nodes`), renews its Lease in
// `kube-node-lease` as `system:node:<name>` with renewals spread over the
// interval (a loop of its own, so a renewal never waits for status writes),
// posts its status when it changes (the image list of new pods at the next
// heartbeat tick; an unchanged status every nodeStatusReportFrequency), runs the pods
// bound to it (Pending -> Running -> Ready, crash loops and failing readiness
// on request), deletes terminating pods once their containers have stopped,
// and reports the deprecated dynamic configuration. Beside them runs the part
// of the node lifecycle controller that reacts to what they report: the
// not-ready / unreachable NoSchedule taints and pods marked not Ready on a
// node that is not Ready, and conditions Unknown for a node whose Lease and
// status both went quiet for the grace period (nodelease.ts). Everything is driven by watch-cache events plus
// timers for the simulated delays; nothing polls the store.
import { nodeKind } from '../../kinds/node.ts';
import { podKind } from '../../kinds/pod.ts';
import { configMapKind } from '../../kinds/configmap.ts';
import { leaseKind } from '../../kinds/coordination.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { parseSelector, matchesRequirements } from '../../lib/labels.ts';
import { parseCIDR } from '../../lib/cidr.ts';
import { clone, deepEqual } from '../../lib/json.ts';
import { rfc3339 } from '../../lib/duration.ts';
import type { Client } from '../client.ts';
import type { CacheEvent } from '../watch/cache.ts';
import type { UserInfo } from '../auth/authn.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { Annotations, hex, isTrue, memoByName, timingOf, type SimulationOptions, type Timing } from './simulation.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';
import { trace, tracePodEvent, tracing } from './rollouttrace.ts';
import { EventBroadcaster, referenceTo, type EventRecorder, type ObjectReference } from '../events/recorder.ts';
import { killingEvents, kubeletNodeEvents, kubeletPodEvents, nodeStatusEvent, type KubeletEvent } from '../events/kubelet.ts';
import { nodeConfigStatus, type NodeConfigSource } from './nodeconfig.ts';
import { kubeletPodStatus, statusComputed, statusHolds, type PodMemo } from './kubeletpods.ts';
import { leaseTiming, NODE_LEASE_NAMESPACE, NodeHealth, nodeLease, renewNodeLease } from './nodelease.ts';
import { conditionOf } from '../../lib/conditions.ts';
import { clashingHostPorts, hostPortsOf, NodePortsUnfitReason } from '../../lib/nodeports.ts';
import { eachConcurrently } from '../../lib/concurrently.ts';

export const nodeIdentity = (name: string): UserInfo => ({ name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });

export const SIMULATED_LABEL = 'sim.k8s.io/simulated';
export const TaintNotReady = 'node.kubernetes.io/not-ready';
export const TaintUnreachable = 'node.kubernetes.io/unreachable';

export const KUBELET_VERSION = 'v1.32.0';
export const DEFAULT_CAPACITY = { cpu: '8', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '32Gi', pods: '110' };
export const DEFAULT_ALLOCATABLE = { cpu: '7910m', 'ephemeral-storage': '95Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '31Gi', pods: '110' };
export const BASE_IMAGES = ['registry.k8s.io/pause:3.10', 'registry.k8s.io/kube-proxy:v1.32.0', 'registry.k8s.io/coredns/coredns:v1.11.3'];
type ConditionRow = readonly [type: string, status: string, reason: string, message: string];
/** The conditions a healthy kubelet reports, in its order. */
export const HEALTHY_NODE_CONDITIONS: readonly ConditionRow[] = [
  ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
];
/** The same with the simulated network fault (the not-ready annotation). */
const NOT_READY_NODE_CONDITIONS: readonly ConditionRow[] = [
  ...HEALTHY_NODE_CONDITIONS.slice(0, 3),
  ['Ready', 'False', 'KubeletNotReady', `container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:simulated fault (annotation ${Annotations.nodeNotReady})`],
];
/** The kubelet reports at most this many images (nodeStatusMaxImages). */
const MAX_IMAGES = 50;

/** A simulated image's size, stable per name. */
const imageSize = memoByName((name) => 5_000_000 + (parseInt(hex(name, 6), 16) % 200_000_000));

/** Heartbeat (Lease renewal) write latencies (ms) of every agent in this process, for the bench. */
const heartbeatLatencies: number[] = [];
export function heartbeatStats() {
  const sorted = [...heartbeatLatencies].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}
export function resetHeartbeatStats() {
  heartbeatLatencies.length = 0;
}

interface NodeState {
  name: string;
  /** Phase of this node's heartbeat within the interval, so 5000 nodes do not beat at once. */
  phaseMs: number;
  /** When the next Lease renewal is due (0: the kubelet has not renewed yet). */
  nextHeartbeat: number;
  /** A Lease renewal is due and queued. */
  beat: boolean;
  /** When the status is posted even if unchanged (nodeStatusReportFrequency; 0: never posted). */
  nextReport: number;
  /** The node object whose status was last compared; a heartbeat alone does not compare it again. */
  checked?: KubeObject;
  /** Pods came since the image list was made. */
  imagesDirty: boolean;
  /** The status loop's tick came (the image list is posted then). */
  statusTick?: boolean;
  /** Images pulled on this node: they stay after their pods go, as on a real node until image GC. */
  pulled?: Set<string>;
  /** When the dynamic config's soak ends (the status changes then). */
  wakeAt?: number;
  nodeInfo?: Record<string, string>;
  internalIP?: string;
  /** The soak clock of the assigned dynamic config: key -> when it was recorded. */
  assigned?: { key: string; at: number };
  /** spec.unschedulable as this kubelet last saw it (upstream's lastNodeUnschedulable, false at start). */
  unschedulable?: boolean;
  client: Client;
  events?: EventRecorder;
}

const podKey = (p: KubeObject) => `${p.metadata.namespace}/${p.metadata.name}`;

export function startNodeAgents(ctx: ControllerContext, opts: SimulationOptions): () => void {
  const timing: Timing = timingOf(opts);
  const intervalMs = timing.heartbeatSeconds * 1000;
  const selector = parseSelector(opts.nodes ?? '');
  const { cache } = ctx;
  const nodeStore = ctx.stores.get(nodeKind)!;
  const podStore = ctx.stores.get(podKind)!;
  const cmStore = ctx.stores.get(configMapKind)!;
  const leaseStore = ctx.stores.get(leaseKind)!;
  const { leaseDurationSeconds, gracePeriodMs, monitorPeriodMs } = leaseTiming(timing.heartbeatSeconds);
  const reportMs = timing.nodeStatusReportSeconds * 1000;
  const health = new NodeHealth();
  const lifecycle = ctx.client.as(controllerIdentity('node-controller'));
  // One broadcaster for every simulated kubelet of this process; each kubelet records as itself.
  const broadcaster = new EventBroadcaster();
  const lifecycleEvents = broadcaster.newRecorder(lifecycle, { component: 'node-controller' });
  const kubeletEvents = (st: NodeState) => (st.events ??= broadcaster.newRecorder(st.client, { component: 'kubelet', host: st.name }));
  const record = (st: NodeState, about: KubeObject | ObjectReference, events: KubeletEvent[]) => {
    for (const e of events) kubeletEvents(st).event(about, e.type, e.reason, e.message, e.fieldPath);
  };

  const nodes = new Map<string, NodeState>();
  const podsByNode = new Map<string, Set<string>>();
  const nodeOfPod = new Map<string, string>();
  const podIPs = new Map<string, Set<string>>(); // node -> pod IPs in use
  const memos = new Map<string, PodMemo>(); // pod uid -> memo
  const terminatingSince = new Map<string, number>();
  const usedInternalIPs = new Set<string>();
  let nextInternal = 2;
  let stopped = false;

  const getNode = (name: string) => cache.get(nodeStore.keyFor(undefined, name))?.object;
  const simulated = (node: KubeObject | undefined) => !!node && matchesRequirements(selector, node.metadata.labels);
  const unreachable = (node: KubeObject) => isTrue(node.metadata.annotations, Annotations.nodeUnreachable);
  const faulted = (node: KubeObject) => unreachable(node) || isTrue(node.metadata.annotations, Annotations.nodeNotReady);

  function stateOf(name: string): NodeState {
    let st = nodes.get(name);
    if (!st) {
      const phaseMs = parseInt(hex(name, 8), 16) % intervalMs;
      st = { name, phaseMs, nextHeartbeat: 0, beat: false, nextReport: 0, imagesDirty: true, client: ctx.client.as(nodeIdentity(name)) };
      nodes.set(name, st);
      slotOf(st).add(name);
    }
    return st;
  }

  const tickMs = Math.max(5, Math.min(50, intervalMs / 1000));
  const slots: Set<string>[] = Array.from({ length: Math.ceil(intervalMs / tickMs) }, () => new Set());
  const slotOf = (st: NodeState) => slots[Math.floor(st.phaseMs / tickMs)];
  function forget(name: string) {
    const st = nodes.get(name);
    if (st) slotOf(st).delete(name);
    nodes.delete(name);
    health.forget(name);
  }

  /** The next time after `t` that falls on this node's phase of the interval. */
  const nextSlot = (st: NodeState, t: number) => t + ((((st.phaseMs - t) % intervalMs) + intervalMs) % intervalMs);

  function internalIPOf(st: NodeState, node: KubeObject): string {
    const existing = ((node.status as any)?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address;
    if (existing) return (st.internalIP = existing);
    if (st.internalIP) return st.internalIP;
    // 172.18.0.0/16, as a kind cluster's node network; skip addresses other nodes report.
    let ip: string;
    do {
      ip = `172.18.${(nextInternal >> 8) & 255}.${nextInternal & 255}`;
      nextInternal++;
    } while (usedInternalIPs.has(ip) || ip.endsWith('.0') || ip.endsWith('.255'));
    usedInternalIPs.add(ip);
    return (st.internalIP = ip);
  }

  /** Pod addresses: the node's podCIDR when it has one, else 10.<a>.<b>.0/24 derived from its 172.18.<a>.<b> address. */
  function allocatePodIP(node: KubeObject, hostIP: string): string {
    const name = node.metadata.name!;
    const used = podIPs.get(name) ?? new Set<string>();
    podIPs.set(name, used);
    const cidr = parseCIDR((node.spec as any)?.podCIDR ?? '');
    let base: number[];
    if (cidr && cidr.family === 4) base = Array.from(cidr.ip);
    else {
      const [, , a, b] = hostIP.split('.').map(Number);
      base = [10, a, b, 0];
    }
    for (let i = 2; i < 255; i++) {
      const ip = `${base[0]}.${base[1]}.${base[2]}.${i}`;
      if (!used.has(ip)) {
        used.add(ip);
        return ip;
      }
    }
    return `${base[0]}.${base[1]}.${base[2]}.254`;
  }

  // ---- node status ---------------------------------------------------------

  function imagesOn(st: NodeState): any[] {
    const pulled = (st.pulled ??= new Set());
    for (const key of podsByNode.get(st.name) ?? []) {
      const pod = cache.get(podStore.keyFor(key.split('/')[0], key.split('/')[1]))?.object;
      for (const c of (pod?.spec as any)?.containers ?? []) if (c.image) pulled.add(c.image);
    }
    for (const oldest of pulled) if (pulled.size > MAX_IMAGES) pulled.delete(oldest);
    const names = new Set([...BASE_IMAGES, ...pulled]);
    return [...names]
      .slice(0, MAX_IMAGES)
      .map((n) => ({ names: [n], sizeBytes: imageSize(n) }));
  }

  /** The status the kubelet posts; `heartbeat` refreshes lastHeartbeatTime, `images` the image list. */
  function kubeletNodeStatus(node: KubeObject, st: NodeState, now: number, heartbeat: boolean, images: boolean): { status: any; wakeAt?: number } {
    const name = node.metadata.name!;
    const nowStr = rfc3339(new Date(now));
    const s = clone((node.status as any) ?? {});
    const labels = node.metadata.labels ?? {};
    const hasAny = (r: any) => r && Object.keys(r).length > 0;
    if (!hasAny(s.capacity)) {
      s.capacity = { ...DEFAULT_CAPACITY };
      if (!hasAny(s.allocatable)) s.allocatable = { ...DEFAULT_ALLOCATABLE };
    }
    if (!hasAny(s.allocatable)) s.allocatable = { ...s.capacity };
    s.nodeInfo = { ...(st.nodeInfo ??= {
      machineID: hex(`machine/${name}`, 32),
      systemUUID: hex(`system/${name}`, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
      bootID: hex(`boot/${name}`, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
      kernelVersion: '6.1.0-28-cloud-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.7.24',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: labels['kubernetes.io/os'] ?? 'linux',
      architecture: labels['kubernetes.io/arch'] ?? 'amd64',
    }) };
    const ip = internalIPOf(st, node);
    const addresses: any[] = s.addresses ?? [];
    if (!addresses.some((a) => a.type === 'InternalIP')) addresses.unshift({ type: 'InternalIP', address: ip });
    if (!addresses.some((a) => a.type === 'Hostname')) addresses.push({ type: 'Hostname', address: name });
    s.addresses = addresses;
    s.daemonEndpoints = { kubeletEndpoint: { Port: 10250 } };
    if (images || !s.images) s.images = imagesOn(st);

    const notReady = isTrue(node.metadata.annotations, Annotations.nodeNotReady);
    const want = notReady ? NOT_READY_NODE_CONDITIONS : HEALTHY_NODE_CONDITIONS;
    const old: any[] = s.conditions ?? [];
    const others = old.filter((c) => !want.some(([t]) => t === c.type));
    s.conditions = [
      ...others,
      ...want.map(([type, status, reason, message]) => {
        const prev = old.find((c) => c.type === type);
        return {
          type,
          status,
          lastHeartbeatTime: heartbeat || !prev?.lastHeartbeatTime ? nowStr : prev.lastHeartbeatTime,
          lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : nowStr,
          reason,
          message,
        };
      }),
    ];

    const source = (node.spec as any)?.configSource as NodeConfigSource | undefined;
    const decision = nodeConfigStatus(source, s.config, (ns, n) => cache.get(cmStore.keyFor(ns, n))?.object as any, {
      now,
      soakMs: timing.soakSeconds * 1000,
      assignedAt: (assigned) => {
        const key = JSON.stringify(assigned);
        if (st.assigned?.key !== key) st.assigned = { key, at: now };
        return st.assigned.at;
      },
    });
    if (decision.config) s.config = decision.config;
    else delete s.config;
    return { status: s, wakeAt: decision.soakEndsAt };
  }

  async function syncNode(name: string) {
    const node = getNode(name);
    if (!node) {
      forget(name);
      return;
    }
    if (!simulated(node) || unreachable(node)) return; // an unreachable kubelet posts nothing
    const st = stateOf(name);
    const now = Date.now();
    // The kubelet's node events name the node by name as its uid, as upstream's nodeRef does.
    const nodeRef = { kind: 'Node', name, uid: name };
    // A cordon or uncordon is recorded as the kubelet's node status loop sees it (upstream's recordNodeSchedulableEvent).
    const unschedulable = !!(node.spec as any)?.unschedulable;
    if (unschedulable !== !!st.unschedulable) {
      st.unschedulable = unschedulable;
      record(st, nodeRef, [nodeStatusEvent(name, unschedulable ? 'NodeNotSchedulable' : 'NodeSchedulable')]);
    }
    // The status is compared only when something it derives from moved: the node or the
    // config soak at once; the pods (images) at the status loop's next tick (every heartbeat
    // interval, as upstream's nodeStatusUpdateFrequency), so a node that takes ten pods posts
    // its image list once, not ten times; else only when a report is due.
    const tick = st.statusTick;
    st.statusTick = false;
    const report = now >= st.nextReport;
    const images = report || (st.imagesDirty && (tick || !st.checked));
    if (!report && !images && st.checked === node && !(st.wakeAt !== undefined && now >= st.wakeAt)) return;
    const { status, wakeAt } = kubeletNodeStatus(node, st, now, false, images);
    st.checked = node;
    if (images) st.imagesDirty = false;
    st.wakeAt = wakeAt;
    if (wakeAt !== undefined) nodeQueue.after(name, wakeAt - now);
    if (!report && deepEqual(status, node.status ?? {}, true)) return;
    const written = await st.client.update(nodeKind, undefined, name, (o) => void (o.status = kubeletNodeStatus(o, st, now, true, images).status), 'status');
    st.nextReport = now + reportMs;
    record(st, nodeRef, kubeletNodeEvents(name, node.status, written.status));
  }

  /**
   * The kubelet's node lease controller, apart from its status loop (as upstream's): a renewal
   * never waits for a status write, nor for other kubelets' writes beyond the store's own queue.
   */
  async function syncLease(name: string) {
    const node = getNode(name);
    if (!node || !simulated(node) || unreachable(node)) return; // (a renewal left due is taken up when the node is reachable again)
    const st = stateOf(name);
    const now = Date.now();
    st.beat = false;
    st.nextHeartbeat = nextSlot(st, now + intervalMs / 2);
    await renewLease(st, node, now);
  }

  /** Creates the Lease once, then renews it in place. */
  async function renewLease(st: NodeState, node: KubeObject, now: number) {
    const t0 = performance.now();
    const exists = cache.get(leaseStore.keyFor(NODE_LEASE_NAMESPACE, st.name));
    try {
      if (exists) await st.client.update(leaseKind, NODE_LEASE_NAMESPACE, st.name, (l) => renewNodeLease(l, node, leaseDurationSeconds, now));
      else await st.client.create(leaseKind, nodeLease(node, leaseDurationSeconds, now));
    } catch (e: any) {
      // Created or deleted by someone else meanwhile: the next renewal sees it.
      if (e?.code !== 409 && e?.code !== 404) throw e;
      st.nextHeartbeat = now;
      return;
    }
    heartbeatLatencies.push(performance.now() - t0);
    if (heartbeatLatencies.length > 200_000) heartbeatLatencies.splice(0, 100_000);
  }

  // ---- node lifecycle controller (the part that reacts to the agents) ------

  async function syncLifecycle(name: string) {
    const node = getNode(name);
    if (!node) return;
    if (simulated(node) && health.stale(name, Date.now(), gracePeriodMs) && (conditionOf(node, 'Ready')?.status ?? 'Unknown') !== 'Unknown') {
      // Neither the Lease nor the status moved for the grace period: the kubelet went
      // silent, and the lifecycle controller marks every condition Unknown.
      const nowStr = rfc3339(new Date());
      await lifecycle.update(nodeKind, undefined, name, (o) => {
        for (const c of (o.status as any)?.conditions ?? []) {
          if (c.status === 'Unknown') continue;
          Object.assign(c, { status: 'Unknown', lastTransitionTime: nowStr, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
        }
      }, 'status');
      return;
    }
    const ready = conditionOf(node, 'Ready');
    if (!ready) return; // never reported: nothing to judge yet
    const taints: any[] = (node.spec as any)?.taints ?? [];
    const want = ready.status === 'False' ? TaintNotReady : ready.status === 'Unknown' ? TaintUnreachable : undefined;
    const isOurs = (t: any) => (t.key === TaintNotReady || t.key === TaintUnreachable) && t.effect === 'NoSchedule';
    const current = taints.filter(isOurs).map((t) => t.key);
    if (!deepEqual(current, want ? [want] : [])) {
      await lifecycle.update(nodeKind, undefined, name, (o) => {
        const spec = ((o.spec as any) ??= {});
        const kept = (spec.taints ?? []).filter((t: any) => !isOurs(t));
        if (want) kept.push({ key: want, effect: 'NoSchedule' });
        if (kept.length) spec.taints = kept;
        else delete spec.taints;
      });
    }
    if (ready.status !== 'True' && !deepEqual(current, want ? [want] : [])) {
      // RecordNodeStatusChange, once per change of the taints it drives.
      const e = nodeStatusEvent(name, 'NodeNotReady');
      lifecycleEvents.event({ kind: 'Node', name, uid: name }, e.type, e.reason, e.message);
    }
    if (ready.status !== 'True') {
      // MarkPodsNotReady: pods on a node that is not Ready are not Ready either.
      for (const key of podsByNode.get(name) ?? []) {
        const [ns, podName] = key.split('/');
        const pod = cache.get(podStore.keyFor(ns, podName))?.object;
        const cond = ((pod?.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready');
        if (!pod || cond?.status !== 'True') continue;
        await lifecycle
          .update(podKind, ns, podName, (o) => {
            const c = ((o.status as any)?.conditions ?? []).find((x: any) => x.type === 'Ready');
            if (c && c.status === 'True') Object.assign(c, { status: 'False', lastTransitionTime: rfc3339(new Date()) });
          }, 'status')
          .then(() => lifecycleEvents.event(referenceTo(podKind, pod), 'Warning', 'NodeNotReady', 'Node is not ready'))
          .catch(() => {});
      }
    }
  }

  // ---- pods ----------------------------------------------------------------

  /**
   * The kubelet's admission (canAdmitPod) for a pod it has not started yet:
   * a host port that a pod it already admitted holds rejects it, as the
   * NodePorts predicate does (a pod bound past the scheduler, by spec.nodeName).
   */
  function admissionRejection(pod: KubeObject, nodeName: string): { reason: string; message: string } | undefined {
    const st = pod.status as any;
    if ((st?.phase && st.phase !== 'Pending') || (st?.containerStatuses ?? []).some((c: any) => c.started || c.state?.running)) return undefined;
    const wanted = hostPortsOf(pod.spec as any);
    if (!wanted.length) return undefined;
    for (const key of podsByNode.get(nodeName) ?? []) {
      const other = cache.get(podStore.keyFor(key.split('/')[0], key.split('/')[1]))?.object;
      if (!other || other.metadata.uid === pod.metadata.uid) continue;
      const phase = (other.status as any)?.phase;
      const admitted = memos.has(other.metadata.uid!) || phase === 'Running';
      if (!admitted || phase === 'Succeeded' || phase === 'Failed') continue;
      if (clashingHostPorts(wanted, hostPortsOf(other.spec as any)).length) {
        return { reason: 'NodePorts', message: `Pod was rejected: Predicate NodePorts failed: ${NodePortsUnfitReason}` };
      }
    }
    return undefined;
  }

  async function syncPod(key: string) {
    const [ns, name] = key.split('/');
    const pod = cache.get(podStore.keyFor(ns, name))?.object;
    if (!pod) return;
    const nodeName = (pod.spec as any)?.nodeName;
    const node = nodeName ? getNode(nodeName) : undefined;
    if (!node || !simulated(node)) return;
    if (unreachable(node)) return; // a silent kubelet does nothing, not even finish deletions
    const st = stateOf(nodeName);
    const now = Date.now();
    const uid = pod.metadata.uid!;
    const client = st.client;
    trace('kl.sync', name, pod.metadata.deletionTimestamp ? 'term' : (pod.status as any)?.phase);
    if (pod.metadata.deletionTimestamp) {
      // Stop the containers (podStopSeconds, within the grace period), then remove the pod.
      const since = terminatingSince.get(uid) ?? now;
      if (!terminatingSince.has(uid)) record(st, referenceTo(podKind, pod), killingEvents(pod));
      terminatingSince.set(uid, since);
      const deadline = Date.parse(pod.metadata.deletionTimestamp);
      const due = Math.min(since + timing.podStopSeconds * 1000, Number.isNaN(deadline) ? now : deadline);
      if (now < due) {
        trace('kl.wake', name, String(due));
        return podQueue.after(key, due - now);
      }
      trace('kl.final.req', name);
      await client.delete(podKind, ns, name, { gracePeriodSeconds: 0, preconditions: { uid } }).catch((e) => {
        if (e?.code !== 404 && e?.code !== 409) throw e;
      });
      trace('kl.final.done', name);
      return;
    }
    const phase = (pod.status as any)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    if (faulted(node)) return; // not Ready: the lifecycle controller marks the pods, the kubelet waits
    let memo = memos.get(uid);
    if (!memo) {
      const rejected = admissionRejection(pod, nodeName);
      if (rejected) {
        await client
          .update(podKind, ns, name, (o) => {
            if (o.metadata.uid !== uid) return;
            o.status = { ...(o.status as any), phase: 'Failed', ...rejected };
          }, 'status')
          .then(() => record(st, referenceTo(podKind, pod), [{ type: 'Warning', reason: rejected.reason, message: rejected.message }]))
          .catch((e) => {
            if (e?.code !== 404) throw e;
          });
        return;
      }
      memos.set(uid, (memo = { seenAt: now, startedAt: new Map(), crashedAt: new Map() }));
    }
    // Nothing it derives from moved since the last computation (most often this is our own write coming
    // back). A timer may fire a little before the clock reaches its delay: it is set again for the rest.
    if (statusHolds(memo, pod, node, now)) {
      if (memo.computed!.until !== Infinity) podQueue.after(key, memo.computed!.until - now);
      return;
    }
    const hostIP = internalIPOf(st, node);
    const podCtx = {
      now,
      hostIP,
      allocatePodIP: () => (memo.podIP ??= allocatePodIP(node, hostIP)),
      startDelayMs: timing.podStartSeconds * 1000,
      readyDelayMs: timing.podReadySeconds * 1000,
      crashBackoffMs: timing.crashBackoffSeconds * 1000,
      imagePullError: isTrue(node.metadata.annotations, Annotations.nodeImagePullError),
    };
    const { status, wakeAt } = kubeletPodStatus(pod, memo, podCtx);
    if (wakeAt !== undefined) {
      trace('kl.wake', name, String(wakeAt));
      podQueue.after(key, wakeAt - now);
    }
    statusComputed(memo, pod, node, wakeAt);
    if (deepEqual(status, pod.status ?? {}, true)) return;
    memo.computed = undefined; // until the write is done
    const traced = tracing ? `${status.phase}${status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') ? '+ready' : ''}` : undefined;
    trace('kl.status.req', name, traced);
    let recomputed = false;
    const written = await client.update(podKind, ns, name, (o) => {
      if (o.metadata.uid !== uid) return;
      // Unchanged since computed: reuse it (recomputing would see the memo already advanced).
      if (deepEqual(o.status ?? {}, pod.status ?? {})) o.status = status;
      else {
        recomputed = true;
        o.status = kubeletPodStatus(o, memo, podCtx).status;
      }
    }, 'status');
    // The stored pod holds what we computed: its own event need not be computed again. (A status
    // computed from another version of the pod is not known to hold: the next event computes it.)
    trace('kl.status.done', name, traced);
    if (!recomputed && written.metadata.uid === uid) statusComputed(memo, written, node, wakeAt);
    record(st, referenceTo(podKind, pod), kubeletPodEvents(pod, pod.status, written.status));
  }

  // ---- wiring --------------------------------------------------------------

  // Every simulated kubelet is a separate agent with its own pod workers, so
  // thousands of them write side by side: a write waits out the store's group
  // commit (an fsync), and a narrow queue would make 5000 kubelets take turns
  // (a rollout wave of 500 pods whose start delay runs out at once would wait
  // out four commits in a row at 128).
  // Node status and Lease renewals likewise: each kubelet's own loops, unbounded. With a shared
  // 64 for both, ten DaemonSets created at once on 5000 nodes (50,000 pods, every write slower
  // meanwhile) held renewals back until Leases were over a minute old and 1,100 nodes went NotReady.
  const nodeQueue = new WorkQueue(syncNode, Infinity);
  const leaseQueue = new WorkQueue(syncLease, Infinity);
  const lifecycleQueue = new WorkQueue(syncLifecycle, 4);
  const podQueue = new WorkQueue(syncPod, 5000);

  function podsOf(nodeName: string) {
    for (const key of podsByNode.get(nodeName) ?? []) podQueue.add(key);
  }

  function onNode(type: CacheEvent['type'] | 'SYNC', node: KubeObject, previous?: KubeObject) {
    const name = node.metadata.name!;
    if (type === 'DELETED') {
      forget(name);
      return;
    }
    const ip = ((node.status as any)?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address;
    if (ip) usedInternalIPs.add(ip);
    if (!simulated(node)) return;
    health.observeNode(name, conditionOf(node, 'Ready'), Date.now());
    nodeQueue.add(name);
    // Not renewed yet, or a renewal left due while the kubelet was unreachable.
    const st = nodes.get(name);
    if (!st || st.beat || st.nextHeartbeat === 0) leaseQueue.add(name);
    lifecycleQueue.add(name);
    const pullError = (n: KubeObject) => isTrue(n.metadata.annotations, Annotations.nodeImagePullError);
    if (previous && (faulted(previous) !== faulted(node) || unreachable(previous) !== unreachable(node) || pullError(previous) !== pullError(node))) podsOf(name);
    if (previous && !deepEqual(conditionOf(previous, 'Ready')?.status, conditionOf(node, 'Ready')?.status)) podsOf(name);
  }

  function onPod(type: CacheEvent['type'] | 'SYNC', pod: KubeObject) {
    const key = podKey(pod);
    const before = nodeOfPod.get(key);
    const nodeName = (pod.spec as any)?.nodeName as string | undefined;
    if (type === 'DELETED' || before !== nodeName) {
      // A pod that goes leaves its images on the node: the image list does not change.
      if (before) podsByNode.get(before)?.delete(key);
      nodeOfPod.delete(key);
      const ip = (pod.status as any)?.podIP;
      if (type === 'DELETED') {
        if (ip && before) podIPs.get(before)?.delete(ip);
        memos.delete(pod.metadata.uid!);
        terminatingSince.delete(pod.metadata.uid!);
        return;
      }
    }
    if (!nodeName) return;
    nodeOfPod.set(key, nodeName);
    let set = podsByNode.get(nodeName);
    if (!set) podsByNode.set(nodeName, (set = new Set()));
    if (!set.has(key)) imagesChanged(nodeName);
    set.add(key);
    const ip = (pod.status as any)?.podIP;
    if (ip) {
      let used = podIPs.get(nodeName);
      if (!used) podIPs.set(nodeName, (used = new Set()));
      used.add(ip);
    }
    podQueue.add(key);
  }

  function imagesChanged(nodeName: string) {
    const st = nodes.get(nodeName);
    if (st) st.imagesDirty = true;
  }

  function onLease(lease: KubeObject) {
    const name = lease.metadata.name!;
    if (!nodes.has(name)) return;
    health.observeLease(name, (lease.spec as any)?.renewTime, Date.now());
  }

  function onConfigMap(cm: KubeObject) {
    for (const st of nodes.values()) {
      const ref = (getNode(st.name)?.spec as any)?.configSource?.configMap;
      if (ref && ref.namespace === cm.metadata.namespace && ref.name === cm.metadata.name) {
        st.checked = undefined; // the status derives from the ConfigMap: compare it again
        nodeQueue.add(st.name);
      }
    }
  }

  const informer = inform(cache, {
    list: [
      [nodeStore.resourcePrefix, (c) => onNode('SYNC', c.object)],
      [podStore.resourcePrefix, (c) => onPod('SYNC', c.object)],
    ],
    watch: [
      [nodeStore.resourcePrefix, (e) => onNode(e.type, e.object.object, e.previous)],
      [
        podStore.resourcePrefix,
        (e) => {
          if (tracing) tracePodEvent('kl', e);
          onPod(e.type, e.object.object);
        },
      ],
      [cmStore.resourcePrefix, (e) => onConfigMap(e.object.object)],
      [leaseStore.prefixFor(NODE_LEASE_NAMESPACE), (e) => e.type !== 'DELETED' && onLease(e.object.object)],
    ],
  });
  for (const q of [nodeQueue, leaseQueue, lifecycleQueue, podQueue]) q.startAfter(informer.synced);

  // monitorNodeHealth: every monitor period, nodes not heard from within the grace period are judged again.
  const monitor = setInterval(() => {
    const now = Date.now();
    for (const name of health.names()) {
      if (health.stale(name, now, gracePeriodMs) && (conditionOf(getNode(name), 'Ready')?.status ?? 'Unknown') !== 'Unknown') lifecycleQueue.add(name);
    }
  }, monitorPeriodMs);
  monitor.unref();

  // Heartbeats: each node beats on its own phase of the interval. Nodes sit in
  // slots by phase; every tick looks only at the slots that just went by, so
  // writes stay spread evenly and 5000 nodes cost a few checks per tick. A
  // sweep once a second catches any node a slot check missed.
  let lastSlot = Math.floor((Date.now() % intervalMs) / tickMs);
  const checkDue = (st: NodeState | undefined, now: number) => {
    if (st && !st.beat && st.nextHeartbeat > 0 && now >= st.nextHeartbeat) {
      st.beat = true;
      leaseQueue.add(st.name);
      // The status loop's tick, when it has something to post: new images, or a report due.
      if (st.imagesDirty || now >= st.nextReport) {
        st.statusTick = true;
        nodeQueue.add(st.name);
      }
    }
  };
  let lastSweep = Date.now();
  const ticker = setInterval(() => {
    const now = Date.now();
    const cur = Math.floor((now % intervalMs) / tickMs);
    for (let k = lastSlot; k !== cur; k = (k + 1) % slots.length) for (const name of slots[k]) checkDue(nodes.get(name), now);
    lastSlot = cur;
    if (now - lastSweep >= 1000) {
      lastSweep = now;
      for (const st of nodes.values()) if (now >= st.nextHeartbeat + 2 * tickMs) checkDue(st, now);
    }
  }, tickMs);
  ticker.unref();

  if (opts.extraNodes) void registerNodes(ctx, opts.extraNodes, () => stopped);

  return () => {
    stopped = true;
    clearInterval(ticker);
    clearInterval(monitor);
    broadcaster.stop();
    nodeQueue.stop();
    leaseQueue.stop();
    lifecycleQueue.stop();
    podQueue.stop();
    informer.stop();
  };
}

export const simNodeName = (i: number) => `sim-node-${String(i).padStart(5, '0')}`;

/**
 * The kubelets of `--sim-nodes N` register their Node objects, as a kubelet
 * does at start: side by side, as real kubelets do, so that the store commits
 * many registrations together.
 */
async function registerNodes(ctx: ControllerContext, count: number, stopped: () => boolean) {
  const store = ctx.stores.get(nodeKind)!;
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const numbers = function* () {
    for (let i = 1; i <= count && !stopped(); i++) yield i;
  };
  await eachConcurrently(numbers(), 16, registerNode);
  async function registerNode(i: number) {
    const name = simNodeName(i);
    if (ctx.cache.get(store.keyFor(undefined, name))) return;
    await ctx.client
      .as(nodeIdentity(name))
      .create(nodeKind, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            'topology.kubernetes.io/zone': zones[i % zones.length],
            [SIMULATED_LABEL]: 'true',
          },
        },
      })
      .catch(() => {});
  }
}
