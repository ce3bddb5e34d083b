// The app half of `npm run bench -- scale`, on the seeded server (5000 nodes,
// 50,000 pods), each figure beside a baseline measured in the same browser:
//   first rows   -> from navigation until the list's first row is in the DOM
//                   (median of runs), against a plain page that fetches the
//                   same list's first page (kubectl's chunk of 500) and draws
//                   a table of its first screen
//   scrolling    -> frames per second and the p95 frame time while a script
//                   scrolls the list a screen per frame
//   filter, sort -> input to changed rows (median of runs)
//   watch -> DOM -> a write to a row on screen until the row shows its
//                   resourceVersion (p50/p95), while other objects of the list
//                   change at a rollout's pace, against the same writes with
//                   the list standing still
//   JS heap
// The page is left alone while it loads: a marker script put in before the
// app reports the first row on the console, so that no Playwright script runs
// in the page (evaluating one took 130 ms of main thread on a loaded machine).
import os from 'node:os';
import { chromium, type Page } from '@playwright/test';
import { median } from './load.ts';
import type { Proc } from './processes.ts';
import { rowShownAt } from './rowshown.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const RUNS = 5;
const f = (n: number, d = 0) => n.toFixed(d);
const machine = () => `${os.cpus().length} cores, load average ${os.loadavg().slice(0, 2).map((l) => l.toFixed(2)).join(' ')}`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Put in every page before its own scripts: notes when the first row of a table appears. */
const FIRST_ROW_MARKER = `
  window.__name = (f) => f;
  new MutationObserver((_, obs) => {
    if (document.querySelector('[role=table] [role=row][data-name], table.plain tr')) {
      obs.disconnect();
      console.debug('first-row ' + performance.now());
    }
  }).observe(document, { subtree: true, childList: true });`;

/** Ms from navigation to the marker's console line. */
async function navigateToFirstRow(page: Page, url: string): Promise<number> {
  const line = page.waitForEvent('console', { predicate: (m) => m.text().startsWith('first-row '), timeout: 60_000 });
  await page.goto(url, { waitUntil: 'commit' });
  return Number((await line).text().slice('first-row '.length));
}

/** The baseline page: fetch the first page of the list, parse it, draw its first screen as a plain table. */
const plainPage = (path: string, auth: string) => `<!doctype html><meta charset="utf-8"><body><script>
  fetch(${JSON.stringify(`${path}?limit=500`)}, { headers: { Authorization: ${JSON.stringify(auth)} } }).then((r) => r.json()).then((list) => {
    const table = document.createElement('table');
    table.className = 'plain';
    for (const o of list.items.slice(0, 30)) {
      const tr = table.insertRow();
      for (const v of [o.metadata.namespace ?? '', o.metadata.name, o.spec?.nodeName ?? '', o.status?.phase ?? '', o.metadata.creationTimestamp]) tr.insertCell().textContent = v;
    }
    document.body.append(table);
  });
</script>`;

async function firstRows(page: Page, api: Proc, route: string, path: string, count: number) {
  const token = api.headers.Authorization.slice('Bearer '.length);
  await page.route(`${api.url}/plain${route}`, (r) => r.fulfill({ contentType: 'text/html', body: plainPage(path, api.headers.Authorization) }));
  const app: number[] = [];
  const plain: number[] = [];
  // Side by side in each run, so load from elsewhere falls on both alike.
  for (let r = 0; r < RUNS; r++) {
    await page.goto(`${api.url}/version`);
    plain.push(await navigateToFirstRow(page, `${api.url}/plain${route}`));
    await page.goto(`${api.url}/version`);
    app.push(await navigateToFirstRow(page, `${api.url}${route}#token=${token}`));
    // The whole list loaded (later pages) and its watch started, before the next run.
    await page.waitForSelector(`[role=table][aria-rowcount="${count}"]`, { timeout: 120_000 });
  }
  return { app, plain };
}

/** Scrolls the list a screen per frame for 3 s: frames per second and the p95 frame time. */
function scroll(page: Page): Promise<{ fps: number; p95: number }> {
  return page.evaluate(
    () =>
      new Promise<{ fps: number; p95: number }>((resolve) => {
        const el = document.querySelector('.table-scroll')!;
        const gaps: number[] = [];
        const t0 = performance.now();
        let last = t0;
        const tick = (t: number) => {
          gaps.push(t - last);
          last = t;
          el.scrollTop = el.scrollTop + 800 >= el.scrollHeight - el.clientHeight ? 0 : el.scrollTop + 800;
          if (t - t0 < 3000) requestAnimationFrame(tick);
          else {
            gaps.sort((a, b) => a - b);
            el.scrollTop = 0;
            resolve({ fps: (gaps.length * 1000) / (t - t0), p95: gaps[Math.floor(gaps.length * 0.95)] });
          }
        };
        requestAnimationFrame(tick);
      }),
  );
}

/** Sets the name filter (as typing does) and waits for the row count to change; ms. */
function filterMs(page: Page, text: string): Promise<number> {
  return page.evaluate(
    (text) =>
      new Promise<number>((resolve) => {
        const table = document.querySelector('[role=table]')!;
        const before = table.getAttribute('aria-rowcount');
        const input = document.querySelector<HTMLInputElement>('input[data-search]')!;
        const t0 = performance.now();
        const obs = new MutationObserver(() => {
          if (document.querySelector('[role=table]')!.getAttribute('aria-rowcount') !== before) {
            obs.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - t0));
          }
        });
        obs.observe(document.body, { subtree: true, attributes: true, childList: true });
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, text);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    text,
  );
}

/** Clicks a column header and waits for the first row to change; ms. */
function sortMs(page: Page, column: string): Promise<number> {
  return page.evaluate(
    (column) =>
      new Promise<number>((resolve) => {
        const first = () => document.querySelector('[role=table] [role=row][data-name]')?.getAttribute('data-name');
        const before = first();
        const button = [...document.querySelectorAll<HTMLButtonElement>('[role=columnheader] button')].find((b) => b.textContent?.trim() === column)!;
        const t0 = performance.now();
        const obs = new MutationObserver(() => {
          if (first() !== before) {
            obs.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - t0));
          }
        });
        obs.observe(document.body, { subtree: true, attributes: true, childList: true });
        button.click();
      }),
    column,
  );
}

async function patch(api: Proc, path: string, body: unknown): Promise<any> {
  const r = await fetch(api.url + path, { method: 'PATCH', headers: { ...api.headers, 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`PATCH ${path}: HTTP ${r.status}`);
  return r.json();
}

/**
 * Write -> DOM for rows on screen: a label written to one of the first rows
 * until that row shows the write's resourceVersion (wall clock on both
 * sides, one machine). With `churnPerSecond`, other objects of the list are
 * written meanwhile, as a rollout replaces pods (status and labels).
 */
async function watchToDom(page: Page, api: Proc, objectPath: (i: number) => string, churnPath: (i: number) => string, churnPerSecond: number, writes = 40) {
  const names = await page.$$eval('[role=table] [role=row][data-name]', (rows) => rows.slice(0, 10).map((r) => ({ name: r.getAttribute('data-name')!, ns: r.getAttribute('data-namespace') ?? '' })));
  let churning = churnPerSecond > 0;
  let churned = 0;
  const started = performance.now();
  const churn = (async () => {
    // Writes in flight at once, so the pace holds whatever one write takes.
    const lanes = 8;
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let i = lane; churning; i += lanes) {
          const t0 = performance.now();
          await patch(api, churnPath(1000 + (i % 40000)), { metadata: { labels: { 'bench-churn': String(i) } } });
          churned++;
          await sleep(Math.max(0, (lanes * 1000) / churnPerSecond - (performance.now() - t0)));
        }
      }),
    );
  })();
  const latencies: number[] = [];
  try {
    await sleep(churnPerSecond ? 1000 : 0);
    for (let i = 0; i < writes; i++) {
      const { name, ns } = names[i % names.length];
      const t0 = Date.now();
      const res = await patch(api, objectPath(0).replace('NAME', name).replace('NS', ns), { metadata: { labels: { 'bench-row': String(i) } } });
      const rv = Number(res.metadata.resourceVersion);
      const at = await rowShownAt(page, `[data-name="${name}"]`, rv);
      if (at > 0) latencies.push(at - t0);
      await sleep(50);
    }
  } finally {
    churning = false;
    await churn;
  }
  return { latencies, perSecond: (churned * 1000) / (performance.now() - started) };
}

export async function benchApp(api: Proc, nodes: number, podsPerNode: number) {
  console.log(`\n== App at ${nodes} nodes and ${nodes * podsPerNode} pods in Chromium (${machine()})`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(FIRST_ROW_MARKER);
    const lists = [
      { route: '/nodes', path: '/api/v1/nodes', count: nodes, object: '/api/v1/nodes/NAME', churn: (i: number) => `/api/v1/nodes/node-${String(i % nodes).padStart(5, '0')}` },
      { route: '/pods', path: '/api/v1/pods', count: nodes * podsPerNode, object: '/api/v1/namespaces/NS/pods/NAME', churn: (i: number) => `/api/v1/namespaces/bench-${i % 10 % 3}/pods/agent-${i % 10}-node-${String(Math.floor(i / 10) % nodes).padStart(5, '0')}` },
    ];
    for (const l of lists) {
      const { app, plain } = await firstRows(page, api, l.route, l.path, l.count);
      console.log(
        `  ${l.route}: first rows ${f(median(app))} ms from navigation (median of ${RUNS}: ${app.map((t) => f(t)).join(', ')}; aim 500 ms) = ${f(median(app) / median(plain), 2)}x ` +
          `a plain page drawing the first page of the same list (${f(median(plain))} ms: ${plain.map((t) => f(t)).join(', ')}) (${machine()})`,
      );
      const s = await scroll(page);
      console.log(`    scroll a screen per frame: ${f(s.fps)} frames/s, p95 frame ${f(s.p95, 1)} ms (aim 60 frames/s, 16.7 ms)`);
      const filters: number[] = [];
      const sorts: number[] = [];
      for (let r = 0; r < 3; r++) filters.push(await filterMs(page, '0042'), await filterMs(page, ''));
      for (let r = 0; r < 3; r++) sorts.push(await sortMs(page, 'Name'), await sortMs(page, 'Name'));
      console.log(`    filter by name: median ${f(median(filters))} ms (max ${f(Math.max(...filters))}); sort by name: median ${f(median(sorts))} ms (max ${f(Math.max(...sorts))}) (aim 100 ms)`);
      const still = await watchToDom(page, api, () => l.object, l.churn, 0, 20);
      const busy = await watchToDom(page, api, () => l.object, l.churn, 200);
      const ms = (x: number[]) => `p50 ${f(pct(x, 0.5))} ms, p95 ${f(pct(x, 0.95))} ms`;
      console.log(
        `    write -> row in the DOM while ${f(busy.perSecond)} other objects/s change: ${ms(busy.latencies)} over ${busy.latencies.length} writes (aim p95 100 ms); ` +
          `with the list still: ${ms(still.latencies)}`,
      );
      const cdp = await page.context().newCDPSession(page);
      const used = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      await cdp.send('HeapProfiler.collectGarbage');
      const kept = (await cdp.send('Runtime.getHeapUsage')).usedSize;
      console.log(`    JS heap: ${f(kept / 1e6)} MB after a collection, ${f(used / 1e6)} MB before (aim: under 400 MB)`);
    }
  } finally {
    await browser.close();
  }
}
