// The DaemonSet controller (K/pkg/controller/daemon): one pod per eligible
// node, ControllerRevisions for the template history, RollingUpdate (the
// arithmetic lives in src/lib/rollout.ts, shared with the app) and OnDelete,
// and the status counters. Driven by watch-cache events on DaemonSets, pods,
// nodes and ControllerRevisions through a work queue keyed by the
// DaemonSet's namespace/name; it writes only through the API as
// `daemon-set-controller`.
//
// Pods are created as upstream creates them: without spec.nodeName, with a
// required node affinity on the node's `metadata.name`; the scheduler binds
// them (src/server/controllers/scheduler.ts in the simulated cluster), so a
// pod the node cannot take (a host port in use) waits Pending there.
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { podKind } from '../../kinds/pod.ts';
import { nodeKind } from '../../kinds/node.ts';
import { controllerRevisionKind } from '../../kinds/controllerrevision.ts';
import { refersTo, type KubeObject } from '../../kinds/kind.ts';
import { labelSelectorAsRequirements, matchesRequirements, type Requirement } from '../../lib/labels.ts';
import { clone, deepEqual } from '../../lib/json.ts';
import {
  ControllerRevisionHashLabel,
  PodTemplateGenerationLabel,
  allowsSurge,
  compareDaemonPods,
  isPodAvailable,
  isPodReady,
  isPodUpdated,
  planRollingUpdate,
  podAvailableAt,
  templateGenerationOf,
  type NodePods,
} from '../../lib/rollout.ts';
import { daemonPodNodeName, daemonPodTolerations, nodeShouldRunDaemonPod as placementOf, type DaemonPlacement as Placement } from '../../lib/daemonnodes.ts';
import type { Client } from '../client.ts';
import type { CacheEvent } from '../watch/cache.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { EventBroadcaster, referenceTo } from '../events/recorder.ts';
import { WorkQueue } from './workqueue.ts';

/** Creates and deletes per sync at most (upstream's burstReplicas). */
const BURST_REPLICAS = 250;
const FAILED_POD_BACKOFF_MS = 1000;
const FAILED_POD_BACKOFF_MAX_MS = 15 * 60 * 1000;

/** NodeShouldRunDaemonPod (src/lib/daemonnodes.ts, shared with the rollout view). */
const nodeShouldRunDaemonPod = (node: KubeObject, ds: KubeObject, tolerations?: ReturnType<typeof daemonPodTolerations>): Placement =>
  placementOf(node as any, ds as any, tolerations ?? daemonPodTolerations((ds.spec as any)?.template?.spec));

// ---- revisions -----------------------------------------------------------------

/** JSON with object keys sorted at every level, as Go's encoding of a map. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : stableStringify(x))).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => (v as any)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((v as any)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The ControllerRevision data: a patch that restores this template (getPatch). */
export const revisionData = (ds: KubeObject) => ({ spec: { template: { ...clone((ds.spec as any)?.template ?? {}), $patch: 'replace' } } });

const SAFE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** controller.ComputeHash: FNV-32a over the template (and collisionCount), its decimal digits made name-safe. */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const feed = (b: number) => {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  for (const b of Buffer.from(stableStringify(template), 'utf8')) feed(b);
  if (collisionCount !== undefined && collisionCount !== null) {
    const n = collisionCount >>> 0;
    for (let i = 0; i < 4; i++) feed((n >>> (8 * i)) & 0xff); // little-endian uint32, as upstream
  }
  return [...String(h >>> 0)].map((c) => SAFE_CHARS[c.charCodeAt(0) % SAFE_CHARS.length]).join('');
}

// ---- ownership -------------------------------------------------------------------

const controllerRefOf = (o: KubeObject) => (o.metadata.ownerReferences ?? []).find((r: any) => r.controller) as any;
const ownerRef = (ds: KubeObject) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name!, uid: ds.metadata.uid!, controller: true, blockOwnerDeletion: true });
const isTerminal = (p: KubeObject) => ['Failed', 'Succeeded'].includes((p.status as any)?.phase);

/** util.GetTargetNodeName (src/lib/daemonnodes.ts, shared with the rollout view). */
const targetNodeName = (pod: KubeObject) => daemonPodNodeName(pod as never);

class Conflict extends Error {}


// ---- the controller ----------------------------------------------------------

export function startDaemonSetController(ctx: ControllerContext): () => void {
  const client: Client = ctx.client.as(controllerIdentity('daemon-set-controller'));
  const { cache } = ctx;
  const dsStore = ctx.stores.get(daemonSetKind)!;
  const podStore = ctx.stores.get(podKind)!;
  const nodeStore = ctx.stores.get(nodeKind)!;
  const crStore = ctx.stores.get(controllerRevisionKind)!;
  let stopped = false;
  const broadcaster = new EventBroadcaster();
  const recorder = broadcaster.newRecorder(client, { component: 'daemonset-controller' });
  const dsRef = (ds: KubeObject) => referenceTo(daemonSetKind, ds);

  /** failedPodsBackoff: per DaemonSet and node, the delay and when it was last stepped. */
  const failedBackoff = new Map<string, { delay: number; last: number }>();

  const selectorOf = (ds: KubeObject): Requirement[] | undefined => {
    const sel = (ds.spec as any)?.selector;
    if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) return undefined;
    try {
      return labelSelectorAsRequirements(sel);
    } catch {
      return undefined;
    }
  };

  /**
   * ControllerRefManager.Claim: objects controlled by this DaemonSet that its
   * selector still matches, adopting matching orphans and releasing owned
   * objects it no longer matches.
   */
  async function claim(ds: KubeObject, sel: Requirement[], kind: typeof podKind, objects: KubeObject[]): Promise<KubeObject[]> {
    const uid = ds.metadata.uid;
    const out: KubeObject[] = [];
    for (const o of objects) {
      const ref = controllerRefOf(o);
      const matches = matchesRequirements(sel, o.metadata.labels);
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches) out.push(o);
        else if (!ds.metadata.deletionTimestamp) {
          await client
            .update(kind, o.metadata.namespace, o.metadata.name!, (x) => {
              if (x.metadata.uid !== o.metadata.uid) return;
              x.metadata.ownerReferences = (x.metadata.ownerReferences ?? []).filter((r: any) => r.uid !== uid);
              if (!x.metadata.ownerReferences.length) delete x.metadata.ownerReferences;
            })
            .catch(ignoreNotFound);
        }
        continue;
      }
      if (!matches || ds.metadata.deletionTimestamp || o.metadata.deletionTimestamp) continue;
      const adopted = await client
        .update(kind, o.metadata.namespace, o.metadata.name!, (x) => {
          if (x.metadata.uid !== o.metadata.uid || controllerRefOf(x)) return;
          x.metadata.ownerReferences = [...(x.metadata.ownerReferences ?? []), ownerRef(ds)];
        })
        .catch(ignoreNotFound);
      if (adopted && controllerRefOf(adopted)?.uid === uid) out.push(adopted);
    }
    return out;
  }

  // Pods by controller uid, and pods without a controller by namespace, kept
  // from the pod watch so that a sync looks only at its own pods.
  const podsByController = new Map<string, Map<string, KubeObject>>();
  const orphanPods = new Map<string, Map<string, KubeObject>>();
  function indexPod(key: string, pod: KubeObject | undefined, previous: KubeObject | undefined) {
    const bucket = (o: KubeObject, create: boolean) => {
      const ref = controllerRefOf(o);
      const [map, id] = ref ? [podsByController, ref.uid as string] : [orphanPods, o.metadata.namespace!];
      let b = map.get(id);
      if (!b && create) map.set(id, (b = new Map()));
      return { b, drop: () => b && !b.size && map.delete(id) };
    };
    if (previous) {
      const { b, drop } = bucket(previous, false);
      b?.delete(key);
      drop();
    }
    if (pod) bucket(pod, true).b!.set(key, pod);
  }

  const podsOf = (ds: KubeObject, sel: Requirement[]) => {
    const out: KubeObject[] = [];
    for (const p of podsByController.get(ds.metadata.uid!)?.values() ?? []) if (matchesRequirements(sel, p.metadata.labels)) out.push(p);
    return out;
  };

  /** getNodesToDaemonPods: the DaemonSet's pods by node; terminal pods already being deleted left out unless asked. */
  function nodesToDaemonPods(pods: KubeObject[], includeDeletedTerminal = false): Map<string, KubeObject[]> {
    const m = new Map<string, KubeObject[]>();
    for (const p of pods) {
      if (!includeDeletedTerminal && isTerminal(p) && p.metadata.deletionTimestamp) continue;
      const node = targetNodeName(p);
      if (!node) continue;
      const list = m.get(node);
      if (list) list.push(p);
      else m.set(node, [p]);
    }
    return m;
  }

  // ---- revisions ----

  async function constructHistory(ds: KubeObject, sel: Requirement[]): Promise<{ hash: string; old: KubeObject[] }> {
    const ns = ds.metadata.namespace!;
    let histories = await claim(ds, sel, controllerRevisionKind, cache.list(crStore.prefixFor(ns)).map((c) => c.object));
    const labelled: KubeObject[] = [];
    for (const h of histories) {
      if (h.metadata.labels?.[ControllerRevisionHashLabel] !== undefined) labelled.push(h);
      else {
        const updated = await client.update(controllerRevisionKind, ns, h.metadata.name!, (x) => {
          x.metadata.labels = { ...x.metadata.labels, [ControllerRevisionHashLabel]: x.metadata.name! };
        });
        labelled.push(updated);
      }
    }
    histories = labelled;
    const want = stableStringify(revisionData(ds));
    const current: KubeObject[] = [];
    const old: KubeObject[] = [];
    for (const h of histories) (stableStringify((h as any).data) === want ? current : old).push(h);
    const nextRevision = Math.max(0, ...old.map((h) => Number((h as any).revision ?? 0))) + 1;
    let cur: KubeObject;
    if (!current.length) cur = await snapshot(ds, nextRevision, want);
    else {
      cur = await dedupCurrent(ds, current);
      if (Number((cur as any).revision ?? 0) < nextRevision) {
        // A rollback to an earlier template: that revision becomes the newest.
        cur = await client.update(controllerRevisionKind, ns, cur.metadata.name!, (x) => void ((x as any).revision = nextRevision));
      }
    }
    return { hash: cur.metadata.labels?.[ControllerRevisionHashLabel] ?? cur.metadata.name!, old };
  }

  /** Keeps the newest of several revisions equal to the current template, moving pods over to its hash. */
  async function dedupCurrent(ds: KubeObject, current: KubeObject[]): Promise<KubeObject> {
    if (current.length === 1) return current[0];
    const sorted = [...current].sort((a, b) => Number((b as any).revision ?? 0) - Number((a as any).revision ?? 0));
    const keep = sorted[0];
    const keepHash = keep.metadata.labels?.[ControllerRevisionHashLabel];
    for (const dup of sorted.slice(1)) {
      const dupHash = dup.metadata.labels?.[ControllerRevisionHashLabel];
      for (const c of cache.list(podStore.prefixFor(ds.metadata.namespace))) {
        const p = c.object;
        if (controllerRefOf(p)?.uid !== ds.metadata.uid || p.metadata.labels?.[ControllerRevisionHashLabel] !== dupHash) continue;
        await client
          .update(podKind, p.metadata.namespace, p.metadata.name!, (x) => void (x.metadata.labels = { ...x.metadata.labels, [ControllerRevisionHashLabel]: keepHash! }))
          .catch(ignoreNotFound);
      }
      await client.delete(controllerRevisionKind, dup.metadata.namespace, dup.metadata.name!).catch(ignoreNotFound);
    }
    return keep;
  }

  async function snapshot(ds: KubeObject, revision: number, want: string): Promise<KubeObject> {
    const ns = ds.metadata.namespace!;
    const template = (ds.spec as any)?.template ?? {};
    const collisionCount = (ds.status as any)?.collisionCount;
    const hash = computeHash(template, collisionCount);
    const name = `${ds.metadata.name}-${hash}`;
    const history: any = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace: ns,
        labels: { ...template.metadata?.labels, [ControllerRevisionHashLabel]: hash },
        ownerReferences: [ownerRef(ds)],
      },
      data: revisionData(ds),
      revision,
    };
    if (ds.metadata.annotations && Object.keys(ds.metadata.annotations).length) history.metadata.annotations = { ...ds.metadata.annotations };
    try {
      return await client.create(controllerRevisionKind, history);
    } catch (e: any) {
      if (e?.reason !== 'AlreadyExists') throw e;
      const existing = cache.get(crStore.keyFor(ns, name))?.object;
      if (existing && stableStringify((existing as any).data) === want) return existing;
      // A different template under the same name: bump collisionCount so the next hash differs.
      const currentDs = cache.get(dsStore.keyFor(ns, ds.metadata.name!))?.object;
      if (currentDs && (currentDs.status as any)?.collisionCount === collisionCount) {
        await client.update(daemonSetKind, ns, ds.metadata.name!, (x) => {
          const st = ((x.status as any) ??= {});
          if (st.collisionCount === collisionCount) st.collisionCount = (collisionCount ?? 0) + 1;
        }, 'status');
      }
      throw new Conflict(`hash collision on ControllerRevision ${name}`);
    }
  }

  /** cleanupHistory: oldest first, delete old revisions no live pod uses, down to revisionHistoryLimit. */
  async function cleanupHistory(ds: KubeObject, sel: Requirement[], old: KubeObject[]) {
    const limit = (ds.spec as any)?.revisionHistoryLimit ?? 10;
    let toKill = old.length - limit;
    if (toKill <= 0) return;
    const live = new Set<string>();
    for (const pods of nodesToDaemonPods(podsOf(ds, sel), true).values()) {
      for (const p of pods) {
        const h = p.metadata.labels?.[ControllerRevisionHashLabel];
        if (h) live.add(h);
      }
    }
    const sorted = [...old].sort((a, b) => Number((a as any).revision ?? 0) - Number((b as any).revision ?? 0));
    for (const h of sorted) {
      if (toKill <= 0) break;
      if (live.has(h.metadata.labels?.[ControllerRevisionHashLabel] ?? '')) continue;
      await client.delete(controllerRevisionKind, h.metadata.namespace, h.metadata.name!).catch(ignoreNotFound);
      toKill--;
    }
  }

  // ---- pods ----

  function newPod(ds: KubeObject, nodeName: string, hash: string): any {
    const template = clone((ds.spec as any)?.template ?? {});
    const spec = template.spec ?? {};
    spec.tolerations = daemonPodTolerations(spec);
    // ReplaceDaemonSetPodNodeNameNodeAffinity: the node's name is the only required term.
    const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
    spec.affinity ??= {};
    spec.affinity.nodeAffinity ??= {};
    spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
    const labels: Record<string, string> = { ...template.metadata?.labels };
    const generation = templateGenerationOf(ds as any);
    if (generation !== undefined) labels[PodTemplateGenerationLabel] = String(generation);
    if (hash) labels[ControllerRevisionHashLabel] = hash;
    const metadata: any = { generateName: `${ds.metadata.name}-`, namespace: ds.metadata.namespace, labels, ownerReferences: [ownerRef(ds)] };
    if (template.metadata?.annotations) metadata.annotations = template.metadata.annotations;
    if (template.metadata?.finalizers) metadata.finalizers = template.metadata.finalizers;
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
  }

  /**
   * syncNodes: creates in slow-start batches (1, 2, 4, …) stopping at the
   * first failure, then deletes; at most BURST_REPLICAS of each. Returns
   * whether anything was written and whether work was left over.
   */
  async function syncNodes(ds: KubeObject, toDelete: string[], toCreate: string[], hash: string): Promise<{ wrote: boolean; more: boolean }> {
    const creates = toCreate.slice(0, BURST_REPLICAS);
    const deletes = toDelete.slice(0, BURST_REPLICAS);
    const more = toCreate.length > creates.length || toDelete.length > deletes.length;
    let wrote = false;
    let failure: unknown;
    for (let pos = 0, batch = 1; pos < creates.length; pos += batch, batch *= 2) {
      const results = await Promise.allSettled(creates.slice(pos, pos + batch).map((n) => client.create(podKind, newPod(ds, n, hash))));
      for (const r of results) {
        if (r.status === 'fulfilled') recorder.event(dsRef(ds), 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
        else recorder.event(dsRef(ds), 'Warning', 'FailedCreate', `Error creating: ${r.reason?.message ?? r.reason}`);
      }
      if (results.some((r) => r.status === 'fulfilled')) wrote = true;
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) {
        failure = (failed as PromiseRejectedResult).reason;
        break;
      }
    }
    const results = await Promise.allSettled(deletes.map((name) => client.delete(podKind, ds.metadata.namespace, name)));
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') {
        wrote = true;
        recorder.event(dsRef(ds), 'Normal', 'SuccessfulDelete', `Deleted pod: ${deletes[i]}`);
      } else if (r.reason?.code !== 404) {
        failure ??= r.reason;
        recorder.event(dsRef(ds), 'Warning', 'FailedDelete', `Error deleting: ${r.reason?.message ?? r.reason}`);
      }
    });
    if (failure) throw failure;
    return { wrote, more };
  }

  /** failedPodsBackoff.IsInBackOffSinceUpdate / Next. */
  function failedPodBackoff(key: string, now: number): { wait?: number } {
    const b = failedBackoff.get(key);
    if (b && now - b.last < b.delay) return { wait: b.delay - (now - b.last) };
    const delay = b && now - b.last < 2 * FAILED_POD_BACKOFF_MAX_MS ? Math.min(b.delay * 2, FAILED_POD_BACKOFF_MAX_MS) : FAILED_POD_BACKOFF_MS;
    failedBackoff.set(key, { delay, last: now });
    return {};
  }

  /** manage + podsShouldBeOnNode: which nodes need a pod, which pods must go. */
  function manage(ds: KubeObject, nodes: KubeObject[], placement: Map<string, Placement>, byNode: Map<string, KubeObject[]>, hash: string, now: number, requeue: (ms: number) => void) {
    const surge = allowsSurge(ds as any);
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    const hashOf = (p: KubeObject) => p.metadata.labels?.[ControllerRevisionHashLabel];
    const toCreate: string[] = [];
    const toDelete: string[] = [];
    for (const node of nodes) {
      const name = node.metadata.name!;
      const { shouldRun, shouldContinueRunning } = placement.get(name)!;
      const pods = byNode.get(name) ?? [];
      if (shouldRun && !pods.length) {
        toCreate.push(name);
        continue;
      }
      if (!shouldContinueRunning) {
        for (const p of pods) if (!p.metadata.deletionTimestamp) toDelete.push(p.metadata.name!);
        continue;
      }
      const running: KubeObject[] = [];
      for (const p of pods) {
        if (p.metadata.deletionTimestamp) continue;
        const phase = (p.status as any)?.phase;
        if (phase === 'Failed') {
          // The kubelet keeps rejecting or failing it: recreate, but back off per node.
          const b = failedPodBackoff(`${ds.metadata.namespace}/${ds.metadata.name}/${name}`, now);
          if (b.wait !== undefined) requeue(b.wait);
          else {
            recorder.event(dsRef(ds), 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to kill it`);
            toDelete.push(p.metadata.name!);
          }
        } else if (phase === 'Succeeded') toDelete.push(p.metadata.name!);
        else running.push(p);
      }
      if (!surge) {
        // Without surge only the oldest running pod may stay.
        if (running.length > 1) for (const p of running.sort(compareDaemonPods).slice(1)) toDelete.push(p.metadata.name!);
        continue;
      }
      if (running.length <= 1) {
        if (!running.length && shouldRun) toCreate.push(name);
        continue;
      }
      // With surge a node may hold the oldest new pod and the oldest old pod, no more.
      let oldestNew: KubeObject | undefined;
      let oldestOld: KubeObject | undefined;
      for (const p of running.sort(compareDaemonPods)) {
        if (hashOf(p) === hash) {
          if (!oldestNew) {
            oldestNew = p;
            continue;
          }
        } else if (!oldestOld) {
          oldestOld = p;
          continue;
        }
        toDelete.push(p.metadata.name!);
      }
      if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, now))) toDelete.push(oldestOld.metadata.name!);
    }
    // getUnscheduledPodsWithoutNode: pods still waiting for a node that is gone.
    const known = new Set(nodes.map((n) => n.metadata.name!));
    for (const [name, pods] of byNode) {
      if (known.has(name)) continue;
      for (const p of pods) if (!(p.spec as any)?.nodeName && !p.metadata.deletionTimestamp) toDelete.push(p.metadata.name!);
    }
    return { toCreate, toDelete };
  }

  // ---- status ----

  function computeStatus(ds: KubeObject, nodes: KubeObject[], placement: Map<string, Placement>, byNode: Map<string, KubeObject[]>, hash: string, now: number) {
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    const generation = templateGenerationOf(ds as any);
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of nodes) {
      const shouldRun = placement.get(node.metadata.name!)?.shouldRun ?? nodeShouldRunDaemonPod(node, ds).shouldRun;
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun) {
        if (pods.length) misscheduled++;
        continue;
      }
      desired++;
      if (!pods.length) continue;
      current++;
      const pod = pods.length === 1 ? pods[0] : [...pods].sort(compareDaemonPods)[0];
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
      }
      if (isPodUpdated(pod, hash, generation)) updated++;
    }
    return {
      status: {
        desiredNumberScheduled: desired,
        currentNumberScheduled: current,
        numberMisscheduled: misscheduled,
        numberReady: ready,
        numberAvailable: available,
        numberUnavailable: desired - available,
        updatedNumberScheduled: updated,
      },
    };
  }

  async function storeStatus(ds: KubeObject, status: Record<string, number>, observe: boolean) {
    const latest = cache.get(dsStore.keyFor(ds.metadata.namespace, ds.metadata.name!))?.object;
    if (!latest || latest.metadata.uid !== ds.metadata.uid) return;
    const before = (latest.status ?? {}) as Record<string, unknown>;
    const want: Record<string, unknown> = { ...status };
    if (observe) want.observedGeneration = ds.metadata.generation ?? 0;
    if (Object.entries(want).every(([k, v]) => before[k] === v)) return;
    await client.update(
      daemonSetKind,
      ds.metadata.namespace,
      ds.metadata.name!,
      (x) => {
        if (x.metadata.uid !== ds.metadata.uid) throw new Conflict('DaemonSet replaced');
        x.status = { ...(x.status as any), ...want };
      },
      'status',
    );
  }

  /** updateDaemonSet: manage, then the rolling update once manage has nothing left to do, then history clean-up. Returns whether work was left over. */
  async function updateDaemonSet(
    ds: KubeObject,
    sel: Requirement[],
    hash: string,
    old: KubeObject[],
    nodeList: KubeObject[],
    placement: Map<string, Placement>,
    byNode: Map<string, KubeObject[]>,
    now: number,
    requeue: (ms: number) => void,
  ): Promise<boolean> {
    const { toCreate, toDelete } = manage(ds, nodeList, placement, byNode, hash, now, requeue);
    const managed = await syncNodes(ds, toDelete, toCreate, hash);
    let more = managed.more;
    // The rolling update runs only once manage has nothing left to do (upstream
    // waits for its expectations); the events of manage's writes bring us back.
    const strategy = (ds.spec as any)?.updateStrategy?.type ?? 'RollingUpdate';
    if (!managed.wrote && strategy === 'RollingUpdate') {
      now = Date.now();
      const entries = new Map<string, NodePods<KubeObject>>();
      for (const node of nodeList) {
        const { shouldRun } = placement.get(node.metadata.name!)!;
        const pods = byNode.get(node.metadata.name!);
        if (shouldRun || pods) entries.set(node.metadata.name!, { nodeName: node.metadata.name!, shouldRun, pods: pods ?? [] });
      }
      for (const [nodeName, pods] of byNode) if (!entries.has(nodeName)) entries.set(nodeName, { nodeName, shouldRun: false, pods });
      const plan = planRollingUpdate({ ds: ds as any, nodes: [...entries.values()].sort((a, b) => (a.nodeName < b.nodeName ? -1 : 1)), hash, now });
      const r = await syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash);
      more ||= r.more;
    }

    await cleanupHistory(ds, sel, old);
    return more;
  }

  // ---- sync ----

  /**
   * Placement depends only on the node object and the DaemonSet's spec, so it
   * is kept per cached node object and DaemonSet generation: a sync of a
   * DaemonSet on 5000 nodes judges only the nodes that changed since the last.
   */
  const placements = new Map<string, { generation: number; byNode: WeakMap<KubeObject, Placement> }>();
  function placementsOf(ds: KubeObject, nodeList: KubeObject[]): Map<string, Placement> {
    const generation = ds.metadata.generation ?? 0;
    let cached = placements.get(ds.metadata.uid!);
    if (!cached || cached.generation !== generation) placements.set(ds.metadata.uid!, (cached = { generation, byNode: new WeakMap() }));
    let tolerations: ReturnType<typeof daemonPodTolerations> | undefined;
    const out = new Map<string, Placement>();
    for (const node of nodeList) {
      let p = cached.byNode.get(node);
      if (!p) {
        tolerations ??= daemonPodTolerations((ds.spec as any)?.template?.spec);
        cached.byNode.set(node, (p = nodeShouldRunDaemonPod(node, ds, tolerations)));
      }
      out.set(node.metadata.name!, p);
    }
    return out;
  }

  async function sync(key: string) {
    const [ns, name] = key.split('/');
    const ds = cache.get(dsStore.keyFor(ns, name))?.object;
    if (!ds) {
      for (const k of failedBackoff.keys()) if (k.startsWith(`${key}/`)) failedBackoff.delete(k);
      const live = new Set(allDaemonSets().map((d) => d.metadata.uid));
      for (const uid of placements.keys()) if (!live.has(uid)) placements.delete(uid);
      return;
    }
    const sel = selectorOf(ds);
    if (!sel || ds.metadata.deletionTimestamp) return;
    const requeueAt = { ms: Infinity };
    const requeue = (ms: number) => (requeueAt.ms = Math.min(requeueAt.ms, ms));
    const nodes = () => cache.list(nodeStore.resourcePrefix).map((c) => c.object);

    await claim(ds, sel, podKind, [...(podsByController.get(ds.metadata.uid!)?.values() ?? []), ...(orphanPods.get(ns)?.values() ?? [])]);
    const { hash, old } = await constructHistory(ds, sel);

    // manage: create where missing, delete what must go. Placement is judged
    // once per sync, on one list of nodes, as upstream does.
    let now = Date.now();
    const nodeList = nodes();
    const placement = placementsOf(ds, nodeList);
    let byNode = nodesToDaemonPods(podsOf(ds, sel));
    let more = false;
    let failure: unknown;
    try {
      more = await updateDaemonSet(ds, sel, hash, old, nodeList, placement, byNode, now, requeue);
    } catch (e) {
      failure = e; // the status is written all the same, as upstream does
    }

    now = Date.now();
    byNode = nodesToDaemonPods(podsOf(ds, sel));
    const { status } = computeStatus(ds, nodeList, placement, byNode, hash, now);
    await storeStatus(ds, status, true);
    if (failure) throw failure;
    // Come back when a ready pod turns available (minReadySeconds): the status
    // changes and the rollout may proceed (upstream requeues after minReadySeconds).
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    let nextAvailable = Infinity;
    for (const pods of byNode.values()) {
      for (const p of pods) {
        const at = podAvailableAt(p, minReady);
        if (at !== undefined && at > now) nextAvailable = Math.min(nextAvailable, at);
      }
    }
    if (nextAvailable !== Infinity) requeue(nextAvailable - now + 5);
    if (more) requeue(0);
    if (requeueAt.ms !== Infinity) queue.after(key, requeueAt.ms);
  }

  const queue = new WorkQueue(sync, { concurrency: 2, spacing: true });

  // ---- events ----

  const dsKey = (ns: string | undefined, name: string) => `${ns}/${name}`;
  const allDaemonSets = () => cache.list(dsStore.resourcePrefix).map((c) => c.object);

  function enqueueOwner(o: KubeObject | undefined) {
    if (!o) return;
    const ref = controllerRefOf(o);
    if (ref) {
      if (refersTo(ref, daemonSetKind)) queue.add(dsKey(o.metadata.namespace, ref.name));
      return;
    }
    // An orphan: every DaemonSet that would adopt it.
    for (const ds of allDaemonSets()) {
      if (ds.metadata.namespace !== o.metadata.namespace) continue;
      const sel = selectorOf(ds);
      if (sel && matchesRequirements(sel, o.metadata.labels)) queue.add(dsKey(ds.metadata.namespace, ds.metadata.name!));
    }
  }

  function onPod(e: CacheEvent) {
    indexPod(e.key, e.type === 'DELETED' ? undefined : e.object.object, e.type === 'DELETED' ? e.object.object : e.previous);
    onOwned(e);
  }

  function onOwned(e: CacheEvent) {
    enqueueOwner(e.object.object);
    if (e.previous && controllerRefOf(e.previous)?.uid !== controllerRefOf(e.object.object)?.uid) enqueueOwner(e.previous);
  }

  const schedulingView = (n: KubeObject) => ({ labels: n.metadata.labels ?? {}, taints: (n.spec as any)?.taints ?? [] });
  function onNode(e: CacheEvent) {
    // Heartbeats change nothing a DaemonSet looks at.
    if (e.type === 'MODIFIED' && e.previous && deepEqual(schedulingView(e.previous), schedulingView(e.object.object))) return;
    for (const ds of allDaemonSets()) queue.add(dsKey(ds.metadata.namespace, ds.metadata.name!));
  }

  const unwatches: (() => void)[] = [];
  const from = cache.revision;
  const watch = (prefix: string, deliver: (e: CacheEvent) => void) =>
    void cache.watchFrom(from, { prefix, deliver }).then((u) => (stopped ? u() : unwatches.push(u)));
  watch(dsStore.resourcePrefix, (e) => queue.add(dsKey(e.object.object.metadata.namespace, e.object.object.metadata.name!)));
  for (const c of cache.list(podStore.resourcePrefix)) indexPod(c.key, c.object, undefined);
  watch(podStore.resourcePrefix, onPod);
  watch(crStore.resourcePrefix, onOwned);
  watch(nodeStore.resourcePrefix, onNode);
  for (const ds of allDaemonSets()) queue.add(dsKey(ds.metadata.namespace, ds.metadata.name!));

  return () => {
    stopped = true;
    queue.stop();
    broadcaster.stop();
    unwatches.forEach((u) => u());
  };
}

function ignoreNotFound(e: any): undefined {
  if (e?.code === 404) return undefined;
  throw e;
}
