// Assembles the API server: storage -> watch cache -> one store per kind ->
// the HTTP pipeline, plus the SPA and the in-process controllers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kinds as allKinds } from '../kinds/registry.ts';
import type { KindDefinition } from '../kinds/kind.ts';
import { SqliteStorage } from './storage/sqlite.ts';
import type { Storage } from './storage/storage.ts';
import { openStorage, type EtcdServerOptions, type StorageBackend } from './storage/factory.ts';
import { WatchCache } from './watch/cache.ts';
import { Store, type NamespaceAdmission } from './registry/store.ts';
import { versionedViews } from './registry/versions.ts';
import { startEventExpiry } from './events/ttl.ts';
import { eventKind } from '../kinds/events.ts';
import { buildOpenAPI } from './openapi.ts';
import { createHandler, startingHandler, type RequestHandler } from './http/handler.ts';
import type { HealthCheck } from './http/healthz.ts';
import { errors } from './http/status.ts';
import { tokenAuthenticator, unionAuthenticator, x509Authenticator } from './auth/authn.ts';
import type { Authorizer } from './auth/authz.ts';
import { privilegedGroupAuthorizer, rbacAuthorizer, RbacResolver, unionAuthorizer } from './auth/rbac.ts';
import { nodeAuthorizer, nodeRestriction } from './auth/node.ts';
import { rbacEscalationAdmission } from './auth/escalation.ts';
import { impersonatingAuthenticator } from './auth/impersonation.ts';
import { createIfAbsent, reconcileBootstrapPolicy } from './auth/bootstrap.ts';
import { ensureAdminToken, ensureServingCertificate, kubeconfigText, servingNames, watchFiles, writeKubeconfig } from './auth/credentials.ts';
import { listenDual, type DualListener } from './http/listener.ts';
import type { Limits } from './http/limits.ts';
import { Auditor } from './audit/audit.ts';
import { LogFile } from './audit/logfile.ts';
import { parsePolicy } from './audit/policy.ts';
import { scheduleSnapshots, snapshotDir } from './storage/snapshot.ts';
import { aggregateAll } from './controllers/clusterroleaggregation.ts';
import type { Admission } from './registry/store.ts';
import { staticFiles } from './http/static.ts';
import { corsHeaders } from './http/cors.ts';
import { hostChecker } from './http/hosts.ts';
import { reviewResources } from './auth/reviews.ts';
import { ControllerManager, type LeaderElectionOptions } from './controllers/index.ts';
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
  /** More bearer tokens (kube-apiserver CSV format); the admin token of `<data-dir>/admin-token` always works. */
  tokenFile?: string;
  /** Requests without credentials act as system:anonymous (judged by RBAC) instead of being answered 401. */
  anonymousAuth?: boolean;
  /** A serving certificate and key of one's own (PEM files) instead of the one issued by `<data-dir>/pki/ca.crt`. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** PEM CA bundle: client certificates it signed authenticate as their CN, in their O groups (--client-ca-file). */
  clientCAFile?: string;
  /** Replaces the Node and RBAC authorizers (tests of the review endpoints plug in their own). */
  authorizer?: Authorizer;
  corsAllowedOrigins?: RegExp[];
  /** `--storage`: the embedded SQLite file in dataDir (default), or an etcd cluster shared by several replicas. */
  storage?: StorageBackend;
  /** With `storage: 'etcd'`: `--etcd-servers`, `--etcd-prefix` and the TLS files. */
  etcd?: EtcdServerOptions;
  /** The most events the watch cache keeps in memory, over every resource (older resumes are served from the store). */
  watchCacheSize?: number;
  /** Run the in-process controllers (namespace lifecycle, later DaemonSet and the simulators). */
  controllers?: boolean;
  /** Scope and delays of the simulated kubelets and CSI attacher (they run with the controllers); false turns them off. */
  simulation?: SimulationOptions | false;
  /**
   * Run the controllers only while this replica holds the Lease
   * kube-system/kube-controller-manager (timings and identity; `exclusive`
   * defaults to whether the store is a SQLite file), or, with false, without an
   * election (`--leader-elect=false`).
   */
  leaderElection?: LeaderElectionOptions | false;
  /** Where the server reports what it does (leader election); nowhere when absent. */
  log?: (line: string) => void;
  /** Create the demo cluster when the data dir is fresh (`npm start` does unless `--no-demo`). */
  demo?: boolean;
  /** Host names served besides loopback names, IP addresses and `host` (`--accept-hosts`; `*` serves any). */
  acceptHosts?: string[];
  /** Seconds an event lives after its last write (`--event-ttl`, 1 hour by default). */
  eventTTLSeconds?: number;
  /**
   * The audit log: JSON lines of audit.k8s.io/v1 Events at `logPath` ('-': stdout) for the requests
   * the Policy of `policyFile` selects (without a policy nothing is recorded, as upstream),
   * rotated past `maxSizeBytes` keeping `maxBackups` files (0: all).
   */
  audit?: { logPath?: string; policyFile?: string; maxSizeBytes?: number; maxBackups?: number };
  /** Snapshots of the SQLite store into `<data-dir>/snapshots` every `intervalMs` (0: none), keeping `retention` (0: all). */
  snapshots?: { intervalMs: number; retention: number };
  /** Requests in flight, request and watch timeouts, the watch buffer bound (http/limits.ts). */
  limits?: Partial<Limits>;
}

const namespaceKind = allKinds.find((k) => k.group === '' && k.plural === 'namespaces')!;

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
  /** Plain HTTP on loopback (the browser app; tokens still required). */
  url: string;
  /** The same port over TLS (kubectl and other API clients). */
  httpsUrl: string;
  /** The bearer token of `<data-dir>/admin-token` (a member of system:masters). */
  adminToken: string;
  /** `<data-dir>/kubeconfig`: httpsUrl, the CA and the admin token. */
  kubeconfig: string;
  /** PEM of the CA that signed the serving certificate (or the certificate brought with --tls-cert-file). */
  ca: string;
  listener: DualListener;
  storage: Storage;
  cache: WatchCache;
  stores: Map<KindDefinition, Store>;
  /** An in-process client that acts through the stores, for controllers and bootstrap. */
  client: Client;
  /** The controllers of this replica and, with leader election, its elector. */
  controllers: ControllerManager;
  close(): Promise<void>;
}

/**
 * Listens first, then loads the store: a large one takes a while (646,000
 * Events took 30 s), and meanwhile clients reach a server that says it is
 * starting (/readyz fails, the API answers 429 with Retry-After, as
 * kube-apiserver does while its watch cache fills, and the app's files are
 * served) instead of a refused connection. Resolves once the API is served
 * and the controllers started.
 */
export async function startServer(opts: ServerOptions): Promise<ApiServer> {
  const started = performance.now();
  mkdirSync(opts.dataDir, { recursive: true });
  const adminToken = ensureAdminToken(opts.dataDir);
  const host = opts.host ?? '127.0.0.1';
  const loadServing = () =>
    opts.tlsCertFile
      ? (() => {
          const cert = readFileSync(opts.tlsCertFile!, 'utf8');
          return { cert, key: readFileSync(opts.tlsPrivateKeyFile ?? opts.tlsCertFile!, 'utf8'), ca: cert };
        })()
      : ensureServingCertificate(opts.dataDir, servingNames(host));
  const serving = loadServing();
  const tlsMaterial = () => ({ ...loadServing(), clientCA: opts.clientCAFile ? readFileSync(opts.clientCAFile, 'utf8') : undefined });
  const origins = opts.corsAllowedOrigins ?? [];
  const front = {
    kinds: allKinds,
    version: VERSION,
    fallback: opts.staticDir ? staticFiles(opts.staticDir) : undefined,
    corsHeaders: origins.length ? (req: IncomingMessage) => corsHeaders(req, origins) : undefined,
    acceptHost: hostChecker(opts.host, opts.acceptHosts),
  };
  let loaded = false;
  const storeLoaded: HealthCheck = { name: 'watch-cache', endpoints: ['healthz', 'readyz'], check: () => (loaded ? {} : { error: 'the store is still loading' }) };
  let serve: RequestHandler = startingHandler({ ...front, healthChecks: [storeLoaded] });
  const listener = await listenDual({
    host,
    port: opts.port ?? 8080,
    tls: { ...serving, clientCA: opts.clientCAFile ? readFileSync(opts.clientCAFile, 'utf8') : undefined },
    onRequest: (req, res) => void serve(req, res),
    // Watches over WebSocket (and any other request that asks to upgrade) go through the same pipeline.
    onUpgrade: (req, socket, head) => void serve.upgrade(req, socket, head),
    // Requests node:http cannot even parse are answered with a Status too.
    onClientError: (err, socket) => serve.clientError(err, socket),
  });
  // New certificates (or client CA) are served from the next handshake on, without a restart.
  const tlsFiles = opts.tlsCertFile ? [opts.tlsCertFile, opts.tlsPrivateKeyFile ?? opts.tlsCertFile] : [join(opts.dataDir, 'pki', 'apiserver.crt'), join(opts.dataDir, 'pki', 'apiserver.key')];
  const stopWatchingTls = watchFiles([...new Set(tlsFiles), ...(opts.clientCAFile ? [opts.clientCAFile] : [])], () => {
    try {
      listener.setTls(tlsMaterial());
    } catch (e) {
      // A half-written pair (key before certificate): the next change completes it; the old pair serves meanwhile.
      console.error(`serving certificate not reloaded: ${(e as Error).message}`);
    }
  });
  const addr = listener.address();
  // A wildcard listener is reached on loopback; the certificate names it either way.
  const local = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.address;
  const origin = `${local.includes(':') ? `[${local}]` : local}:${addr.port}`;
  const httpsUrl = `https://${origin}`;
  const kubeconfig = writeKubeconfig(opts.dataDir, kubeconfigText(httpsUrl, serving.ca, adminToken));
  opts.log?.(`Listening on ${httpsUrl}; loading the store in ${opts.dataDir} (until it is loaded, /readyz fails and the API answers 429)`);

  const closers = new Set<() => void>();
  /** What is open so far besides the listener, closed in reverse when the start fails. */
  const opened: (() => unknown)[] = [stopWatchingTls];
  try {
    const { storage, startCompaction } = await openStorage(opts);
    opened.push(() => storage.close());
    const cache = await WatchCache.start(storage, { historySize: opts.watchCacheSize });
    opened.push(() => cache.stop(), () => closers.forEach((fn) => fn()));
    const stores = new Map<KindDefinition, Store>();
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
    // Validating admission, after each write's validation: NodeRestriction, then RBAC's escalation checks.
    const resolver = new RbacResolver(cache, stores);
    const admissions: Admission[] = [nodeRestriction];
    const admission: Admission = (req) => admissions.forEach((a) => a(req));
    for (const k of allKinds) {
      // Another version of a stored resource (events.k8s.io/v1 Event) reads and writes the stored kind's objects.
      const views = k.storedAs ? versionedViews(k, storage, cache) : { storage, cache };
      stores.set(k, new Store(k, views.storage, views.cache, admitNamespace, admission));
    }
    const storeOf = (group: string, plural: string) => [...stores.values()].find((st) => st.kind.group === group && st.kind.plural === plural);
    // --authorization-mode=Node,RBAC, behind the system:masters superuser group.
    const authorizer = opts.authorizer ?? unionAuthorizer(privilegedGroupAuthorizer, nodeAuthorizer(cache, storeOf), rbacAuthorizer(resolver));
    admissions.push(rbacEscalationAdmission(resolver, authorizer));
    const client = new Client(stores, authorizer);
    // Fresh: never bootstrapped (an etcd keyspace starts at revision 1, and may hold other prefixes).
    const fresh = !cache.get(stores.get(namespaceKind)!.keyFor(undefined, 'default'));
    for (const name of SYSTEM_NAMESPACES) {
      if (!cache.get(stores.get(namespaceKind)!.keyFor(undefined, name))) {
        await createIfAbsent(client, namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      }
    }
    await reconcileBootstrapPolicy(client);
    await aggregateAll(client);

    const controllers = new ControllerManager(
      { client, stores, cache },
      { enabled: opts.controllers !== false, simulation: opts.simulation },
      // A SQLite file has one server: a lease held by another identity was left by a process that died.
      opts.leaderElection === false ? false : { exclusive: storage instanceof SqliteStorage, ...opts.leaderElection },
      opts.log,
    );
    const auditor =
      opts.audit?.logPath && opts.audit.policyFile
        ? new Auditor(parsePolicy(readFileSync(opts.audit.policyFile, 'utf8')), new LogFile(opts.audit.logPath, { maxSizeBytes: opts.audit.maxSizeBytes, maxBackups: opts.audit.maxBackups }))
        : undefined;
    serve = createHandler({
      ...front,
      stores,
      openapi: buildOpenAPI(allKinds, reviewResources),
      authenticator: impersonatingAuthenticator(
        unionAuthenticator(...(opts.clientCAFile ? [x509Authenticator] : []), tokenAuthenticator({ adminToken, tokenFile: opts.tokenFile, anonymous: opts.anonymousAuth })),
        authorizer,
      ),
      authorizer,
      onClose: (fn) => {
        closers.add(fn);
        return () => closers.delete(fn);
      },
      webSocketOrigins: origins,
      healthChecks: [storeLoaded, ...controllers.healthChecks],
      limits: opts.limits,
      auditor,
    });
    loaded = true;
    opts.log?.(`The store is loaded: ${cache.size} objects in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    await controllers.start();
    if (opts.demo) await createDemoCluster(client, { fresh });
    const stopSnapshots = opts.snapshots?.intervalMs && storage instanceof SqliteStorage ? scheduleSnapshots(storage, snapshotDir(opts.dataDir), opts.snapshots.intervalMs, opts.snapshots.retention) : () => {};
    const stopEventExpiry = startEventExpiry(stores.get(eventKind)!, cache, opts.eventTTLSeconds);
    const stopCompaction = startCompaction(() => cache.revision);
    return {
      url: `http://${origin}`,
      httpsUrl,
      adminToken,
      kubeconfig,
      ca: serving.ca,
      listener,
      storage,
      cache,
      stores,
      client,
      controllers,
      async close() {
        stopWatchingTls();
        stopSnapshots();
        stopEventExpiry();
        stopCompaction();
        await controllers.stop();
        for (const fn of closers) fn();
        await listener.close();
        cache.stop();
        await storage.close();
        auditor?.close();
      },
    };
  } catch (e) {
    // A store that cannot be opened or loaded: nothing is left listening or open.
    await listener.close();
    for (const close of opened.reverse()) await Promise.resolve(close()).catch(() => {});
    throw e;
  }
}

export type { IncomingMessage, ServerResponse };
