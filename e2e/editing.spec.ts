import { expect, test } from '@playwright/test';
import { apiRequest, appUrl, editorText, kubectl, nodeManifest, setEditorText } from './helpers.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('create a NetworkPolicy through the form, with an ingress port range', async ({ page }) => {
  await page.goto('/new/networkpolicies?ns=default');
  await expect(page.getByRole('heading', { name: 'New NetworkPolicy' })).toBeVisible();
  await page.locator('#f-metadata-name').fill('web-range');
  const port = page.locator('#f-spec-ingress-0-ports-0-port');
  await port.fill('8000');
  const endPort = page.locator('#f-spec-ingress-0-ports-0-endPort');
  // An endPort below port is refused at the field, before any request.
  let requests = 0;
  page.on('request', (r) => r.url().includes('/networkpolicies') && r.method() !== 'GET' && requests++);
  await endPort.fill('7000');
  await expect(page.locator('[data-field="spec.ingress.0.ports.0.endPort"]')).toContainText('must be greater than or equal to `port`');
  expect(requests).toBe(0);
  await endPort.fill('8080');
  await expect(page.locator('[data-field="spec.ingress.0.ports.0.endPort"]')).toHaveCount(0);
  await page.getByRole('button', { name: /Review and create/ }).click();
  await expect(page.getByRole('region', { name: 'Review' })).toBeVisible();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(appUrl('/networkpolicies/default/web-range'));
  await expect(page.getByText('Allows ingress on TCP 8000-8080')).toBeVisible();
  const r = await kubectl('get', 'netpol', 'web-range', '-n', 'default', '-o', 'jsonpath={.spec.ingress[0].ports[0].endPort}');
  expect(r.stdout).toBe('8080');
});

test('the YAML tab shows the form\'s object, and a YAML edit appears in the form', async ({ page }) => {
  await page.goto('/new/networkpolicies?ns=default');
  await page.locator('#f-metadata-name').fill('yaml-sync');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.locator('.monaco-editor')).toBeVisible();
  await expect.poll(() => editorText(page)).toContain('yaml-sync');
  const text = await editorText(page);
  await setEditorText(page, text.replace('name: yaml-sync', 'name: from-yaml'));
  await page.getByRole('tab', { name: 'Form' }).click();
  await expect(page.locator('#f-metadata-name')).toHaveValue('from-yaml');
});

test('a DaemonSet\'s maxUnavailable edited in YAML is applied after the diff', async ({ page }) => {
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'edit-me', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'edit-me' } }, template: { metadata: { labels: { app: 'edit-me' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } } },
  };
  expect((await apiRequest('/apis/apps/v1/namespaces/default/daemonsets', 'POST', ds)).status).toBe(201);
  await page.goto('/edit/daemonsets/default/edit-me');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect.poll(() => editorText(page)).toContain('maxUnavailable');
  const text = await editorText(page);
  await setEditorText(page, text.replace('maxUnavailable: 1', 'maxUnavailable: 3'));
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('region', { name: 'Review' });
  await expect(review).toBeVisible();
  await expect(review.locator('.monaco-diff-editor')).toBeVisible();
  await review.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets/default/edit-me'));
  const r = await kubectl('get', 'ds', 'edit-me', '-n', 'default', '-o', 'jsonpath={.spec.updateStrategy.rollingUpdate.maxUnavailable}');
  expect(r.stdout).toBe('3');
});

test('a change made with kubectl during the edit leads to the three-way view, and rebasing applies cleanly', async ({ page }) => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('conflicted'));
  await page.goto('/edit/nodes/conflicted');
  await page.getByRole('button', { name: '+ Add label' }).click();
  await page.getByLabel('Labels key 1').fill('mine');
  await page.getByLabel('Labels value 1').fill('yes');
  const r = await kubectl('label', 'node', 'conflicted', 'theirs=yes');
  if (r.code !== 0) {
    // kubectl label sends a strategic merge patch; a merge patch is the same change.
    expect((await kubectl('patch', 'node', 'conflicted', '--type', 'merge', '-p', '{"metadata":{"labels":{"theirs":"yes"}}}')).code).toBe(0);
  }
  await page.getByRole('button', { name: /Review changes/ }).click();
  const conflict = page.getByRole('region', { name: 'Conflict' });
  await expect(conflict).toBeVisible();
  await conflict.getByRole('button', { name: 'Rebase my changes onto theirs' }).click();
  await page.getByRole('button', { name: /Review changes/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/nodes/conflicted'));
  const labels = JSON.parse((await kubectl('get', 'node', 'conflicted', '-o', 'jsonpath={.metadata.labels}')).stdout);
  expect(labels).toMatchObject({ mine: 'yes', theirs: 'yes' });
});

test('a node\'s taints edited in the form are seen by kubectl', async ({ page }) => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('tainted'));
  await page.goto('/edit/nodes/tainted');
  await page.getByRole('button', { name: '+ Add taint' }).click();
  await page.locator('#f-spec-taints-0-key').fill('dedicated');
  await page.locator('#f-spec-taints-0-value').fill('gpu');
  await page.locator('#f-spec-taints-0-effect').selectOption('NoSchedule');
  await page.getByRole('button', { name: /Review changes/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/nodes/tainted'));
  const node = JSON.parse((await kubectl('get', 'node', 'tainted', '-o', 'json')).stdout);
  expect(node.spec.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
});

test('status is edited through its own endpoint from the Status tab', async ({ page }) => {
  // An attacher no simulator handles, so nothing else writes this status.
  const va = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'manual-va' }, spec: { attacher: 'manual.csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } } };
  expect((await apiRequest('/apis/storage.k8s.io/v1/volumeattachments', 'POST', va)).status).toBe(201);
  await page.goto('/edit/volumeattachments/manual-va');
  await page.getByRole('tab', { name: 'Status' }).click();
  await expect(page.getByText('Change it here only to test or repair')).toBeVisible();
  // Opening another tab is not an edit.
  await expect(page.getByText('unsaved changes')).toHaveCount(0);
  await setEditorText(page, 'attached: true\nattachmentMetadata:\n  devicePath: /dev/sdb\n');
  await page.getByRole('button', { name: 'Apply status' }).click();
  await expect(page).toHaveURL(appUrl('/volumeattachments/manual-va'));
  const r = await kubectl('get', 'volumeattachment', 'manual-va', '-o', 'jsonpath={.status.attached} {.status.attachmentMetadata.devicePath}');
  expect(r.stdout).toBe('true /dev/sdb');
});
