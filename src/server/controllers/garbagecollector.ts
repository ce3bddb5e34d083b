// A small garbage collector (K/pkg/controller/garbagecollector): an object
// whose owners are all gone (by uid) is deleted, with Background propagation
// unless its own GC finalizers say otherwise; references to owners that are
// gone are dropped from objects that still have a live owner. So deleting a
// DaemonSet removes its pods and ControllerRevisions.
//
// The API adds the GC finalizers on DELETE (propagationPolicy, see
// finalizersForDeletion in registry/store.ts). An owner being deleted with
// `foregroundDeletion` has its dependents deleted first and loses the
// finalizer once no dependent with blockOwnerDeletion is left (dependents
// are gone from storage, not just terminating); one with `orphan` has its
// dependents' references to it removed, then the finalizer.
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { resourcePrefixOf, type CacheEvent, type CachedObject } from '../watch/cache.ts';
import { inform, type InformerSpec } from '../watch/informer.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { WorkQueue } from './workqueue.ts';
import { deepEqual } from '../../lib/json.ts';
import { EventBroadcaster, referenceTo } from '../events/recorder.ts';
import type { PropagationPolicy } from '../registry/options.ts';

const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

interface Ref {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

export function startGarbageCollector(ctx: ControllerContext, opts: Pick<InformerSpec, 'betweenSlices' | 'perTurn'> = {}): () => void {
  const client = ctx.client.as(controllerIdentity('generic-garbage-collector'));
  const { cache } = ctx;
  /** The kinds it follows, by their objects' key prefix (not the ignored ones: Events). */
  const kindOfPrefix = new Map<string, KindDefinition>();
  for (const [kind, store] of ctx.stores) if (!kind.ignoredByGarbageCollector) kindOfPrefix.set(store.resourcePrefix, kind);

  /** Live objects by uid -> cache key. */
  const keyOfUid = new Map<string, string>();
  /** Owner uid -> cache keys of the objects that reference it. */
  const dependents = new Map<string, Set<string>>();

  // An owner of a kind this server does not serve cannot be looked up, so it
  // is never judged gone (upstream skips owners it cannot resolve too); nor is
  // one of a kind it ignores, whose objects it does not hold.
  const followed = new Set([...kindOfPrefix.values()].map((k) => `${k.group}/${k.kind}`));
  const groupOf = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

  const kindOfRef = new Map([...ctx.stores.keys()].map((k) => [`${k.group}/${k.kind}`, k]));
  const broadcaster = new EventBroadcaster();
  const recorder = broadcaster.newRecorder(client, { component: 'garbage-collector-controller' });
  /** Dependent uid + owner uid already reported as pointing across namespaces. */
  const reported = new Set<string>();

  /**
   * An owner reference that cannot hold: a namespaced owner lives in its
   * dependent's namespace, so one found elsewhere is absent for this
   * dependent ('elsewhere'), and a cluster-scoped dependent cannot have a
   * namespaced owner at all ('cluster-scoped': kept, never deleted, as
   * upstream gives up on it). Both are reported once as OwnerRefInvalidNamespace.
   */
  function invalidNamespace(r: Ref, dependent: KubeObject): 'elsewhere' | 'cluster-scoped' | undefined {
    const ownerKind = kindOfRef.get(`${groupOf(r.apiVersion)}/${r.kind}`);
    if (ownerKind?.scope !== 'Namespaced') return undefined;
    const ns = dependent.metadata.namespace;
    let verdict: 'elsewhere' | 'cluster-scoped' | undefined;
    if (!ns) verdict = 'cluster-scoped';
    else {
      const owner = ownerObject(r);
      if (owner && owner.metadata.namespace !== ns) verdict = 'elsewhere';
    }
    const key = `${dependent.metadata.uid}/${r.uid}`;
    if (verdict && !reported.has(key)) {
      reported.add(key);
      const dependentKind = kindOfPrefix.get(resourcePrefixOf(keyOfUid.get(dependent.metadata.uid!) ?? ''));
      if (dependentKind) {
        recorder.event(
          referenceTo(dependentKind, dependent),
          'Warning',
          'OwnerRefInvalidNamespace',
          `ownerRef [${r.apiVersion}/${r.kind}, namespace: ${ns ?? ''}, name: ${r.name}, uid: ${r.uid}] does not exist in namespace ${JSON.stringify(ns ?? '')}`,
        );
      }
    }
    return verdict;
  }

  const refsOf = (o: KubeObject | undefined): Ref[] => (o?.metadata.ownerReferences ?? []) as Ref[];
  const objectAt = (key: string) => cache.get(key)?.object;
  const ownerAlive = (r: Ref) => keyOfUid.has(r.uid) || !followed.has(`${groupOf(r.apiVersion)}/${r.kind}`);

  function index(key: string, obj: KubeObject | undefined, previous: KubeObject | undefined) {
    for (const r of refsOf(previous)) dependents.get(r.uid)?.delete(key);
    if (previous?.metadata.uid && keyOfUid.get(previous.metadata.uid) === key) keyOfUid.delete(previous.metadata.uid);
    if (!obj) return;
    if (obj.metadata.uid) keyOfUid.set(obj.metadata.uid, key);
    for (const r of refsOf(obj)) {
      let set = dependents.get(r.uid);
      if (!set) dependents.set(r.uid, (set = new Set()));
      set.add(key);
    }
  }

  function cleanIndex(uid: string) {
    const set = dependents.get(uid);
    if (set && !set.size) dependents.delete(uid);
  }

  const ownerObject = (r: Ref) => {
    const k = keyOfUid.get(r.uid);
    return k ? objectAt(k) : undefined;
  };
  /** An owner being deleted in the foreground: it waits for its dependents. */
  const deletingDependents = (o: KubeObject | undefined) => !!o?.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(FOREGROUND);
  const withoutRefs = (drop: Set<string>) => (o: KubeObject) => {
    const refs = (o.metadata.ownerReferences ?? []).filter((r: any) => !drop.has(r.uid));
    if (refs.length) o.metadata.ownerReferences = refs;
    else delete o.metadata.ownerReferences;
  };

  /**
   * attemptToDeleteItem: a dependent with a live owner stays (dropping its
   * references to owners that are gone or waiting for their dependents); one
   * without is deleted — in the foreground when an owner waits for it and it
   * has dependents of its own, else as its own GC finalizers say (Background
   * when it has none).
   */
  async function syncDependent(key: string) {
    const obj = objectAt(key);
    const refs = refsOf(obj);
    if (!obj || !refs.length) return;
    // Being deleted is a one-way trip; an object deleting its own dependents is synced as an owner.
    if (obj.metadata.deletionTimestamp) return;
    const kind = kindOfPrefix.get(resourcePrefixOf(key));
    if (!kind) return;
    const dangling: Ref[] = [];
    const waiting: Ref[] = [];
    const solid: Ref[] = [];
    for (const r of refs) {
      const invalid = invalidNamespace(r, obj);
      if (invalid === 'cluster-scoped') solid.push(r);
      else if (invalid === 'elsewhere' || !ownerAlive(r)) dangling.push(r);
      else if (deletingDependents(ownerObject(r))) waiting.push(r);
      else solid.push(r);
    }
    const { namespace, name, uid } = obj.metadata;
    if (solid.length) {
      if (!dangling.length && !waiting.length) return;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await client
        .update(kind, namespace, name!, (o) => {
          if (o.metadata.uid === uid) withoutRefs(drop)(o);
        })
        .catch(ignoreGone);
      return;
    }
    const own = obj.metadata.finalizers ?? [];
    const policy: PropagationPolicy =
      waiting.length && dependents.get(uid!)?.size ? 'Foreground' : own.includes(ORPHAN) ? 'Orphan' : own.includes(FOREGROUND) ? 'Foreground' : 'Background';
    await client.delete(kind, namespace, name!, { propagationPolicy: policy, preconditions: { uid } }).catch(ignoreGone);
  }

  /**
   * An owner being deleted with a GC finalizer. `orphan`: every dependent
   * loses its reference to the owner, then the finalizer goes. `foregroundDeletion`:
   * the dependents are deleted, and the finalizer goes once none that blocks
   * the owner (blockOwnerDeletion) is left.
   */
  async function syncOwner(uid: string) {
    const key = keyOfUid.get(uid);
    const owner = key ? objectAt(key) : undefined;
    if (!key || !owner?.metadata.deletionTimestamp) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const kind = kindOfPrefix.get(resourcePrefixOf(key))!;
    const current = () => [...(dependents.get(uid) ?? [])].map((k) => ({ k, o: objectAt(k) })).filter((d): d is { k: string; o: KubeObject } => !!d.o);
    const dropFinalizer = (f: string) =>
      client
        .update(kind, owner.metadata.namespace, owner.metadata.name!, (o) => {
          if (o.metadata.uid !== uid) return;
          o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((x) => x !== f);
        })
        .catch(ignoreGone);
    if (finalizers.includes(ORPHAN)) {
      const drop = withoutRefs(new Set([uid]));
      await Promise.all(
        current().map(({ k, o }) => {
          const dk = kindOfPrefix.get(resourcePrefixOf(k));
          if (!dk) return undefined;
          return client
            .update(dk, o.metadata.namespace, o.metadata.name!, (x) => {
              if (x.metadata.uid === o.metadata.uid) drop(x);
            })
            .catch(ignoreGone);
        }),
      );
      await dropFinalizer(ORPHAN);
      return;
    }
    if (finalizers.includes(FOREGROUND)) {
      await Promise.all(current().filter(({ o }) => !o.metadata.deletionTimestamp).map(({ k }) => syncDependent(k)));
      const blocking = current().some(({ o }) => refsOf(o).some((r) => r.uid === uid && r.blockOwnerDeletion));
      if (!blocking) await dropFinalizer(FOREGROUND);
    }
  }

  const queue = new WorkQueue(async (item) => {
    const [type, id] = [item.slice(0, item.indexOf(':')), item.slice(item.indexOf(':') + 1)];
    if (type === 'dep') await syncDependent(id);
    else await syncOwner(id);
  }, 8);

  const isOwnerPending = (o: KubeObject) =>
    !!o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).some((f) => f === FOREGROUND || f === ORPHAN);

  function onEvent(e: CacheEvent) {
    const obj = e.type === 'DELETED' ? undefined : e.object.object;
    const before = e.type === 'DELETED' ? e.object.object : e.previous;
    // An update that leaves the owner references as they were (a status write, most events of a
    // rollout) changes nothing the graph holds or a dependent's judgement reads: upstream's graph
    // builder queues a dependent only when its references change. What its owners do comes
    // through their own events.
    const sameRefs = !!obj && !!before && obj.metadata.uid === before.metadata.uid && deepEqual(obj.metadata.ownerReferences, before.metadata.ownerReferences);
    if (!sameRefs) index(e.key, obj, before);
    if (obj && refsOf(obj).length && !sameRefs) queue.add(`dep:${e.key}`);
    if (obj && isOwnerPending(obj)) queue.add(`owner:${obj.metadata.uid}`);
    if (before) {
      for (const r of refsOf(before)) {
        cleanIndex(r.uid);
        // A dependent of a foreground deletion went away: its owner may now finish.
        const ownerKey = keyOfUid.get(r.uid);
        const owner = ownerKey ? objectAt(ownerKey) : undefined;
        if (owner && isOwnerPending(owner)) queue.add(`owner:${r.uid}`);
      }
    }
    if (!obj && before?.metadata.uid) {
      for (const k of dependents.get(before.metadata.uid) ?? []) queue.add(`dep:${k}`);
    }
  }

  // No sync starts before the index is whole (watch/informer.ts): judged against part of it, a
  // dependent whose owner the walk has not reached yet looks orphaned, and would be deleted.
  const prefixes = [...kindOfPrefix.keys()];
  const listed = (c: CachedObject) => {
    index(c.key, c.object, undefined);
    if (refsOf(c.object).length) queue.add(`dep:${c.key}`);
    if (isOwnerPending(c.object)) queue.add(`owner:${c.object.metadata.uid}`);
  };
  const informer = inform(cache, { list: prefixes.map((prefix) => [prefix, listed]), watch: prefixes.map((prefix) => [prefix, onEvent]), ...opts });
  queue.startAfter(informer.synced);

  return () => {
    queue.stop();
    informer.stop();
    broadcaster.stop();
  };
}

function ignoreGone(e: any): undefined {
  if (e?.code === 404 || e?.code === 409) return undefined;
  throw e;
}
