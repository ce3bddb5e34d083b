// 5000 simulated nodes heartbeating every 10 s: CPU used by the API server
// process (from /proc/<pid>/stat, so the bench's own work is not counted) and
// the p99 latency of heartbeat writes as the agents measure them. If the
// DaemonSet controller is registered, also the wall time of a rollout across
// 1000 simulated nodes with maxUnavailable 10%. Prints numbers; asserts nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const HEARTBEAT_SECONDS = 10;
const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const ROLLOUT_NODES = 1000;

interface Cluster {
  url: string;
  /** `Authorization: Bearer <admin token>`. */
  headers: Record<string, string>;
  child: ChildProcess;
  stats(): Promise<{ ready: number; heartbeat: { count: number; p50: number; p99: number; max: number } }>;
  send(cmd: string): void;
  stop(): void;
}

async function startCluster(nodes: number): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-cluster-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/cluster-server.ts', dataDir, String(nodes), String(HEARTBEAT_SECONDS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiters: ((line: string) => void)[] = [];
  lines.on('line', (l) => waiters.splice(0).forEach((w) => w(l)));
  const next = (prefix: string) =>
    new Promise<string>((resolve) => {
      const w = (l: string) => (l.startsWith(prefix) ? resolve(l.slice(prefix.length)) : waiters.push(w));
      waiters.push(w);
    });
  const [url, token] = (await next('cluster: ')).trim().split(' ');
  const send = (cmd: string) => child.stdin!.write(cmd + '\n');
  return {
    url,
    headers: { Authorization: `Bearer ${token}` },
    child,
    send,
    async stats() {
      const p = next('STATS ');
      send('stats');
      return JSON.parse(await p);
    },
    stop() {
      child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitReady(c: Cluster, n: number, what: string) {
  const t0 = Date.now();
  for (;;) {
    const s = await c.stats();
    if (s.ready >= n) return (Date.now() - t0) / 1000;
    await sleep(500);
    if (Date.now() - t0 > 300_000) throw new Error(`${what}: only ${s.ready} of ${n} nodes Ready`);
  }
}

async function heartbeats() {
  const c = await startCluster(NODES);
  try {
    const readyAfter = await waitReady(c, NODES, 'heartbeat bench');
    console.log(`cluster: ${NODES} simulated nodes registered and Ready in ${readyAfter.toFixed(1)} s`);
    await sleep(HEARTBEAT_SECONDS * 1000); // settle into the steady heartbeat rhythm
    c.send('reset');
    const cpu0 = cpuSeconds(c.child.pid!);
    const t0 = performance.now();
    await sleep(MEASURE_SECONDS * 1000);
    const cpu = cpuSeconds(c.child.pid!) - cpu0;
    const wall = (performance.now() - t0) / 1000;
    const s = await c.stats();
    console.log(`cluster: ${NODES} nodes, heartbeat every ${HEARTBEAT_SECONDS} s, measured ${wall.toFixed(0)} s`);
    console.log(`  server CPU: ${(cpu / wall).toFixed(3)} cores (${cpu.toFixed(1)} CPU-s)`);
    console.log(`  heartbeats: ${s.heartbeat.count} (${(s.heartbeat.count / wall).toFixed(0)}/s, expected ${(NODES / HEARTBEAT_SECONDS).toFixed(0)}/s)`);
    console.log(`  heartbeat write latency: p50 ${s.heartbeat.p50.toFixed(2)} ms, p99 ${s.heartbeat.p99.toFixed(2)} ms, max ${s.heartbeat.max.toFixed(2)} ms`);
  } finally {
    c.stop();
  }
}

const daemonSetControllerLanded = () =>
  existsSync('src/server/controllers/daemonset.ts') && /daemonset/i.test(readFileSync('src/server/controllers/index.ts', 'utf8'));

async function rollout() {
  if (!daemonSetControllerLanded()) {
    console.log('cluster: DaemonSet rollout skipped (the DaemonSet controller is not registered yet)');
    return;
  }
  const c = await startCluster(ROLLOUT_NODES);
  const api = async (path: string, init: { method?: string; body?: unknown; type?: string } = {}) => {
    const r = await fetch(c.url + path, {
      method: init.method ?? 'GET',
      headers: { ...c.headers, 'Content-Type': init.type ?? 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return r.json() as Promise<any>;
  };
  try {
    await waitReady(c, ROLLOUT_NODES, 'rollout bench');
    const path = '/apis/apps/v1/namespaces/default/daemonsets';
    await api(path, {
      method: 'POST',
      body: {
        metadata: { name: 'bench' },
        spec: {
          selector: { matchLabels: { app: 'bench' } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
          template: { metadata: { labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } },
        },
      },
    });
    const done = async (generation?: number) => {
      for (;;) {
        const ds = await api(`${path}/bench`);
        const st = ds.status ?? {};
        if (
          (generation === undefined || st.observedGeneration >= generation) &&
          st.desiredNumberScheduled === ROLLOUT_NODES &&
          st.updatedNumberScheduled === ROLLOUT_NODES &&
          st.numberAvailable === ROLLOUT_NODES
        ) return;
        await sleep(250);
      }
    };
    const t0 = performance.now();
    await done();
    console.log(`cluster: DaemonSet created on ${ROLLOUT_NODES} nodes and available in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const patched = await api(`${path}/bench`, {
      method: 'PATCH',
      type: 'application/merge-patch+json',
      body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] } } } },
    });
    const t1 = performance.now();
    await done(patched.metadata.generation);
    const wall = (performance.now() - t1) / 1000;
    // The floor set by the simulated kubelets alone (default delays: stop 1 s, start 1 s,
    // ready 2 s): 10% of the nodes at a time, each node down for stop + start + ready.
    const floor = Math.ceil(ROLLOUT_NODES / Math.ceil(ROLLOUT_NODES * 0.1)) * (1 + 1 + 2);
    console.log(`cluster: DaemonSet rollout across ${ROLLOUT_NODES} nodes, maxUnavailable 10%: ${wall.toFixed(1)} s wall (${(wall / floor).toFixed(2)}x the ${floor} s the simulated delays alone take)`);
  } finally {
    c.stop();
  }
}

/** BENCH_CLUSTER=heartbeats or =rollout runs only that half. */
export async function benchCluster() {
  const only = process.env.BENCH_CLUSTER;
  if (!only || only === 'heartbeats') await heartbeats();
  if (!only || only === 'rollout') await rollout();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchCluster();
  process.exit(0);
}
