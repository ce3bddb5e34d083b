// `npm start`: the API server with its embedded SQLite store, the built SPA
// on the same port, and the in-process controllers.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { startServer } from './server.ts';
import { parseCorsAllowedOrigins } from './http/cors.ts';
import { parseDuration } from './http/limits.ts';
import { restoreSnapshot } from './storage/snapshot.ts';

const { values } = parseArgs({
  // `--leader-elect` alone means true, as for Go's boolean flags (`--leader-elect=false` turns it off).
  args: process.argv.slice(2).map((a) => (a === '--leader-elect' ? '--leader-elect=true' : a)),
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8080' },
    'data-dir': { type: 'string', default: './data' },
    storage: { type: 'string', default: 'sqlite' },
    'etcd-servers': { type: 'string' },
    'etcd-prefix': { type: 'string', default: '/registry' },
    'etcd-cafile': { type: 'string' },
    'etcd-certfile': { type: 'string' },
    'etcd-keyfile': { type: 'string' },
    'static-dir': { type: 'string', default: './dist' },
    'token-file': { type: 'string' },
    'tls-cert-file': { type: 'string' },
    'tls-private-key-file': { type: 'string' },
    'client-ca-file': { type: 'string' },
    'audit-log-path': { type: 'string' },
    'audit-policy-file': { type: 'string' },
    'audit-log-maxsize': { type: 'string', default: '0' },
    'audit-log-maxbackup': { type: 'string', default: '0' },
    'snapshot-interval': { type: 'string', default: '12h' },
    'snapshot-retention': { type: 'string', default: '5' },
    'restore-from': { type: 'string' },
    'anonymous-auth': { type: 'boolean', default: false },
    'cors-allowed-origins': { type: 'string' },
    'accept-hosts': { type: 'string' },
    'no-demo': { type: 'boolean', default: false },
    'no-controllers': { type: 'boolean', default: false },
    'sim-nodes': { type: 'string', default: '0' },
    'simulate-nodes': { type: 'string' },
    'heartbeat-seconds': { type: 'string' },
    'node-status-report-seconds': { type: 'string' },
    'leader-elect': { type: 'string', default: 'true' },
    'leader-elect-lease-duration': { type: 'string', default: '15s' },
    'leader-elect-renew-deadline': { type: 'string', default: '10s' },
    'leader-elect-retry-period': { type: 'string', default: '2s' },
    'max-requests-inflight': { type: 'string', default: '400' },
    'max-mutating-requests-inflight': { type: 'string', default: '200' },
    'request-timeout': { type: 'string', default: '1m0s' },
    'min-request-timeout': { type: 'string', default: '1800' },
    'event-ttl': { type: 'string', default: '1h0m0s' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(`Usage: npm start -- [flags]
  --host HOST                   address to listen on (default 127.0.0.1)
  --port PORT                   port to listen on (default 8080; 0 picks a free one)
  --data-dir DIR                where the SQLite store lives (default ./data); with etcd still the admin token,
                                pki/ and kubeconfig (replicas may share one data dir)
  --storage sqlite|etcd         the embedded SQLite file (default) or an etcd v3 cluster shared by replicas
  --etcd-servers URLS           comma-separated etcd client URLs (http://127.0.0.1:2379,...)
  --etcd-prefix PREFIX          the etcd key prefix replacing /registry (default /registry)
  --etcd-cafile FILE            CA bundle to verify etcd's serving certificate (TLS to etcd)
  --etcd-certfile FILE          client certificate for etcd (PEM)
  --etcd-keyfile FILE           its private key (PEM)
  --static-dir DIR              the built web app (default ./dist)
  --token-file FILE             more bearer tokens, kube-apiserver CSV format (token,user,uid,"group1,group2");
                                the admin token in DATA-DIR/admin-token always works
  --tls-cert-file FILE          serving certificate (PEM) instead of the one issued by DATA-DIR/pki/ca.crt
  --tls-private-key-file FILE   its private key (PEM); both files (or those of DATA-DIR/pki) are read again
                                when they change, without a restart
  --client-ca-file FILE         CA bundle (PEM) for client certificates: one it signed authenticates as its
                                CN, in the groups of its O values
  --audit-log-path FILE         write audit.k8s.io/v1 Events as JSON lines here ('-': standard output)
  --audit-policy-file FILE      the audit.k8s.io/v1 Policy choosing what is logged (none: nothing is)
  --audit-log-maxsize MB        rotate the audit log past this size (default 0: 100 MB)
  --audit-log-maxbackup N       rotated audit logs kept (default 0: all)
  --snapshot-interval DURATION  snapshot the SQLite store into DATA-DIR/snapshots this often (default 12h; 0: never);
                                take one now with npm run snapshot -- save --data-dir DIR
  --snapshot-retention N        snapshots kept (default 5; 0: all)
  --restore-from FILE           first make DATA-DIR's store (there must be none) from this snapshot
  --anonymous-auth              requests without credentials act as system:anonymous (judged by RBAC)
                                instead of being answered 401
  --cors-allowed-origins LIST   comma-separated origin regular expressions allowed by CORS, each pinned
                                to the host's start and end (e.g. '^https://app\\.example\\.com(:[0-9]+)?$')
  --accept-hosts LIST           comma-separated Host names served besides IP addresses, localhost and --host
                                (e.g. 'kube.example.com,*.internal'; '*' serves any): other names get 403,
                                which keeps DNS-rebinding pages from reaching the API
  --no-demo                     start with an empty cluster
  --no-controllers              do not run the in-process controllers (nor the simulated kubelets and attacher)
  --sim-nodes N                 register N extra simulated nodes (sim-node-00001 ...)
  --simulate-nodes SELECTOR     simulate the kubelets of the nodes matching this label selector (default: all nodes)
  --heartbeat-seconds S         seconds between simulated kubelets' node Lease renewals (default 10)
  --node-status-report-seconds S  seconds between simulated node status posts when nothing changed (default 300)
  --leader-elect=false          run the controllers without electing a leader (default true: they run on the
                                replica holding the Lease kube-system/kube-controller-manager)
  --leader-elect-lease-duration DURATION
                                how long a standby waits, after the lease last changed, to take it over (default 15s)
  --leader-elect-renew-deadline DURATION
                                how long the leader tries to renew before it stops leading (default 10s)
  --leader-elect-retry-period DURATION
                                between attempts to acquire or renew the lease (default 2s)
  --max-requests-inflight N     read-only requests served at once, watches not counted (default 400; 0: no limit);
                                more get 429 with Retry-After (system:masters is never limited)
  --max-mutating-requests-inflight N
                                mutating requests served at once (default 200; 0: no limit)
  --request-timeout DURATION    deadline of every request but watches, 504 after it (default 1m0s)
  --min-request-timeout SECONDS watches without timeoutSeconds end after this to twice this (default 1800)
  --event-ttl DURATION          how long an event is kept after its last write (default 1h0m0s)`);
  process.exit(0);
}

/** A flag's value as a non-negative number, or exit 2 naming the flag. */
function flagNumber(name: keyof typeof values, parse: (text: string) => number | undefined = (t) => (/^\d+$/.test(t) ? Number(t) : undefined)): number {
  const n = parse(String(values[name]));
  if (n === undefined || !(n >= 0)) {
    console.error(`invalid value for --${name}: ${values[name]}`);
    process.exit(2);
  }
  return n;
}

function corsAllowedOrigins(): RegExp[] | undefined {
  const list = values['cors-allowed-origins'];
  if (list === undefined) return undefined;
  try {
    return parseCorsAllowedOrigins(list);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
}

/** kube-controller-manager's --leader-elect flags, checked as client-go's NewLeaderElector checks them. */
function leaderElection() {
  const on = values['leader-elect']!;
  if (!/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(on)) {
    console.error(`invalid value for --leader-elect: ${on}`);
    process.exit(2);
  }
  if (/^[0fF]/.test(on)) return false;
  const leaseDurationMs = flagNumber('leader-elect-lease-duration', parseDuration);
  const renewDeadlineMs = flagNumber('leader-elect-renew-deadline', parseDuration);
  const retryPeriodMs = flagNumber('leader-elect-retry-period', parseDuration);
  const problem =
    leaseDurationMs <= renewDeadlineMs ? 'leaseDuration must be greater than renewDeadline'
    : renewDeadlineMs <= retryPeriodMs * 1.2 ? 'renewDeadline must be greater than retryPeriod*JitterFactor'
    : retryPeriodMs < 1 ? 'retryPeriod must be greater than zero'
    : undefined;
  if (problem) {
    console.error(`invalid leader election flags: ${problem}`);
    process.exit(2);
  }
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

if (values.storage !== 'sqlite' && values.storage !== 'etcd') {
  console.error(`invalid value for --storage: ${values.storage} (sqlite or etcd)`);
  process.exit(2);
}
if (values.storage === 'etcd' && !values['etcd-servers']) {
  console.error('--storage etcd needs --etcd-servers');
  process.exit(2);
}

if (values['restore-from']) {
  try {
    const revision = restoreSnapshot(resolve(values['restore-from']), resolve(values['data-dir']!));
    console.log(`Restored ${values['restore-from']}; writes continue from revision ${revision + 1}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}

const server = await startServer({
  host: values.host,
  port: Number(values.port),
  dataDir: resolve(values['data-dir']!),
  storage: values.storage,
  etcd: values['etcd-servers']
    ? {
        servers: values['etcd-servers'].split(',').map((s) => s.trim()).filter(Boolean),
        prefix: values['etcd-prefix']!.replace(/\/+$/, ''),
        caFile: values['etcd-cafile'],
        certFile: values['etcd-certfile'],
        keyFile: values['etcd-keyfile'],
      }
    : undefined,
  staticDir: resolve(values['static-dir']!),
  tokenFile: values['token-file'],
  tlsCertFile: values['tls-cert-file'],
  tlsPrivateKeyFile: values['tls-private-key-file'],
  clientCAFile: values['client-ca-file'],
  snapshots: { intervalMs: flagNumber('snapshot-interval', parseDuration), retention: flagNumber('snapshot-retention') },
  audit: {
    logPath: values['audit-log-path'],
    policyFile: values['audit-policy-file'],
    maxSizeBytes: flagNumber('audit-log-maxsize') * 1024 * 1024,
    maxBackups: flagNumber('audit-log-maxbackup'),
  },
  anonymousAuth: values['anonymous-auth'],
  corsAllowedOrigins: corsAllowedOrigins(),
  acceptHosts: values['accept-hosts']?.split(',').map((h) => h.trim()).filter(Boolean),
  limits: {
    maxRequestsInflight: flagNumber('max-requests-inflight'),
    maxMutatingRequestsInflight: flagNumber('max-mutating-requests-inflight'),
    requestTimeoutMs: flagNumber('request-timeout', parseDuration),
    minRequestTimeoutSeconds: flagNumber('min-request-timeout'),
  },
  eventTTLSeconds: flagNumber('event-ttl', parseDuration) / 1000,
  controllers: !values['no-controllers'],
  leaderElection: leaderElection(),
  log: (line) => console.log(line),
  demo: !values['no-demo'],
  simulation: {
    nodes: values['simulate-nodes'],
    extraNodes: Number(values['sim-nodes']),
    heartbeatSeconds: values['heartbeat-seconds'] ? Number(values['heartbeat-seconds']) : undefined,
    nodeStatusReportSeconds: values['node-status-report-seconds'] ? Number(values['node-status-report-seconds']) : undefined,
  },
});

// The token rides in the fragment, which browsers never send: the app keeps it and clears the address bar.
console.log(`Web app: ${server.url}/#token=${server.adminToken}`);
console.log(`Kubernetes API: ${server.httpsUrl} (admin token in ${resolve(values['data-dir']!, 'admin-token')})`);
console.log(`  export KUBECONFIG=${server.kubeconfig}`);
console.log('  kubectl get nodes');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void server.close().then(() => process.exit(0));
  });
}
