// The namespace lifecycle controller: a namespace being deleted has its
// contents deleted, then its `kubernetes` finalizer removed through the
// `finalize` subresource, at which point the store removes it.
import type { KindDefinition } from '../../kinds/kind.ts';
import type { Client } from '../client.ts';
import type { Store } from '../registry/store.ts';
import type { WatchCache } from '../watch/cache.ts';
import { inform } from '../watch/informer.ts';

export function startNamespaceController(client: Client, stores: Map<KindDefinition, Store>, cache: WatchCache): () => void {
  const kinds = [...stores.keys()];
  const namespaceKind = kinds.find((k) => k.group === '' && k.plural === 'namespaces')!;
  const namespaced = kinds.filter((k) => k.scope === 'Namespaced');
  const nsStore = stores.get(namespaceKind)!;
  let running = false;
  let again = false;
  let stopped = false;

  async function sync() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        for (const ns of cache.list(nsStore.resourcePrefix)) {
          const meta = ns.object.metadata;
          const spec = ns.object.spec as { finalizers?: string[] } | undefined;
          if (!meta.deletionTimestamp || !spec?.finalizers?.includes('kubernetes')) continue;
          let remaining = 0;
          for (const k of namespaced) {
            for (const c of cache.list(stores.get(k)!.prefixFor(meta.name))) {
              remaining++;
              if (c.object.metadata.deletionTimestamp) continue;
              await client.delete(k, meta.name, c.object.metadata.name!).catch(() => {});
            }
          }
          if (remaining === 0) {
            await client
              .update(namespaceKind, undefined, meta.name!, (o) => {
                const s = o.spec as { finalizers?: string[] };
                s.finalizers = (s.finalizers ?? []).filter((f) => f !== 'kubernetes');
              }, 'finalize')
              .catch(() => {});
          }
        }
      } while (again && !stopped);
    } finally {
      running = false;
    }
  }

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (!stopped && !timer) timer = setTimeout(() => ((timer = undefined), void sync()), 10);
  };
  const informer = inform(cache, { list: [], watch: [['/registry/', schedule]] });
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
    informer.stop();
  };
}
