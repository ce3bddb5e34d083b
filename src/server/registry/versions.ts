// Two API versions of one stored resource (kube-apiserver serves
// events.k8s.io/v1 Event from the objects core v1 Event stores). The store of
// the other version is the generic Store over views of the storage and the
// watch cache that map its keys onto the stored kind's keys and convert each
// value field by field on the way in and out, so the Store itself knows
// nothing of versions.
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import type { Storage } from '../storage/storage.ts';
import { resourcePrefixOf } from './prefix.ts';
import type { CachedObject, CacheEvent, CacheWatcher, WatchCache } from '../watch/cache.ts';

/** The storage and watch cache as the Store of `kind` (a kind with `storedAs`) sees them. */
export function versionedViews(kind: KindDefinition, storage: Storage, cache: WatchCache): { storage: Storage; cache: WatchCache } {
  const conv = kind.storedAs!;
  const outer = resourcePrefixOf(kind);
  const inner = resourcePrefixOf(conv.kind);
  const toInner = (key: string) => (key.startsWith(outer) ? inner + key.slice(outer.length) : key);
  const toOuter = (key: string) => (key.startsWith(inner) ? outer + key.slice(inner.length) : key);
  const fromStored = (o: KubeObject): KubeObject => {
    const out = conv.fromStored(o);
    return { ...out, metadata: { ...o.metadata } };
  };
  const toStoredValue = (value: string) => (value ? JSON.stringify(conv.toStored(JSON.parse(value))) : value);
  const fromStoredValue = (value: string) => (value ? JSON.stringify(fromStored(JSON.parse(value))) : value);

  // One converted copy per cached object, so every reader shares it (and its serialised JSON).
  const converted = new WeakMap<CachedObject, CachedObject>();
  const outCached = (c: CachedObject): CachedObject => {
    let v = converted.get(c);
    if (!v) converted.set(c, (v = { key: toOuter(c.key), object: fromStored(c.object), revision: c.revision, size: c.size }));
    return v;
  };
  const outEvent = (e: CacheEvent): CacheEvent => ({ ...e, key: toOuter(e.key), object: outCached(e.object), previous: e.previous && fromStored(e.previous) });

  const cacheView: WatchCache = Object.create(cache, {
    revision: { get: () => cache.revision },
    waitFor: { value: (rv: number, timeoutMs?: number) => cache.waitFor(rv, timeoutMs) },
    // The stored JSON is the other version's: the cache parses it (and converts it on the way out).
    expect: { value: () => {} },
    forget: { value: () => {} },
    get: { value: (key: string) => {
      const c = cache.get(toInner(key));
      return c && outCached(c);
    } },
    list: { value: (prefix: string) => cache.list(toInner(prefix)).map(outCached) },
    // A trigger reads the stored version's fields, so none is passed on; the watch's end and its client's going are.
    watchFrom: { value: (from: number, w: CacheWatcher) => cache.watchFrom(from, { prefix: toInner(w.prefix), deliver: (e) => w.deliver(outEvent(e)), expire: w.expire, gone: w.gone }) },
  });

  const storageView: Storage = Object.create(storage, {
    get: { value: async (key: string) => {
      const s = await storage.get(toInner(key));
      return s && { ...s, key: toOuter(s.key), value: fromStoredValue(s.value) };
    } },
    list: { value: async (prefix: string, opts?: Parameters<Storage['list']>[1]) => {
      const res = await storage.list(toInner(prefix), opts && { ...opts, startKey: opts.startKey && toInner(opts.startKey) });
      return { ...res, items: res.items.map((s) => ({ ...s, key: toOuter(s.key), value: fromStoredValue(s.value) })) };
    } },
    create: { value: (key: string, value: string) => storage.create(toInner(key), toStoredValue(value)) },
    update: { value: (key: string, value: string, rev: number) => storage.update(toInner(key), toStoredValue(value), rev) },
    delete: { value: (key: string, rev: number) => storage.delete(toInner(key), rev) },
  });
  return { storage: storageView, cache: cacheView };
}
