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
import { rfc3339 } from '../../lib/duration.ts';
import {
  ControllerRevisionHashLabel,
  PodTemplateGenerationLabel,
  allowsSurge,
  compareDaemonPods,
  isPodAvailable,
  isPodReady,
  isPodUpdated,
  podAvailableAt,
  rollingUpdateNode,
  RollingUpdateTally,
  templateGenerationOf,
  type NodePods,
  type RollingUpdateNode,
} from '../../lib/rollout.ts';
import { daemonPodNodeName, daemonPodTolerations, nodeShouldRunDaemonPod as placementOf, type DaemonPlacement as Placement } from '../../lib/daemonnodes.ts';
import type { Client } from '../client.ts';
import type { CacheEvent } from '../watch/cache.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { EventBroadcaster, referenceTo } from '../events/recorder.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';
import { SlowStartCreates } from './slowstart.ts';
import { LatestWrite } from './latestwrite.ts';
import { trace, tracePodEvent, tracing } from './rollouttrace.ts';
import { yieldToEventLoop } from '../registry/turns.ts';

/** Creates and deletes per sync at most (upstream's burstReplicas). */
const BURST_REPLICAS = 250;
/**
 * How long a sync judges dirty nodes before it lets the event loop go on
 * (judgeInTurns), and how many times syncs have let it: tests set the slice to
 * 0 (a slice per 64 nodes) and count.
 */
export const judging = { sliceMs: 8, yields: 0 };
const FAILED_POD_BACKOFF_MS = 1000;
/** How long a create waits to be observed before the node is judged again regardless (upstream's ExpectationsTimeout). */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;
/** A run of slow-start creates that ran dry goes on at its size if more nodes come this soon (slowstart.ts). */
const CREATE_RUN_RESUME_MS = 1000;
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

/**
 * Stable texts every sync compares, kept per object: the watch cache hands out
 * an object once per revision and never changes it, so a text made from it
 * stays right, and goes with the object.
 */
const revisionTexts = new WeakMap<KubeObject, string>();
const selectorTexts = new WeakMap<KubeObject, string>();
/** A DaemonSet's template as revision data, as stable text (what its current ControllerRevision holds). */
const templateText = (ds: KubeObject) => cachedText(revisionTexts, ds, () => stableStringify(revisionData(ds)));
/** A ControllerRevision's data, as stable text. */
const revisionText = (cr: KubeObject) => cachedText(revisionTexts, cr, () => stableStringify((cr as any).data));
/** A DaemonSet's selector, as stable text. */
const selectorText = (ds: KubeObject) => cachedText(selectorTexts, ds, () => stableStringify((ds.spec as any)?.selector));
function cachedText(texts: WeakMap<KubeObject, string>, o: KubeObject, make: () => string): string {
  let t = texts.get(o);
  if (t === undefined) texts.set(o, (t = make()));
  return t;
}

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

  // Pods by controller uid and target node ('' for none yet), and pods without
  // a controller by namespace, kept from the pod watch so that a sync looks
  // only at its own pods, on the nodes that changed. A pod's change marks its
  // node (before and after) dirty for its DaemonSet's next sync.
  const podsByControllerNode = new Map<string, Map<string, Map<string, KubeObject>>>();
  const orphanPods = new Map<string, Map<string, KubeObject>>();
  function indexPod(key: string, pod: KubeObject | undefined, previous: KubeObject | undefined) {
    const remove = (o: KubeObject) => {
      const ref = controllerRefOf(o);
      if (!ref) {
        const b = orphanPods.get(o.metadata.namespace!);
        b?.delete(key);
        if (b && !b.size) orphanPods.delete(o.metadata.namespace!);
        return;
      }
      const node = targetNodeName(o) ?? '';
      markDirty(ref.uid, node);
      const byNode = podsByControllerNode.get(ref.uid);
      const b = byNode?.get(node);
      b?.delete(key);
      if (b && !b.size) byNode!.delete(node);
      if (byNode && !byNode.size) podsByControllerNode.delete(ref.uid);
    };
    const add = (o: KubeObject) => {
      const ref = controllerRefOf(o);
      if (!ref) {
        let b = orphanPods.get(o.metadata.namespace!);
        if (!b) orphanPods.set(o.metadata.namespace!, (b = new Map()));
        b.set(key, o);
        return;
      }
      const node = targetNodeName(o) ?? '';
      markDirty(ref.uid, node);
      let byNode = podsByControllerNode.get(ref.uid);
      if (!byNode) podsByControllerNode.set(ref.uid, (byNode = new Map()));
      let b = byNode.get(node);
      if (!b) byNode.set(node, (b = new Map()));
      b.set(key, o);
    };
    if (previous) remove(previous);
    if (pod) add(pod);
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
    const want = templateText(ds);
    const current: KubeObject[] = [];
    const old: KubeObject[] = [];
    for (const h of histories) (revisionText(h) === want ? current : old).push(h);
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
      if (existing && revisionText(existing) === want) return existing;
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
    for (const node of podsByControllerNode.get(ds.metadata.uid!)?.keys() ?? []) {
      if (!node) continue; // getNodesToDaemonPods leaves out pods for no node
      for (const p of podsOnNode(ds, sel, node, true)) {
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
   * Per DaemonSet (by uid), its creates in slow-start rounds (slowstart.ts),
   * made from the newest DaemonSet a sync handed nodes over with. Nodes handed
   * over for an older template are dropped when a sync brings a new one.
   */
  const creators = new Map<string, { ds: KubeObject; hash: string; creates: SlowStartCreates }>();
  function creatorFor(ds: KubeObject, hash: string): SlowStartCreates {
    const uid = ds.metadata.uid!;
    let c = creators.get(uid);
    if (!c) {
      const key = dsKey(ds.metadata.namespace, ds.metadata.name!);
      const entry: { ds: KubeObject; hash: string; creates: SlowStartCreates } = {
        ds,
        hash,
        creates: new SlowStartCreates((node) => createPod(entry.ds, node, entry.hash), {
          maxRound: BURST_REPLICAS,
          resumeMs: CREATE_RUN_RESUME_MS,
          // A failure no sync waited for: the key is retried with its back-off (and its next sync waits for its creates).
          failed: (_e, awaited) => void (awaited || queue.fail(key)),
        }),
      };
      creators.set(uid, (c = entry));
    }
    if (c.hash !== hash) c.creates.clear();
    c.ds = ds;
    c.hash = hash;
    return c.creates;
  }

  /**
   * The revision of `written` (its own write) once this controller has seen the cache reach it, as upstream's
   * expectations are met by the informer, not by the write's answer: a write answers once the cache
   * applied it or after 3 s, and on etcd at 5000 nodes the cache fell further behind than that. Given
   * up after EXPECTATIONS_TIMEOUT_MS, as upstream's expectations expire.
   */
  async function observed(written: KubeObject): Promise<number> {
    const revision = Number(written.metadata.resourceVersion) || 0;
    await cache.waitFor(revision, EXPECTATIONS_TIMEOUT_MS);
    return revision;
  }

  async function createPod(ds: KubeObject, node: string, hash: string): Promise<number> {
    trace('ds.create.req', node);
    try {
      const p = await client.create(podKind, newPod(ds, node, hash));
      trace('ds.create.done', p.metadata.name!, node);
      recorder.event(dsRef(ds), 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata.name}`);
      // The node stays in flight until the pod is seen: judged empty meanwhile, it got a second and a third pod.
      return await observed(p);
    } catch (e: any) {
      recorder.event(dsRef(ds), 'Warning', 'FailedCreate', `Error creating: ${e?.message ?? e}`);
      throw e;
    }
  }

  /**
   * Pods whose delete this controller asked for and that the cache does not
   * show terminating yet, per DaemonSet (by uid). A sync does not wait for its
   * deletes (its key is free for the next event: a new pod turning Ready must
   * not wait out a write to let the rolling update go on). Until a delete
   * lands, syncs judge its pod as terminating, which it is about to be, so the
   * rolling update counts its node unavailable and never deletes past
   * maxUnavailable; upstream's expectations keep the next sync from planning
   * until the deletes are observed instead. Each with the server's answer to
   * its delete, which the creates of a DaemonSet that surges wait for (syncNodes).
   */
  const deleting = new Map<string, Map<string, Promise<void>>>();
  /** A pod as it is about to be: terminating (kept per object; cache objects never change). */
  const terminatingViews = new WeakMap<KubeObject, KubeObject>();
  function asTerminating(p: KubeObject): KubeObject {
    let v = terminatingViews.get(p);
    if (!v) terminatingViews.set(p, (v = { ...p, metadata: { ...p.metadata, deletionTimestamp: rfc3339(new Date()) } }));
    return v;
  }

  /**
   * Asks for one pod's delete without waiting for it: the pod counts as
   * terminating (`deleting`) until its delete lands or fails, and a failure
   * retries the DaemonSet's key with its back-off. Its entry there resolves
   * once the server has answered, whatever the answer (see syncNodes).
   */
  function deletePod(ds: KubeObject, name: string) {
    const uid = ds.metadata.uid!;
    const ns = ds.metadata.namespace;
    let going = deleting.get(uid);
    if (!going) deleting.set(uid, (going = new Map()));
    const pod = cache.get(podStore.keyFor(ns, name))?.object;
    const node = pod ? (targetNodeName(pod) ?? '') : undefined;
    trace('ds.delete.req', name);
    const asked = client.delete(podKind, ns, name);
    going.set(
      name,
      asked.then(
        () => {},
        () => {},
      ),
    );
    markDirty(uid, node);
    asked
      .then(
        (r) => {
          trace('ds.delete.done', name);
          recorder.event(dsRef(ds), 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
          // Counted as going until the delete is seen: judged running again, its node would count as
          // available and the rolling update could delete past maxUnavailable.
          return observed(r.object);
        },
        (e) => {
          if (e?.code === 404) return;
          recorder.event(dsRef(ds), 'Warning', 'FailedDelete', `Error deleting: ${e?.message ?? e}`);
          queue.fail(dsKey(ns, ds.metadata.name!));
        },
      )
      .finally(() => {
        // Seen (its event is in the cache) or failed: the pod is judged as the cache has it.
        going.delete(name);
        if (!going.size && deleting.get(uid) === going) deleting.delete(uid);
        markDirty(uid, node);
      });
  }

  /**
   * syncNodes: deletes, and creates through the DaemonSet's slow-start window
   * (slowstart.ts), which stops at the first failure; at most BURST_REPLICAS
   * deletes a sync, and BURST_REPLICAS creates handed over at a time. The sync
   * waits for neither its deletes to be seen (deletePod) nor, unless
   * `awaitCreates`, its creates (the next sync leaves their nodes alone until they are done, as
   * upstream's expectations). Returns whether anything was asked for or handed
   * over, whether work was left over, and the newest revision waited for (0
   * for none). `creator` is the DaemonSet's pipeline (creatorFor), taken once
   * by its sync. A DaemonSet that surges sends its creates once its deletes in
   * flight are answered, this sync's and earlier ones', so they are stored
   * after them: a surge wave deletes the old pods of nodes whose new pod is
   * available and creates new pods on others, and on etcd, where the writes
   * are concurrent transactions, a create stored before a delete showed every
   * watcher one node more with two pods than maxSurge allows (upstream's
   * syncNodes sends the creates first, so it shows that too).
   */
  async function syncNodes(ds: KubeObject, creator: SlowStartCreates, toDelete: string[], toCreate: string[], awaitCreates = true): Promise<{ wrote: boolean; more: boolean; revision: number }> {
    const going = deleting.get(ds.metadata.uid!);
    const asked = going ? toDelete.filter((name) => !going.has(name)) : toDelete;
    const deletes = asked.slice(0, BURST_REPLICAS);
    const creates = toCreate.filter((n) => !creator.has(n)).slice(0, Math.max(0, BURST_REPLICAS - creator.size));
    // Creates beyond the bound come back with the pod events of those handed over.
    const more = asked.length > deletes.length;
    const wrote = creates.length > 0 || deletes.length > 0;
    for (const name of deletes) deletePod(ds, name);
    if (!creates.length) return { wrote, more, revision: 0 };
    if (allowsSurge(ds as any)) await Promise.all(deleting.get(ds.metadata.uid!)?.values() ?? []);
    // Unless awaited, a failure is heard through the creator's `failed`.
    const { revision } = await creator.add(creates, awaitCreates);
    return { wrote, more, revision };
  }

  /** failedPodsBackoff.IsInBackOffSinceUpdate / Next. */
  function failedPodBackoff(key: string, now: number): { wait?: number } {
    const b = failedBackoff.get(key);
    if (b && now - b.last < b.delay) return { wait: b.delay - (now - b.last) };
    const delay = b && now - b.last < 2 * FAILED_POD_BACKOFF_MAX_MS ? Math.min(b.delay * 2, FAILED_POD_BACKOFF_MAX_MS) : FAILED_POD_BACKOFF_MS;
    failedBackoff.set(key, { delay, last: now });
    return {};
  }

  /** The shape of a node's contribution to the status counters (0 or 1 each). */
  interface Counts {
    desired: number;
    current: number;
    misscheduled: number;
    ready: number;
    available: number;
    updated: number;
  }
  const COUNTS = ['desired', 'current', 'misscheduled', 'ready', 'available', 'updated'] as const;
  const zeroCounts = (): Counts => ({ desired: 0, current: 0, misscheduled: 0, ready: 0, available: 0, updated: 0 });

  /** One node as a DaemonSet's sync last judged it. */
  interface NodeEntry {
    /** The node exists (a pod may name one that is gone). */
    exists: boolean;
    placement?: Placement;
    /** nodesToDaemonPods for this node: the DaemonSet's pods on it, terminal ones being deleted left out. */
    pods: KubeObject[];
    /** What the rolling update's plan sees of this node (undefined: the plan leaves it out). */
    view?: NodePods<KubeObject>;
    /** The view reduced to what the plan needs, judged now (kept in the DaemonState's tally). */
    roll?: RollingUpdateNode;
    /** manage: the node needs a pod. */
    create: boolean;
    /** manage: the pods that must go. */
    deletes: string[];
    /** It holds a Failed pod: manage judges it at every sync, as the failed-pod back-off steps with time. */
    failed: boolean;
    /** When a ready pod here turns available (minReadySeconds); Infinity when none is about to. */
    availableAt: number;
    counts: Counts;
  }

  /**
   * Per DaemonSet (by uid), every node as last judged, with the status totals
   * and the nodes manage acts on. Pod and node events mark nodes dirty; a sync
   * judges again only those (and the few whose judgement depends on the clock),
   * so its work is proportional to what changed, not to the cluster's size.
   * A new template (generation, hash) or selector judges every node again.
   */
  interface DaemonState {
    key: string;
    entries: Map<string, NodeEntry>;
    dirty: Set<string>;
    totals: Counts;
    creates: Set<string>;
    deletes: Set<string>;
    failed: Set<string>;
    /** Nodes whose judgement changes with the clock (a pod turning available). */
    timed: Set<string>;
    /** Every node's part in the rolling update, so that a plan does not walk every node's pods. */
    tally: RollingUpdateTally;
    /** The entries' node names, sorted (the rolling update's order); dropped when a node comes or goes. */
    sorted?: string[];
    /** Some node was judged again since the rolling update last planned. */
    changed: boolean;
    /** The last plan had nothing to do: planning again on the same judgements would not either. */
    settled: boolean;
  }
  const states = new Map<string, DaemonState>();
  /** Every node's name, sorted as the node list is; rebuilt when a node comes or goes. */
  let nodeNames: string[] | undefined;
  const allNodeNames = () => (nodeNames ??= cache.list(nodeStore.resourcePrefix).map((c) => c.object.metadata.name!));
  const markDirty = (uid: string | undefined, node: string | undefined) => {
    if (uid && node !== undefined) states.get(uid)?.dirty.add(node);
  };

  /**
   * Placement depends only on the node object and the DaemonSet's spec, so it
   * is kept per node object and DaemonSet generation.
   */
  const placements = new Map<string, { generation: number; byNode: WeakMap<KubeObject, Placement> }>();
  function placementOf(ds: KubeObject, node: KubeObject): Placement {
    const generation = ds.metadata.generation ?? 0;
    let cached = placements.get(ds.metadata.uid!);
    if (!cached || cached.generation !== generation) placements.set(ds.metadata.uid!, (cached = { generation, byNode: new WeakMap() }));
    let p = cached.byNode.get(node);
    if (!p) cached.byNode.set(node, (p = nodeShouldRunDaemonPod(node, ds)));
    return p;
  }

  /** The DaemonSet's pods on one node (its selector matching), terminal ones being deleted left out unless asked. */
  function podsOnNode(ds: KubeObject, sel: Requirement[], node: string, includeDeletedTerminal = false): KubeObject[] {
    const out: KubeObject[] = [];
    const going = deleting.get(ds.metadata.uid!);
    for (const cached of podsByControllerNode.get(ds.metadata.uid!)?.get(node)?.values() ?? []) {
      const p = going?.has(cached.metadata.name!) && !cached.metadata.deletionTimestamp ? asTerminating(cached) : cached;
      if (!matchesRequirements(sel, p.metadata.labels)) continue;
      if (!includeDeletedTerminal && isTerminal(p) && p.metadata.deletionTimestamp) continue;
      out.push(p);
    }
    return out;
  }

  /** manage for one node (podsShouldBeOnNode): whether it needs a pod and which pods must go. */
  function manageNode(ds: KubeObject, name: string, placement: Placement, pods: KubeObject[], hash: string, now: number, requeue?: (ms: number) => void) {
    const surge = allowsSurge(ds as any);
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    const hashOf = (p: KubeObject) => p.metadata.labels?.[ControllerRevisionHashLabel];
    const deletes: string[] = [];
    const { shouldRun, shouldContinueRunning } = placement;
    if (shouldRun && !pods.length) return { create: true, deletes };
    if (!shouldContinueRunning) {
      for (const p of pods) if (!p.metadata.deletionTimestamp) deletes.push(p.metadata.name!);
      return { create: false, deletes };
    }
    const running: KubeObject[] = [];
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      const phase = (p.status as any)?.phase;
      if (phase === 'Failed') {
        // The kubelet keeps rejecting or failing it: recreate, but back off per node.
        // Judged once per sync (requeue given): the back-off steps with each judgement.
        if (!requeue) continue;
        const b = failedPodBackoff(`${ds.metadata.namespace}/${ds.metadata.name}/${name}`, now);
        if (b.wait !== undefined) requeue(b.wait);
        else {
          recorder.event(dsRef(ds), 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to kill it`);
          deletes.push(p.metadata.name!);
        }
      } else if (phase === 'Succeeded') deletes.push(p.metadata.name!);
      else running.push(p);
    }
    if (!surge) {
      // Without surge only the oldest running pod may stay.
      if (running.length > 1) for (const p of running.sort(compareDaemonPods).slice(1)) deletes.push(p.metadata.name!);
      return { create: false, deletes };
    }
    if (running.length <= 1) return { create: !running.length && shouldRun, deletes };
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
      deletes.push(p.metadata.name!);
    }
    if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, now))) deletes.push(oldestOld.metadata.name!);
    return { create: false, deletes };
  }

  /** Judges one node: its pods, what manage does there (Failed pods aside), its share of the status. */
  function judgeNode(ds: KubeObject, sel: Requirement[], name: string, hash: string, now: number): NodeEntry {
    const node = cache.get(nodeStore.keyFor(undefined, name))?.object;
    const pods = name ? podsOnNode(ds, sel, name) : [];
    const counts = zeroCounts();
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    let availableAt = Infinity;
    for (const p of pods) {
      const at = podAvailableAt(p, minReady);
      if (at !== undefined && at > now && at < availableAt) availableAt = at;
    }
    if (!node) {
      // getUnscheduledPodsWithoutNode: pods still waiting for a node that is gone.
      const deletes = pods.filter((p) => !(p.spec as any)?.nodeName && !p.metadata.deletionTimestamp).map((p) => p.metadata.name!);
      const view = pods.length ? { nodeName: name, shouldRun: false, pods } : undefined;
      return { exists: false, pods, view, roll: rollOf(ds, view, hash, now), create: false, deletes, failed: false, availableAt, counts };
    }
    const placement = placementOf(ds, node);
    const { create, deletes } = manageNode(ds, name, placement, pods, hash, now);
    const failed = pods.some((p) => !p.metadata.deletionTimestamp && (p.status as any)?.phase === 'Failed');
    const view = placement.shouldRun || pods.length ? { nodeName: name, shouldRun: placement.shouldRun, pods } : undefined;
    if (!placement.shouldRun) {
      if (pods.length) counts.misscheduled = 1;
    } else {
      counts.desired = 1;
      if (pods.length) {
        counts.current = 1;
        const pod = pods.length === 1 ? pods[0] : [...pods].sort(compareDaemonPods)[0];
        if (isPodReady(pod)) {
          counts.ready = 1;
          if (isPodAvailable(pod, minReady, now)) counts.available = 1;
        }
        if (isPodUpdated(pod, hash, templateGenerationOf(ds as any))) counts.updated = 1;
      }
    }
    return { exists: true, placement, pods, view, roll: rollOf(ds, view, hash, now), create, deletes, failed, availableAt, counts };
  }

  function rollOf(ds: KubeObject, view: NodePods<KubeObject> | undefined, hash: string, now: number): RollingUpdateNode | undefined {
    if (!view) return undefined;
    const minReady = (ds.spec as any)?.minReadySeconds ?? 0;
    const generation = templateGenerationOf(ds as any);
    return rollingUpdateNode(view, (p) => isPodUpdated(p, hash, generation), (p) => isPodAvailable(p, minReady, now));
  }

  /** The DaemonSet's state; a new one (a new template or selector, a new DaemonSet) has every node dirty. */
  function stateOf(ds: KubeObject, hash: string): DaemonState {
    const uid = ds.metadata.uid!;
    const key = `${ds.metadata.generation ?? 0}/${hash}/${selectorText(ds)}`;
    let st = states.get(uid);
    if (!st || st.key !== key) {
      st = { key, entries: new Map(), dirty: new Set(allNodeNames()), totals: zeroCounts(), creates: new Set(), deletes: new Set(), failed: new Set(), timed: new Set(), tally: new RollingUpdateTally(), changed: true, settled: false };
      for (const node of podsByControllerNode.get(uid)?.keys() ?? []) st.dirty.add(node);
      states.set(uid, st);
    }
    return st;
  }

  /** The DaemonSet's state, judged again where its nodes or pods changed (everywhere for a new template) or the clock moves a judgement. */
  function refresh(ds: KubeObject, sel: Requirement[], hash: string, now: number): DaemonState {
    const st = stateOf(ds, hash);
    for (const name of st.timed) st.dirty.add(name);
    judgeDirty(ds, st, sel, hash, now, Infinity);
    return st;
  }

  /** Judges the dirty nodes again, until `until` (performance.now()) has passed; whether some are left dirty. */
  function judgeDirty(ds: KubeObject, st: DaemonState, sel: Requirement[], hash: string, now: number, until: number): boolean {
    if (st.dirty.size) st.changed = true;
    let judged = 0;
    for (const name of st.dirty) {
      // The clock is read every 64 nodes (about a millisecond of judging at 5000 nodes).
      if (++judged % 64 === 0 && performance.now() > until) return true;
      st.dirty.delete(name);
      const before = st.entries.get(name);
      if (before) for (const k of COUNTS) st.totals[k] -= before.counts[k];
      const e = judgeNode(ds, sel, name, hash, now);
      if (!e.exists && !e.pods.length) {
        if (st.entries.delete(name)) st.sorted = undefined;
      } else {
        if (!before) st.sorted = undefined;
        st.entries.set(name, e);
      }
      st.tally.set(name, e.roll);
      for (const k of COUNTS) st.totals[k] += e.counts[k];
      const mark = (set: Set<string>, on: boolean) => (on ? set.add(name) : set.delete(name));
      mark(st.creates, e.create);
      mark(st.deletes, e.deletes.length > 0);
      mark(st.failed, e.failed);
      mark(st.timed, e.availableAt !== Infinity);
    }
    return false;
  }

  /**
   * Judges what is dirty a slice of the event loop at a time, before the sync's
   * refresh. A new template or a new DaemonSet makes every node dirty: judged in
   * one go, 5000 nodes held the event loop for 100-200 ms (every watch flush and
   * request waited), and nine DaemonSets created at once did that nine times
   * over. Nodes that change meanwhile are marked dirty again and judged in a
   * later slice; those the clock moves (`timed`) are left to refresh, so that
   * the slices end however many there are.
   */
  async function judgeInTurns(ds: KubeObject, sel: Requirement[], hash: string) {
    while (judgeDirty(ds, stateOf(ds, hash), sel, hash, Date.now(), performance.now() + judging.sliceMs)) {
      judging.yields++;
      await yieldToEventLoop();
    }
  }

  /** manage: which nodes need a pod, which pods must go, in the node list's order. */
  function manage(ds: KubeObject, st: DaemonState, hash: string, now: number, requeue: (ms: number) => void) {
    const toCreate: string[] = [];
    const toDelete: string[] = [];
    const names = [...new Set([...st.creates, ...st.deletes, ...st.failed])].sort();
    for (const name of names) {
      const e = st.entries.get(name)!;
      if (e.failed && e.placement) {
        // Judged again now, with the back-off (once per sync, as upstream's manage).
        const m = manageNode(ds, name, e.placement, e.pods, hash, now, requeue);
        if (m.create) toCreate.push(name);
        toDelete.push(...m.deletes);
        continue;
      }
      if (e.create) toCreate.push(name);
      toDelete.push(...e.deletes);
    }
    return { toCreate, toDelete };
  }

  /**
   * The end-of-sync status, per DaemonSet (by uid): written after the sync,
   * one write at a time, the newest last (latestwrite.ts), so that the next
   * sync need not wait out the write. A failed write retries the key.
   */
  const statusWriters = new Map<string, LatestWrite<{ ds: KubeObject; status: Record<string, number> }>>();
  function storeStatus(ds: KubeObject, status: Record<string, number>) {
    const uid = ds.metadata.uid!;
    let w = statusWriters.get(uid);
    if (!w) {
      const key = dsKey(ds.metadata.namespace, ds.metadata.name!);
      w = new LatestWrite(
        (v) => writeStatus(v.ds, v.status),
        (e) => void (e instanceof Conflict || queue.fail(key)),
      );
      statusWriters.set(uid, w);
    }
    w.set({ ds, status });
  }

  async function writeStatus(ds: KubeObject, status: Record<string, number>) {
    const latest = cache.get(dsStore.keyFor(ds.metadata.namespace, ds.metadata.name!))?.object;
    if (!latest || latest.metadata.uid !== ds.metadata.uid) return;
    const before = (latest.status ?? {}) as Record<string, unknown>;
    const want: Record<string, unknown> = { ...status, observedGeneration: ds.metadata.generation ?? 0 };
    if (Object.entries(want).every(([k, v]) => before[k] === v)) return;
    trace('ds.status.req', ds.metadata.name!);
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
    trace('ds.status.done', ds.metadata.name!);
  }

  /** updateDaemonSet: manage, then the rolling update once manage's writes are observed, then history clean-up. Returns whether work was left over. */
  async function updateDaemonSet(ds: KubeObject, sel: Requirement[], hash: string, old: KubeObject[], requeue: (ms: number) => void): Promise<boolean> {
    await judgeInTurns(ds, sel, hash);
    const st = refresh(ds, sel, hash, Date.now());
    const { toCreate, toDelete } = manage(ds, st, hash, Date.now(), requeue);
    trace('ds.manage', ds.metadata.name!, `${toCreate.length}/${toDelete.length}`);
    const rolling = ((ds.spec as any)?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    // The plan is made again only once a node's judgement changed (or the clock moves one:
    // minReadySeconds), or when the last plan acted; otherwise it would come out the same, empty.
    // The tally keeps every node's part, so planning walks the nodes (in name order) only as far as
    // the plan takes nodes, not every node's pods.
    const plan = (current: DaemonState) => {
      if (!current.changed && current.settled) return undefined;
      current.changed = false;
      current.settled = false;
      const p = current.tally.plan(ds as any, (current.sorted ??= [...current.entries.keys()].sort()));
      trace('ds.plan', ds.metadata.name!, `${p.nodesToCreate.length}/${p.podsToDelete.length}`);
      return p;
    };
    // Manage only creates, without surge: a node without a pod counts as unavailable as one whose new
    // pod is not available yet, so the rolling update's plan comes out the same before these creates
    // as after them (upstream makes it after, once they are observed). Its writes go out with them.
    // Nodes whose creates an earlier sync handed over are left alone until those are done.
    const creator = creatorFor(ds, hash);
    const fresh = toCreate.filter((n) => !creator.has(n));
    const surge = allowsSurge(ds as any);
    const together = rolling && fresh.length > 0 && toDelete.length === 0 && !surge;
    const early = together ? plan(st) : undefined;
    // Then the sync does not wait for its creates either (the same argument: a node whose create is
    // in flight counts as unavailable as one whose new pod is not yet available), unless the last
    // round failed: then it waits, so that a failure keeps failing its syncs and backs off.
    const managed = early
      ? await syncNodes(ds, creator, early.podsToDelete, [...fresh, ...early.nodesToCreate], creator.failing)
      : await syncNodes(ds, creator, toDelete, fresh);
    let more = managed.more;
    if (together) st.settled = false;
    // Else the rolling update runs once the controller has observed manage's writes (upstream's
    // expectations are then satisfied): a write resolves once the watch cache applied it, which
    // handed its event to this controller's index, so this is so unless the cache fell behind; the
    // events of manage's writes bring us back then. With surge, creates still in flight count too.
    else if (rolling && managed.revision <= cache.revision && (!surge || !creator.size)) {
      const current = refresh(ds, sel, hash, Date.now());
      const p = plan(current);
      if (p) {
        const r = await syncNodes(ds, creator, p.podsToDelete, p.nodesToCreate);
        more ||= r.more;
        current.settled = !r.wrote && !r.more;
      }
    }

    await cleanupHistory(ds, sel, old);
    return more;
  }

  // ---- sync ----

  async function sync(key: string) {
    trace('ds.sync.start', key);
    try {
      await syncOnce(key);
    } finally {
      trace('ds.sync.end', key);
    }
  }

  async function syncOnce(key: string) {
    const [ns, name] = key.split('/');
    const ds = cache.get(dsStore.keyFor(ns, name))?.object;
    if (!ds) {
      for (const k of failedBackoff.keys()) if (k.startsWith(`${key}/`)) failedBackoff.delete(k);
      const live = new Set(allDaemonSets().map((d) => d.metadata.uid));
      for (const uid of placements.keys()) if (!live.has(uid)) placements.delete(uid);
      for (const uid of states.keys()) if (!live.has(uid)) states.delete(uid);
      for (const [uid, c] of creators) if (!live.has(uid)) (c.creates.stop(), creators.delete(uid));
      for (const uid of statusWriters.keys()) if (!live.has(uid)) statusWriters.delete(uid);
      for (const uid of deleting.keys()) if (!live.has(uid)) deleting.delete(uid);
      return;
    }
    const sel = selectorOf(ds);
    if (!sel || ds.metadata.deletionTimestamp) {
      creators.get(ds.metadata.uid!)?.creates.clear();
      return;
    }
    const requeueAt = { ms: Infinity };
    const requeue = (ms: number) => (requeueAt.ms = Math.min(requeueAt.ms, ms));

    // Claim: owned pods on the nodes that changed (every node for a DaemonSet not yet judged), and the orphans.
    const st = states.get(ds.metadata.uid!);
    const owned = podsByControllerNode.get(ds.metadata.uid!);
    const candidates: KubeObject[] = [];
    if (!st) for (const pods of owned?.values() ?? []) candidates.push(...pods.values());
    else for (const node of st.dirty) candidates.push(...(owned?.get(node)?.values() ?? []));
    candidates.push(...(orphanPods.get(ns)?.values() ?? []));
    await claim(ds, sel, podKind, candidates);
    const { hash, old } = await constructHistory(ds, sel);

    let more = false;
    let failure: unknown;
    try {
      more = await updateDaemonSet(ds, sel, hash, old, requeue);
    } catch (e) {
      failure = e; // the status is written all the same, as upstream does
    }

    const now = Date.now();
    const { totals, timed, entries } = refresh(ds, sel, hash, now);
    const status = {
      desiredNumberScheduled: totals.desired,
      currentNumberScheduled: totals.current,
      numberMisscheduled: totals.misscheduled,
      numberReady: totals.ready,
      numberAvailable: totals.available,
      numberUnavailable: totals.desired - totals.available,
      updatedNumberScheduled: totals.updated,
    };
    storeStatus(ds, status);
    if (failure) throw failure;
    // Come back when a ready pod turns available (minReadySeconds): the status
    // changes and the rollout may proceed (upstream requeues after minReadySeconds).
    let nextAvailable = Infinity;
    for (const name of timed) nextAvailable = Math.min(nextAvailable, entries.get(name)?.availableAt ?? Infinity);
    if (nextAvailable !== Infinity) requeue(nextAvailable - now + 5);
    if (more) requeue(0);
    if (requeueAt.ms !== Infinity) queue.after(key, requeueAt.ms);
  }

  // As client-go's queue: a DaemonSet syncs again as soon as something changed (once per sync
  // however many events came meanwhile); syncs are proportional to what changed, so no pause between them.
  const queue = new WorkQueue(sync, { concurrency: 2 });

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
    if (tracing) tracePodEvent('ds', e);
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
    if (e.type !== 'MODIFIED') nodeNames = undefined;
    for (const st of states.values()) st.dirty.add(e.object.object.metadata.name!);
    for (const ds of allDaemonSets()) queue.add(dsKey(ds.metadata.namespace, ds.metadata.name!));
  }

  // No DaemonSet is synced before every pod is indexed: judged against part of the index, a node
  // looks empty and gets a second pod.
  const informer = inform(cache, {
    list: [
      [podStore.resourcePrefix, (c) => indexPod(c.key, c.object, undefined)],
      [dsStore.resourcePrefix, (c) => queue.add(dsKey(c.object.metadata.namespace, c.object.metadata.name!))],
    ],
    watch: [
      [dsStore.resourcePrefix, (e) => queue.add(dsKey(e.object.object.metadata.namespace, e.object.object.metadata.name!))],
      [podStore.resourcePrefix, onPod],
      [crStore.resourcePrefix, onOwned],
      [nodeStore.resourcePrefix, onNode],
    ],
  });
  queue.startAfter(informer.synced);

  return () => {
    queue.stop();
    for (const c of creators.values()) c.creates.stop();
    broadcaster.stop();
    informer.stop();
  };
}

function ignoreNotFound(e: any): undefined {
  if (e?.code === 404) return undefined;
  throw e;
}
