import { expect, test } from '@playwright/test';
import { apiRequest } from './helpers.ts';
import { daemonSetOnOwnNodes } from './daemonset-fixture.ts';

// The DaemonSet page's node groups and search, for DaemonSets too large to
// read row by row: one row per zone with its nodes per rollout state, a count
// that picks its nodes, and a search for stalled nodes by name or reason.
const NS = 'default';
const NAME = 'grouped';
const NODES = ['gr-1', 'gr-2', 'gr-3', 'gr-4'];
const zoneOf = (n: string) => (n === 'gr-4' ? 'zone-y' : 'zone-x');

test.beforeAll(async () => {
  await daemonSetOnOwnNodes({ name: NAME, namespace: NS, nodes: NODES, selector: { rollout: 'groups' }, nodeLabels: (n) => ({ 'topology.kubernetes.io/zone': zoneOf(n) }) });
});

test('groups count the nodes per state, a count picks them, and the search finds the stalled node', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}?stall=5`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`);
  const groups = page.getByRole('table', { name: 'Node groups' });
  await expect(groups).toHaveAttribute('data-nodes-total', '4');
  await expect(groups.locator('tr[data-group="zone-x"] [data-pick="zone-x/updated"]')).toHaveText('3');
  await expect(groups.locator('tr[data-group="zone-y"] [data-pick="zone-y/updated"]')).toHaveText('1');

  // gr-2 cannot pull the new image: its node stalls, and its zone's row says so.
  expect((await apiRequest('/api/v1/nodes/gr-2', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } }, 'application/merge-patch+json')).status).toBe(200);
  const path = `/apis/apps/v1/namespaces/${NS}/daemonsets/${NAME}`;
  const ds = (await apiRequest(path)).body;
  ds.spec.template.spec.containers[0].image = 'agent:v2';
  expect((await apiRequest(path, 'PUT', ds)).status).toBe(200);
  await expect(groups.locator('[data-pick="zone-x/stalled"]')).toHaveText('1', { timeout: 30_000 });
  await expect(groups.locator('tr[data-group="zone-y"] [data-pick="zone-y/stalled"]')).toHaveCount(0);

  // The count picks those nodes in the list below.
  await groups.locator('[data-pick="zone-x/stalled"]').click();
  const grid = page.getByRole('table', { name: 'Nodes and their daemon pods' });
  await expect(page.locator('[data-nodes-shown]')).toHaveAttribute('data-nodes-shown', '1');
  await expect(grid.locator('[role=row][data-node]')).toHaveCount(1);
  await expect(grid.locator('[data-node="gr-2"]')).toHaveAttribute('data-state', 'stalled');
  await page.getByRole('button', { name: 'Show all', exact: true }).click();
  await expect(page.locator('[data-nodes-shown]')).toHaveAttribute('data-nodes-shown', '4');

  // The search matches a node's name, a label value, or why its pod waits.
  const search = page.getByRole('searchbox', { name: 'Find nodes' });
  await search.fill('ImagePullBackOff');
  await expect(grid.locator('[role=row][data-node]')).toHaveCount(1);
  await expect(grid.locator('[data-node="gr-2"]')).toBeVisible();
  await search.fill('zone-y');
  await expect(grid.locator('[role=row][data-node]')).toHaveCount(1);
  await expect(grid.locator('[data-node="gr-4"]')).toBeVisible();
  await search.fill('');
  await page.getByLabel('Which nodes').selectOption('stalled');
  await expect(grid.locator('[role=row][data-node]')).toHaveCount(1);

  // Grouped by rollout state, one row per state.
  await page.getByLabel('Which nodes').selectOption('');
  await page.getByLabel('Group nodes by').selectOption('state');
  await expect(groups.locator('tr[data-group="stalled"]')).toContainText('1');
  await expect(grid.locator('.node-grid-group').first()).toContainText('Stalled');
  expect((await apiRequest('/api/v1/nodes/gr-2', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': null } } }, 'application/merge-patch+json')).status).toBe(200);
});
