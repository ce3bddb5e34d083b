// The storage factory (kube-apiserver's storagebackend/factory): the backend `--storage sqlite|etcd` names,
// opened, with its compaction, so that the server assembles either the same way.
import { join } from 'node:path';
import { EtcdStorage, type EtcdResource, type EtcdStorageOptions } from './etcd.ts';
import { SqliteStorage } from './sqlite.ts';
import { HistoryRetention } from './retention.ts';
import type { Storage } from './storage.ts';
import { kinds } from '../../kinds/registry.ts';
import { resourcePrefixOf } from '../registry/prefix.ts';

/**
 * kube-apiserver's etcd key for each resource is `<prefix>/<resource>/…`,
 * without the group, and a few resources kept their historic names.
 */
const UPSTREAM_ETCD_RESOURCE: Record<string, string> = { '/registry/core/nodes/': 'minions' };

/** Each stored kind's storage prefix, the etcd resource segment kube-apiserver uses for it, and whether its writes go first. */
export function etcdResources(): EtcdResource[] {
  return kinds
    .filter((k) => !k.storedAs)
    .map((k) => {
      const key = resourcePrefixOf(k);
      return { key, etcd: UPSTREAM_ETCD_RESOURCE[key] ?? k.plural, writesFirst: k.heartbeats };
    });
}

export type StorageBackend = 'sqlite' | 'etcd';

export interface EtcdServerOptions extends Omit<EtcdStorageOptions, 'servers'> {
  /** `--etcd-servers`: client URLs of the members. */
  servers: string[];
  /** How often a replica tries to compact (kube-apiserver's 5 minutes, keeping one interval of history). */
  compactionIntervalMs?: number;
}

export interface OpenedStorage {
  storage: Storage;
  /** Starts periodic compaction; `cacheRevision` is the newest revision the watch cache applied. Returns a stop function. */
  startCompaction(cacheRevision: () => number): () => void;
}

export async function openStorage(opts: {
  storage?: StorageBackend;
  dataDir: string;
  etcd?: EtcdServerOptions;
}): Promise<OpenedStorage> {
  if ((opts.storage ?? 'sqlite') === 'etcd') {
    if (!opts.etcd?.servers.length) throw new Error('--storage etcd needs --etcd-servers');
    const storage = await EtcdStorage.open({ resources: etcdResources(), ...opts.etcd });
    return { storage, startCompaction: () => storage.startCompactor(opts.etcd!.compactionIntervalMs) };
  }
  const heartbeatPrefixes = kinds.filter((k) => k.heartbeats && !k.storedAs).map(resourcePrefixOf);
  const storage = SqliteStorage.open(join(opts.dataDir, 'state.db'), { heartbeatPrefixes });
  return {
    storage,
    startCompaction(cacheRevision) {
      const retention = new HistoryRetention();
      const timer = setInterval(() => {
        const to = retention.compactTo(cacheRevision());
        if (to > 0) void storage.compact(to);
      }, 60_000);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
