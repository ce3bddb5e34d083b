// The app half of `npm run bench -- scale`, on the seeded server (5000 nodes,
// 50,000 pods): first rows of the Nodes and Pods lists from navigation against
// the same browser fetching the same list and drawing a plain table of it;
// scrolling (frames per second), filter and sort (input -> rows), JS heap.
import os from 'node:os';
import { chromium, type Page } from '@playwright/test';
import { median } from './load.ts';
import type { Proc } from './processes.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const f = (n: number, d = 0) => n.toFixed(d);
const machine = () => `${os.cpus().length} cores, load average ${os.loadavg().slice(0, 2).map((l) => l.toFixed(2)).join(' ')}`;

/** The baseline: fetch the list, parse it, draw a plain table of its first rows; ms from navigation. */
async function plainList(page: Page, api: Proc, path: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    await page.goto(`${api.url}/version`);
    times.push(
      await page.evaluate(
        async ({ path, auth }) => {
          const list = await (await fetch(path, { headers: { Authorization: auth } })).json();
          const table = document.createElement('table');
          for (const o of list.items.slice(0, 30)) {
            const tr = table.insertRow();
            for (const v of [o.metadata.namespace ?? '', o.metadata.name, o.spec?.nodeName ?? '', o.status?.phase ?? '', o.metadata.creationTimestamp]) tr.insertCell().textContent = v;
          }
          document.body.replaceChildren(table);
          await new Promise(requestAnimationFrame);
          return performance.now();
        },
        { path: `${path}?resourceVersion=0`, auth: api.headers.Authorization },
      ),
    );
  }
  return median(times);
}

async function firstRows(page: Page, api: Proc, route: string, count: number, runs: number): Promise<number[]> {
  const token = api.headers.Authorization.slice('Bearer '.length);
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    await page.goto(`${api.url}/version`);
    await page.goto(`${api.url}${route}#token=${token}`);
    await page.waitForSelector('[role=table] [role=row][data-name]', { timeout: 60_000 });
    times.push(await page.evaluate(() => performance.now()));
    // The whole list loaded (later pages), before the next run.
    await page.waitForSelector(`[role=table][aria-rowcount="${count}"]`, { timeout: 120_000 });
  }
  return times;
}

/** Scrolls the list one screen per frame for 2 s; frames per second drawn. */
function scrollFps(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const el = document.querySelector('.table-scroll')!;
        let frames = 0;
        const t0 = performance.now();
        const tick = (t: number) => {
          frames++;
          el.scrollTop += 800;
          if (t - t0 < 2000) requestAnimationFrame(tick);
          else resolve((frames * 1000) / (t - t0));
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

export async function benchApp(api: Proc, nodes: number, podsPerNode: number) {
  console.log(`\n== App at ${nodes} nodes and ${nodes * podsPerNode} pods in Chromium (${machine()})`);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // tsx keeps function names with a __name helper the page does not have.
    await page.addInitScript('window.__name = (f) => f');
    for (const [route, count, path] of [['/nodes', nodes, '/api/v1/nodes'], ['/pods', nodes * podsPerNode, '/api/v1/pods']] as const) {
      const plain = await plainList(page, api, path, 3);
      const app = await firstRows(page, api, route, count, 3);
      console.log(`  ${route}: first rows ${f(median(app))} ms from navigation (median; runs ${app.map((t) => f(t)).join(', ')}; aim 500 ms) = ${(median(app) / plain).toFixed(2)}x a plain table of the same list (${f(plain)} ms)`);
      console.log(`    scroll: ${f(await scrollFps(page))} frames/s (aim 60)`);
      const filters = [await filterMs(page, '0042'), await filterMs(page, '')];
      const sorts = [await sortMs(page, 'Name'), await sortMs(page, 'Name')];
      console.log(`    filter by name: ${filters.map((t) => f(t)).join(' / ')} ms (set, cleared); sort: ${sorts.map((t) => f(t)).join(' / ')} ms (descending, ascending) (aim 100 ms)`);
      const heap = await (await page.context().newCDPSession(page)).send('Runtime.getHeapUsage');
      console.log(`    JS heap: ${f(heap.usedSize / 1e6)} MB (aim: under 400 MB)`);
    }
  } finally {
    await browser.close();
  }
}
