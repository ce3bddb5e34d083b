// A list longer than its first page: the rest comes in later pages, read in
// the app's wire worker and handed to the main thread in runs, and the watch
// starts from the last page's revision. The other specs' lists fit in one page.
import { expect, test } from '@playwright/test';
import { apiRequest } from './helpers.ts';

const NS = 'paged';
const COUNT = 260;
const policy = (i: number) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: `np-${String(i).padStart(3, '0')}`, namespace: NS },
  spec: { podSelector: { matchLabels: { app: `a${i}` } }, policyTypes: ['Ingress'] },
});
const policies = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;

test.beforeAll(async () => {
  await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (let i = 0; i < COUNT; i += 20) {
    const made = await Promise.all(Array.from({ length: Math.min(20, COUNT - i) }, (_, j) => apiRequest(policies, 'POST', policy(i + j))));
    expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
  }
});

// The reachability specs read every namespace's policies.
test.afterAll(async () => {
  expect((await apiRequest(policies, 'DELETE')).status).toBe(200);
  expect((await apiRequest(policies)).body.items).toEqual([]);
});

test('a list of several pages shows every object, and stays live from the last page on', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const continued: string[] = [];
  page.context().on('request', (r) => r.url().includes('continue=') && continued.push(r.url()));
  await page.goto(`/networkpolicies?ns=${NS}`);
  await expect(page.locator(`[role=table][aria-rowcount="${COUNT}"]`)).toBeVisible();
  expect(continued.length).toBeGreaterThan(0);

  // The last object is there, found by name: it came in a later page.
  const filter = page.getByPlaceholder(/Filter by name/);
  await filter.fill(`np-${COUNT - 1}`);
  await expect(page.locator('[role=row][data-name]')).toHaveCount(1);
  await expect(page.locator(`[role=row][data-name="np-${COUNT - 1}"]`)).toBeVisible();
  await filter.fill('');

  // Written after the list was read, it arrives by the watch.
  expect((await apiRequest(policies, 'POST', policy(COUNT))).status).toBe(201);
  await expect(page.locator(`[role=table][aria-rowcount="${COUNT + 1}"]`)).toBeVisible();
  await filter.fill(`np-${COUNT}`);
  await expect(page.locator(`[role=row][data-name="np-${COUNT}"]`)).toBeVisible();
  expect(errors).toEqual([]);
});
