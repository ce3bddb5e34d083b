// The app half of `npm run bench -- scale`, on the seeded server (5000 nodes,
// 50,000 pods), each figure beside a baseline measured in the same browser:
//   first rows   -> from navigation until the list's first row is in the DOM
//                   (median of runs), against a plain page that fetches the
//                   same list's first page (kubectl's chunk of 500) and draws
//                   a table of its first screen
//   scrolling    -> frames per second and the p95 frame time while a script
//                   scrolls the list a screen per frame, once loaded, and
//                   while it loads (from the first row until the list is
//                   complete), with the main thread's CPU time per frame
//   filter, sort -> input to changed rows (median of runs)
//   watch -> DOM -> a write to a row on screen until the row shows its
//                   resourceVersion (p50/p95), while other objects of the list
//                   change at a rollout's pace, against the same writes with
//                   the list standing still
//   JS heap
// SCALE_APP_FIGURES picks figures, SCALE_APP_LISTS lists (nodes,pods);
// SCALE_APP_BASELINE=<an older build's dist> adds scrolling, a load left
// alone and write -> row side by side, this build against that one.
// The page is left alone while it loads: a marker script put in before the
// app reports the first row on the console, so that no Playwright script runs
// in the page (evaluating one took 130 ms of main thread on a loaded machine).
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { Worker } from 'node:worker_threads';
import { cpuSeconds } from './cluster.ts';
import { median } from './load.ts';
import type { Proc } from './processes.ts';
import { armRow, rowShownSince } from './rowshown.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const RUNS = 5;
const SIDE_ROUNDS = Number(process.env.SCALE_APP_ROUNDS ?? 3);
/** Older builds of the app (their dist directories, comma-separated): scrolling is then measured side by side, this build against each. */
const BASELINE = process.env.SCALE_APP_BASELINE;
/** The build measured against them (default dist, which bench/scale.ts builds). */
const BUILD = process.env.SCALE_APP_BUILD ?? 'dist';
/** Set: each side-by-side page also takes a trace of one scroll, and the renderer's time per frame by task is printed. */
const TRACE = Boolean(process.env.SCALE_APP_TRACE);
/** Which figures to take (all by default): first,loading,scroll,filter,watch,heap. */
const FIGURES = new Set((process.env.SCALE_APP_FIGURES ?? 'first,loading,scroll,filter,watch,heap').split(','));
/** Set: each first-rows run of the app also prints when its document, scripts and requests began, answered and ended. */
const FIRST_DETAIL = Boolean(process.env.SCALE_APP_FIRST_DETAIL);
/** Which lists to measure (both by default): nodes,pods. */
const LISTS = new Set((process.env.SCALE_APP_LISTS ?? 'nodes,pods').split(','));
/** Scrolling while a list loads stops when it is complete, or after this many seconds (SCALE_APP_LOADING_S). */
const LOADING_MAX_S = Number(process.env.SCALE_APP_LOADING_S ?? 60);
/** Other objects of the list written a second while write -> row is measured (SCALE_APP_CHURN). */
const CHURN = Number(process.env.SCALE_APP_CHURN ?? 200);
/**
 * The same, as a rollout's events come (SCALE_APP_BURST writes sent at once, SCALE_APP_BURST_CHURN a
 * second): a group commit of a 5000-node rollout hands the page a hundred pod events in one flush, where
 * writes one at a time bring it two or three.
 */
const BURST = Number(process.env.SCALE_APP_BURST ?? 100);
const BURST_CHURN = Number(process.env.SCALE_APP_BURST_CHURN ?? 1000);
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

/** Put in a page to note when its table's row count reaches COUNT (the list complete), without any script run in it meanwhile. */
const completeMarker = (count: number) => `
  new MutationObserver((_, obs) => {
    if (document.querySelector('[role=table][aria-rowcount="${count}"]')) {
      obs.disconnect();
      console.debug('complete ' + performance.now());
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-rowcount'] });`;

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

/** When the page's document, scripts and API requests began and ended (ms from navigation), from Resource Timing. */
function resourceTimes(page: Page): Promise<string> {
  return page.evaluate(() =>
    (performance.getEntries() as PerformanceResourceTiming[])
      .filter((e) => e.entryType === 'navigation' || e.entryType === 'resource')
      .map((e) => `${e.entryType === 'navigation' ? 'document' : new URL(e.name).pathname.replace(/^\/assets\//, '') + new URL(e.name).search} ${e.startTime.toFixed(0)}-${e.responseStart.toFixed(0)}-${e.responseEnd.toFixed(0)}`)
      .join(', '),
  );
}

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
    if (FIRST_DETAIL) console.log(`      run ${r + 1}: first row at ${f(app.at(-1)!)} ms; ${await resourceTimes(page)}`);
    // The whole list loaded (later pages) and its watch started, before the next run.
    await page.waitForSelector(`[role=table][aria-rowcount="${count}"]`, { timeout: 120_000 });
  }
  return { app, plain };
}

/** How many of the machine's cores were busy from this call until the returned function's (/proc/stat, less idle and iowait). */
function busyCoresFromNow(): () => number {
  const read = () => {
    const t = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const all = t.reduce((a, b) => a + b, 0);
    return { busy: all - t[3] - t[4], all };
  };
  const from = read();
  return () => {
    const to = read();
    return ((to.busy - from.busy) / (to.all - from.all)) * os.cpus().length;
  };
}

/** With SCALE_APP_TRACE (and `on`): prints, under `what`, a traced scroll's ms per frame by thread and event, and its long tasks. */
const printTrace = (what: string, on = true) =>
  TRACE && on ? (events: TraceEvent[], frames: number) => console.log(`    ${what} (traced): ${timePerFrame(events, frames)}\n      long tasks: ${longTasks(events)}`) : undefined;

/** A thread that keeps a core busy walking 64 MB of memory. */
function busyCore(): Worker {
  return new Worker('const b = Buffer.alloc(64 << 20); for (;;) for (let i = 0; i < b.length; i += 64) b[i]++;', { eval: true });
}

interface ScrollFigure {
  /** requestAnimationFrame callbacks per second (frames the page's main thread ran). */
  fps: number;
  /** p95 of the time between them, ms. */
  p95: number;
  /** Frames per second the compositor presented with the page's update in them (Chrome's trace; see presentedFps). */
  shown: number;
  /** The renderer main thread's CPU time per rAF frame, ms (thread time of its tasks: other processes on the shared cores do not add to it). */
  cpu: number;
  /** How long it scrolled, ms (while loading: from the first row until the list was complete). */
  ms: number;
}

/**
 * Scrolls the list a screen per frame for `seconds`: rAF frames per second,
 * their p95 gap, and the frames actually presented. A rAF count alone can
 * flatter: the main thread may run a frame whose commit the compositor then
 * drops or draws without (a "partial" frame shows the old scroll position),
 * so the trace's frame reporter is asked which frames reached the screen.
 */
async function scroll(page: Page, seconds = 3, traced?: (events: TraceEvent[], frames: number) => void, untilRows?: number): Promise<ScrollFigure> {
  const browser = page.context().browser()!;
  await browser.startTracing(page, { categories: ['benchmark', 'blink.user_timing', 'toplevel', ...(traced ? ['devtools.timeline', 'disabled-by-default-devtools.timeline'] : [])] });
  const raf = await page.evaluate(
    ({ ms, untilRows }) =>
      new Promise<{ fps: number; p95: number; frames: number; ms: number }>((resolve) => {
        const el = document.querySelector('.table-scroll')!;
        const gaps: number[] = [];
        const t0 = performance.now();
        performance.mark('bench-scroll-start');
        let last = t0;
        // With untilRows: until the table has that many rows (the list complete), at most `ms`.
        const done = (t: number) => (untilRows ? document.querySelector('[role=table]')?.getAttribute('aria-rowcount') === String(untilRows) : false) || t - t0 >= ms;
        const tick = (t: number) => {
          gaps.push(t - last);
          last = t;
          el.scrollTop = el.scrollTop + 800 >= el.scrollHeight - el.clientHeight ? 0 : el.scrollTop + 800;
          if (!done(t)) requestAnimationFrame(tick);
          else {
            performance.mark('bench-scroll-end');
            gaps.sort((a, b) => a - b);
            el.scrollTop = 0;
            resolve({ fps: (gaps.length * 1000) / (t - t0), p95: gaps[Math.floor(gaps.length * 0.95)], frames: gaps.length, ms: t - t0 });
          }
        };
        requestAnimationFrame(tick);
      }),
    { ms: seconds * 1000, untilRows },
  );
  const events: TraceEvent[] = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  traced?.(events, raf.frames);
  return { fps: raf.fps, p95: raf.p95, ms: raf.ms, shown: presentedFps(events), cpu: mainThreadMs(events) / raf.frames };
}

/** CPU ms of the renderer main thread's top-level tasks between the scroll marks. */
function mainThreadMs(events: TraceEvent[]): number {
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const start = events.find((e) => e.name === 'bench-scroll-start')?.ts ?? 0;
  const end = events.find((e) => e.name === 'bench-scroll-end')?.ts ?? Infinity;
  let ms = 0;
  for (const e of events) {
    if (e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.ts >= start && e.ts <= end && main.has(`${e.pid}:${e.tid}`)) ms += (e.tdur ?? e.dur ?? 0) / 1000;
  }
  return ms;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: any;
}

/** The renderer's time by task (complete events at the top of their thread), ms per rAF frame, between the scroll marks. */
function timePerFrame(events: TraceEvent[], frames: number): string {
  const renderers = new Set(events.filter((e) => e.name === 'process_name' && e.args?.name === 'Renderer').map((e) => e.pid));
  const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args?.name as string]));
  const start = events.find((e) => e.name === 'bench-scroll-start')?.ts ?? 0;
  const end = events.find((e) => e.name === 'bench-scroll-end')?.ts ?? Infinity;
  const by = new Map<string, number>();
  for (const e of events) {
    if (e.ph !== 'X' || !renderers.has(e.pid) || e.ts < start || e.ts > end) continue;
    if (!['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'FunctionCall', 'RasterTask', 'EventDispatch', 'MajorGC', 'MinorGC', 'ParseHTML'].includes(e.name)) continue;
    const key = `${threads.get(`${e.pid}:${e.tid}`) ?? e.tid}/${e.name}`;
    by.set(key, (by.get(key) ?? 0) + (e.dur ?? 0) / 1000);
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 16).map(([k, ms]) => `${k} ${f(ms / frames, 2)}`).join(', ');
}

/**
 * The renderer main thread's long tasks (over `ms`) between the scroll marks,
 * grouped by what ran in them: the task's longest event below it by name (an
 * idle callback, a timer, a worker's message, a collection, a frame...), with
 * the idle callbacks that timed out apart. What makes the frames late.
 */
function longTasks(events: TraceEvent[], ms = 12): string {
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const start = events.find((e) => e.name === 'bench-scroll-start')?.ts ?? 0;
  const end = events.find((e) => e.name === 'bench-scroll-end')?.ts ?? Infinity;
  const onMain = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`) && e.ts >= start && e.ts <= end).sort((a, b) => a.ts - b.ts);
  const tasks = onMain.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && (e.dur ?? 0) >= ms * 1000);
  const by = new Map<string, { n: number; ms: number }>();
  for (const t of tasks) {
    const inner = onMain.filter((e) => e !== t && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + (t.dur ?? 0) && e.name !== 'ThreadControllerImpl::RunTask');
    const top = inner.reduce<TraceEvent | undefined>((a, e) => (!a || (e.dur ?? 0) > (a.dur ?? 0) ? e : a), undefined);
    let name = top?.name ?? '(none)';
    if (name === 'FireIdleCallback' && top?.args?.data?.timedOut) name += ' (timed out)';
    if (name === 'EventDispatch') name += ` ${top?.args?.data?.type ?? ''}`;
    const gc = inner.filter((e) => e.name === 'MinorGC' || e.name === 'MajorGC' || e.name === 'V8.GC_SCAVENGER' ).reduce((a, e) => a + (e.dur ?? 0), 0);
    if (gc > 0) name += ' +GC';
    const g = by.get(name) ?? { n: 0, ms: 0 };
    g.n++;
    g.ms += (t.dur ?? 0) / 1000;
    by.set(name, g);
  }
  return `${tasks.length} tasks over ${ms} ms: ` + [...by].sort((a, b) => b[1].ms - a[1].ms).map(([k, g]) => `${k} ${g.n}x mean ${f(g.ms / g.n)} ms`).join(', ');
}

/**
 * Frames per second between the page's bench-scroll-start and -end marks
 * that the renderer's compositor presented with the main thread's update
 * (PipelineReporter state STATE_PRESENTED_ALL; a frame sequence counted once).
 */
function presentedFps(events: { name: string; ph: string; pid: number; ts: number; args?: any }[]): number {
  const renderers = new Set(events.filter((e) => e.name === 'process_name' && e.args?.name === 'Renderer').map((e) => e.pid));
  const start = events.find((e) => e.name === 'bench-scroll-start')?.ts;
  const end = events.find((e) => e.name === 'bench-scroll-end')?.ts;
  if (start === undefined || end === undefined) return NaN;
  const shown = new Set<string>();
  for (const e of events) {
    if (e.name !== 'PipelineReporter' || e.ph !== 'b' || e.ts < start || e.ts > end || !renderers.has(e.pid)) continue;
    const r = e.args?.frame_reporter;
    if (r?.state === 'STATE_PRESENTED_ALL') shown.add(`${e.pid}:${r.layer_tree_host_id}:${r.frame_sequence}`);
  }
  return (shown.size * 1e6) / (end - start);
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
 * written meanwhile, as a rollout replaces pods (status and labels): one at a
 * time, or `burst` at once. Also the page's main thread busy meanwhile (its
 * tasks' time over the wall time).
 */
async function watchToDom(page: Page, api: Proc, objectPath: (i: number) => string, churnPath: (i: number) => string, churnPerSecond: number, writes = 40, burst = 1) {
  const names = await page.$$eval('[role=table] [role=row][data-name]', (rows) => rows.slice(0, 10).map((r) => ({ name: r.getAttribute('data-name')!, ns: r.getAttribute('data-namespace') ?? '' })));
  // The page's tasks' time, asked before the churn starts (a failure here leaves nothing running).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskSeconds = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
  let churning = churnPerSecond > 0;
  let churned = 0;
  const started = performance.now();
  const write = async (i: number) => {
    await patch(api, churnPath(1000 + (i % 40000)), { metadata: { labels: { 'bench-churn': String(i) } } });
    churned++;
  };
  const churn = (async () => {
    if (burst > 1) {
      for (let i = 0; churning; ) {
        const t0 = performance.now();
        await Promise.all(Array.from({ length: burst }, () => write(i++)));
        await sleep(Math.max(0, (burst * 1000) / churnPerSecond - (performance.now() - t0)));
      }
      return;
    }
    // Writes in flight at once, so the pace holds whatever one write takes (up to 25 ms).
    const lanes = Math.max(8, Math.ceil(churnPerSecond / 40));
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let i = lane; churning; i += lanes) {
          const t0 = performance.now();
          await write(i);
          await sleep(Math.max(0, (lanes * 1000) / churnPerSecond - (performance.now() - t0)));
        }
      }),
    );
  })();
  const latencies: number[] = [];
  let busy = NaN;
  try {
    await sleep(churnPerSecond ? 1000 : 0);
    const [task0, wall0] = [await taskSeconds(), performance.now()];
    for (let i = 0; i < writes; i++) {
      const { name, ns } = names[i % names.length];
      await armRow(page, `[data-name="${name}"]`);
      const t0 = Date.now();
      const res = await patch(api, objectPath(0).replace('NAME', name).replace('NS', ns), { metadata: { labels: { 'bench-row': String(i) } } });
      const at = await rowShownSince(page, Number(res.metadata.resourceVersion));
      if (at > 0) latencies.push(at - t0);
      await sleep(50);
    }
    busy = (await taskSeconds() - task0) / ((performance.now() - wall0) / 1000);
  } finally {
    churning = false;
    await churn;
    await cdp.detach();
  }
  return { latencies, perSecond: (churned * 1000) / (performance.now() - started), busy };
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.ttf': 'font/ttf', '.woff2': 'font/woff2', '.html': 'text/html' };

/**
 * Serves the app from the build in `dir` to this context's pages, the API
 * still from the server: two builds run against the same server and data.
 * Both sides are served this way, so neither gets the server's compression.
 */
async function serveBuild(ctx: BrowserContext, api: Proc, dir: string, routes: string[]) {
  const index = readFileSync(join(dir, 'index.html'), 'utf8').replace(/<head>/i, '<head><base href="/">');
  await ctx.route(`${api.url}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (routes.includes(path)) return route.fulfill({ contentType: TYPES['.html'], body: index });
    if (path.startsWith('/assets/') || path === '/favicon.svg') return route.fulfill({ contentType: TYPES[extname(path)] ?? 'application/octet-stream', body: readFileSync(join(dir, path)) });
    return route.fallback();
  });
}

/** This build and each BASELINE build, by name and folder. */
const buildsSideBySide = () => [{ name: 'this build', dir: BUILD }, ...BASELINE!.split(',').map((dir) => ({ name: `baseline ${dir}`, dir }))];

/**
 * Runs `measure` on each build in turns (each side first in every other
 * round), on a fresh page each time, from the list's first row.
 */
async function inTurns<S extends { dir: string }>(browser: Browser, api: Proc, route: string, token: string, sides: S[], rounds: number, measure: (page: Page, side: S, round: number, firstRow: number) => Promise<void>, initScript = '') {
  for (let r = 0; r < rounds; r++) {
    for (const side of [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)]) {
      const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        await serveBuild(ctx, api, side.dir, [route]);
        const page = await ctx.newPage();
        await page.addInitScript(FIRST_ROW_MARKER + initScript);
        const complete = initScript ? page.waitForEvent('console', { predicate: (m) => m.text().startsWith('complete '), timeout: 120_000 }) : undefined;
        complete?.catch(() => undefined);
        const firstRow = await navigateToFirstRow(page, `${api.url}${route}#token=${token}`);
        await measure(page, side, r, complete ? Number((await complete).text().slice('complete '.length)) - firstRow : NaN);
      } finally {
        await ctx.close();
      }
    }
  }
}

/**
 * Scrolling, this build (dist) against BASELINE, in turns (each side first
 * in every other round, a fresh page each time): while the list still loads
 * (from its first row on, as pages of 2,000 arrive) and once it has loaded.
 */
async function scrollSideBySide(browser: Browser, api: Proc, l: { route: string; count: number }, token: string, rounds = SIDE_ROUNDS) {
  const sides = buildsSideBySide().map((s) => ({ ...s, loading: [] as ScrollFigure[], loaded: [] as ScrollFigure[] }));
  await inTurns(browser, api, l.route, token, sides, rounds, async (page, side, r) => {
    side.loading.push(await scroll(page, LOADING_MAX_S, printTrace(`${side.name}, ms per frame while scrolling as the list loads`, r === 0), l.count));
    await page.waitForSelector(`[role=table][aria-rowcount="${l.count}"]`, { timeout: 120_000 });
    side.loaded.push(await scroll(page));
    if (TRACE && r === 0) await scroll(page, 2, printTrace(`${side.name}, ms per frame while scrolling`));
  });
  const [mine, ...bases] = sides;
  const med = (xs: ScrollFigure[], k: keyof ScrollFigure) => median(xs.map((x) => x[k]));
  const line = (xs: ScrollFigure[]) => `${xs === mine.loading || bases.some((b) => xs === b.loading) ? `for ${f(med(xs, 'ms'))} ms, ` : ''}${f(med(xs, 'fps'))} frames/s (${f(med(xs, 'shown'))} presented), p95 frame ${f(med(xs, 'p95'), 1)} ms, main thread ${f(med(xs, 'cpu'), 1)} ms CPU per frame`;
  for (const when of ['loaded', 'loading'] as const) {
    console.log(`    scroll side by side, ${when === 'loaded' ? 'list loaded' : 'while the list loads'} (median of ${rounds} each, in turns; ${machine()}):`);
    console.log(`      this build: ${line(mine[when])}`);
    for (const base of bases) {
      console.log(
        `      ${base.name}: ${line(base[when])}; this build = ${f(med(mine[when], 'fps') / med(base[when], 'fps'), 2)}x its frames/s, ${f(med(mine[when], 'shown') / med(base[when], 'shown'), 2)}x presented, ${f(med(mine[when], 'cpu') / med(base[when], 'cpu'), 2)}x CPU per frame`,
      );
    }
  }
}

/**
 * A list left alone while it loads (no scrolling, no script run in the page),
 * this build against BASELINE, in turns: from its first row until it is complete.
 */
async function loadSideBySide(browser: Browser, api: Proc, l: { route: string; count: number }, token: string, rounds = SIDE_ROUNDS) {
  const sides = buildsSideBySide().map((s) => ({ ...s, ms: [] as number[] }));
  await inTurns(browser, api, l.route, token, sides, rounds, async (_page, side, _r, complete) => void side.ms.push(complete), completeMarker(l.count));
  const [mine, ...bases] = sides;
  console.log(`    the list left alone while it loads, first row to complete (median of ${rounds} each, in turns; ${machine()}):`);
  console.log(`      this build: ${f(median(mine.ms))} ms (${mine.ms.map((t) => f(t)).join(', ')})`);
  for (const base of bases) console.log(`      ${base.name}: ${f(median(base.ms))} ms (${base.ms.map((t) => f(t)).join(', ')}); this build = ${f(median(mine.ms) / median(base.ms), 2)}x its time`);
}

/**
 * Write -> row during churn, this build against BASELINE, in turns (each
 * side first in every other round, a fresh page each time, the list loaded).
 */
async function watchSideBySide(browser: Browser, api: Proc, l: { route: string; count: number; object: string; churn: (i: number) => string }, token: string, rounds = SIDE_ROUNDS) {
  const runs = () => ({ latencies: [] as number[], rate: [] as number[], busy: [] as number[] });
  const sides = buildsSideBySide().map((s) => ({ ...s, steady: runs(), bursts: runs() }));
  await inTurns(browser, api, l.route, token, sides, rounds, async (page, side) => {
    await page.waitForSelector(`[role=table][aria-rowcount="${l.count}"]`, { timeout: 120_000 });
    for (const [into, rate, burst] of [[side.steady, CHURN, 1], [side.bursts, BURST_CHURN, BURST]] as const) {
      const run = await watchToDom(page, api, () => l.object, l.churn, rate, 40, burst);
      into.latencies.push(...run.latencies);
      into.rate.push(run.perSecond);
      into.busy.push(run.busy);
    }
  });
  const ms = (x: ReturnType<typeof runs>) => `p50 ${f(pct(x.latencies, 0.5))} ms, p95 ${f(pct(x.latencies, 0.95))} ms, max ${f(Math.max(...x.latencies))} ms over ${x.latencies.length} writes; main thread ${f(100 * median(x.busy))}% busy`;
  for (const [what, k] of [[`one at a time, ~${f(median(sides[0].steady.rate))} a second`, 'steady'], [`in bursts of ${BURST}, ~${f(median(sides[0].bursts.rate))} a second`, 'bursts']] as const) {
    console.log(`    write -> row side by side while other objects change ${what} (${rounds} rounds each, in turns; ${machine()}):`);
    for (const side of sides) console.log(`      ${side.name}: ${ms(side[k])}`);
  }
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
    const token = api.headers.Authorization.slice('Bearer '.length);
    for (const l of lists.filter((l) => LISTS.has(l.route.slice(1)))) {
      console.log(`  ${l.route}:`);
      if (FIGURES.has('first')) {
        const { app, plain } = await firstRows(page, api, l.route, l.path, l.count);
        console.log(
          `    first rows ${f(median(app))} ms from navigation (median of ${RUNS}: ${app.map((t) => f(t)).join(', ')}; aim 500 ms) = ${f(median(app) / median(plain), 2)}x ` +
            `a plain page drawing the first page of the same list (${f(median(plain))} ms: ${plain.map((t) => f(t)).join(', ')}) (${machine()})`,
        );
      } else {
        await navigateToFirstRow(page, `${api.url}${l.route}#token=${token}`);
        await page.waitForSelector(`[role=table][aria-rowcount="${l.count}"]`, { timeout: 120_000 });
      }
      if (FIGURES.has('loading')) {
        // A fresh load, scrolled a screen per frame from its first row until its last page is in.
        await page.goto(`${api.url}/version`);
        await navigateToFirstRow(page, `${api.url}${l.route}#token=${token}`);
        const cpu0 = cpuSeconds(api.child.pid!);
        const busyCores = busyCoresFromNow();
        const s = await scroll(page, LOADING_MAX_S, printTrace('ms per frame while scrolling as the list loads'), l.count);
        const serverCores = (cpuSeconds(api.child.pid!) - cpu0) / (s.ms / 1000);
        const machineCores = busyCores();
        await page.waitForSelector(`[role=table][aria-rowcount="${l.count}"]`, { timeout: 120_000 });
        console.log(
          `    scroll while the list loads (first row to complete, ${f(s.ms)} ms): ${f(s.fps)} frames/s (${f(s.shown)} presented), p95 frame ${f(s.p95, 1)} ms, main thread ${f(s.cpu, 1)} ms CPU per frame (aim 60 frames/s, 16.7 ms); meanwhile the machine ${f(machineCores, 2)} of ${os.cpus().length} cores busy, the server ${f(serverCores, 2)} (${machine()})`,
        );
        // The baseline: the same list, loaded, scrolled as long while a thread keeps one core busy, as the
        // rest of the load (the browser's network and raster threads, the wire worker, the server) keeps the
        // second core of this machine. That alone makes the page's own work per frame slower by a third.
        const busy = busyCore();
        const b = await scroll(page, s.ms / 1000, printTrace('ms per frame, the loaded list with a core kept busy'));
        await busy.terminate();
        console.log(
          `      against the loaded list scrolled with one core kept busy: ${f(b.fps)} frames/s (${f(b.shown)} presented), main thread ${f(b.cpu, 1)} ms CPU per frame; while loading = ${f(s.fps / b.fps, 2)}x its frames/s, ${f(s.cpu / b.cpu, 2)}x its CPU per frame`,
        );
      }
      if (FIGURES.has('scroll')) {
        const s = await scroll(page, 3, printTrace('ms per frame while scrolling the loaded list'));
        console.log(`    scroll a screen per frame: ${f(s.fps)} frames/s (${f(s.shown)} presented with the new rows), p95 frame ${f(s.p95, 1)} ms, main thread ${f(s.cpu, 1)} ms CPU per frame (aim 60 frames/s, 16.7 ms)`);
        if (BASELINE) await scrollSideBySide(browser, api, l, token);
        if (BASELINE) await loadSideBySide(browser, api, l, token);
      }
      if (FIGURES.has('filter')) {
        const filters: number[] = [];
        const sorts: number[] = [];
        for (let r = 0; r < 3; r++) filters.push(await filterMs(page, '0042'), await filterMs(page, ''));
        for (let r = 0; r < 3; r++) sorts.push(await sortMs(page, 'Name'), await sortMs(page, 'Name'));
        console.log(`    filter by name: median ${f(median(filters))} ms (max ${f(Math.max(...filters))}); sort by name: median ${f(median(sorts))} ms (max ${f(Math.max(...sorts))}) (aim 100 ms)`);
      }
      if (FIGURES.has('watch')) {
        const still = await watchToDom(page, api, () => l.object, l.churn, 0, 20);
        const busy = await watchToDom(page, api, () => l.object, l.churn, CHURN);
        const bursts = await watchToDom(page, api, () => l.object, l.churn, BURST_CHURN, 40, BURST);
        const ms = (x: number[]) => `p50 ${f(pct(x, 0.5))} ms, p95 ${f(pct(x, 0.95))} ms`;
        const busyPct = (run: { busy: number }) => `main thread ${f(100 * run.busy)}% busy`;
        console.log(
          `    write -> row in the DOM while ${f(busy.perSecond)} other objects/s change: ${ms(busy.latencies)} over ${busy.latencies.length} writes, ${busyPct(busy)} (aim p95 100 ms); ` +
            `with the list still: ${ms(still.latencies)}, ${busyPct(still)}`,
        );
        console.log(`      while ${f(bursts.perSecond)} other objects/s change in bursts of ${BURST} (as a rollout's events come): ${ms(bursts.latencies)} over ${bursts.latencies.length} writes, ${busyPct(bursts)}`);
        if (BASELINE) await watchSideBySide(browser, api, l, token);
      }
      if (FIGURES.has('heap')) {
        const cdp = await page.context().newCDPSession(page);
        const used = (await cdp.send('Runtime.getHeapUsage')).usedSize;
        await cdp.send('HeapProfiler.collectGarbage');
        const kept = (await cdp.send('Runtime.getHeapUsage')).usedSize;
        console.log(`    JS heap: ${f(kept / 1e6)} MB after a collection, ${f(used / 1e6)} MB before (aim: under 400 MB)`);
      }
    }
  } finally {
    await browser.close();
  }
}
