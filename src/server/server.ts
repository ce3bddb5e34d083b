// Assembles the API server: storage -> watch cache -> one store per kind ->
// the HTTP pipeline, plus the SPA and the in-process controllers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { kinds as allKinds } from '../kinds/registry.ts';
import type { KindDefinition } from '../kinds/kind.ts';
import { SqliteStorage } from './storage/sqlite.ts';
import type { Storage } from './storage/storage.ts';
import { WatchCache } from './watch/cache.ts';
import { Store, type NamespaceAdmission } from './registry/store.ts';
import { buildOpenAPI } from './openapi.ts';
import { createHandler } from './http/handler.ts';
import { errors } from './http/status.ts';
import { tokenAuthenticator } from './auth/authn.ts';
import { allowAll, type Authorizer } from './auth/authz.ts';
import { staticFiles } from './http/static.ts';
import { corsHeaders } from './http/cors.ts';
import { hostChecker } from './http/hosts.ts';
import { reviewResources } from './auth/reviews.ts';
import { startControllers } from './controllers/index.ts';
import type { SimulationOptions } from './controllers/simulation.ts';
import { createDemoCluster } from './controllers/demo.ts';
import { Client } from './client.ts';

export interface ServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  dataDir: string;
  /** Directory of the built SPA (served at `/`); none serves only the API. */
  staticDir?: string;
  tokenFile?: string;
  /** Who may do what; everyone may do everything by default (tests plug in their own). */
  authorizer?: Authorizer;
  corsAllowedOrigins?: RegExp[];
  /** Revisions of history the store keeps for watches to resume from. */
  historyRevisions?: number;
  /** Events the watch cache keeps in memory (older resumes are served from the store). */
  watchCacheSize?: number;
  /** Run the in-process controllers (namespace lifecycle, later DaemonSet and the simulators). */
  controllers?: boolean;
  /** Scope and delays of the simulated kubelets and CSI attacher (they run with the controllers); false turns them off. */
  simulation?: SimulationOptions | false;
  /** Create the demo cluster when the data dir is fresh (`npm start` does unless `--no-demo`). */
  demo?: boolean;
  /** Host names served besides loopback names, IP addresses and `host` (`--accept-hosts`; `*` serves any). */
  acceptHosts?: string[];
}

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
export const VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-23T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export interface ApiServer {
  url: string;
  server: Server;
  storage: Storage;
  cache: WatchCache;
  stores: Map<KindDefinition, Store>;
  /** An in-process client that acts through the stores, for controllers and bootstrap. */
  client: Client;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<ApiServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const storage = SqliteStorage.open(join(opts.dataDir, 'state.db'), { historyRevisions: opts.historyRevisions });
  const cache = await WatchCache.start(storage, { historySize: opts.watchCacheSize });
  const stores = new Map<KindDefinition, Store>();
  const namespaceKind = allKinds.find((k) => k.group === '' && k.plural === 'namespaces')!;
  const admitNamespace: NamespaceAdmission = (namespace, kind, name) => {
    const ns = cache.get(stores.get(namespaceKind)!.keyFor(undefined, namespace));
    if (!ns) return errors.namespaceNotFound(namespace);
    if (ns.object.metadata.deletionTimestamp) {
      const err = errors.forbidden(kind, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
      err.details!.causes = [{ reason: 'NamespaceTerminating', field: 'metadata.namespace', message: `namespace ${namespace} is being terminated` }];
      return err;
    }
    return undefined;
  };
  for (const k of allKinds) stores.set(k, new Store(k, storage, cache, admitNamespace));
  const authorizer = opts.authorizer ?? allowAll;
  const client = new Client(stores, authorizer);
  const fresh = cache.revision === 0;

  for (const name of SYSTEM_NAMESPACES) {
    if (!cache.get(stores.get(namespaceKind)!.keyFor(undefined, name))) {
      await client.create(namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  const closers = new Set<() => void>();
  const origins = opts.corsAllowedOrigins ?? [];
  const handler = createHandler({
    kinds: allKinds,
    stores,
    openapi: buildOpenAPI(allKinds, reviewResources),
    authenticator: tokenAuthenticator(opts.tokenFile),
    authorizer,
    version: VERSION,
    fallback: opts.staticDir ? staticFiles(opts.staticDir) : undefined,
    corsHeaders: origins.length ? (req) => corsHeaders(req, origins) : undefined,
    onClose: (fn) => {
      closers.add(fn);
      return () => closers.delete(fn);
    },
    webSocketOrigins: origins,
    acceptHost: hostChecker(opts.host, opts.acceptHosts),
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => void handler(req, res));
  // Watches over WebSocket (and any other request that asks to upgrade) go through the same pipeline.
  server.on('upgrade', (req, socket, head) => void handler.upgrade(req, socket, head));
  // Requests node:http cannot even parse are answered with a Status too.
  server.on('clientError', handler.clientError);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1', resolve));
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  const stopControllers = startControllers({ client, stores, cache }, { enabled: opts.controllers !== false, simulation: opts.simulation });
  if (opts.demo) await createDemoCluster(client, { fresh });
  const compactor = setInterval(() => void storage.compact(Math.max(0, cache.revision - (opts.historyRevisions ?? 10_000))), 60_000);
  compactor.unref();

  return {
    url: `http://${host}:${addr.port}`,
    server,
    storage,
    cache,
    stores,
    client,
    async close() {
      clearInterval(compactor);
      stopControllers();
      for (const fn of closers) fn();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cache.stop();
      await storage.close();
    },
  };
}

export type { IncomingMessage, ServerResponse };
