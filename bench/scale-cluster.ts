// The cluster half of `npm run bench -- scale`: 5000 simulated nodes
// renewing their Leases every 10 s (server CPU against the 0.5-core aim), a DaemonSet
// created on all of them, then rolled out (wall time against the floor its
// simulated delays set) while 200 watchers (half on nodes, half on pods)
// count every event and time marker writes to their delivery, then rolled
// out once more by itself (no watchers: the rollout's own overhead), and the
// app shows the Nodes list (write -> DOM) and the DaemonSet page (frame gaps).
// SCALE_CLUSTER_APP=0 leaves the browser out (the server's figures alone).
import type { Worker } from 'node:worker_threads';
import { armRow, referenceWatcher, rowShownSince } from './rowshown.ts';
import { startRecorder, stopRecorder } from './framerecorder.ts';
import { getBytes, readPages } from './load.ts';
import type { RecorderStats } from '../src/server/events/recorder.ts';
import { readerWorker, type ReaderResult } from './watchreaders.ts';
import { watchLeaseGaps } from './leasegaps.ts';
import { chromium, type Browser, type Page } from '@playwright/test';
import {
  benchDaemonSetDone,
  clusterApi as api,
  DAEMONSETS,
  coresOver,
  cpuSeconds,
  fleetDaemonSet,
  createBenchDaemonSet,
  machine,
  rollBenchDaemonSet,
  rolloutFloorSeconds,
  rssMB,
  sleep,
  startCluster,
  waitReady,
  writeCalls,
  type Cluster,
} from './cluster.ts';

const NODES = Number(process.env.SCALE_CLUSTER_NODES ?? 5000);
const WATCHERS = Number(process.env.SCALE_WATCHERS ?? 200);
const READER_THREADS = Number(process.env.SCALE_READER_THREADS ?? 2);
const HEARTBEAT_MEASURE_S = Number(process.env.SCALE_HEARTBEAT_SECONDS ?? 20);
const APP = process.env.SCALE_CLUSTER_APP !== '0';
/** SCALE_QUIET_ROLLOUT=0 leaves out the rollout without watchers. */
const QUIET_ROLLOUT = process.env.SCALE_QUIET_ROLLOUT !== '0';
/** SCALE_FLEET=0 leaves out the nine more DaemonSets (50,000 pods) at the end. */
const FLEET = process.env.SCALE_FLEET !== '0';
const MARKER_MS = 250;
/** The node and the pod the marker writes label. */
const MARKER_NODE = 'sim-node-00042';
const MARKER_POD = 'bench-marker';
const TRANSPORT = process.env.SCALE_WATCH_TRANSPORT ?? 'mixed';
const overWebSocket = (i: number) => (TRANSPORT === 'mixed' ? i % 4 >= 2 : TRANSPORT === 'websocket');

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const f = (n: number, d = 1) => n.toFixed(d);

/** The in-process actors' Events since the server started (the recorder's totals; an older server does not say). */
const eventTotals = async (c: Cluster) => ((await c.stats()) as unknown as { events?: RecorderStats }).events;
const eventsDropped = (e: RecorderStats) => e.dropped.queueFull + e.dropped.rateLimited + e.dropped.failed;
/** Events recorded and not yet written or dropped. */
const eventsQueued = (e: RecorderStats) => e.recorded - e.created - e.patched - eventsDropped(e);
const eventsLine = (e: RecorderStats) =>
  `Events since the server started: ${e.recorded} recorded, ${e.created} created, ${e.patched} counted into one written before, ${eventsDropped(e)} dropped (queue full ${e.dropped.queueFull}, rate-limited ${e.dropped.rateLimited}, failed ${e.dropped.failed}); ${eventsQueued(e)} still queued at the rollout's end`;

/** A clock every thread shares (the readers run in workers): ms since the epoch. */
const now = () => performance.timeOrigin + performance.now();

/**
 * The watches, read in READER_THREADS worker threads (watchreaders.ts): the
 * i-th watches nodes when i is even, pods when odd; over chunked HTTP when
 * i % 4 is 0 or 1, over a WebSocket (as the app watches) when 2 or 3
 * (SCALE_WATCH_TRANSPORT=chunked or =websocket puts all on one).
 */
class Watchers {
  private readonly workers: Worker[] = [];
  private readonly indices: number[][] = [];
  constructor(c: Cluster, n: number, rv: string) {
    const threads = Math.max(1, Math.min(READER_THREADS, n));
    for (let t = 0; t < threads; t++) {
      const mine = Array.from({ length: n }, (_, i) => i).filter((i) => i % threads === t);
      const paths = mine.map((i) => `${overWebSocket(i) ? 'ws:' : ''}${i % 2 ? '/api/v1/pods' : '/api/v1/nodes'}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`);
      this.indices.push(mine);
      this.workers.push(readerWorker({ url: c.url, headers: c.headers, paths, markerNames: [MARKER_NODE, MARKER_POD] }));
    }
  }
  /** Resolves once every worker has opened its watches. */
  started() {
    return Promise.all(this.workers.map((w) => new Promise((resolve, reject) => (w.once('message', resolve), w.once('error', reject)))));
  }
  /** Stops reading; each watch's count, order and marker arrivals, by watcher index. */
  async stop(): Promise<ReaderResult[]> {
    const out: ReaderResult[] = [];
    await Promise.all(
      this.workers.map(async (w, t) => {
        const results = await new Promise<ReaderResult[]>((resolve) => (w.once('message', resolve), w.postMessage('stop')));
        results.forEach((r, k) => (out[this.indices[t][k]] = r));
        await w.terminate();
      }),
    );
    return out;
  }
  terminate() {
    for (const w of this.workers) void w.terminate();
  }
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

interface RowTimes {
  /** Write -> row in the DOM, ms. */
  latencies: number[];
  /** Of each: the write until its event reached the reference watcher (server and transport), and from there to the DOM (the page's own share). */
  arrive: number[];
  shown: number[];
}

/**
 * Write -> DOM: label writes on the first rows of the Nodes list, until the
 * row shows the written resourceVersion, split at a reference watcher of the
 * nodes (rowshown.ts).
 */
async function rowUpdates(page: Page, c: Cluster, until: () => boolean): Promise<RowTimes> {
  const times: RowTimes = { latencies: [], arrive: [], shown: [] };
  const rv = JSON.parse((await getBytes(c.url + '/api/v1/nodes?limit=1', c.headers)).body.toString()).metadata.resourceVersion;
  const reference = referenceWatcher(`${c.url.replace(/^http/, 'ws')}/api/v1/nodes?watch=1&resourceVersion=${rv}`, c.headers.Authorization);
  await reference.opened;
  try {
    for (let i = 0; !until() && i < 400; i++) {
      const name = `sim-node-${String(1 + (i % 10)).padStart(5, '0')}`;
      await armRow(page, `[data-name="${name}"]`);
      const t0 = Date.now();
      const res = await api(c, `/api/v1/nodes/${name}`, { method: 'PATCH', type: 'application/merge-patch+json', body: { metadata: { labels: { 'bench-row': String(i) } } } });
      const at = await rowShownSince(page, Number(res.metadata.resourceVersion));
      if (at > 0) {
        times.latencies.push(at - t0);
        const ref = await reference.arrival(i);
        if (ref) (times.arrive.push(ref - t0), times.shown.push(at - ref));
      }
      await sleep(100);
    }
  } finally {
    reference.stop();
  }
  return times;
}

export async function benchCluster5000() {
  console.log(`\n== Cluster: ${NODES} simulated nodes, Lease heartbeats, a DaemonSet rollout, ${WATCHERS} watchers${APP ? ', the app' : ''} (${machine()})`);
  const c = await startCluster(NODES, APP ? { staticDir: 'dist' } : {});
  const pid = c.child.pid!;
  let browser: Browser | undefined;
  let watchers: Watchers | undefined;
  try {
    console.log(`  ${NODES} nodes registered and Ready in ${f(await waitReady(c, NODES, 'scale bench'))} s`);
    await sleep(10_000); // into the steady rhythm of renewals
    c.send('reset');
    const cpu0 = cpuSeconds(pid);
    const w0 = performance.now();
    await sleep(HEARTBEAT_MEASURE_S * 1000);
    const cores = (cpuSeconds(pid) - cpu0) / ((performance.now() - w0) / 1000);
    const hb = (await c.stats()).heartbeat;
    console.log(`  heartbeats of ${NODES} nodes every 10 s (Lease renewals): server CPU ${f(cores, 3)} cores over ${HEARTBEAT_MEASURE_S} s (aim: under 0.5); ${hb.count} renewals, write p50 ${f(hb.p50, 2)} ms, p99 ${f(hb.p99, 2)} ms (${machine()})`);

    await createBenchDaemonSet(c);
    const t1 = performance.now();
    await benchDaemonSetDone(c, NODES);
    console.log(`  DaemonSet created on ${NODES} nodes and available in ${f((performance.now() - t1) / 1000)} s; server RSS ${f(rssMB(pid), 0)} MB`);

    const floor = rolloutFloorSeconds(NODES);

    // The app: the Nodes list open while the rollout runs.
    let page: Page | undefined;
    if (APP) {
      browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      // tsx keeps function names with a __name helper the page does not have.
      await page.addInitScript('window.__name = (f) => f');
      const token = c.headers.Authorization.slice('Bearer '.length);
      await page.goto(`${c.url}/nodes#token=${token}`);
      await page.waitForSelector(`[role=table][aria-rowcount="${NODES}"] [role=row][data-name]`, { timeout: 60_000 });
    }

    // A pod of no DaemonSet (the rollout would replace it) for the markers the pod watchers time.
    await api(c, '/api/v1/namespaces/default/pods', { method: 'POST', body: { metadata: { name: MARKER_POD }, spec: { nodeName: MARKER_NODE, containers: [{ name: 'c', image: 'busybox:1.36' }] } } });
    // The watchers start from now.
    const rv = JSON.parse((await getBytes(c.url + '/api/v1/nodes?limit=1', c.headers)).body.toString()).metadata.resourceVersion;
    watchers = new Watchers(c, WATCHERS, rv);
    await watchers.started();
    await sleep(1000);

    // SCALE_PROFILE=<file>: a CPU profile of the server during the rollout.
    if (process.env.SCALE_PROFILE) c.send('profile-start');
    // SCALE_HEAP_PROFILE=<file>: a sampling profile of what the server allocates during the rollout.
    if (process.env.SCALE_HEAP_PROFILE) c.send('heap-start');
    const generation = await rollBenchDaemonSet(c, 'busybox:1.37');
    const t2 = performance.now();
    const cpuRoll0 = cpuSeconds(pid);
    const writes0 = writeCalls(pid);
    const benchCpu0 = process.cpuUsage();
    let rolling = true;
    const sent = new Map<number, number>();
    /** When each marker's write was answered: the write's own latency, apart from its delivery. */
    const acked = new Map<number, number>();
    c.send('loop-reset');
    const markers = (async () => {
      // Markers alternate between a node and a pod, so both kinds of watcher time them.
      for (let seq = 0; rolling; seq++) {
        const target = seq % 2 ? `/api/v1/namespaces/default/pods/${MARKER_POD}` : `/api/v1/nodes/${MARKER_NODE}`;
        sent.set(seq, now());
        await api(c, target, { method: 'PATCH', type: 'application/merge-patch+json', headers: { 'X-Bench-Marker': String(seq) }, body: { metadata: { labels: { 'bench-marker': String(seq) } } } }).then(
          () => acked.set(seq, now()),
          () => sent.delete(seq),
        );
        await sleep(MARKER_MS);
      }
    })();
    const rowsDuring = page ? rowUpdates(page, c, () => !rolling) : Promise.resolve({ latencies: [], arrive: [], shown: [] });
    await benchDaemonSetDone(c, NODES, generation);
    const wall = (performance.now() - t2) / 1000;
    const serverCpu = cpuSeconds(pid) - cpuRoll0;
    const serverCores = serverCpu / wall;
    const writesPerS = (writeCalls(pid) - writes0) / wall;
    type GcSummary = { count: number; totalMs: number; maxMs: number; over50: number };
    type Turn = { ms: number; cpuMs: number; waitMs: number };
    type Dist = { n: number; mean: number; p50: number; p90: number; p99: number; max: number };
    const { loopDelay, gc, longTurns, watchFlush, commit, events } = (await c.stats()) as unknown as {
      events?: RecorderStats;
      commit?: { groupsPerSecond: number; groupSize: Dist; heldGroups: number; cacheLag: Dist } & Record<'queued' | 'writer' | 'writerCommit' | 'writerSync' | 'deliver' | 'held' | 'total', Dist>;
      watchFlush?: { flushes: number; slices: number; writes: number; bytes: number; wait: { p50: number; p99: number; max: number } };
      loopDelay: { p50: number; p99: number; max: number };
      gc?: { minor: GcSummary; major: GcSummary };
      longTurns?: Turn & { count: number; longest: Turn[] };
    };
    const bench = process.cpuUsage(benchCpu0);
    if (process.env.SCALE_PROFILE) c.send(`profile-stop ${process.env.SCALE_PROFILE}`);
    if (process.env.SCALE_HEAP_PROFILE) c.send(`heap-stop ${process.env.SCALE_HEAP_PROFILE}`);
    rolling = false;
    const rows = await rowsDuring;
    await markers;
    await sleep(2000);
    console.log(`  rollout across ${NODES} nodes (maxUnavailable 10%) with ${WATCHERS} watchers: ${f(wall)} s = ${f(wall / floor, 2)}x the ${floor} s its simulated delays take (aim 1.1x; ${machine()})`);
    console.log(`  during the rollout: server ${f(serverCores, 2)} cores (${f(serverCpu)} CPU-s), ${f(writesPerS, 0)} write system calls/s, this bench (watchers, markers) ${f((bench.user + bench.system) / 1e6 / wall, 2)} cores; server RSS after it ${f(rssMB(pid), 0)} MB`);

    const results = await watchers.stop();
    watchers = undefined;
    /** When each marker's event was applied in the server's watch cache (an older server does not say). */
    const served = (await c.stats()) as unknown as { markersInCache?: [number, number][]; markersWritten?: [number, number][]; markersAtServer?: [number, [number, number]][] };
    const inCache = new Map(served.markersInCache ?? []);
    const written = new Map(served.markersWritten ?? []);
    const atServer = new Map(served.markersAtServer ?? []);
    /** From the watch cache to the watcher: the watch path's own delivery, without the write's way into the store. */
    const fromCache: number[] = [];
    /** The same, split where the server's flush that carried the marker finished writing it. */
    const toSockets: number[] = [];
    const toReaders: number[] = [];
    const lat: number[] = [];
    /** Delivery after the marker write's response, by transport: what the watch path adds to the write's own time. */
    const afterAck: Record<'chunked' | 'websocket', number[]> = { chunked: [], websocket: [] };
    const byTransport: Record<'chunked' | 'websocket', number[]> = { chunked: [], websocket: [] };
    let missing = 0;
    results.forEach((w, i) => {
      const markers = new Map(w.markers);
      const t = overWebSocket(i) ? 'websocket' : 'chunked';
      for (const [seq, at] of sent) {
        // A node watcher sees node markers, a pod watcher pod markers.
        if ((seq % 2 === 1) !== i % 2 > 0) continue;
        const got = markers.get(seq);
        if (got === undefined) missing++;
        else {
          lat.push(got - at);
          byTransport[t].push(got - at);
          const ack = acked.get(seq);
          if (ack !== undefined) afterAck[t].push(got - ack);
          const cached = inCache.get(seq);
          if (cached !== undefined) fromCache.push(got - cached);
          const out = written.get(seq);
          if (cached !== undefined && out !== undefined) (toSockets.push(out - cached), toReaders.push(got - out));
        }
      }
    });
    const byKind = (k: number) => results.filter((_, i) => i % 2 === k);
    for (const [name, ws] of [['nodes', byKind(0)], ['pods', byKind(1)]] as const) {
      const most = Math.max(...ws.map((w) => w.events));
      const complete = ws.filter((w) => !w.closed && w.events === most && w.outOfOrder === 0).length;
      // Short ones while none is cut off or out of order: the readers stopped as the last node writes still arrived.
      const short = ws.filter((w) => w.events < most).map((w) => most - w.events);
      const why = short.length ? ` (${short.length} short of it by ${Math.min(...short)} to ${Math.max(...short)} events)` : '';
      console.log(`  ${ws.length} watchers on ${name}: ${most} events each; ${complete} got every one in order, ${ws.filter((w) => w.outOfOrder > 0).length} out of order, ${ws.filter((w) => w.closed).length} cut off${why}`);
    }
    console.log(`  write -> watch delivery (marker writes every ${MARKER_MS} ms, ${lat.length} deliveries): p50 ${f(pct(lat, 0.5))} ms, p99 ${f(pct(lat, 0.99))} ms, ${missing} missing (aim: p99 under 100 ms)`);
    for (const t of ['chunked', 'websocket'] as const) {
      if (!byTransport[t].length) continue;
      console.log(`    over ${t}: p50 ${f(pct(byTransport[t], 0.5))} ms, p99 ${f(pct(byTransport[t], 0.99))} ms; after the write's response: p50 ${f(pct(afterAck[t], 0.5))} ms, p99 ${f(pct(afterAck[t], 0.99))} ms, max ${f(Math.max(...afterAck[t]))} ms`);
    }
    if (fromCache.length) {
      const toCache = [...inCache].flatMap(([seq, at]) => (sent.has(seq) ? [at - sent.get(seq)!] : []));
      console.log(`    from the event in the server's watch cache to the watcher: p50 ${f(pct(fromCache, 0.5))} ms, p99 ${f(pct(fromCache, 0.99))} ms, max ${f(Math.max(...fromCache))} ms (${fromCache.length} deliveries); the write's request to its event in the cache p50 ${f(pct(toCache, 0.5))} ms, p99 ${f(pct(toCache, 0.99))} ms`);
      if (toSockets.length) {
        const d = (xs: number[]) => `p50 ${f(pct(xs, 0.5))}, p90 ${f(pct(xs, 0.9))}, p99 ${f(pct(xs, 0.99))}, max ${f(Math.max(...xs))} ms`;
        console.log(`      of which the cache -> the end of the server's flush that wrote it: ${d(toSockets)}; that end -> the watcher has it (kernel, the readers' threads): ${d(toReaders)}`);
      }
    }
    const writes = [...acked].map(([seq, at]) => at - sent.get(seq)!);
    if (atServer.size) {
      const part = (span: (seq: number, [arrived, answered]: [number, number]) => number) => [...atServer].filter(([seq]) => acked.has(seq)).map(([seq, t]) => span(seq, t));
      const [there, inServer, back] = [part((seq, [a]) => a - sent.get(seq)!), part((_, [a, b]) => b - a), part((seq, [, b]) => acked.get(seq)! - b)];
      const d = (xs: number[]) => `p50 ${f(pct(xs, 0.5))}, p99 ${f(pct(xs, 0.99))}, max ${f(Math.max(...xs))} ms`;
      console.log(`    the marker write, split: request -> the server's handler ${d(there)}; in the server ${d(inServer)}; response sent -> the bench has it ${d(back)}`);
    }
    console.log(`    the marker write itself (request -> response): p50 ${f(pct(writes, 0.5))} ms, p99 ${f(pct(writes, 0.99))} ms; server event-loop delay during the rollout p50 ${f(loopDelay.p50)} ms, p99 ${f(loopDelay.p99)} ms, max ${f(loopDelay.max)} ms`);
    if (watchFlush) {
      const w = watchFlush;
      console.log(`    watch flushes: ${f(w.flushes / wall, 0)}/s over ${f(w.slices / w.flushes, 2)} turns each, ${f(w.writes / wall, 0)} socket writes/s of ${f(w.bytes / w.writes / 1024)} KiB; events waited in the sinks p50 ${w.wait.p50} ms, p99 ${w.wait.p99} ms, max ${w.wait.max} ms`);
    }
    if (longTurns) {
      const t = (x: Turn) => `${f(x.ms, 0)} (cpu ${f(x.cpuMs, 0)}, waiting for a core ${f(x.waitMs, 0)})`;
      console.log(`    server turns over 50 ms: ${longTurns.count}, ${t(longTurns)} ms in all; longest ${longTurns.longest.map(t).join(', ')} ms`);
    }
    if (commit) {
      const d = (x: Dist) => `p50 ${x.p50}, p90 ${x.p90}, p99 ${x.p99}, max ${x.max} (mean ${x.mean})`;
      console.log(`    storage group commits: ${commit.groupsPerSecond}/s of ${d(commit.groupSize)} writes; ${commit.heldGroups} groups held for their listeners' writes`);
      console.log(`      a write in the store, ms: in all ${d(commit.total)}`);
      for (const p of ['queued', 'writer', 'deliver', 'held'] as const) console.log(`        ${p}: ${d(commit[p])}`);
      if (commit.writerCommit) console.log(`          of writer, on its thread: the transaction ${d(commit.writerCommit)}; then until an fsync covered it ${d(commit.writerSync)}`);
      console.log(`      the watch cache from a group's events to the last applied, ms: ${d(commit.cacheLag)}`);
    }
    if (events) console.log(`    ${eventsLine(events)}`);
    if (gc) {
      const g = (s: GcSummary) => `${s.count} pauses, ${f(s.totalMs, 0)} ms in all (${f((100 * s.totalMs) / 1000 / wall, 1)}% of the rollout), longest ${f(s.maxMs)} ms, ${s.over50} over 50 ms`;
      console.log(`    server garbage collection during the rollout: major ${g(gc.major)}; minor ${g(gc.minor)}`);
    }
    // The rollout by itself: no watchers, no markers, no page open. What it takes over the floor is the
    // rollout's own cost, apart from the 200 watchers' share of the two cores. After the watched one (whose
    // figures earlier runs of this bench compare with), on a server holding one rollout's more Events.
    if (QUIET_ROLLOUT) {
      await page?.goto('about:blank');
      // Nor the Events the watched rollout left queued (thousands: its actors record them faster than they are written).
      const drain0 = performance.now();
      let left = 0;
      for (let i = 0; i < 240; i++) {
        const e = await eventTotals(c);
        left = e ? Math.max(0, eventsQueued(e)) : 0;
        if (!left) break;
        await sleep(250);
      }
      const drained = f((performance.now() - drain0) / 1000);
      console.log(left ? `  ${left} Events still queued after ${drained} s; the rollout by itself starts with them` : `  the Events left queued were written in ${drained} s`);
      const quietGeneration = await rollBenchDaemonSet(c, 'busybox:1.36.1');
      const tq = performance.now();
      const cpuQ0 = cpuSeconds(pid);
      await benchDaemonSetDone(c, NODES, quietGeneration);
      const quiet = (performance.now() - tq) / 1000;
      const quietEvents = await eventTotals(c);
      console.log(`  rollout across ${NODES} nodes by itself (no watchers): ${f(quiet)} s = ${f(quiet / floor, 2)}x the ${floor} s its simulated delays take (aim 1.1x); server ${f((cpuSeconds(pid) - cpuQ0) / quiet, 2)} cores (${machine()})`);
      if (quietEvents) console.log(`    ${eventsLine(quietEvents)}`);
    }
    if (page) await appFigures(page, c, rows);
    if (FLEET) {
      await moreDaemonSets(c, pid);
      await firstPodPages(c, pid);
    }
  } finally {
    watchers?.terminate();
    await browser?.close();
    c.stop();
  }
}

/** The app's figures after the rollouts: the Nodes list's write -> row and heap, and the DaemonSet page during a rollout. */
async function appFigures(page: Page, c: Cluster, rows: RowTimes) {
  const p50p95 = (xs: number[]) => `p50 ${f(pct(xs, 0.5), 0)} ms, p95 ${f(pct(xs, 0.95), 0)} ms`;
  console.log(`  app, Nodes list during the rollout: write -> row in the DOM ${p50p95(rows.latencies)} over ${rows.latencies.length} writes`);
  console.log(`    of which write -> its watch event at a reference watcher of the nodes (server, transport) ${p50p95(rows.arrive)}; the page's own share, that event -> the row ${p50p95(rows.shown)} (aim: p95 under 100 ms)`);
  const heap = await (await page.context().newCDPSession(page)).send('Runtime.getHeapUsage');
  console.log(`  app JS heap with ${NODES} nodes listed: ${f(heap.usedSize / 1e6, 0)} MB (aim: under 400 MB)`);

  // The DaemonSet page for a DaemonSet on every node, across a second rollout's start: from a second
  // before it, when the page takes in the rollout (its forecast worker is sent the lists), for 10 s.
  await page.goto(`${c.url}/daemonsets/default/bench`);
  // Once every node is counted (about 5 s at 5000 nodes): the page's first render is the DaemonSet
  // page bench's figure, and recorded here it was this figure's longest task.
  await page.waitForSelector(`[data-nodes-total="${NODES}"]`, { timeout: 60_000 });
  await sleep(2000);
  await startRecorder(page);
  await sleep(1000);
  await rollBenchDaemonSet(c, 'busybox:1.38');
  await sleep(9000);
  const { gaps, long } = await stopRecorder(page);
  console.log(
    `  app, DaemonSet page across the start of a ${NODES}-node rollout (10 s from 1 s before): ${gaps.length} frames, frame gap p95 ${f(pct(gaps, 0.95), 0)} ms, max ${f(Math.max(...gaps), 0)} ms; long tasks ${long.length}, ${f(long.reduce((a, b) => a + b, 0), 0)} ms in all, the longest ${f(Math.max(0, ...long), 0)} ms`,
  );
}

/**
 * Nine more DaemonSets created at once, each with an image of its own (every node posts a
 * new image list for each): ten on every node, 50,000 pods at 5000 nodes. Until every pod is
 * available, with how the kubelets' Lease renewals fared meanwhile: the server is at its
 * busiest, and a node it leaves unheard for the grace period goes Unknown.
 */
async function moreDaemonSets(c: Cluster, pid: number, count = 9) {
  await benchDaemonSetDone(c, NODES); // (the rollouts before are over)
  const leases = await watchLeaseGaps(c);
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  for (let i = 1; i <= count; i++) await api(c, DAEMONSETS, { method: 'POST', body: fleetDaemonSet(i) });
  for (;;) {
    const fleet: any[] = (await api(c, `${DAEMONSETS}?labelSelector=fleet%3Dbench`)).items;
    if (fleet.every((d) => d.status?.desiredNumberScheduled === NODES && d.status.numberAvailable === NODES)) break;
    await sleep(250);
  }
  const wall = (performance.now() - t0) / 1000;
  const cores = (cpuSeconds(pid) - cpu0) / wall;
  const { gaps, longest, notReady } = await leases.stop();
  const s = (ms: number) => f(ms / 1000);
  console.log(`  ${count} more DaemonSets created at once (${(count + 1) * NODES} pods in all): every pod available in ${f(wall)} s; server ${f(cores, 2)} cores, RSS after it ${f(rssMB(pid), 0)} MB (${machine()})`);
  console.log(
    `    the kubelets' Lease renewals meanwhile: a node's gap between renewals p50 ${s(pct(gaps, 0.5))} s, p99 ${s(pct(gaps, 0.99))} s, max ${s(longest)} s (every 10 s; unheard for 40 s, a node goes Unknown); ${notReady.size} nodes not Ready at some point (aim: none)`,
  );
}

/** Every page (limit=500) of the cluster's pods as JSON, as kubectl and informers list them: wall time, the server's CPU, items. */
async function podPages(c: Cluster, pid: number) {
  const cpu0 = cpuSeconds(pid);
  const { ms, items } = await readPages(`${c.url}/api/v1/pods`, c.headers);
  return { s: ms / 1000, cpuS: cpuSeconds(pid) - cpu0, items };
}

/**
 * The first LIST of the pods the cluster made, in pages: nobody has listed or watched them as JSON,
 * so each item's JSON is made for it (and kept for the next), in a server of a few GB of heap.
 */
async function firstPodPages(c: Cluster, pid: number) {
  const idle = await coresOver(pid, 5);
  const first = await podPages(c, pid);
  const second = await podPages(c, pid);
  const line = (p: typeof first) => `${f(p.s, 2)} s, ${f(p.cpuS, 2)} CPU-s of the server`;
  console.log(
    `  first paged LIST (limit=500) of the ${first.items} pods, their JSON made for every item: ${line(first)}; a second: ${line(second)} ` +
      `(the server's own work meanwhile about ${f(idle.cores, 2)} cores; RSS ${f(rssMB(pid), 0)} MB; ${machine()})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchCluster5000();
  process.exit(0);
}
