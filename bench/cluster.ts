// 5000 simulated nodes renewing their Leases every 10 s: CPU used by the API
// server process (from /proc/<pid>/stat, so the bench's own work is not
// counted) and the p99 latency of the renewals as the agents measure them.
// Also the wall time of a rollout across 1000 simulated nodes with
// maxUnavailable 10%. Prints numbers; asserts nothing. The cluster start-up,
// readiness wait and DaemonSet helpers here are shared with scale-cluster.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const HEARTBEAT_SECONDS = 10;
const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const ROLLOUT_NODES = Number(process.env.BENCH_ROLLOUT_NODES ?? 1000);

export interface Cluster {
  url: string;
  /** The same port over TLS, its certificate signed by `ca`. */
  httpsUrl: string;
  ca: string;
  /** `Authorization: Bearer <admin token>`. */
  headers: Record<string, string>;
  child: ChildProcess;
  stats(): Promise<{ ready: number; heartbeat: { count: number; p50: number; p99: number; max: number } }>;
  send(cmd: string): void;
  stop(): void;
}

/**
 * The node flags `npm start` runs the server with (its young-generation size; README, Size), read
 * from package.json's start script so that they are written in one place.
 */
function serverNodeFlags(): string[] {
  // SCALE_SERVER_NODE_FLAGS="--max-semi-space-size=16": other flags for a trial, in place of the start script's.
  if (process.env.SCALE_SERVER_NODE_FLAGS !== undefined) return process.env.SCALE_SERVER_NODE_FLAGS.split(' ').filter(Boolean);
  const start: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start;
  const flags = /\btsx((?: --[\w-]+(?:=\S+)?)*) src\/server\/main\.ts/.exec(start);
  if (!flags) throw new Error(`package.json's start script does not run src/server/main.ts with tsx: ${start}`);
  return flags[1].trim().split(' ').filter(Boolean);
}

/**
 * A server process (cluster-server.ts) with `nodes` simulated nodes; `staticDir` serves the web app too,
 * `tokenFile` (kube-apiserver's CSV format) gives clients identities of their own, `simulateNodes` selects
 * the nodes whose kubelet is simulated (all by default).
 */
export async function startCluster(nodes: number, opts: { staticDir?: string; tokenFile?: string; simulateNodes?: string } = {}): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-cluster-'));
  const args = [...serverNodeFlags(), '--import', 'tsx', 'bench/cluster-server.ts', dataDir, String(nodes), String(HEARTBEAT_SECONDS)];
  if (opts.staticDir) args.push(opts.staticDir);
  if (opts.tokenFile) args.push(`--token-file=${opts.tokenFile}`);
  if (opts.simulateNodes) args.push(`--simulate-nodes=${opts.simulateNodes}`);
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiters: ((line: string) => void)[] = [];
  lines.on('line', (l) => waiters.splice(0).forEach((w) => w(l)));
  const next = (prefix: string) =>
    new Promise<string>((resolve) => {
      const w = (l: string) => (l.startsWith(prefix) ? resolve(l.slice(prefix.length)) : waiters.push(w));
      waiters.push(w);
    });
  const [url, token, httpsUrl, ca] = (await next('cluster: ')).trim().split(' ');
  const send = (cmd: string) => child.stdin!.write(cmd + '\n');
  return {
    url,
    httpsUrl,
    ca: Buffer.from(ca, 'base64').toString('utf8'),
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
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** Write system calls (write, writev, pwrite...) a process has made so far: each watcher's flush is one. */
export function writeCalls(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/io`, 'utf8').match(/syscw:\s+(\d+)/)?.[1] ?? NaN);
}

export const rssMB = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1] ?? NaN) / 1024;
/** Runs `each(i)` for i in [0, n) with `concurrency` at a time; returns the wall seconds. */
export async function inParallel(n: number, concurrency: number, each: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await each(next++);
    }),
  );
  return (performance.now() - t0) / 1000;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const machine = () => `${os.cpus().length} cores, load average ${os.loadavg().slice(0, 2).map((l) => l.toFixed(2)).join(' ')}`;

/** Waits (up to 10 minutes) until `n` nodes report Ready; returns the seconds it took. */
export async function waitReady(c: Cluster, n: number, what: string) {
  const t0 = Date.now();
  for (;;) {
    const s = await c.stats();
    if (s.ready >= n) return (Date.now() - t0) / 1000;
    await sleep(500);
    if (Date.now() - t0 > 600_000) throw new Error(`${what}: only ${s.ready} of ${n} nodes Ready after 10 minutes`);
  }
}

/** JSON in and out as the admin; a kept-alive connection the server closed as it was reused is tried once more. */
export async function clusterApi(c: Cluster, path: string, init: { method?: string; body?: unknown; type?: string; headers?: Record<string, string> } = {}, retry = 1): Promise<any> {
  const r = await fetch(c.url + path, {
    method: init.method ?? 'GET',
    headers: { ...c.headers, 'Content-Type': init.type ?? 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }).catch((e) => {
    if (retry > 0 && c.child.exitCode === null) return undefined;
    throw e;
  });
  if (!r) return clusterApi(c, path, init, retry - 1);
  if (r.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json() as Promise<any>;
}

export const DAEMONSETS = '/apis/apps/v1/namespaces/default/daemonsets';

/** The bench DaemonSet on every node, rolling 10% of them at a time. */
export const createBenchDaemonSet = (c: Cluster) =>
  clusterApi(c, DAEMONSETS, {
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

/** The i-th DaemonSet of a fleet created at once (labelled `fleet=bench`, each with an image of its own). */
export const fleetDaemonSet = (i: number) => {
  const name = `fleet-${i}`;
  return {
    metadata: { name, labels: { fleet: 'bench' } },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: `registry.k8s.io/pause:3.${i}` }] } } },
  };
};

/** A new image for the bench DaemonSet: starts a rollout; returns the DaemonSet's new generation. */
export const rollBenchDaemonSet = async (c: Cluster, image: string): Promise<number> =>
  (await clusterApi(c, `${DAEMONSETS}/bench`, { method: 'PATCH', type: 'application/merge-patch+json', body: { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } } })).metadata.generation;

/** Until the bench DaemonSet (at `generation`, if given) is updated and available on `nodes` nodes. */
export async function benchDaemonSetDone(c: Cluster, nodes: number, generation?: number) {
  for (;;) {
    const st = (await clusterApi(c, `${DAEMONSETS}/bench`)).status ?? {};
    if ((generation === undefined || st.observedGeneration >= generation) && st.desiredNumberScheduled === nodes && st.updatedNumberScheduled === nodes && st.numberAvailable === nodes) return;
    // Every 50 ms (a GET of one object): at 250 ms the poll alone added 125 ms on average to a rollout's time.
    await sleep(50);
  }
}

/**
 * The floor a rollout's simulated delays set (default delays: stop 1 s, start
 * 1 s, ready 2 s): 10% of the nodes at a time, each node down for stop + start + ready.
 */
export const rolloutFloorSeconds = (nodes: number) => Math.ceil(nodes / Math.ceil(nodes * 0.1)) * (1 + 1 + 2);

/** The server's and this process's cores over the next `seconds`. */
export async function coresOver(pid: number, seconds: number) {
  const cpu0 = cpuSeconds(pid);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  return { wall, cores: (cpuSeconds(pid) - cpu0) / wall, clientCores: (own.user + own.system) / 1e6 / wall };
}

/** `nodes` simulated nodes renewing their Leases in-process: the server's cores over `seconds` once they are Ready and beating steadily. */
export async function simulatedHeartbeats(nodes: number, seconds: number) {
  const c = await startCluster(nodes);
  try {
    const readyAfter = await waitReady(c, nodes, 'heartbeat bench');
    await sleep(HEARTBEAT_SECONDS * 1000); // settle into the steady heartbeat rhythm
    c.send('reset');
    const m = await coresOver(c.child.pid!, seconds);
    return { ...m, readyAfter, heartbeat: (await c.stats()).heartbeat, rss: rssMB(c.child.pid!) };
  } finally {
    c.stop();
  }
}

async function heartbeats() {
  const m = await simulatedHeartbeats(NODES, MEASURE_SECONDS);
  const s = m.heartbeat;
  console.log(`cluster: ${NODES} simulated nodes registered and Ready in ${m.readyAfter.toFixed(1)} s`);
  console.log(`cluster: ${NODES} nodes, Lease renewed every ${HEARTBEAT_SECONDS} s, measured ${m.wall.toFixed(0)} s (${machine()})`);
  console.log(`  server CPU: ${m.cores.toFixed(3)} cores (${(m.cores * m.wall).toFixed(1)} CPU-s)`);
  console.log(`  Lease renewals: ${s.count} (${(s.count / m.wall).toFixed(0)}/s, expected ${(NODES / HEARTBEAT_SECONDS).toFixed(0)}/s)`);
  console.log(`  renewal write latency: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`);
}

async function rollout() {
  const c = await startCluster(ROLLOUT_NODES);
  try {
    await waitReady(c, ROLLOUT_NODES, 'rollout bench');
    await createBenchDaemonSet(c);
    const t0 = performance.now();
    await benchDaemonSetDone(c, ROLLOUT_NODES);
    console.log(`cluster: DaemonSet created on ${ROLLOUT_NODES} nodes and available in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // SCALE_PROFILE=<file>: a CPU profile of the server during the rollout.
    if (process.env.SCALE_PROFILE) c.send('profile-start');
    const generation = await rollBenchDaemonSet(c, 'busybox:1.37');
    const t1 = performance.now();
    const cpu0 = cpuSeconds(c.child.pid!);
    await benchDaemonSetDone(c, ROLLOUT_NODES, generation);
    const wall = (performance.now() - t1) / 1000;
    const cores = (cpuSeconds(c.child.pid!) - cpu0) / wall;
    if (process.env.SCALE_PROFILE) c.send(`profile-stop ${process.env.SCALE_PROFILE}`);
    const floor = rolloutFloorSeconds(ROLLOUT_NODES);
    console.log(`cluster: DaemonSet rollout across ${ROLLOUT_NODES} nodes, maxUnavailable 10%: ${wall.toFixed(1)} s wall (${(wall / floor).toFixed(2)}x the ${floor} s the simulated delays alone take; server ${cores.toFixed(2)} cores; ${machine()})`);
    if (process.env.SCALE_PROFILE) await sleep(3000); // the profile is written before the server stops
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
