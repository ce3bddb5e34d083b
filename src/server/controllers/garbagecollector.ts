// A small garbage collector (K/pkg/controller/garbagecollector): an object
// whose owners are all gone (by uid) is deleted, with Background propagation;
// references to owners that are gone are dropped from objects that still
// have a live owner. So deleting a DaemonSet removes its pods and
// ControllerRevisions.
//
// An owner being deleted that carries the `foregroundDeletion` finalizer has
// its dependents deleted first and loses the finalizer once no dependent
// with blockOwnerDeletion is left; one with the `orphan` finalizer has its
// dependents' references to it removed, then the finalizer. (Whether the
// API adds those finalizers for propagationPolicy Foreground / Orphan is the
// registry's business; this acts on them when they are there.)
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { resourcePrefixOf, type CacheEvent } from '../watch/cache.ts';
import { controllerIdentity, type ControllerContext } from './index.ts';
import { WorkQueue } from './workqueue.ts';

const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

interface Ref {
  apiVersion?: string;
  kind?: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

export function startGarbageCollector(ctx: ControllerContext): () => void {
  const client = ctx.client.as(controllerIdentity('generic-garbage-collector'));
  const { cache } = ctx;
  const kindOfPrefix = new Map<string, KindDefinition>();
  for (const [kind, store] of ctx.stores) kindOfPrefix.set(store.resourcePrefix, kind);

  /** Live objects by uid -> cache key. */
  const keyOfUid = new Map<string, string>();
  /** Owner uid -> cache keys of the objects that reference it. */
  const dependents = new Map<string, Set<string>>();
  let stopped = false;

  // An owner of a kind this server does not serve cannot be looked up, so it
  // is never judged gone (upstream skips owners it cannot resolve too).
  const served = new Set([...ctx.stores.keys()].map((k) => `${k.group}/${k.kind}`));
  const groupOf = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

  const refsOf = (o: KubeObject | undefined): Ref[] => (o?.metadata.ownerReferences ?? []) as Ref[];
  const objectAt = (key: string) => cache.get(key)?.object;
  const ownerAlive = (r: Ref) => keyOfUid.has(r.uid) || !served.has(`${groupOf(r.apiVersion)}/${r.kind}`);

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

  async function syncDependent(key: string) {
    const obj = objectAt(key);
    const refs = refsOf(obj);
    if (!obj || !refs.length) return;
    const missing = refs.filter((r) => !ownerAlive(r));
    if (!missing.length) return;
    const kind = kindOfPrefix.get(resourcePrefixOf(key));
    if (!kind) return;
    const { namespace, name, uid } = obj.metadata;
    if (missing.length === refs.length) {
      if (obj.metadata.deletionTimestamp) return;
      await client.delete(kind, namespace, name!, { propagationPolicy: 'Background', preconditions: { uid } }).catch(ignoreGone);
      return;
    }
    // Some owners live on: only the dangling references go.
    const gone = new Set(missing.map((r) => r.uid));
    await client
      .update(kind, namespace, name!, (o) => {
        if (o.metadata.uid !== uid) return;
        o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r: any) => !gone.has(r.uid));
      })
      .catch(ignoreGone);
  }

  async function syncOwner(uid: string) {
    const key = keyOfUid.get(uid);
    const owner = key ? objectAt(key) : undefined;
    if (!key || !owner?.metadata.deletionTimestamp) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const kind = kindOfPrefix.get(resourcePrefixOf(key))!;
    const deps = [...(dependents.get(uid) ?? [])].map((k) => ({ k, o: objectAt(k) })).filter((d) => d.o);
    const dropFinalizer = (f: string) =>
      client
        .update(kind, owner.metadata.namespace, owner.metadata.name!, (o) => {
          if (o.metadata.uid !== uid) return;
          o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((x) => x !== f);
        })
        .catch(ignoreGone);
    if (finalizers.includes(ORPHAN)) {
      for (const { k, o } of deps) {
        const dk = kindOfPrefix.get(resourcePrefixOf(k));
        if (!dk) continue;
        await client
          .update(dk, o!.metadata.namespace, o!.metadata.name!, (x) => {
            if (x.metadata.uid !== o!.metadata.uid) return;
            x.metadata.ownerReferences = (x.metadata.ownerReferences ?? []).filter((r: any) => r.uid !== uid);
          })
          .catch(ignoreGone);
      }
      await dropFinalizer(ORPHAN);
      return;
    }
    if (finalizers.includes(FOREGROUND)) {
      for (const { k, o } of deps) {
        const dk = kindOfPrefix.get(resourcePrefixOf(k));
        if (!dk || o!.metadata.deletionTimestamp) continue;
        await client.delete(dk, o!.metadata.namespace, o!.metadata.name!, { propagationPolicy: 'Foreground', preconditions: { uid: o!.metadata.uid } }).catch(ignoreGone);
      }
      const blocking = deps.some(({ o }) => refsOf(o).some((r) => r.uid === uid && r.blockOwnerDeletion));
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
    index(e.key, obj, before);
    if (obj && refsOf(obj).length) queue.add(`dep:${e.key}`);
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

  let unwatch: (() => void) | undefined;
  const from = cache.revision;
  for (const store of ctx.stores.values()) for (const c of cache.list(store.resourcePrefix)) index(c.key, c.object, undefined);
  for (const store of ctx.stores.values()) {
    for (const c of cache.list(store.resourcePrefix)) {
      if (refsOf(c.object).length) queue.add(`dep:${c.key}`);
      if (isOwnerPending(c.object)) queue.add(`owner:${c.object.metadata.uid}`);
    }
  }
  void cache.watchFrom(from, { prefix: '/registry/', deliver: onEvent }).then((u) => (stopped ? u() : (unwatch = u)));

  return () => {
    stopped = true;
    queue.stop();
    unwatch?.();
  };
}

function ignoreGone(e: any): undefined {
  if (e?.code === 404 || e?.code === 409) return undefined;
  throw e;
}
