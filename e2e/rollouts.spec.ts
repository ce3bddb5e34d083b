import { expect, test } from '@playwright/test';
import { apiRequest, appUrl, kubectl } from './helpers.ts';
import { daemonSetOnOwnNodes } from './daemonset-fixture.ts';

// A DaemonSet on three simulated nodes of its own (label rollout=e2e), so
// nodes other tests create do not join its rollout.
const NS = 'default';
const NAME = 'agent';
const NODES = ['ro-1', 'ro-2', 'ro-3'];
const dsPath = `/apis/apps/v1/namespaces/${NS}/daemonsets`;

test.beforeAll(async () => {
  await daemonSetOnOwnNodes({ name: NAME, namespace: NS, nodes: NODES, selector: { rollout: 'e2e' }, nodeLabels: (n) => ({ 'topology.kubernetes.io/zone': n === 'ro-3' ? 'zone-b' : 'zone-a' }) });
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
  // The timeline draws only while near the screen (a large rollout adds lines many times a second): scrolled to, as a user does.
  await page.getByRole('region', { name: 'Timeline' }).scrollIntoViewIfNeeded();
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
  await expect(page.getByRole('region', { name: 'Rollout' })).toContainText('stalled on 1 node');

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

/** A DaemonSet on the e2e nodes; `spec` is merged into the pod template's spec. */
function daemonSet(name: string, strategy: object, spec: object = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: strategy },
      template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { rollout: 'e2e' }, containers: [{ name: 'main', image: `${name}:v1` }], ...spec } },
    },
  };
}

async function setImage(name: string, image: string, container: object = {}) {
  const r = await apiRequest(`${dsPath}/${name}`, 'PATCH', { spec: { template: { spec: { containers: [{ name: 'main', image, ...container }] } } } }, 'application/merge-patch+json');
  expect(r.status).toBe(200);
}

const annotateNode = async (node: string, value: string | null) =>
  expect((await apiRequest(`/api/v1/nodes/${node}`, 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': value } } }, 'application/merge-patch+json')).status).toBe(200);

test('a surge rollout whose new pod cannot pull its image is flagged stalled with the reason, and no finish time is promised', async ({ page }) => {
  expect((await apiRequest(dsPath, 'POST', daemonSet('surger', { maxSurge: 1, maxUnavailable: 0 }))).status).toBe(201);
  await page.goto(`/daemonsets/${NS}/surger?stall=5`);
  await expect(page.getByTestId('rollout-message')).toHaveText('daemon set "surger" successfully rolled out');
  await annotateNode('ro-2', 'true');
  try {
    await setImage('surger', 'surger:v2');
    // ro-1 surges and finishes; on ro-2 the new pod waits in ImagePullBackOff while the old pod keeps serving.
    const row = grid(page).locator('[data-node="ro-2"]');
    await expect(row).toHaveAttribute('data-state', 'stalled', { timeout: 30_000 });
    const rollout = page.getByRole('region', { name: 'Rollout' });
    await expect(rollout.locator('h2')).toContainText('stalled');
    await expect(rollout.locator('h2')).not.toContainText('in progress');
    await expect(page.getByTestId('rollout-estimate')).toContainText('stalled on 1 node');
    await expect(page.getByTestId('rollout-estimate')).not.toContainText('left');
    // The reason in full, the image included.
    await expect(page.getByRole('region', { name: 'Stalled nodes' }).locator('[data-stalled-node="ro-2"]')).toContainText('main: ImagePullBackOff: Back-off pulling image "surger:v2"');
    await expect(row.locator('.pod-chip.rev-old')).toHaveCount(1);
  } finally {
    await annotateNode('ro-2', null);
  }
  await expect(page.getByTestId('rollout-message')).toHaveText('daemon set "surger" successfully rolled out', { timeout: 45_000 });
  await expect(page.getByRole('region', { name: 'Stalled nodes' })).toHaveCount(0);
});

test('surge with a host port stalls, as upstream: the view says the old pod holds the port; maxUnavailable finishes the rollout', async ({ page }) => {
  const container = (image: string) => ({ ports: [{ name: 'metrics', containerPort: 9100 }], image });
  const ds = daemonSet('exporter', { maxSurge: 1, maxUnavailable: 0 }, { hostNetwork: true, containers: [{ name: 'main', ...container('exporter:v1') }] });
  expect((await apiRequest(dsPath, 'POST', ds)).status).toBe(201);
  await page.goto(`/daemonsets/${NS}/exporter?stall=5`);
  await expect(page.getByTestId('rollout-message')).toHaveText('daemon set "exporter" successfully rolled out');
  await expect(page.getByTestId('strategy-warning')).toContainText('maxSurge with host port 9100/TCP cannot progress');
  await setImage('exporter', 'exporter:v2', container('exporter:v2'));

  const stalled = grid(page).locator('[data-state="stalled"]');
  await expect(stalled).toHaveCount(1, { timeout: 30_000 });
  const explained = page.getByRole('region', { name: 'Stalled nodes' });
  await expect(explained).toContainText(/new pod cannot start: host port 9100\/TCP is held by the old pod exporter-\w+; maxSurge with hostPort cannot progress — use maxUnavailable/);
  const pending = (await apiRequest(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dexporter`)).body.items.filter((p: any) => !p.spec.nodeName);
  expect(pending).toHaveLength(1);
  expect(pending[0].status.conditions.find((c: any) => c.type === 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable' });

  // Switch to maxUnavailable from the page's strategy editor.
  await page.getByRole('button', { name: 'Edit strategy' }).click();
  const form = page.getByRole('form', { name: 'Update strategy form' });
  await form.locator('#f-spec-updateStrategy-rollingUpdate-maxSurge').fill('0');
  await form.locator('#f-spec-updateStrategy-rollingUpdate-maxUnavailable').fill('1');
  await form.getByRole('button', { name: 'Apply strategy' }).click();
  await expect(page.getByTestId('rollout-message')).toHaveText('daemon set "exporter" successfully rolled out', { timeout: 45_000 });
  await expect(page.getByTestId('strategy-warning')).toHaveCount(0);
  await expect(grid(page).locator('[data-state="updated"]')).toHaveCount(3);
});

test('the DaemonSet page loads Monaco only when the revision diff is opened', async ({ page }) => {
  const scripts: { url: string; bytes: number }[] = [];
  page.on('response', async (r) => {
    if (r.request().resourceType() === 'script') scripts.push({ url: r.url(), bytes: (await r.body().catch(() => Buffer.alloc(0))).length });
  });
  const monaco = () => scripts.filter((s) => /DiffEditor|YamlEditor|editor\.worker/.test(s.url) || s.bytes > 1_500_000);
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  const history = page.getByRole('region', { name: 'History' });
  await expect(history.locator('tr[data-revision]').first()).toBeVisible();
  await expect(page.getByTestId('rollout-message')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(monaco()).toEqual([]);
  await history.getByRole('button', { name: 'Compare revisions' }).click();
  await expect(history.getByTestId('diff-editor').locator('.monaco-diff-editor')).toBeVisible();
  expect(monaco().some((s) => /DiffEditor/.test(s.url))).toBe(true);
  expect(monaco().some((s) => s.bytes > 1_500_000)).toBe(true);
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
