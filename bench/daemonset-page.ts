// The DaemonSet page on a DaemonSet of 1250, 2500 and 5000 simulated nodes
// (DS_NODES=1250,2500,5000), in Chromium, each figure beside a baseline:
//   first render -> from navigation until the page shows every node counted
//                   in its groups (median of runs), against a plain page that
//                   fetches the same nodes and pods and draws one row per
//                   group with its count
//   rollout      -> frame gaps (p95, max) and long tasks while the DaemonSet
//                   rolls out across every node (1% of them cannot pull the
//                   new image, so they stall)
//   watch -> DOM -> a label written to the daemon pod of a node row on
//                   screen until the row shows the write's resourceVersion
//                   (p50/p95), during the rollout. Split in two at the moment
//                   the write's watch event reaches a reference watcher: a
//                   separate, idle process watching the same pods the page
//                   watches (same path and selector, over a WebSocket too).
//                   Write -> reference is the server's and the transport's
//                   part; reference -> DOM is the page's own share: the wait
//                   before its socket's message task runs (behind the page's
//                   other work), the parse, the frame flush, the render. The
//                   moment the page's handler got the message (the wire
//                   worker's batch holding it, on the main thread) is printed
//                   too, leaving out its queue wait. The DOM moment is when
//                   a MutationObserver, set on the row before the write, saw
//                   data-rv reach the write's resourceVersion.
//   stalled-node search -> choosing "stalled" (then a name) until the rows
//                   answer; ms
//   JS heap      -> after the rollout, before and after a collection
// DS_OTHERS=<n>: n more DaemonSets on every node in the same namespace,
// created before the page opens and quiet during the rollout (the issue's
// ten DaemonSets: DS_OTHERS=9); default 0.
// DS_REQUESTS=1: the requests the app made before it showed the counts, with their times.
// DS_TRACE=<file.json>: a Chromium trace (DevTools timeline + JS samples) of
// DS_TRACE_SECONDS (default 15) of the rollout, from DS_TRACE_FROM (default 5) s into it (below 0: before
// it starts, the trace's own start then out of the rollout's first moments).
// Prints numbers and the load average; asserts nothing. Needs the built app
// (DS_STATIC, default dist: `npx vite build`).
import { chromium, type Browser, type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchDaemonSetDone, clusterApi, createBenchDaemonSet, DAEMONSETS, machine, rollBenchDaemonSet, sleep, startCluster, waitReady, type Cluster } from './cluster.ts';
import { median } from './load.ts';
import { startRecorder, stopRecorder } from './framerecorder.ts';
import { armRow, referenceWatcher, rowShownSince } from './rowshown.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const SIZES = (process.env.DS_NODES ?? '1250,2500,5000').split(',').map(Number);
const RUNS = Number(process.env.DS_RUNS ?? 3);
const STATIC = resolve(process.env.DS_STATIC ?? 'dist');
/** One node in this many cannot pull the new image, so its node stalls. */
const FAULTY_EVERY = 100;
const OTHERS = Number(process.env.DS_OTHERS ?? 0);
const TRACE = process.env.DS_TRACE;
const TRACE_SECONDS = Number(process.env.DS_TRACE_SECONDS ?? 15);
const TRACE_FROM = Number(process.env.DS_TRACE_FROM ?? 5);
const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

/**
 * Put in every page before its own scripts: notes on the console when the page
 * shows a node count of `total` in `[data-nodes-total]` (the app's grouped node
 * view and the plain page both set it).
 */
const marker = (total: number) => `
  window.__name = (f) => f;
  // When each probe's watch event (its pod labelled bench-row=<i>) reaches the page, before the app takes it.
  window.__arrived = {};
  // Notes each probe named in a text (a socket's message, or a batch of them), from indexOf: a regular expression
  // over each whole message was 3% of the page's main thread in a trace.
  const note = (text) => {
    if (typeof text !== 'string') return;
    for (let at = text.indexOf('"bench-row":"'); at >= 0; at = text.indexOf('"bench-row":"', at + 13)) {
      const i = /^"bench-row":"(\\d+)"/.exec(text.slice(at, at + 40))?.[1];
      if (i !== undefined) window.__arrived[i] ??= Date.now();
    }
  };
  // Wraps the handler each new onmessage is given (the app sets its handlers so) to note first.
  const hook = (proto, take) => {
    const d = Object.getOwnPropertyDescriptor(proto, 'onmessage');
    Object.defineProperty(proto, 'onmessage', {
      configurable: true,
      get() { return d.get.call(this); },
      set(h) { d.set.call(this, h && ((m) => (take(m.data), h.call(this, m)))); },
    });
  };
  // The app's watch sockets live in its wire worker (api/wire.ts), whose messages reach the main thread a batch
  // at a time ({ op: 'messages', batch: '<JSON array>' }); without a worker, the page's own sockets.
  hook(Worker.prototype, (d) => d && d.op === 'messages' && note(d.batch));
  hook(WebSocket.prototype, note);
  new MutationObserver((_, obs) => {
    // (the second test: the page before it had a grouped view, for a figure before and after)
    if (document.querySelector('[data-nodes-total="${total}"]') || document.querySelector('section[aria-label=Nodes] h2 .muted')?.textContent?.startsWith('${total} should')) {
      obs.disconnect();
      console.debug('meaningful ' + performance.now());
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });`;

/** The baseline: fetch the nodes and the DaemonSet's pods, count the nodes per zone, draw one row per zone. */
const plainPage = (auth: string) => `<!doctype html><meta charset="utf-8"><body><script>
  const get = (p) => fetch(p, { headers: { Authorization: ${JSON.stringify(auth)} } }).then((r) => r.json());
  Promise.all([get('/api/v1/nodes'), get('/api/v1/namespaces/default/pods')]).then(([nodes, pods]) => {
    const onNode = new Set(pods.items.map((p) => p.spec?.nodeName));
    const groups = new Map();
    for (const n of nodes.items) {
      const z = n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '';
      const g = groups.get(z) ?? { nodes: 0, pods: 0 };
      g.nodes++;
      if (onNode.has(n.metadata.name)) g.pods++;
      groups.set(z, g);
    }
    const table = document.createElement('table');
    for (const [z, g] of [...groups].sort()) {
      const tr = table.insertRow();
      for (const v of [z, g.nodes, g.pods]) tr.insertCell().textContent = String(v);
    }
    table.dataset.nodesTotal = String(nodes.items.length);
    document.body.append(table);
  });
</script>`;

async function navigate(page: Page, url: string): Promise<number> {
  const line = page.waitForEvent('console', { predicate: (m) => m.text().startsWith('meaningful '), timeout: 120_000 });
  await page.goto(url, { waitUntil: 'commit' });
  return Number((await line).text().slice('meaningful '.length));
}

/** Writes a label to the pod of a node row on screen and waits for the row to show it, until `until()`; ms each. */
async function watchToDom(page: Page, c: Cluster, reference: ReturnType<typeof referenceWatcher>, until: () => boolean) {
  const latencies: number[] = [];
  /** Of each: the write until its event reached the reference watcher (server and transport), and from there to the DOM (the page's own share). */
  const arrive: number[] = [];
  const shown: number[] = [];
  /** The page's share, from when the page's own socket handler got the event (its wait in the page's task queue left out). */
  const handled: number[] = [];
  let missed = 0;
  for (let i = 0; !until(); i++) {
    const rows = await page.$$eval('[role=row][data-node][data-pod]', (rs) => rs.slice(0, 8).map((r) => ({ node: r.getAttribute('data-node')!, pod: r.getAttribute('data-pod')! })));
    if (!rows.length) {
      await sleep(200);
      continue;
    }
    const { node, pod } = rows[i % rows.length];
    await armRow(page, `[data-node="${node}"]`);
    const t0 = Date.now();
    const res = await clusterApi(c, `/api/v1/namespaces/default/pods/${pod}`, {
      method: 'PATCH',
      type: 'application/merge-patch+json',
      body: { metadata: { labels: { 'bench-row': String(i) } } },
    }).catch(() => undefined);
    if (!res) continue; // the pod went away meanwhile (replaced by the rollout)
    const at = await rowShownSince(page, Number(res.metadata.resourceVersion));
    if (at > 0) {
      latencies.push(at - t0);
      const ref = await reference.arrival(i);
      if (ref) (arrive.push(ref - t0), shown.push(at - ref));
      const inPage = await page.evaluate((i) => (window as any).__arrived[i] as number | undefined, String(i));
      if (inPage) handled.push(at - inPage);
    } else missed++;
    await sleep(100);
  }
  return { latencies, arrive, shown, handled, missed };
}

/** Sets a <select> or <input> (as the user does) and waits until `[data-nodes-shown]` changes; ms, -1 when absent. */
function answerMs(page: Page, selector: string, value: string): Promise<number> {
  return page.evaluate(
    ({ selector, value }) =>
      new Promise<number>((resolve) => {
        const el = document.querySelector<HTMLInputElement | HTMLSelectElement>(selector);
        const count = () => document.querySelector('[data-nodes-shown]')?.getAttribute('data-nodes-shown');
        if (!el || count() === undefined) return resolve(-1);
        const before = count();
        const t0 = performance.now();
        const obs = new MutationObserver(() => {
          if (count() !== before) {
            obs.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - t0));
          }
        });
        obs.observe(document.body, { subtree: true, attributes: true, childList: true });
        setTimeout(() => (obs.disconnect(), resolve(-1)), 10_000);
        const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
        el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
      }),
    { selector, value },
  );
}

async function benchSize(nodes: number) {
  const c = await startCluster(nodes, { staticDir: STATIC });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    await waitReady(c, nodes, 'daemonset page bench');
    await createBenchDaemonSet(c);
    await benchDaemonSetDone(c, nodes);
    if (OTHERS) {
      const t1 = performance.now();
      for (let k = 1; k <= OTHERS; k++) await createOtherDaemonSet(c, `other-${k}`);
      for (let k = 1; k <= OTHERS; k++) await daemonSetAvailable(c, `other-${k}`, nodes);
      console.log(`  ${OTHERS} more DaemonSets in the namespace (${OTHERS * nodes} more pods) available in ${f((performance.now() - t1) / 1000)} s`);
    }
    // Every FAULTY_EVERY-th node cannot pull images: its new pod waits in ImagePullBackOff and the node stalls.
    const faulty: string[] = [];
    for (let i = FAULTY_EVERY; i <= nodes; i += FAULTY_EVERY) faulty.push(`sim-node-${String(i).padStart(5, '0')}`);
    for (const n of faulty)
      await clusterApi(c, `/api/v1/nodes/${n}`, { method: 'PATCH', type: 'application/merge-patch+json', body: { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } } });

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(marker(nodes));
    /** The address of the page's watch of pods (the reference watcher watches the same). */
    let podWatch: URL | undefined;
    page.on('websocket', (ws) => {
      const u = new URL(ws.url());
      if (u.pathname === '/api/v1/namespaces/default/pods' && u.searchParams.get('watch')) podWatch = u;
    });
    const token = c.headers.Authorization.slice('Bearer '.length);
    await page.route(`${c.url}/plain`, (r) => r.fulfill({ contentType: 'text/html', body: plainPage(c.headers.Authorization) }));
    const dsPath = `/daemonsets/default/bench?stall=15`;
    const app: number[] = [];
    const plain: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      await page.goto(`${c.url}/version`);
      plain.push(await navigate(page, `${c.url}/plain`));
      await page.goto(`${c.url}/version`);
      app.push(await navigate(page, `${c.url}${dsPath}${r === 0 ? `#token=${token}` : ''}`));
    }
    if (process.env.DS_REQUESTS) {
      // What the app read before it showed the counts (the last run): each request's start and end, ms from navigation.
      const reqs = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round((e as PerformanceResourceTiming).responseEnd), (e as PerformanceResourceTiming).encodedBodySize] as const),
      );
      for (const [name, start, end, size] of reqs) if (start < app[app.length - 1]) console.log(`    ${String(start).padStart(6)} -> ${String(end).padStart(6)} ms ${f(size / 1e3)} kB ${name.slice(0, 110)}`);
    }
    console.log(
      `  ${nodes} nodes: first render ${f(median(app))} ms from navigation (median of ${RUNS}: ${app.map((t) => f(t)).join(', ')}) = ${f(median(app) / median(plain), 2)}x ` +
        `a plain page drawing the same nodes' group rows (${f(median(plain))} ms: ${plain.map((t) => f(t)).join(', ')}) (${machine()})`,
    );
    await page.screenshot({ path: `/tmp/ds-page-${nodes}-before-rollout.png`, fullPage: false });

    // The watch opens once the page's list of pods is complete, about when the page shows every node.
    for (let k = 0; !podWatch && k < 200; k++) await sleep(50);
    if (!podWatch) throw new Error('the page opened no WebSocket watch of the pods');
    // The reference watches from now (the page's watch started from its list's revision, a while ago).
    const list = await clusterApi(c, `${podWatch.pathname}?${new URLSearchParams({ limit: '1', ...(podWatch.searchParams.has('labelSelector') ? { labelSelector: podWatch.searchParams.get('labelSelector')! } : {}) })}`);
    podWatch.searchParams.set('resourceVersion', list.metadata.resourceVersion);
    const reference = referenceWatcher(podWatch.href, c.headers.Authorization);
    await reference.opened;
    console.log(`    the page watches ${podWatch.pathname}?${podWatch.searchParams.has('labelSelector') ? `labelSelector=${podWatch.searchParams.get('labelSelector')}` : '(no selector)'}; so does the reference watcher`);

    const startTrace = () =>
      browser.startTracing(page, {
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'v8.execute', 'disabled-by-default-v8.cpu_profiler', 'blink.user_timing'],
      });
    // A trace from before the rollout (DS_TRACE_FROM below 0) starts here, before the frames are
    // recorded, so that its own start (a long task of its own, 0.4 s) is not taken for the page's work.
    if (TRACE && TRACE_FROM < 0) (await startTrace(), await sleep(-TRACE_FROM * 1000));
    const cpuBefore = await rendererMainCpu(browser);
    await startRecorder(page);
    const generation = await rollBenchDaemonSet(c, 'busybox:1.37');
    const t0 = performance.now();
    let done = false;
    const finished = (async () => {
      for (;;) {
        const st = (await clusterApi(c, `${DAEMONSETS}/bench`)).status ?? {};
        if (st.observedGeneration >= generation && st.updatedNumberScheduled === nodes && st.numberAvailable >= nodes - faulty.length) break;
        if (performance.now() - t0 > 600_000) break;
        await sleep(250);
      }
      done = true;
    })();
    let shot = false;
    const traced = TRACE
      ? (async () => {
          if (TRACE_FROM >= 0) (await sleep(TRACE_FROM * 1000), await startTrace());
          await sleep((TRACE_SECONDS + Math.min(0, TRACE_FROM)) * 1000);
          const trace = await browser.stopTracing();
          writeFileSync(TRACE, trace);
          console.log(`    trace of ${TRACE_SECONDS} s of the rollout: ${TRACE} (${f(trace.length / 1e6, 1)} MB)`);
        })()
      : undefined;
    const probes = watchToDom(page, c, reference, () => {
      if (!shot && performance.now() - t0 > 5000) {
        shot = true;
        void page.screenshot({ path: `/tmp/ds-page-${nodes}-during-rollout.png` }).catch(() => {});
      }
      return done;
    });
    await finished;
    const w = await probes;
    await traced;
    const wall = (performance.now() - t0) / 1000;
    const rec = await stopRecorder(page);
    const cpuAfter = await rendererMainCpu(browser);
    const ms = (x: number[]) => `p50 ${f(pct(x, 0.5))} ms, p95 ${f(pct(x, 0.95))} ms, max ${f(Math.max(...x))} ms`;
    console.log(
      `    rollout (${f(wall, 1)} s): frame gaps ${ms(rec.gaps)} over ${rec.gaps.length} frames; long tasks ${rec.long.length}, ${f(rec.long.reduce((a, b) => a + b, 0))} ms in all, max ${f(Math.max(0, ...rec.long))} ms`,
    );
    // The CPU the page's main thread used (what a loaded machine inflates least: long tasks also count waiting for a core).
    const cpu = Math.max(0, ...[...cpuAfter].map(([pid, s]) => s - (cpuBefore.get(pid) ?? 0)));
    console.log(`      the page's main thread used ${f(cpu, 1)} CPU-s in the rollout (${f((100 * cpu) / wall)}% of a core)`);
    // When the longest happened: at the rollout's start, its end, or throughout.
    const longest = rec.long.map((d, i) => [d, rec.longAt[i]]).sort((a, b) => b[0] - a[0]).slice(0, 8);
    console.log(`      longest: ${longest.map(([d, at]) => `${f(d)} ms at +${f(at / 1000, 1)} s`).join(', ')}`);
    console.log(`    write -> node row in the DOM during the rollout: ${ms(w.latencies)} over ${w.latencies.length} writes, ${w.missed} not shown within 10 s (aim p95 100 ms)`);
    reference.stop();
    console.log(`      of which write -> its watch event at the reference watcher (server, transport): ${ms(w.arrive)}`);
    console.log(`      and from there -> row in the DOM (the page's own share): ${ms(w.shown)} over ${w.shown.length}`);
    console.log(`      (from the page's socket handler getting it -> row in the DOM, its wait to be handled left out: ${ms(w.handled)})`);

    // The faulty nodes stall 15 s after their new pods were made.
    await sleep(16_000);
    await page.screenshot({ path: `/tmp/ds-page-${nodes}-stalled.png` });
    const show: number[] = [];
    const search: number[] = [];
    for (let r = 0; r < 3; r++) {
      show.push(await answerMs(page, 'select[aria-label="Which nodes"]', 'stalled'));
      search.push(await answerMs(page, 'input[data-node-search]', 'sim-node-001'));
      await answerMs(page, 'input[data-node-search]', '');
      await answerMs(page, 'select[aria-label="Which nodes"]', '');
    }
    const stalledShown = await page.evaluate(() => document.querySelector('[data-nodes-shown]')?.getAttribute('data-nodes-shown') ?? 'n/a');
    console.log(
      `    stalled-node search (${faulty.length} stalled, ${stalledShown} shown after): show stalled median ${f(median(show))} ms (max ${f(Math.max(...show))}); then by name median ${f(median(search))} ms (max ${f(Math.max(...search))}) (aim 100 ms)`,
    );
    const cdp = await page.context().newCDPSession(page);
    const used = (await cdp.send('Runtime.getHeapUsage')).usedSize;
    await cdp.send('HeapProfiler.collectGarbage');
    const kept = (await cdp.send('Runtime.getHeapUsage')).usedSize;
    console.log(`    JS heap: ${f(used / 1e6)} MB in use, ${f(kept / 1e6)} MB after a collection (aim: under 400 MB) (${machine()})`);
  } finally {
    await browser.close();
    c.stop();
  }
}

/**
 * CPU seconds used so far by the main thread of each of the browser's renderer processes, by pid
 * (from /proc: a renderer's main thread has the process's own id); empty where that is not readable.
 */
async function rendererMainCpu(browser: Browser): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  try {
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo' as never)) as { processInfo: { type: string; id: number }[] };
    await cdp.detach();
    const tick = 100; // USER_HZ
    for (const p of processInfo.filter((p) => p.type === 'renderer')) {
      const stat = readFileSync(`/proc/${p.id}/task/${p.id}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(p.id, (Number(fields[11]) + Number(fields[12])) / tick);
    }
  } catch {
    // not on Linux, or the process is gone
  }
  return out;
}

/** Another DaemonSet on every node, in the bench's namespace. */
const createOtherDaemonSet = (c: Cluster, name: string) =>
  clusterApi(c, DAEMONSETS, {
    method: 'POST',
    body: {
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } },
      },
    },
  });

async function daemonSetAvailable(c: Cluster, name: string, nodes: number) {
  for (;;) {
    const st = (await clusterApi(c, `${DAEMONSETS}/${name}`)).status ?? {};
    if (st.numberAvailable === nodes) return;
    await sleep(500);
  }
}

export async function benchDaemonSetPage() {
  console.log(`== DaemonSet page (${machine()}; app from ${STATIC})`);
  for (const n of SIZES) await benchSize(n);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchDaemonSetPage();
  process.exit(0);
}
