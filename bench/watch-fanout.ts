// What fanning watch events out costs the server, apart from everything else
// a rollout does: the same writes (ConfigMaps of a pod's size, patched at a
// rollout's pace) with 0, 50, 100 and 200 watchers on them, in one server.
// Prints the server's CPU per 1000 events against the run with no watchers
// (the baseline), the extra CPU per event per watcher, and write -> delivery
// p50/p99 (every write is a marker each watcher times). The readers run in
// worker threads (watchreaders.ts); their CPU is the bench's, not the server's.
// Each step runs once per transport: chunked HTTP and WebSocket (as the app
// watches); FANOUT_TRANSPORTS=chunked or =websocket runs one.
// Prints numbers; asserts nothing.
import type { Worker } from 'node:worker_threads';
import { clusterApi as api, cpuSeconds, machine, sleep, startCluster, type Cluster } from './cluster.ts';
import { readerWorker, type ReaderResult } from './watchreaders.ts';

const OBJECTS = 200;
const WRITES = Number(process.env.FANOUT_WRITES ?? 3000);
const RATE = Number(process.env.FANOUT_RATE ?? 150); // writes per second, about a 5000-node rollout's pod events
const STEPS = (process.env.FANOUT_WATCHERS ?? '0,50,100,200').split(',').map(Number);
const THREADS = Number(process.env.SCALE_READER_THREADS ?? 2);
const TRANSPORTS = (process.env.FANOUT_TRANSPORTS ?? 'chunked,websocket').split(',') as ('chunked' | 'websocket')[];
const CM = '/api/v1/namespaces/default/configmaps';

const now = () => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const f = (n: number, d = 1) => n.toFixed(d);

async function readers(c: Cluster, n: number, rv: string, transport: 'chunked' | 'websocket') {
  const threads = Math.max(1, Math.min(THREADS, n));
  const workers: Worker[] = [];
  for (let t = 0; t < threads; t++) {
    const paths = Array.from({ length: n }, (_, i) => i).filter((i) => i % threads === t).map(() => `${transport === 'websocket' ? 'ws:' : ''}${CM}?watch=1&resourceVersion=${rv}`);
    workers.push(readerWorker({ url: c.url, headers: c.headers, paths }));
  }
  await Promise.all(workers.map((w) => new Promise((r, j) => (w.once('message', r), w.once('error', j)))));
  return async (): Promise<ReaderResult[]> => {
    const all = await Promise.all(workers.map((w) => new Promise<ReaderResult[]>((r) => (w.once('message', r), w.postMessage('stop')))));
    await Promise.all(workers.map((w) => w.terminate()));
    return all.flat();
  };
}

async function step(c: Cluster, n: number, round: number, transport: 'chunked' | 'websocket' = 'chunked') {
  const rv = (await api(c, `${CM}?limit=1`)).metadata.resourceVersion;
  const stop = n ? await readers(c, n, rv, transport) : async () => [];
  await sleep(500);
  const pid = c.child.pid!;
  const cpu0 = cpuSeconds(pid);
  const bench0 = process.cpuUsage();
  const t0 = performance.now();
  const sent = new Map<number, number>();
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < WRITES; i++) {
    // Paced as a rollout's writes come: RATE a second, several in flight.
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const seq = round * WRITES + i;
    sent.set(seq, now());
    const p = api(c, `${CM}/fanout-${i % OBJECTS}`, { method: 'PATCH', type: 'application/merge-patch+json', body: { metadata: { labels: { 'bench-marker': String(seq) } } } });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  await sleep(1000);
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  const bench = process.cpuUsage(bench0);
  const results = await stop();
  const lat: number[] = [];
  let missing = 0;
  for (const r of results) {
    const got = new Map(r.markers);
    for (const [seq, at] of sent) {
      const t = got.get(seq);
      if (t === undefined) missing++;
      else lat.push(t - at);
    }
  }
  const complete = results.filter((r) => !r.closed && r.outOfOrder === 0 && r.events === WRITES).length;
  return { n, cpu, wall, bench: (bench.user + bench.system) / 1e6, lat, missing, complete, cut: results.filter((r) => r.closed).length };
}

export async function benchWatchFanout() {
  console.log(`\n== Watch fan-out: ${WRITES} writes at ${RATE}/s to ConfigMaps of a pod's size, watched by ${STEPS.join(', ')} watchers (${machine()})`);
  const c = await startCluster(0);
  try {
    const filler = 'x'.repeat(2000); // a pod's JSON is 2-3 kB
    for (let i = 0; i < OBJECTS; i++) await api(c, CM, { method: 'POST', body: { metadata: { name: `fanout-${i}` }, data: { filler } } });
    await step(c, 0, 0); // warm-up
    let base: { cpu: number } | undefined;
    let round = 1;
    const steps = STEPS.flatMap((n) => (n ? TRANSPORTS.map((t) => [n, t] as const) : [[n, 'chunked'] as const]));
    for (const [n, transport] of steps) {
      const r = await step(c, n, round++, transport);
      base ??= r;
      const perK = (r.cpu / WRITES) * 1000;
      const extra = n ? ((r.cpu - base.cpu) / (WRITES * n)) * 1e6 : 0;
      console.log(
        `  ${String(n).padStart(3)} ${n ? transport.padEnd(9) : ''.padEnd(9)} watchers: server ${f(perK, 2)} CPU-s per 1000 writes (${f(r.cpu / base.cpu, 2)}x no watchers; ${f(extra)} µs per event per watcher), ${f(r.cpu / r.wall, 2)} cores; ` +
          (n ? `write -> delivery p50 ${f(pct(r.lat, 0.5))} ms, p99 ${f(pct(r.lat, 0.99))} ms, ${r.missing} missing; ${r.complete}/${n} got all ${WRITES} in order, ${r.cut} cut off; readers ${f(r.bench / r.wall, 2)} cores` : `(baseline)`) +
          ` (${machine()})`,
      );
    }
  } finally {
    c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchWatchFanout();
  process.exit(0);
}
