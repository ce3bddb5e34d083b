import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { apiRequest, nodeManifest } from './helpers.ts';

// Events in the app: a node annotated to fail image pulls makes the rollout
// view show the kubelet's warning beside that node; the DaemonSet's page lists
// its controller's events; the Events page filters the cluster's events.
const NS = 'default';
const NAME = 'ev-agent';
const dsPath = `/apis/apps/v1/namespaces/${NS}/daemonsets`;

test.beforeAll(async () => {
  // Idempotent: a retried worker runs this again against the same server.
  for (const n of ['ev-1', 'ev-2']) expect([201, 409]).toContain((await apiRequest('/api/v1/nodes', 'POST', nodeManifest(n, { events: 'e2e' }))).status);
  const patched = await apiRequest('/api/v1/nodes/ev-2', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } }, 'application/merge-patch+json');
  expect(patched.status).toBe(200);
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: NAME, namespace: NS },
    spec: {
      selector: { matchLabels: { app: NAME } },
      template: { metadata: { labels: { app: NAME } }, spec: { nodeSelector: { events: 'e2e' }, containers: [{ name: 'agent', image: 'agent:ev1' }] } },
    },
  };
  expect([201, 409]).toContain((await apiRequest(dsPath, 'POST', ds)).status);
});

test('the rollout view shows the kubelet\'s warning next to the node that cannot pull, and the DaemonSet its events', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}?stall=5`);
  const grid = page.getByRole('table', { name: 'Nodes and their daemon pods' });
  const warning = grid.locator('[data-node-warning="ev-2"]');
  await expect(warning).toContainText('Failed (kubelet): Error: ImagePullBackOff', { timeout: 30_000 });
  await expect(grid.locator('[data-node-warning="ev-1"]')).toHaveCount(0);
  // Once stalled, the stalled list says why too.
  await expect(page.getByRole('region', { name: 'Stalled nodes' })).toContainText('last warning: Failed (kubelet): Error: ImagePullBackOff', { timeout: 30_000 });

  const events = page.getByRole('region', { name: 'Events' });
  await expect(events.locator('tr[data-reason="SuccessfulCreate"]')).toHaveCount(2);
  await expect(events).toContainText(/Created pod: ev-agent-\w{5}/);
  await expect(events).toContainText('daemonset-controller');
});

test('a pod\'s page marks its warnings; the Events page filters by type and reason', async ({ page }) => {
  const pods = (await apiRequest(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${NAME}&fieldSelector=spec.nodeName%3Dev-2`)).body.items;
  expect(pods).toHaveLength(1);
  await page.goto(`/pods/${NS}/${pods[0].metadata.name}`);
  const section = page.getByRole('region', { name: 'Events' });
  await expect(section.locator('tr.event-warning').first()).toBeVisible();
  await expect(section).toContainText('Failed to pull image "agent:ev1"');

  await page.goto('/events?type=Warning');
  const list = page.getByRole('table', { name: 'Events' });
  await expect(list.locator('[data-reason="Failed"]').first()).toBeVisible();
  await expect(list.locator('[data-reason="SuccessfulCreate"]')).toHaveCount(0);
  await page.getByLabel('Type').selectOption('');
  await page.getByLabel('Reason').selectOption('SuccessfulCreate');
  await expect(list.locator('[role="row"][data-reason]').first()).toHaveAttribute('data-reason', 'SuccessfulCreate');
  await expect(list).toContainText('DaemonSet/ev-agent');
  await list.getByRole('link', { name: 'DaemonSet/ev-agent' }).first().click();
  await expect(page).toHaveURL(/\/daemonsets\/default\/ev-agent/);
});

test('the Overview lists the warnings by reason, each opening the Events page chosen to it', async ({ page }) => {
  await page.goto('/');
  const panel = page.getByRole('region', { name: 'Warning events' });
  // The kubelet on ev-2 warns that it cannot pull.
  const failed = panel.locator('tr[data-reason="Failed"]');
  await expect(failed).toContainText(/(once|\d+ times) on \d+ Pods?/, { timeout: 30_000 });
  await failed.getByRole('link', { name: 'Failed' }).click();
  await expect(page).toHaveURL(/\/events\?type=Warning&reason=Failed$/);
  const list = page.getByRole('table', { name: 'Events' });
  await expect(list.locator('[data-reason="Failed"]').first()).toBeVisible();
  await expect(list).toContainText('Failed to pull image "agent:ev1"');
});

test('the Events page and a page with warnings pass axe\'s WCAG 2.1 AA checks', async ({ page }) => {
  test.setTimeout(180_000);
  const pods = (await apiRequest(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${NAME}&fieldSelector=spec.nodeName%3Dev-2`)).body.items;
  // The whole Events page and DaemonSet page; on a pod's page its Events section (the rest is the detail page's).
  for (const [path, scope, warning] of [
    ['/events', 'main', '.event-warning'],
    [`/daemonsets/${NS}/${NAME}`, 'main', '[data-node-warning]'],
    [`/pods/${NS}/${pods[0].metadata.name}`, 'section[aria-label="Events"]', '.event-warning'],
  ]) {
    await page.goto(path);
    await expect(page.getByTestId('connection')).toHaveText(/Live/);
    await expect(page.locator(warning).first()).toBeVisible();
    const result = await new AxeBuilder({ page }).include(scope).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), path).toEqual([]);
  }
});
