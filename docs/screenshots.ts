// Takes the screenshots of docs/GUIDE.md: builds the app, starts the server
// with the demo cluster on a fresh data dir, starts a rollout so one is
// caught halfway, and photographs the main pages in Chromium.
//   npx tsx docs/screenshots.ts
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';

const OUT = 'docs/img';

execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { stdio: 'inherit' });
const dataDir = mkdtempSync(join(tmpdir(), 'kw-docs-'));
const server = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((resolve, reject) => {
  let out = '';
  server.stdout!.on('data', (d) => {
    out += d;
    const m = /web app: (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
});

const api = async (path: string, init: RequestInit = {}) => (await fetch(base + path, { ...init, headers: { 'Content-Type': 'application/json' } })).json();

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
const page = await context.newPage();

async function shot(name: string, path: string, prepare?: (page: Page) => Promise<void>) {
  await page.goto(base + path);
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  await prepare?.(page);
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${OUT}/${name}.png` });
  console.log(`${OUT}/${name}.png`);
}

try {
  // Let the demo's DaemonSets settle, then start a rollout of node-exporter.
  await page.waitForTimeout(8000);
  const path = '/apis/apps/v1/namespaces/monitoring/daemonsets/node-exporter';
  const ds = await api(path);
  ds.spec.template.spec.containers[0].image = ds.spec.template.spec.containers[0].image.replace(/:v?[\d.]+$/, ':v1.9.0');
  await api(path, { method: 'PUT', body: JSON.stringify(ds) });

  await shot('overview', '/');
  await shot('rollout', '/daemonsets/monitoring/node-exporter', async (p) => {
    await p.getByTestId('rollout-message').filter({ hasText: /3 out of 8|4 out of 8/ }).waitFor({ timeout: 60_000 });
  });
  await shot('nodes', '/nodes?wide=1');
  await shot('node', '/nodes/worker-a1');
  await shot('netpol-form', '/edit/networkpolicies/shop/backend-from-frontend');
  await shot('netpol-yaml', '/edit/networkpolicies/shop/backend-from-frontend', async (p) => {
    await p.getByRole('tab', { name: 'YAML' }).click();
    await p.locator('.monaco-editor').waitFor();
    await p.getByText('computing…').waitFor({ state: 'detached' });
  });
  await shot('reachability-matrix', '/reachability?port=5432', async (p) => {
    await p.getByRole('table').or(p.locator('canvas')).first().waitFor();
  });
  await shot('reachability-graph', '/reachability?tab=graph', async (p) => {
    await p.locator('svg').last().waitFor();
  });
  await page.evaluate(() => localStorage.setItem('kw.theme', 'dark'));
  await shot('rollout-dark', '/daemonsets/monitoring/node-exporter');
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
