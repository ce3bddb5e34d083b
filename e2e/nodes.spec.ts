import { expect, test } from '@playwright/test';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, appUrl, kubectl, nodeManifest } from './helpers.ts';
import { E2E_TOKEN } from '../playwright.config.ts';

test.beforeAll(async () => {
  for (const [name, zone] of [['e2e-a', 'east'], ['e2e-b', 'west'], ['e2e-c', 'east']]) {
    await apiRequest('/api/v1/nodes', 'POST', nodeManifest(name, { 'topology.kubernetes.io/zone': zone, 'node-role.kubernetes.io/worker': '' }, name !== 'e2e-c'));
  }
});

test('the node list shows the nodes with kubectl-like columns', async ({ page }) => {
  await page.goto('/nodes');
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
  for (const name of ['e2e-a', 'e2e-b', 'e2e-c']) await expect(page.locator(`[role=row][data-name="${name}"]`)).toBeVisible();
  const row = page.locator('[role=row][data-name="e2e-c"]');
  await expect(row).toContainText('NotReady');
  await expect(row).toContainText('worker');
  await expect(page.getByTestId('connection')).toHaveText(/Live/);
});

test('a label selector filters the list and lives in the URL', async ({ page }) => {
  await page.goto('/nodes');
  const selector = page.getByLabel('Label selector');
  await selector.fill('topology.kubernetes.io/zone in (west)');
  await selector.press('Enter');
  await expect(page.locator('[role=row][data-name]')).toHaveCount(1);
  await expect(page).toHaveURL(/l=topology/);
  await page.reload();
  await expect(page.locator('[role=row][data-name]')).toHaveCount(1);
  await selector.fill('zone in (');
  await expect(page.locator('.field-error')).toBeVisible();
});

test('a node created with kubectl appears without a reload', async ({ page }) => {
  await page.goto('/nodes');
  await expect(page.locator('[role=row][data-name="e2e-a"]')).toBeVisible();
  const dir = mkdtempSync(join(tmpdir(), 'kw-e2e-'));
  const file = join(dir, 'node.json');
  writeFileSync(file, JSON.stringify(nodeManifest('from-kubectl')));
  const r = await kubectl('create', '-f', file);
  expect(r.code, r.stderr).toBe(0);
  await expect(page.locator('[role=row][data-name="from-kubectl"]')).toBeVisible();
});

test('a node deleted in the UI is gone for kubectl', async ({ page }) => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('doomed-node'));
  await page.goto('/nodes/doomed-node');
  await expect(page.getByRole('heading', { name: 'doomed-node' })).toBeVisible();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Delete node doomed-node?');
  await dialog.getByRole('button', { name: 'Delete doomed-node' }).click();
  await expect(page).toHaveURL(appUrl('/nodes'));
  const r = await kubectl('get', 'node', 'doomed-node');
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('NotFound');
});

test('cordon from the detail page shows SchedulingDisabled', async ({ page }) => {
  await page.goto('/nodes/e2e-b');
  await page.getByRole('button', { name: 'Cordon' }).click();
  await expect(page.getByRole('button', { name: 'Uncordon' })).toBeVisible();
  const r = await kubectl('get', 'node', 'e2e-b', '-o', 'jsonpath={.spec.unschedulable}');
  expect(r.stdout).toBe('true');
  await page.getByRole('button', { name: 'Uncordon' }).click();
  await expect(page.getByRole('button', { name: 'Cordon' })).toBeVisible();
});

test('the nodes a label selector shows are cordoned and uncordoned at once, as kubectl cordon -l; a node gone meanwhile is told, the others done', async ({ page }) => {
  for (const name of ['bulk-1', 'bulk-2', 'bulk-3', 'bulk-4']) await apiRequest('/api/v1/nodes', 'POST', nodeManifest(name, { pool: name === 'bulk-4' ? 'other' : 'maint' }));
  await apiRequest('/api/v1/nodes/bulk-2', 'PATCH', { spec: { unschedulable: true } }, 'application/merge-patch+json');
  await page.goto('/nodes?l=pool%3Dmaint');
  await expect(page.locator('[role=row][data-name]')).toHaveCount(3);
  await page.getByRole('button', { name: 'Cordon shown', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Cordon 2 nodes?');
  await expect(dialog).toContainText('bulk-1, bulk-3');
  await expect(dialog).toContainText('1 other node shown is cordoned already and left as it is.');
  // bulk-3 is deleted while the dialog asks: the others are cordoned, and it is named with the server's answer.
  expect((await apiRequest('/api/v1/nodes/bulk-3', 'DELETE')).status).toBe(200);
  await dialog.getByRole('button', { name: 'Cordon 2 nodes' }).click();
  await expect(dialog.getByTestId('bulk-progress')).toContainText('1 of 2 nodes cordoned, 1 failed.');
  await expect(dialog.getByRole('alert')).toContainText('bulk-3: NotFound: nodes "bulk-3" not found');
  await page.screenshot({ path: 'test-results/nodes-cordon-shown.png' });
  await dialog.getByRole('button', { name: 'Done' }).click();
  const unschedulable = async (name: string) => (await kubectl('get', 'node', name, '-o', 'jsonpath={.spec.unschedulable}')).stdout;
  expect(await unschedulable('bulk-1')).toBe('true');
  expect(await unschedulable('bulk-2')).toBe('true');
  expect(await unschedulable('bulk-4')).toBe('');
  // Every node shown is cordoned now: there is nothing left to cordon, and uncordon takes both.
  await expect(page.getByRole('button', { name: 'Cordon shown', exact: true })).toBeDisabled();
  await page.getByRole('button', { name: 'Uncordon shown' }).click();
  await dialog.getByRole('button', { name: 'Uncordon 2 nodes' }).click();
  await expect(dialog.getByTestId('bulk-progress')).toContainText('2 of 2 nodes uncordoned.');
  await dialog.getByRole('button', { name: 'Done' }).click();
  expect(await unschedulable('bulk-1')).toBe('');
  expect(await unschedulable('bulk-2')).toBe('');
  for (const name of ['bulk-1', 'bulk-2', 'bulk-4']) await apiRequest(`/api/v1/nodes/${name}`, 'DELETE');
});

test('the nodes a label selector shows are drained at once, as kubectl drain -l --ignore-daemonsets: cordoned, their pods evicted and gone', async ({ page }) => {
  // Tainted, so that the DaemonSets other tests leave behind put no pods of theirs on these nodes.
  const taints = [{ key: 'e2e/bulk-drain', effect: 'NoSchedule' }];
  for (const name of ['bd-1', 'bd-2']) {
    expect((await apiRequest('/api/v1/nodes', 'POST', { ...nodeManifest(name, { pool: 'drainall' }), spec: { taints } })).status).toBe(201);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `on-${name}`, namespace: 'default' }, spec: { nodeName: name, tolerations: [{ key: 'e2e/bulk-drain', operator: 'Exists' }], containers: [{ name: 'c', image: 'busybox:1.36' }] } };
    expect((await apiRequest('/api/v1/namespaces/default/pods', 'POST', pod)).status).toBe(201);
  }
  await page.goto('/nodes?l=pool%3Ddrainall');
  await expect(page.locator('[role=row][data-name]')).toHaveCount(2);
  await page.getByRole('button', { name: 'Drain shown' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Drain 2 nodes?');
  // Said before anything changes, from the pods each node runs now.
  await expect(dialog.getByTestId('drain-preview')).toContainText('2 pods to evict, on 2 of the 2 nodes.');
  await expect(dialog.getByTestId('drain-preview')).toContainText(/No controller owns (default\/on-bd-1, default\/on-bd-2|default\/on-bd-2, default\/on-bd-1): once evicted, nothing makes them again\./);
  await dialog.getByRole('button', { name: 'Drain 2 nodes' }).click();
  await expect(dialog.getByTestId('bulk-progress')).toContainText('2 of 2 nodes drained (2 pods evicted).');
  await dialog.getByRole('button', { name: 'Done' }).click();
  for (const name of ['bd-1', 'bd-2']) {
    expect((await kubectl('get', 'node', name, '-o', 'jsonpath={.spec.unschedulable}')).stdout).toBe('true');
    // Drained means gone, not asked to go: the drain waited for the kubelet to stop them.
    expect((await apiRequest(`/api/v1/namespaces/default/pods/on-${name}`)).status).toBe(404);
    await apiRequest(`/api/v1/nodes/${name}`, 'DELETE');
  }
});

test('the Status filter finds the few pods and nodes of many that are not as the rest, with how many show each value, and lives in the URL', async ({ page }) => {
  // Tainted, so that the DaemonSets other tests leave behind put no pods of theirs on these nodes.
  const taints = [{ key: 'e2e/status', effect: 'NoSchedule' }];
  const tolerations = [{ key: 'e2e/status', operator: 'Exists' }];
  const pull = nodeManifest('stf-pull');
  expect((await apiRequest('/api/v1/nodes', 'POST', { ...pull, metadata: { ...pull.metadata, annotations: { 'sim.k8s.io/image-pull-error': 'true' } }, spec: { taints } })).status).toBe(201);
  expect((await apiRequest('/api/v1/nodes', 'POST', { ...nodeManifest('stf-ok'), spec: { taints, unschedulable: true } })).status).toBe(201);
  for (const [name, node] of [['stf-cannot-pull', 'stf-pull'], ['stf-runs', 'stf-ok']]) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, tolerations, containers: [{ name: 'c', image: 'busybox:1.36' }] } };
    expect((await apiRequest('/api/v1/namespaces/default/pods', 'POST', pod)).status).toBe(201);
  }
  await page.goto('/pods?q=stf-');
  const rows = page.locator('[role=row][data-name]');
  await expect(rows).toHaveCount(2);
  const status = page.getByLabel('Status', { exact: true });
  // Each value the list shows, with how many pods show it; the kubelet's reason, not the phase.
  await expect(status.locator('option', { hasText: /^ImagePullBackOff \(1\)$/ })).toHaveCount(1);
  await status.selectOption('ImagePullBackOff');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-name', 'stf-cannot-pull');
  expect(new URL(page.url()).searchParams.get('status')).toBe('ImagePullBackOff');
  // The counts are of the rows the name filter lets through: what choosing a value would show.
  await expect(status.locator('option', { hasText: /^not Running \(1\)$/ })).toHaveCount(1);
  await status.selectOption('!Running');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-name', 'stf-cannot-pull');
  await page.reload();
  await expect(page.getByLabel('Status', { exact: true })).toHaveValue('!Running');
  await expect(rows).toHaveCount(1);

  // A node's cordon is a value of its own: every cordoned node, Ready or not.
  await page.goto('/nodes?q=stf-&status=SchedulingDisabled');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-name', 'stf-ok');
  // The Overview's count of cordoned nodes opens the list so filtered.
  await page.goto('/');
  await page.getByRole('link', { name: /^[\d,]+ cordoned$/ }).click();
  await expect(page).toHaveURL(/\/nodes\?status=SchedulingDisabled$/);
  await expect(rows.filter({ hasText: 'stf-ok' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'stf-pull' })).toHaveCount(0);
  for (const name of ['stf-cannot-pull', 'stf-runs']) await apiRequest(`/api/v1/namespaces/default/pods/${name}?gracePeriodSeconds=0`, 'DELETE');
  for (const name of ['stf-pull', 'stf-ok']) await apiRequest(`/api/v1/nodes/${name}`, 'DELETE');
});

test("the VolumeAttachments list filters by its Attached column: the attachment that fails shows alone under false", async ({ page }) => {
  const va = (name: string, annotations?: Record<string, string>) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name, annotations },
    spec: { attacher: 'csi.sim.k8s.io', nodeName: 'stf-va-node', source: { persistentVolumeName: `pv-${name}` } },
  });
  // The attacher attaches to a node that exists (else it reports the node not found).
  expect((await apiRequest('/api/v1/nodes', 'POST', nodeManifest('stf-va-node'))).status).toBe(201);
  expect((await apiRequest('/apis/storage.k8s.io/v1/volumeattachments', 'POST', va('stf-va-ok'))).status).toBe(201);
  expect((await apiRequest('/apis/storage.k8s.io/v1/volumeattachments', 'POST', va('stf-va-fails', { 'sim.k8s.io/attach-error': 'no such volume' }))).status).toBe(201);
  await page.goto('/volumeattachments?q=stf-va');
  const rows = page.locator('[role=row][data-name]');
  await expect(rows).toHaveCount(2);
  const attached = page.getByLabel('Attached', { exact: true });
  // The simulated attacher attaches the one and reports the other's error: one of each.
  await expect(attached.locator('option', { hasText: /^true \(1\)$/ })).toHaveCount(1, { timeout: 15_000 });
  await expect(attached.locator('option', { hasText: /^false \(1\)$/ })).toHaveCount(1);
  // True or false: no "not" to offer.
  await expect(attached.locator('option', { hasText: /^not / })).toHaveCount(0);
  await attached.selectOption('false');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-name', 'stf-va-fails');
  expect(new URL(page.url()).searchParams.get('status')).toBe('false');
  for (const name of ['stf-va-ok', 'stf-va-fails']) await apiRequest(`/apis/storage.k8s.io/v1/volumeattachments/${name}`, 'DELETE');
  await apiRequest('/api/v1/nodes/stf-va-node', 'DELETE');
});

test('drain says which pods leave, cordons the node, evicts them and waits until they are gone, leaving DaemonSet pods alone', async ({ page }) => {
  // Tainted, so that the DaemonSets other tests leave behind put no pods of theirs on it: the preview counts the node's pods.
  const tolerations = [{ key: 'e2e/drain-me', operator: 'Exists' }];
  expect((await apiRequest('/api/v1/nodes', 'POST', { ...nodeManifest('drain-me', { drain: 'me' }), spec: { taints: [{ key: 'e2e/drain-me', effect: 'NoSchedule' }] } })).status).toBe(201);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'evict-me', namespace: 'default' },
    spec: { nodeName: 'drain-me', tolerations, containers: [{ name: 'c', image: 'busybox:1.36' }], volumes: [{ name: 'scratch', emptyDir: {} }] },
  };
  expect((await apiRequest('/api/v1/namespaces/default/pods', 'POST', pod)).status).toBe(201);
  // A DaemonSet of its own on that node: its pod must survive the drain.
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'drain-daemon', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'drain-daemon' } }, template: { metadata: { labels: { app: 'drain-daemon' } }, spec: { nodeSelector: { drain: 'me' }, tolerations, containers: [{ name: 'd', image: 'busybox:1.36' }] } } },
  };
  expect((await apiRequest('/apis/apps/v1/namespaces/default/daemonsets', 'POST', ds)).status).toBe(201);
  const daemonPods = async () => (await apiRequest('/api/v1/namespaces/default/pods?labelSelector=app%3Ddrain-daemon')).body.items.map((p: any) => p.metadata.name);
  await expect.poll(async () => (await daemonPods()).length).toBe(1);
  const [daemonPod] = await daemonPods();
  await page.goto('/nodes/drain-me');
  await page.getByRole('button', { name: 'Drain' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('drain-preview')).toContainText('1 pod to evict; 1 DaemonSet, mirror or finished pod left in place.');
  await expect(dialog.getByTestId('drain-preview')).toContainText('No controller owns default/evict-me: once evicted, nothing makes it again.');
  await expect(dialog.getByTestId('drain-preview')).toContainText('The emptyDir volumes of default/evict-me are deleted with it');
  await dialog.getByRole('button', { name: 'Drain drain-me' }).click();
  await expect(dialog).toContainText('Drained: no pod but those left in place runs on drain-me.');
  await expect(dialog.getByTestId('drain-standing')).toHaveText('1 pod evicted.');
  expect((await kubectl('get', 'node', 'drain-me', '-o', 'jsonpath={.spec.unschedulable}')).stdout).toBe('true');
  expect((await apiRequest('/api/v1/namespaces/default/pods/evict-me')).status).toBe(404);
  expect(await daemonPods()).toEqual([daemonPod]);
});

test("a node's page lists the pods bound to it, in every namespace, live", async ({ page }) => {
  // Tainted, so that the DaemonSets other tests leave behind put no pods of theirs on these nodes.
  const taints = [{ key: 'e2e/node-pods', effect: 'NoSchedule' }];
  for (const name of ['pods-here', 'pods-elsewhere']) expect((await apiRequest('/api/v1/nodes', 'POST', { ...nodeManifest(name), spec: { taints } })).status).toBe(201);
  const pod = (ns: string, name: string, node: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: { nodeName: node, tolerations: [{ key: 'e2e/node-pods', operator: 'Exists' }], containers: [{ name: 'c', image: 'busybox:1.36' }] },
  });
  expect((await apiRequest('/api/v1/namespaces/default/pods', 'POST', pod('default', 'on-it', 'pods-here'))).status).toBe(201);
  expect((await apiRequest('/api/v1/namespaces/default/pods', 'POST', pod('default', 'not-on-it', 'pods-elsewhere'))).status).toBe(201);
  await page.goto('/nodes/pods-here');
  const pods = page.getByRole('region', { name: 'Pods' });
  await expect(pods.locator('tbody tr')).toHaveCount(1);
  await expect(pods.locator('tbody tr')).toContainText('on-it');
  await expect(pods).not.toContainText('not-on-it');
  // A pod bound to the node later, in another namespace, comes without a reload; a deleted one leaves.
  expect((await apiRequest('/api/v1/namespaces/kube-system/pods', 'POST', pod('kube-system', 'came-later', 'pods-here'))).status).toBe(201);
  await expect(pods.locator('tbody tr')).toHaveCount(2);
  await expect(pods.locator('tbody tr').nth(1)).toContainText('kube-system');
  expect((await kubectl('delete', 'pod', 'on-it', '-n', 'default', '--grace-period=0', '--force')).code).toBe(0);
  await expect(pods.locator('tbody tr')).toHaveCount(1);
  await expect(pods).not.toContainText('on-it');
  await pods.getByRole('link', { name: 'came-later' }).click();
  await expect(page).toHaveURL(appUrl('/pods/kube-system/came-later'));
});

test('a dead API base URL shows offline, and the app recovers', async ({ page }) => {
  await page.goto('/settings');
  await page.getByLabel('API base URL').fill('http://127.0.0.1:9');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('link', { name: 'Nodes' }).click();
  await expect(page.getByTestId('connection')).toHaveText(/Offline/);
  await expect(page.getByRole('alert').first()).toContainText('cannot reach');
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Use this server' }).click();
  await page.getByRole('link', { name: 'Nodes' }).click();
  // "Use this server" forgets the saved token too: the server asks for one again.
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Bearer token').fill(E2E_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('[role=row][data-name="e2e-a"]')).toBeVisible();
  await expect(page.getByTestId('connection')).toHaveText(/Live/);
});

test('a node row flashes when a cell it shows changes, not on a change that shows nothing', async ({ page }) => {
  await page.goto('/nodes');
  const row = page.locator('[role=row][data-name="e2e-a"]');
  await expect(row).toBeVisible();
  // A new object with the same cells (heartbeats go to the node's Lease, so the kubelet no longer rewrites the node every 10 s).
  const rv = await row.getAttribute('data-rv');
  expect((await apiRequest('/api/v1/nodes/e2e-a', 'PATCH', { metadata: { annotations: { 'e2e/touched': String(Date.now()) } } }, 'application/merge-patch+json')).status).toBe(200);
  await expect.poll(() => row.getAttribute('data-rv'), { timeout: 30_000 }).not.toBe(rv);
  await expect(row.locator('.row-flash')).toHaveCount(0);
  const cordon = await apiRequest('/api/v1/nodes/e2e-a', 'PATCH', { spec: { unschedulable: true } }, 'application/merge-patch+json');
  expect(cordon.status).toBe(200);
  await expect(row).toContainText('SchedulingDisabled');
  await expect(row.locator('.row-flash')).toHaveCount(1);
  await apiRequest('/api/v1/nodes/e2e-a', 'PATCH', { spec: { unschedulable: null } }, 'application/merge-patch+json');
});
