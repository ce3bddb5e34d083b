import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, kubectl, nodeManifest } from './helpers.ts';

// An intent declared in the app, broken by a policy applied with kubectl,
// seen violated with the policy responsible, and fixed with one click through
// the normal editor (Review, Create), after which it is met again.
const NS = 'rxi-e2e';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: name } },
  spec: { nodeName: 'rxi-node', containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080 }] }] },
});

const denyAll = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny-all', namespace: NS },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};

async function applyFile(manifest: unknown) {
  const file = join(mkdtempSync(join(tmpdir(), 'kw-e2e-')), 'manifest.json');
  writeFileSync(file, JSON.stringify(manifest));
  return kubectl('apply', '-f', file);
}

test.beforeAll(async () => {
  // 409 when a retried worker runs this again on the same server.
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('rxi-node'));
  expect([201, 409]).toContain((await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status);
  for (const name of ['web', 'api', 'batch']) expect([201, 409]).toContain((await apiRequest(`/api/v1/namespaces/${NS}/pods`, 'POST', pod(name))).status);
});

test('declare an intent, break it with kubectl, see the violation, fix it with one click, see it met', async ({ page }) => {
  test.setTimeout(150_000);
  await page.goto('/reachability?view=intents');
  await page.getByRole('button', { name: 'New intent' }).click();
  const form = page.getByRole('form', { name: 'New intent' });
  await form.getByLabel('Intent name').fill('web-reaches-api');
  await form.getByLabel('From namespace').fill(NS);
  await form.getByLabel('From pods').fill('app=web');
  await form.getByLabel('To namespace').fill(NS);
  await form.getByLabel('To pods').fill('app=api');
  await form.getByLabel('Intent port').fill('8080');
  await form.getByRole('button', { name: 'Save intent' }).click();

  const intent = page.locator('li[data-intent="web-reaches-api"]');
  await expect(intent).toHaveAttribute('data-status', 'met');
  // Stored as the documented ConfigMap.
  const cm = await apiRequest('/api/v1/namespaces/default/configmaps/reachability-intents');
  expect(cm.status).toBe(200);
  expect((cm.body as { metadata: { labels: Record<string, string> }; data: Record<string, string> }).metadata.labels['kube-workbench.io/intents']).toBe('true');
  expect((cm.body as { data: Record<string, string> }).data['intents.yaml']).toContain('name: web-reaches-api');

  const r = await applyFile(denyAll);
  expect(r.code, r.stderr).toBe(0);
  await expect(intent).toHaveAttribute('data-status', 'violated');
  await expect(intent).toContainText(`${NS}/web → ${NS}/api`);
  await expect(intent.getByRole('link', { name: `${NS}/deny-all` })).toBeVisible();
  await page.screenshot({ path: 'test-results/reachability-intents-violated.png', fullPage: true });

  await intent.getByRole('button', { name: 'Fix' }).click();
  const fix = page.getByTestId('fix');
  await expect(fix.getByTestId('fix-change')).toHaveCount(1);
  // The narrowest change: only web → api on TCP 8080 becomes allowed, nothing is denied.
  await expect(fix).toContainText('+1 allowed');
  await expect(fix).toContainText('−0 denied');
  await expect(fix.locator(`li[data-pair="${NS}/web>${NS}/api"]`)).toContainText('TCP 8080');
  await page.screenshot({ path: 'test-results/reachability-intents-fix.png', fullPage: true });
  await fix.getByRole('button', { name: 'Open in editor' }).click();

  // The normal editor, with the proposed policy as its draft; the what-if names the intent it satisfies.
  await expect(page).toHaveURL(/\/new\/networkpolicies/);
  await expect(page.getByTestId('whatif-intents')).toContainText('satisfies intent web-reaches-api');
  await page.getByRole('button', { name: /Review and create/ }).click();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).not.toHaveURL(/\/new\//);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reachability' }).click();
  await page.getByRole('tab', { name: 'Intents' }).click();
  await expect(page.locator('li[data-intent="web-reaches-api"]')).toHaveAttribute('data-status', 'met');
  await expect(page.getByTestId('intents-summary')).toHaveText('1 of 1 intents met');
  await page.screenshot({ path: 'test-results/reachability-intents-met.png', fullPage: true });
});

test('a matrix cell offers a fix, and the matrix exports as CSV, Markdown and PNG', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/reachability?port=8080');
  const cell = page.locator(`button.rx-cell[data-from="${NS}/batch"][data-to="${NS}/api"]`);
  await expect(cell).toHaveAttribute('data-state', 'denied');
  await cell.click();
  await page.getByRole('button', { name: 'Fix: allow' }).click();
  const fix = page.getByTestId('fix');
  await expect(fix).toContainText(`${NS}/batch → ${NS}/api on TCP 8080`);
  await expect(fix).toContainText('+1 allowed');

  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'CSV' }).click()]);
  expect(csv.suggestedFilename()).toBe('reachability-tcp-8080.csv');
  const text = readFileSync((await csv.path())!, 'utf8');
  expect(text.split('\r\n')[0]).toContain(`${NS}/api`);
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'Markdown' }).click()]);
  expect(readFileSync((await md.path())!, 'utf8')).toMatch(/^\| TCP 8080: source/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'PNG' }).click()]);
  expect(readFileSync((await png.path())!).subarray(1, 4).toString()).toBe('PNG');
});
