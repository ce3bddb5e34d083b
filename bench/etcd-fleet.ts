// `npm run bench -- etcd-fleet`: ten DaemonSets applied at once on 5000
// simulated nodes (50,000 pods), the server on etcd (one local member, as
// large clusters size it: `--quota-backend-bytes` 8 GiB) and, side by side in
// the same run, on its embedded SQLite file, the baseline. For each: how long
// until the nodes are Ready and until every pod is available, how far the
// watch cache trailed its storage (etcd's revision, or on SQLite a consistent
// LIST's, against a `resourceVersion=0` LIST's read right after, every 5 s), the most nodes not Ready at once and
// the controllers' leadership losses, and the cores the server and etcd used meanwhile.
// ETCD_FLEET_NODES sets the size; ETCD_FLEET_PROFILE=<dir> writes each server's CPU
// profile (node --cpu-prof) under <dir>/sqlite and <dir>/etcd.
import { Etcd3 } from 'etcd3';
import { cpuSeconds, DAEMONSETS, fleetDaemonSet, machine, sleep } from './cluster.ts';
import { median } from './load.ts';
import { call, startApiServer } from './processes.ts';
import { isConditionTrue } from '../src/lib/conditions.ts';
import { startEtcd } from '../src/server/testing-etcd.ts';

const NODES = Number(process.env.ETCD_FLEET_NODES ?? 5000);
const FLEET = 10;
/** Give up on a phase after this long. */
const PHASE_LIMIT_MS = 20 * 60_000;
const SAMPLE_MS = 5000;

const f = (n: number, d = 0) => n.toFixed(d);

interface Figures {
  nodesReadyS: number;
  availableS: number;
  pods: number;
  maxLag: number;
  medianLag: number;
  maxNotReady: number;
  leaderLosses: number;
  /** Revisions (writes) from the apply until every pod was available. */
  writes: number;
  /** Cores the API server and etcd used from the apply until every pod was available. */
  serverCores: number;
  etcdCores: number;
}

async function scenario(backend: 'sqlite' | 'etcd'): Promise<Figures> {
  const etcd = backend === 'etcd' ? await startEtcd({ args: ['--quota-backend-bytes', String(8 * 1024 ** 3)] }) : undefined;
  const etcdClient = etcd ? new Etcd3({ hosts: etcd.endpoints }) : undefined;
  const storage = etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : [];
  const t0 = performance.now();
  const api = await startApiServer([...storage, '--sim-nodes', String(NODES)], undefined, ['--max-semi-space-size=128', ...(process.env.ETCD_FLEET_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ETCD_FLEET_PROFILE}/${backend}`] : [])]);
  let leaderLosses = 0;
  const count = (d: Buffer) => void (leaderLosses += (d.toString().match(/stopped leading/g) ?? []).length);
  api.child.stdout!.on('data', count);
  api.child.stderr!.on('data', count);
  try {
    let maxNotReady = 0;
    const nodesReady = async () => {
      const items: any[] = (await call(api, 'GET', '/api/v1/nodes?resourceVersion=0')).items;
      const notReady = items.filter((n) => !isConditionTrue(n, 'Ready')).length;
      return { total: items.length, notReady };
    };
    for (;;) {
      const n = await nodesReady();
      if (n.total >= NODES && n.notReady === 0) break;
      if (performance.now() - t0 > PHASE_LIMIT_MS) throw new Error(`${backend}: ${n.total - n.notReady} of ${NODES} nodes Ready after ${PHASE_LIMIT_MS / 60_000} minutes`);
      await sleep(1000);
    }
    const nodesReadyS = (performance.now() - t0) / 1000;

    // The storage's revision (etcd's own; on SQLite a consistent LIST's).
    const storageRevision = async () =>
      etcdClient
        ? Number((await etcdClient.maintenance.status()).header.revision)
        : Number((await call(api, 'GET', '/api/v1/namespaces?limit=1')).metadata.resourceVersion);
    const revisionAtApply = await storageRevision();
    const t1 = performance.now();
    const etcdPid = etcd?.members[0].pid;
    const cpu = () => ({ server: cpuSeconds(api.child.pid!), etcd: etcdPid ? cpuSeconds(etcdPid) : 0 });
    const cpu1 = cpu();
    await Promise.all(Array.from({ length: FLEET }, (_, i) => call(api, 'POST', DAEMONSETS, fleetDaemonSet(i))));
    const lags: number[] = [];
    let lastNodeCheck = 0;
    let pods = 0;
    let latest = revisionAtApply;
    for (;;) {
      // The storage's revision first, then the cache's.
      latest = await storageRevision();
      const cached = Number((await call(api, 'GET', '/api/v1/namespaces?resourceVersion=0&limit=1')).metadata.resourceVersion);
      lags.push(Math.max(0, latest - cached));
      if (performance.now() - lastNodeCheck > 15_000) {
        maxNotReady = Math.max(maxNotReady, (await nodesReady()).notReady);
        lastNodeCheck = performance.now();
      }
      const sets: any[] = (await call(api, 'GET', `${DAEMONSETS}?resourceVersion=0`)).items;
      pods = sets.reduce((a, d) => a + (d.status?.numberAvailable ?? 0), 0);
      const done = sets.length === FLEET && sets.every((d) => d.status?.desiredNumberScheduled > 0 && d.status.numberAvailable === d.status.desiredNumberScheduled);
      if (done) break;
      if (performance.now() - t1 > PHASE_LIMIT_MS) throw new Error(`${backend}: ${pods} pods available after ${PHASE_LIMIT_MS / 60_000} minutes`);
      await sleep(SAMPLE_MS);
    }
    const availableS = (performance.now() - t1) / 1000;
    const cpu2 = cpu();
    maxNotReady = Math.max(maxNotReady, (await nodesReady()).notReady);
    return {
      nodesReadyS,
      availableS,
      pods,
      maxLag: Math.max(...lags),
      medianLag: median(lags),
      maxNotReady,
      leaderLosses,
      writes: latest - revisionAtApply,
      serverCores: (cpu2.server - cpu1.server) / availableS,
      etcdCores: (cpu2.etcd - cpu1.etcd) / availableS,
    };
  } finally {
    etcdClient?.close();
    api.stop();
    await new Promise((r) => api.child.once('exit', r));
    await etcd?.stop();
  }
}

export async function benchEtcdFleet() {
  console.log(`\n== ${FLEET} DaemonSets at once on ${NODES} simulated nodes: etcd against SQLite`);
  const results: Record<string, Figures> = {};
  for (const backend of ['sqlite', 'etcd'] as const) {
    const r = (results[backend] = await scenario(backend));
    console.log(
      `  ${backend}: nodes Ready in ${f(r.nodesReadyS)} s; all ${r.pods} pods available ${f(r.availableS)} s after the apply; ` +
        `watch cache behind its storage: median ${r.medianLag}, max ${r.maxLag} revisions; most nodes not Ready at once ${r.maxNotReady}; ` +
        `leadership losses ${r.leaderLosses}; ${r.writes} writes meanwhile (${f(r.writes / r.pods, 1)} a pod), and the server used ${f(r.serverCores, 2)} cores${backend === 'etcd' ? `, etcd ${f(r.etcdCores, 2)}` : ''} (${machine()})`,
    );
  }
  const { etcd, sqlite } = results;
  console.log(`  etcd / SQLite: nodes Ready ${f(etcd.nodesReadyS / sqlite.nodesReadyS, 2)}x, every pod available ${f(etcd.availableS / sqlite.availableS, 2)}x`);
}
