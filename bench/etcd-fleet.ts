// `npm run bench -- etcd-fleet`: ten DaemonSets applied at once on 5000
// simulated nodes (50,000 pods), the server on etcd (one local member, as
// large clusters size it: `--quota-backend-bytes` 8 GiB) and, side by side in
// the same run, on its embedded SQLite file, the baseline. For each: how long
// until the nodes are Ready and until every pod is available, how far the
// watch cache trailed its storage (etcd's revision, or on SQLite a consistent
// LIST's, against a `resourceVersion=0` LIST's read right after, every 5 s), the most nodes not Ready at once and
// the controllers' leadership losses. ETCD_FLEET_NODES sets the size.
import { Etcd3 } from 'etcd3';
import { machine, sleep } from './cluster.ts';
import { call, startApiServer } from './processes.ts';
import { startEtcd } from '../src/server/testing-etcd.ts';

const NODES = Number(process.env.ETCD_FLEET_NODES ?? 5000);
const DAEMONSETS = 10;
/** Give up on a phase after this long. */
const PHASE_LIMIT_MS = 20 * 60_000;
const SAMPLE_MS = 5000;

const f = (n: number, d = 0) => n.toFixed(d);

const daemonSet = (i: number) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: `fleet-${i}`, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: `fleet-${i}` } },
    template: { metadata: { labels: { app: `fleet-${i}` } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } },
  },
});

const ready = (n: any) => (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

interface Figures {
  nodesReadyS: number;
  availableS: number;
  pods: number;
  maxLag: number;
  medianLag: number;
  maxNotReady: number;
  leaderLosses: number;
}

async function scenario(backend: 'sqlite' | 'etcd'): Promise<Figures> {
  const etcd = backend === 'etcd' ? await startEtcd({ args: ['--quota-backend-bytes', String(8 * 1024 ** 3)] }) : undefined;
  const storage = etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : [];
  const t0 = performance.now();
  const api = await startApiServer([...storage, '--sim-nodes', String(NODES)], undefined, ['--max-semi-space-size=128']);
  let leaderLosses = 0;
  const count = (d: Buffer) => void (leaderLosses += (d.toString().match(/stopped leading/g) ?? []).length);
  api.child.stdout!.on('data', count);
  api.child.stderr!.on('data', count);
  try {
    let maxNotReady = 0;
    const nodesReady = async () => {
      const items: any[] = (await call(api, 'GET', '/api/v1/nodes?resourceVersion=0')).items;
      const notReady = items.filter((n) => !ready(n)).length;
      return { total: items.length, notReady };
    };
    for (;;) {
      const n = await nodesReady();
      if (n.total >= NODES && n.notReady === 0) break;
      if (performance.now() - t0 > PHASE_LIMIT_MS) throw new Error(`${backend}: ${n.total - n.notReady} of ${NODES} nodes Ready after ${PHASE_LIMIT_MS / 60_000} minutes`);
      await sleep(1000);
    }
    const nodesReadyS = (performance.now() - t0) / 1000;

    const t1 = performance.now();
    await Promise.all(Array.from({ length: DAEMONSETS }, (_, i) => call(api, 'POST', '/apis/apps/v1/namespaces/default/daemonsets', daemonSet(i))));
    const etcdClient = etcd ? new Etcd3({ hosts: etcd.endpoints }) : undefined;
    const lags: number[] = [];
    let lastNodeCheck = 0;
    let pods = 0;
    for (;;) {
      // The storage's revision first (etcd's own; on SQLite a consistent LIST's), then the cache's.
      const latest = etcdClient
        ? Number((await etcdClient.maintenance.status()).header.revision)
        : Number((await call(api, 'GET', '/api/v1/namespaces?limit=1')).metadata.resourceVersion);
      const cached = Number((await call(api, 'GET', '/api/v1/namespaces?resourceVersion=0&limit=1')).metadata.resourceVersion);
      lags.push(Math.max(0, latest - cached));
      if (performance.now() - lastNodeCheck > 15_000) {
        maxNotReady = Math.max(maxNotReady, (await nodesReady()).notReady);
        lastNodeCheck = performance.now();
      }
      const sets: any[] = (await call(api, 'GET', '/apis/apps/v1/namespaces/default/daemonsets?resourceVersion=0')).items;
      pods = sets.reduce((a, d) => a + (d.status?.numberAvailable ?? 0), 0);
      const done = sets.length === DAEMONSETS && sets.every((d) => d.status?.desiredNumberScheduled > 0 && d.status.numberAvailable === d.status.desiredNumberScheduled);
      if (done) break;
      if (performance.now() - t1 > PHASE_LIMIT_MS) throw new Error(`${backend}: ${pods} pods available after ${PHASE_LIMIT_MS / 60_000} minutes`);
      await sleep(SAMPLE_MS);
    }
    const availableS = (performance.now() - t1) / 1000;
    etcdClient?.close();
    maxNotReady = Math.max(maxNotReady, (await nodesReady()).notReady);
    lags.sort((a, b) => a - b);
    return { nodesReadyS, availableS, pods, maxLag: lags[lags.length - 1], medianLag: lags[lags.length >> 1], maxNotReady, leaderLosses };
  } finally {
    api.stop();
    await new Promise((r) => api.child.once('exit', r));
    await etcd?.stop();
  }
}

export async function benchEtcdFleet() {
  console.log(`\n== ${DAEMONSETS} DaemonSets at once on ${NODES} simulated nodes: etcd against SQLite`);
  const results: Record<string, Figures> = {};
  for (const backend of ['sqlite', 'etcd'] as const) {
    const r = (results[backend] = await scenario(backend));
    console.log(
      `  ${backend}: nodes Ready in ${f(r.nodesReadyS)} s; all ${r.pods} pods available ${f(r.availableS)} s after the apply; ` +
        `watch cache behind its storage: median ${r.medianLag}, max ${r.maxLag} revisions; most nodes not Ready at once ${r.maxNotReady}; ` +
        `leadership losses ${r.leaderLosses} (${machine()})`,
    );
  }
  const { etcd, sqlite } = results;
  console.log(`  etcd / SQLite: nodes Ready ${f(etcd.nodesReadyS / sqlite.nodesReadyS, 2)}x, every pod available ${f(etcd.availableS / sqlite.availableS, 2)}x`);
}
