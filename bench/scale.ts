// `npm run bench -- scale`: the server and the app at 1250, 2500 and 5000
// nodes with ten pods per node (50,000 pods at the top), each figure against a
// baseline measured in the same run:
//   LIST (full and paged)  -> JSON.stringify of the same objects, and a bare
//                             node:http server sending the same bytes
//   GET of one node        -> a bare node:http server sending the same bytes
//   heartbeats             -> the 0.5-core aim; rollout -> its delays' floor
//   the app's first rows   -> the same browser fetching the list and drawing
//                             a plain table of the same rows
// plus cores and load average, RSS per object, and 200 watchers (nodes and
// pods) during a 5000-node rollout. SCALE_PARTS=objects,cluster,app picks parts.
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { getBytes, load, median, readPages } from './load.ts';
import { startApiServer, startBareServer, type Proc } from './processes.ts';
import { nodeManifest } from './server.ts';
import { cpuSeconds } from './cluster.ts';

const SIZES = (process.env.SCALE_SIZES ?? '1250,2500,5000').split(',').map(Number);
const PODS_PER_NODE = 10;
const GET_ROUNDS = Number(process.env.SCALE_GET_ROUNDS ?? 11);
const PARTS = new Set((process.env.SCALE_PARTS ?? 'objects,app,cluster').split(','));

const f = (n: number, d = 1) => n.toFixed(d);

function machine() {
  const [l1, l5] = os.loadavg();
  return `${os.cpus().length} cores, load average ${f(l1, 2)} ${f(l5, 2)}`;
}

/** Resident memory of a process in MB. */
function rssMB(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function send(api: Proc, method: string, path: string, body?: unknown, type = 'application/json') {
  const r = await fetch(api.url + path, { method, headers: { ...api.headers, 'Content-Type': type }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json() as Promise<any>;
}

/** A pod as a DaemonSet's controller, scheduler and kubelet leave it, ten per node. */
export function podManifest(node: number, ds: number) {
  const nodeName = `node-${String(node).padStart(5, '0')}`;
  const app = `agent-${ds}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-${nodeName}`,
      namespace: `bench-${ds % 3}`,
      labels: { app, 'controller-revision-hash': '6d4f8c7b9', 'pod-template-generation': '1' },
    },
    spec: {
      nodeName,
      containers: [{ name: app, image: `registry.example/${app}:1.0`, ports: [{ containerPort: 9100 + ds, protocol: 'TCP' }], resources: { requests: { cpu: '10m', memory: '32Mi' } } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } } },
    },
  };
}

/**
 * Templates written through the API (so they carry what the server adds:
 * uid, managedFields, defaults), then cloned straight into the stopped
 * server's SQLite file: 55,000 writes through HTTP would take most of the
 * bench's minutes on two shared cores, and what is measured here is reading.
 */
export async function templates(api: Proc): Promise<Map<string, string>> {
  for (let n = 0; n < 3; n++) await send(api, 'POST', '/api/v1/namespaces', { metadata: { name: `bench-${n}` } });
  await send(api, 'POST', '/api/v1/nodes', nodeManifest(0));
  for (let d = 0; d < PODS_PER_NODE; d++) {
    const p = podManifest(0, d);
    await send(api, 'POST', `/api/v1/namespaces/${p.metadata.namespace}/pods`, p);
  }
  await stopAndWait(api);
  const db = new Database(join(api.dataDir!, 'state.db'), { readonly: true });
  const rows = db.prepare(`SELECT name, value FROM kine WHERE name LIKE '/registry/core/nodes/node-00000' OR name LIKE '/registry/core/pods/%'`).all() as { name: string; value: string }[];
  db.close();
  return new Map(rows.map((r) => [r.name, r.value]));
}

export function stopAndWait(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    p.child.once('exit', () => resolve());
    p.stop();
  });
}

/** Nodes [from, to) and their pods, cloned from the templates (names and uids made unique). */
export function seedRows(dataDir: string, tpl: Map<string, string>, from: number, to: number) {
  const db = new Database(join(dataDir, 'state.db'));
  const insert = db.prepare(`INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value) VALUES (?, 1, 0, 0, 0, ?)`);
  const rows = [...tpl].map(([key, value]) => ({ key, value, uid: JSON.parse(value).metadata.uid as string }));
  db.transaction(() => {
    for (let i = Math.max(from, 1); i < to; i++) {
      const name = `node-${String(i).padStart(5, '0')}`;
      rows.forEach(({ key, value, uid }, j) => {
        const fresh = uid.slice(0, -8) + (i * 16 + j).toString(16).padStart(8, '0');
        insert.run(key.replaceAll('node-00000', name), value.replaceAll('node-00000', name).replaceAll(uid, fresh));
      });
    }
    db.prepare(`UPDATE kine SET create_revision = id WHERE create_revision = 0`).run();
  })();
  db.close();
}

interface ListFigure { ms: number; stringifyMs: number; bareMs: number; bytes: number; items: number }

/**
 * Median time of a LIST over HTTP, against JSON.stringify of the same items and
 * a bare server sending the same bytes. The three are measured in turn within
 * each run, so load from elsewhere on the machine falls on all of them alike.
 */
async function measureList(api: Proc, path: string, runs = 7): Promise<ListFigure> {
  const url = api.url + path;
  const body = (await getBytes(url, api.headers)).body;
  const list = JSON.parse(body.toString());
  const bare = await startBareServer(body.toString());
  const times: number[] = [];
  const ser: number[] = [];
  const bareTimes: number[] = [];
  try {
    // Rounds untimed first: at the first size the client's and both servers' code was cold (LIST
    // of 1250 nodes: 16 ms, then 11 ms for 2500 nodes), and the server was still collecting the
    // garbage of the first LIST of pods (firstList, which makes every pod's JSON).
    for (let i = 0; i < 3; i++) {
      await getBytes(url, api.headers);
      JSON.stringify(list);
      await getBytes(bare.url + path);
    }
    for (let i = 0; i < runs; i++) {
      times.push((await getBytes(url, api.headers)).ms);
      const t0 = performance.now();
      JSON.stringify(list);
      ser.push(performance.now() - t0);
      bareTimes.push((await getBytes(bare.url + path)).ms);
    }
  } finally {
    bare.stop();
  }
  return { ms: median(times), stringifyMs: median(ser), bareMs: median(bareTimes), bytes: body.length, items: list.items.length };
}

/**
 * The first LIST of objects the server has not yet serialised (read from its
 * store at start): each item's JSON is made then, and kept for later reads.
 */
async function firstList(api: Proc, path: string): Promise<{ ms: number; cpuS: number }> {
  const cpu0 = cpuSeconds(api.child.pid!);
  const { ms } = await getBytes(api.url + path, api.headers);
  return { ms, cpuS: cpuSeconds(api.child.pid!) - cpu0 };
}

/** What `kubectl get` asks for: Table rows, JSON the fallback. */
const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** Every page of a paged LIST (limit=500; `accept`: Table rows as kubectl asks for them), median of runs. */
async function measurePaged(api: Proc, path: string, total: number, runs = 3, accept?: string): Promise<{ ms: number; items: number }> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) times.push((await readPages(api.url + path, accept ? { ...api.headers, Accept: accept } : api.headers)).ms);
  return { ms: median(times), items: total };
}

async function objects(): Promise<Proc> {
  console.log(`\n== Objects: LIST, paged LIST, GET, RSS at ${SIZES.join(' / ')} nodes, ${PODS_PER_NODE} pods per node (${machine()})`);
  const args = ['--static-dir', 'dist', '--no-controllers'];
  let api = await startApiServer(args);
  const rss0 = rssMB(api.child.pid!);
  const tpl = await templates(api);
  let have = 0;
  for (const size of SIZES) {
    if (api.child.exitCode === null) await stopAndWait(api);
    seedRows(api.dataDir!, tpl, have, size);
    have = size;
    const t0 = performance.now();
    api = await startApiServer(args, api.dataDir);
    const seedS = (performance.now() - t0) / 1000;
    const cold = await firstList(api, '/api/v1/pods');
    const nodes = await measureList(api, '/api/v1/nodes');
    const pods = await measureList(api, '/api/v1/pods');
    const paged = await measurePaged(api, '/api/v1/pods', pods.items);
    const table = await measurePaged(api, '/api/v1/pods', pods.items, 3, KUBECTL_TABLE);
    const rss = rssMB(api.child.pid!);
    const objs = size * (1 + PODS_PER_NODE);
    console.log(`-- ${size} nodes, ${size * PODS_PER_NODE} pods (server started with them in ${f(seedS)} s; ${machine()})`);
    for (const [what, l, aim] of [['nodes', nodes, 1.5], ['pods', pods, 2]] as const) {
      console.log(
        `  LIST ${l.items} ${what} (${f(l.bytes / 1e6)} MB): ${f(l.ms)} ms = ${f(l.ms / l.stringifyMs, 2)}x JSON.stringify (${f(l.stringifyMs)} ms; aim ${aim}x), ` +
          `${f(l.ms / l.bareMs, 2)}x a bare node:http server sending the same bytes (${f(l.bareMs)} ms); ${f((l.ms * 1000) / l.items, 2)} µs per item`,
      );
    }
    console.log(
      `  first LIST of pods (the JSON of every item made): ${f(cold.ms)} ms, ${f(cold.cpuS, 2)} CPU-s of the server = ${f(cold.ms / pods.ms, 2)}x a later LIST, ` +
        `${f(cold.ms / pods.stringifyMs, 2)}x JSON.stringify of the same pods; ${f((cold.ms * 1000) / pods.items, 2)} µs per item`,
    );
    console.log(`  paged LIST of pods (limit=500, ${paged.items} items): ${f(paged.ms)} ms, ${f((paged.ms * 1000) / paged.items, 2)} µs per item = ${f(paged.ms / pods.ms, 2)}x the full LIST per item`);
    console.log(`  paged Table of pods (kubectl get pods -A's pages): ${f(table.ms)} ms, ${f((table.ms * 1000) / table.items, 2)} µs per row = ${f(table.ms / paged.ms, 2)}x the paged LIST`);
    console.log(`  server RSS ${f(rss, 0)} MB: ${f(((rss - rss0) * 1024) / objs, 1)} KB per object over the empty server (${f(rss0, 0)} MB); objects average ${f((nodes.bytes + pods.bytes) / objs / 1024, 1)} KB of JSON`);
  }
  const getPath = '/api/v1/nodes/node-00042';
  const one = (await getBytes(api.url + getPath, api.headers)).body.toString();
  const bare = await startBareServer(one);
  try {
    await load(api.url + getPath, { seconds: 1, headers: api.headers });
    await load(bare.url + getPath, { seconds: 1 });
    // Short rounds in turn, each side first in every other round, so that load
    // from elsewhere on the shared cores falls on both; the median of the ratios.
    const ratios: number[] = [];
    const ourRates: number[] = [];
    const bareRates: number[] = [];
    for (let round = 0; round < GET_ROUNDS; round++) {
      const oursNow = () => load(api.url + getPath, { seconds: 1.5, headers: api.headers });
      const bareNow = () => load(bare.url + getPath, { seconds: 1.5 });
      let ours, base;
      if (round % 2) (ours = await oursNow()), (base = await bareNow());
      else (base = await bareNow()), (ours = await oursNow());
      ratios.push(ours.perSecond / base.perSecond);
      ourRates.push(ours.perSecond);
      bareRates.push(base.perSecond);
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    console.log(
      `  GET one node: median ${f(median(ourRates), 0)} req/s = ${f(median(ratios), 2)} of a bare node:http server with the same bytes (median ${f(median(bareRates), 0)} req/s; ` +
        `${GET_ROUNDS} interleaved rounds, ratios ${f(sorted[0], 2)}..${f(sorted[sorted.length - 1], 2)}; aim ≥ 0.8; ${machine()})`,
    );
  } finally {
    bare.stop();
  }
  return api;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchScale();
  process.exit(0);
}

export async function benchScale() {
  console.log(`scale bench on ${machine()}`);
  if (PARTS.has('app')) execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { stdio: 'inherit' });
  let api: Proc | undefined;
  try {
    if (PARTS.has('objects') || PARTS.has('app')) api = await objects();
    if (PARTS.has('app')) await (await import('./scale-app.ts')).benchApp(api!, SIZES[SIZES.length - 1], PODS_PER_NODE);
  } finally {
    api?.stop();
  }
  if (PARTS.has('cluster')) await (await import('./scale-cluster.ts')).benchCluster5000();
}
