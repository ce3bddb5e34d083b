import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { apiRequest, nodeManifest } from './helpers.ts';
import { E2E_KUBECONFIG } from '../playwright.config.ts';

// The app served by `kubectl proxy --www=dist` (at its default prefix
// /static/, the API at the root), as one would run it against any cluster.
const PROXY_PORT = 18735;
let proxy: ChildProcess;

test.beforeAll(async () => {
  // With the kubeconfig the server wrote: kubectl proxy adds the credentials the page does not have.
  proxy = spawn('kubectl', ['proxy', '--port', String(PROXY_PORT), '--www', resolve('dist')], { stdio: 'ignore', env: { ...process.env, KUBECONFIG: E2E_KUBECONFIG } });
  await expect.poll(async () => (await fetch(`http://127.0.0.1:${PROXY_PORT}/version`).catch(() => undefined))?.status, { timeout: 15_000 }).toBe(200);
});

test.afterAll(() => {
  proxy?.kill();
});

test('the app runs under kubectl proxy --www=dist and stays live', async ({ page }) => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('via-proxy-1'));
  await page.goto(`http://127.0.0.1:${PROXY_PORT}/static/`);
  await page.getByRole('link', { name: 'Nodes', exact: true }).click();
  await expect(page).toHaveURL(`http://127.0.0.1:${PROXY_PORT}/static/nodes`);
  await expect(page.locator('[role=row][data-name="via-proxy-1"]')).toBeVisible();
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('via-proxy-2'));
  await expect(page.locator('[role=row][data-name="via-proxy-2"]')).toBeVisible();
  await page.locator('[role=row][data-name="via-proxy-2"]').click();
  await expect(page).toHaveURL(`http://127.0.0.1:${PROXY_PORT}/static/nodes/via-proxy-2`);
  await expect(page.getByRole('heading', { name: 'via-proxy-2' })).toBeVisible();
});
