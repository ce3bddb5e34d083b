// The cluster half of `npm run bench -- scale`: 5000 simulated nodes
// heartbeating every 10 s (server CPU against the 0.5-core aim), a DaemonSet
// created on all of them, then rolled out (wall time against the floor its
// simulated delays set) while 200 watchers (half on nodes, half on pods)
// count every event and time marker writes to their delivery, and the app
// shows the Nodes list (write -> DOM) and the DaemonSet page (frame gaps).
import http from 'node:http';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { chromium, type Page } from '@playwright/test';
import { startApiServer, type Proc } from './processes.ts';

const NODES = Number(process.env.SCALE_CLUSTER_NODES ?? 5000);
const WATCHERS = Number(process.env.SCALE_WATCHERS ?? 200);
const HEARTBEAT_MEASURE_S = Number(process.env.SCALE_HEARTBEAT_SECONDS ?? 20);
const MARKER_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const f = (n: number, d = 1) => n.toFixed(d);
const machine = () => `${os.cpus().length} cores, load average ${os.loadavg().slice(0, 2).map((l) => f(l, 2)).join(' ')}`;

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const rssMB = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1] ?? NaN) / 1024;

async function api(c: Proc, path: string, init: { method?: string; body?: unknown; type?: string } = {}, retry = 1): Promise<any> {
  const r = await fetch(c.url + path, {
    method: init.method ?? 'GET',
    headers: { ...c.headers, 'Content-Type': init.type ?? 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  }).catch((e) => {
    // A kept-alive connection the server closed as it was reused: once more on a new one.
    if (retry > 0 && c.child.exitCode === null) return undefined;
    throw e;
  });
  if (!r) return api(c, path, init, retry - 1);
  if (r.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json() as Promise<any>;
}

function getText(c: Proc, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(c.url + path, { headers: c.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve(Buffer.concat(parts).toString()));
    }).on('error', reject);
  });
}

async function readyNodes(c: Proc): Promise<number> {
  const body = await getText(c, '/api/v1/nodes');
  return body.split('"type":"Ready","status":"True"').length - 1;
}

const MARKER = Buffer.from('"bench-marker":"');
const RV = Buffer.from('"resourceVersion":"');

/** One watch over chunked HTTP that counts events, checks their order and notes when each marker arrives. */
class Watcher {
  events = 0;
  lastRv = 0;
  outOfOrder = 0;
  closed = false;
  readonly markers = new Map<number, number>();
  private req: http.ClientRequest;
  constructor(c: Proc, path: string, rv: string) {
    let rest = Buffer.alloc(0);
    this.req = http.get(`${c.url}${path}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`, { headers: c.headers }, (res) => {
      res.on('data', (chunk: Buffer) => {
        const now = performance.now();
        const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
        let start = 0;
        for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
          const line = buf.subarray(start, nl);
          start = nl + 1;
          this.events++;
          const r = line.indexOf(RV);
          if (r >= 0) {
            const v = Number(line.subarray(r + RV.length, line.indexOf(34, r + RV.length)).toString());
            if (v <= this.lastRv) this.outOfOrder++;
            this.lastRv = v;
          }
          const m = line.indexOf(MARKER);
          if (m >= 0) {
            const seq = Number(line.subarray(m + MARKER.length, line.indexOf(34, m + MARKER.length)).toString());
            if (!this.markers.has(seq)) this.markers.set(seq, now);
          }
        }
        rest = Buffer.from(buf.subarray(start));
      });
      res.on('close', () => (this.closed = true));
    });
    this.req.on('error', () => (this.closed = true));
  }
  stop() {
    this.req.destroy();
  }
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Write -> DOM: label writes on the first rows of the Nodes list, until the row shows the written resourceVersion. */
async function rowUpdates(page: Page, c: Proc, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; !until() && i < 400; i++) {
    const name = `sim-node-${String(1 + (i % 10)).padStart(5, '0')}`;
    const t0 = Date.now();
    const res = await api(c, `/api/v1/nodes/${name}`, { method: 'PATCH', type: 'application/merge-patch+json', body: { metadata: { labels: { 'bench-row': String(i) } } } });
    const rv = Number(res.metadata.resourceVersion);
    const at = await page.evaluate(
      ({ n, rv }) =>
        new Promise<number>((resolve) => {
          const shown = () => Number(document.querySelector(`[role=row][data-name="${n}"]`)?.getAttribute('data-rv') ?? 0) >= rv;
          if (shown()) return resolve(Date.now());
          const obs = new MutationObserver(() => shown() && (obs.disconnect(), resolve(Date.now())));
          obs.observe(document.querySelector('[role=table]')!, { subtree: true, attributes: true, childList: true });
          setTimeout(() => (obs.disconnect(), resolve(-1)), 10_000);
        }),
      { n: name, rv },
    );
    if (at > 0) latencies.push(at - t0);
    await sleep(100);
  }
  return latencies;
}

/** Frame gaps of a page over `ms`: how long the main thread was unable to draw. */
function frameGaps(page: Page, ms: number): Promise<{ frames: number; maxGap: number; p95Gap: number }> {
  return page.evaluate(
    (ms) =>
      new Promise((resolve) => {
        const gaps: number[] = [];
        let last = performance.now();
        const end = last + ms;
        const tick = (t: number) => {
          gaps.push(t - last);
          last = t;
          if (t < end) requestAnimationFrame(tick);
          else {
            gaps.sort((a, b) => a - b);
            resolve({ frames: gaps.length, maxGap: gaps[gaps.length - 1], p95Gap: gaps[Math.floor(gaps.length * 0.95)] });
          }
        };
        requestAnimationFrame(tick);
      }),
    ms,
  );
}

export async function benchCluster5000() {
  console.log(`\n== Cluster: ${NODES} simulated nodes, heartbeats, a DaemonSet rollout, ${WATCHERS} watchers, the app (${machine()})`);
  const c = await startApiServer(['--sim-nodes', String(NODES), '--static-dir', 'dist']);
  const pid = c.child.pid!;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const watchers: Watcher[] = [];
  try {
    const t0 = performance.now();
    for (let ready = 0; ; ) {
      if ((ready = await readyNodes(c)) >= NODES) break;
      if (performance.now() - t0 > 600_000) throw new Error(`${ready} of ${NODES} nodes Ready after 10 minutes`);
      await sleep(2000);
    }
    console.log(`  ${NODES} nodes registered and Ready in ${f((performance.now() - t0) / 1000)} s`);
    await sleep(10_000);
    const cpu0 = cpuSeconds(pid);
    const w0 = performance.now();
    await sleep(HEARTBEAT_MEASURE_S * 1000);
    const cores = (cpuSeconds(pid) - cpu0) / ((performance.now() - w0) / 1000);
    console.log(`  heartbeats of ${NODES} nodes every 10 s: server CPU ${f(cores, 3)} cores over ${HEARTBEAT_MEASURE_S} s (aim: under 0.5; ${machine()})`);

    const path = '/apis/apps/v1/namespaces/default/daemonsets';
    await api(c, path, {
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
        const st = (await api(c, `${path}/bench`)).status ?? {};
        if ((generation === undefined || st.observedGeneration >= generation) && st.desiredNumberScheduled === NODES && st.updatedNumberScheduled === NODES && st.numberAvailable === NODES) return;
        await sleep(250);
      }
    };
    const t1 = performance.now();
    await done();
    console.log(`  DaemonSet created on ${NODES} nodes and available in ${f((performance.now() - t1) / 1000)} s; server RSS ${f(rssMB(pid), 0)} MB`);

    // The app: the Nodes list open while the rollout runs.
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // tsx keeps function names with a __name helper the page does not have.
    await page.addInitScript('window.__name = (f) => f');
    const token = c.headers.Authorization.slice('Bearer '.length);
    await page.goto(`${c.url}/nodes#token=${token}`);
    await page.waitForSelector(`[role=table][aria-rowcount="${NODES}"] [role=row][data-name]`, { timeout: 60_000 });

    // A pod of no DaemonSet (the rollout would replace it) for the markers the pod watchers time.
    await api(c, '/api/v1/namespaces/default/pods', { method: 'POST', body: { metadata: { name: 'bench-marker' }, spec: { nodeName: 'sim-node-00042', containers: [{ name: 'c', image: 'busybox:1.36' }] } } });
    // The watchers start from now.
    const rv = JSON.parse(await getText(c, '/api/v1/nodes?limit=1')).metadata.resourceVersion;
    for (let i = 0; i < WATCHERS; i++) watchers.push(new Watcher(c, i % 2 ? '/api/v1/pods' : '/api/v1/nodes', rv));
    await sleep(1000);

    const patched = await api(c, `${path}/bench`, { method: 'PATCH', type: 'application/merge-patch+json', body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] } } } } });
    const t2 = performance.now();
    let rolling = true;
    const sent = new Map<number, number>();
    const markers = (async () => {
      // Markers alternate between a node and a pod, so both kinds of watcher time them.
      for (let seq = 0; rolling; seq++) {
        const target = seq % 2 ? '/api/v1/namespaces/default/pods/bench-marker' : '/api/v1/nodes/sim-node-00042';
        sent.set(seq, performance.now());
        await api(c, target, { method: 'PATCH', type: 'application/merge-patch+json', body: { metadata: { labels: { 'bench-marker': String(seq) } } } }).catch(() => sent.delete(seq));
        await sleep(MARKER_MS);
      }
    })();
    const rowsDuring = rowUpdates(page, c, () => !rolling);
    await done(patched.metadata.generation);
    const wall = (performance.now() - t2) / 1000;
    rolling = false;
    const rows = await rowsDuring;
    await markers;
    await sleep(2000);
    const floor = Math.ceil(NODES / Math.ceil(NODES * 0.1)) * (1 + 1 + 2);
    console.log(`  rollout across ${NODES} nodes (maxUnavailable 10%): ${f(wall)} s = ${f(wall / floor, 2)}x the ${floor} s its simulated delays take (aim 1.1x; ${machine()})`);
    console.log(`  server RSS after the rollout: ${f(rssMB(pid), 0)} MB`);

    const lat: number[] = [];
    let missing = 0;
    for (const w of watchers) {
      for (const [seq, at] of sent) {
        const got = w.markers.get(seq);
        // A node watcher sees node markers, a pod watcher pod markers.
        if ((seq % 2 === 1) !== watchers.indexOf(w) % 2 > 0) continue;
        if (got === undefined) missing++;
        else lat.push(got - at);
      }
    }
    const byKind = (k: number) => watchers.filter((_, i) => i % 2 === k);
    for (const [name, ws] of [['nodes', byKind(0)], ['pods', byKind(1)]] as const) {
      const counts = ws.map((w) => w.events);
      const complete = ws.filter((w) => !w.closed && w.events === Math.max(...counts) && w.outOfOrder === 0).length;
      console.log(`  ${ws.length} watchers on ${name}: ${Math.max(...counts)} events each; ${complete} got every one in order, ${ws.filter((w) => w.closed).length} cut off`);
    }
    console.log(`  write -> watch delivery (marker writes every ${MARKER_MS} ms, ${lat.length} deliveries): p50 ${f(pct(lat, 0.5))} ms, p99 ${f(pct(lat, 0.99))} ms, ${missing} missing (aim: p99 under 100 ms)`);
    console.log(`  app, Nodes list during the rollout: write -> row in the DOM p50 ${f(pct(rows, 0.5), 0)} ms, p95 ${f(pct(rows, 0.95), 0)} ms over ${rows.length} writes (aim: p95 under 100 ms)`);
    const heap = await (await page.context().newCDPSession(page)).send('Runtime.getHeapUsage');
    console.log(`  app JS heap with ${NODES} nodes listed: ${f(heap.usedSize / 1e6, 0)} MB (aim: under 400 MB)`);

    // The DaemonSet page for a DaemonSet on every node, during a second rollout.
    await page.goto(`${c.url}/daemonsets/default/bench`);
    await page.waitForSelector('text=bench', { timeout: 60_000 });
    await sleep(2000);
    const again = await api(c, `${path}/bench`, { method: 'PATCH', type: 'application/merge-patch+json', body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.38' }] } } } } });
    await sleep(3000);
    const gaps = await frameGaps(page, 5000);
    console.log(`  app, DaemonSet page during a ${NODES}-node rollout: ${gaps.frames} frames in 5 s, frame gap p95 ${f(gaps.p95Gap, 0)} ms, max ${f(gaps.maxGap, 0)} ms`);
    void again;
  } finally {
    for (const w of watchers) w.stop();
    await browser.close();
    c.stop();
  }
}
