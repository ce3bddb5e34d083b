import { expect, test } from '@playwright/test';
import { apiRequest, appUrl, kubectl, nodeManifest } from './helpers.ts';

// A DaemonSet on three simulated nodes of its own (label rollout=e2e), so
// nodes other tests create do not join its rollout.
const NS = 'default';
const NAME = 'agent';
const NODES = ['ro-1', 'ro-2', 'ro-3'];
const dsPath = `/apis/apps/v1/namespaces/${NS}/daemonsets`;

test.beforeAll(async () => {
  for (const n of NODES) expect((await apiRequest('/api/v1/nodes', 'POST', nodeManifest(n, { rollout: 'e2e', 'topology.kubernetes.io/zone': n === 'ro-3' ? 'zone-b' : 'zone-a' }))).status).toBe(201);
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: NAME, namespace: NS },
    spec: {
      selector: { matchLabels: { app: NAME } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: { metadata: { labels: { app: NAME } }, spec: { nodeSelector: { rollout: 'e2e' }, containers: [{ name: 'agent', image: 'agent:v1' }] } },
    },
  };
  expect((await apiRequest(dsPath, 'POST', ds)).status).toBe(201);
});

const grid = (page: import('@playwright/test').Page) => page.getByRole('table', { name: 'Nodes and their daemon pods' });

test('an image changed in the UI rolls out to done, as kubectl rollout status says', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`);

  // Change the image through the editor's form.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:v2');
  await page.getByRole('button', { name: /Review changes/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl(`/daemonsets/${NS}/${NAME}`));

  // Progress reaches done, and every node shows the new revision.
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 45_000 });
  await expect(page.getByTestId('rollout-updated')).toHaveText('3 / 3');
  await expect(grid(page).locator('[data-state="updated"]')).toHaveCount(3);
  await expect(grid(page).locator('.pod-chip.rev-old')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Timeline' })).toContainText('is available');
  const kubectlSays = await kubectl('rollout', 'status', `ds/${NAME}`, '-n', NS, '--timeout=30s');
  expect(kubectlSays.code).toBe(0);
  expect(kubectlSays.stdout.trim()).toBe(await page.getByTestId('rollout-message').innerText());
  await expect(page.getByRole('region', { name: 'History' }).locator('tr[data-revision]')).toHaveCount(2);
});

test('a node fault stalls the rollout on that node, and a rollback rolls the old revision out', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}?stall=5`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`);
  // The node cannot pull images: the old pod there goes, the new one waits in ImagePullBackOff.
  expect((await apiRequest('/api/v1/nodes/ro-3', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } }, 'application/merge-patch+json')).status).toBe(200);
  const ds = (await apiRequest(`${dsPath}/${NAME}`)).body;
  ds.spec.template.spec.containers[0].image = 'agent:v3';
  expect((await apiRequest(`${dsPath}/${NAME}`, 'PUT', ds)).status).toBe(200);

  const stalled = grid(page).locator('[data-node="ro-3"]');
  await expect(stalled).toHaveAttribute('data-state', 'stalled', { timeout: 30_000 });
  await expect(stalled).toContainText('ImagePullBackOff');
  await expect(page.getByRole('region', { name: 'Rollout' })).toContainText('1 stalled');

  // Recover the node, then roll back to the first revision from the history.
  expect((await apiRequest('/api/v1/nodes/ro-3', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': null } } }, 'application/merge-patch+json')).status).toBe(200);
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Roll back to 1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 45_000 });
  await expect(grid(page).locator('[data-state="updated"]')).toHaveCount(3);
  const images = await kubectl('get', 'pods', '-n', NS, '-l', `app=${NAME}`, '-o', 'jsonpath={.items[*].spec.containers[0].image}');
  expect(images.stdout.split(' ').sort()).toEqual(['agent:v1', 'agent:v1', 'agent:v1']);
  await expect(history.locator('tr[data-revision="4"]')).toContainText('current');
});

test('deleting a DaemonSet while keeping its pods orphans them, as kubectl delete --cascade=orphan', async ({ page }) => {
  const keep = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'keeper', namespace: NS },
    spec: { selector: { matchLabels: { app: 'keeper' } }, template: { metadata: { labels: { app: 'keeper' } }, spec: { nodeSelector: { rollout: 'e2e' }, containers: [{ name: 'k', image: 'keeper:v1' }] } } },
  };
  expect((await apiRequest(dsPath, 'POST', keep)).status).toBe(201);
  await page.goto(`/daemonsets/${NS}/keeper`);
  await expect(page.getByTestId('rollout-message')).toHaveText('daemon set "keeper" successfully rolled out');
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('keep them, without their owner').check();
  await dialog.getByRole('button', { name: 'Delete keeper' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets'));
  await expect.poll(async () => (await apiRequest(`${dsPath}/keeper`)).status, { timeout: 15_000 }).toBe(404);
  const pods = (await apiRequest(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dkeeper`)).body.items;
  expect(pods).toHaveLength(3);
  for (const p of pods) expect(p.metadata.ownerReferences ?? []).toEqual([]);
});
