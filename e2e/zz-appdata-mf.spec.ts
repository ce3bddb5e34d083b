// Temporary (not committed): an object from a later page shows its managedFields exactly in the YAML tab.
import { expect, test } from '@playwright/test';
import { stringify } from 'yaml';
import { apiRequest } from './helpers.ts';

const NS = 'mfapart';
const COUNT = 130;
const cm = (i: number) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `cm-${String(i).padStart(3, '0')}`, namespace: NS, labels: { n: `e${i}` }, annotations: { k: '"managedFields":[] é' } }, spec: { podSelector: { matchLabels: { app: `a${i}` } }, policyTypes: ['Ingress'] } });
const path = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;

test.beforeAll(async () => {
  await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (let i = 0; i < COUNT; i += 20) await Promise.all(Array.from({ length: Math.min(20, COUNT - i) }, (_, j) => apiRequest(path, 'POST', cm(i + j))));
});

test('later-page object YAML shows managedFields exactly', async ({ page }) => {
  const continued: string[] = [];
  page.context().on('request', (r) => r.url().includes('continue=') && continued.push(r.url()));
  await page.goto(`/networkpolicies?ns=${NS}`);
  await expect(page.locator(`[role=table][aria-rowcount="${COUNT}"]`)).toBeVisible();
  expect(continued.length).toBeGreaterThan(0);
  const name = `cm-${COUNT - 1}`;
  await page.getByPlaceholder(/Filter by name/).fill(name);
  await page.locator(`[role=row][data-name="${name}"] a`).first().click();
  await page.getByRole('tab', { name: 'YAML' }).or(page.getByRole('button', { name: 'YAML' })).first().click();
  const server = (await apiRequest(`${path}/${name}`)).body;
  expect(server.metadata.managedFields.length).toBeGreaterThan(0);
  const shown = await page.locator('pre[aria-label=YAML]').innerText();
  expect(shown.trim()).toBe(stringify(server, { lineWidth: 0 }).trim());
  expect(shown).toContain('managedFields:');
});

test.afterAll(async () => {
  expect((await apiRequest(path, 'DELETE')).status).toBe(200);
});
