// The form sends the stored object plus what the user changed, nothing it
// made up itself: a label edit must not roll out a DaemonSet's pods, and the
// review says whether a change will.
import { expect, test } from '@playwright/test';
import { apiRequest, appUrl } from './helpers.ts';

const DS = '/apis/apps/v1/namespaces';

const daemonSet = (namespace: string, name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name, namespace, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image: 'agent:v1', ports: [{ name: 'http', containerPort: 2020 }] }] } },
    ...spec,
  },
});

async function revisions(namespace: string, name: string): Promise<string[]> {
  const r = await apiRequest(`${DS}/${namespace}/controllerrevisions`);
  return r.body.items.filter((cr: any) => cr.metadata.ownerReferences?.some((o: any) => o.name === name)).map((cr: any) => cr.metadata.name);
}

/** What the user edits: no server bookkeeping, no status. */
function userPart(o: any) {
  const { resourceVersion: _rv, managedFields: _m, generation: _g, ...metadata } = o.metadata;
  return { ...o, metadata, status: undefined };
}

test('a label added through the form changes only the labels: generation stays 1 and no new ControllerRevision', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  expect((await apiRequest(`${DS}/default/daemonsets`, 'POST', daemonSet('default', 'label-only'))).status).toBe(201);
  await expect.poll(() => revisions('default', 'label-only')).toHaveLength(1);
  const before = (await apiRequest(`${DS}/default/daemonsets/label-only`)).body;
  expect(before.spec.template.spec.hostNetwork).toBeUndefined();

  await page.goto('/edit/daemonsets/default/label-only');
  const metadata = page.locator('fieldset[data-key="metadata"]');
  await metadata.getByRole('button', { name: '+ Add label' }).click();
  await metadata.getByLabel('Labels key 2').fill('team');
  await metadata.getByLabel('Labels value 2').fill('observability');
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('region', { name: 'Review' });
  await expect(review.getByTestId('rollout-impact')).toHaveText(/Pods are not replaced/);
  await expect(review.getByTestId('changed-fields')).toHaveText(/You changed one field: metadata\.labels\.team\./);
  await review.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets/default/label-only'));

  const after = (await apiRequest(`${DS}/default/daemonsets/label-only`)).body;
  expect(after.metadata.labels).toEqual({ app: 'label-only', team: 'observability' });
  expect(after.metadata.generation).toBe(1);
  expect(after.spec).toEqual(before.spec);
  expect(await revisions('default', 'label-only')).toHaveLength(1);
  expect(errors).toEqual([]);
});

test('an image edit of fluent-bit (OnDelete) changes only the image, and the review says a new revision is made', async ({ page }) => {
  await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
  const manifest = daemonSet('kube-system', 'fluent-bit', { updateStrategy: { type: 'OnDelete' } });
  (manifest.spec.template.spec as any).nodeSelector = { 'kubernetes.io/os': 'linux' };
  expect((await apiRequest(`${DS}/kube-system/daemonsets`, 'POST', manifest)).status).toBe(201);
  const before = (await apiRequest(`${DS}/kube-system/daemonsets/fluent-bit`)).body;

  await page.goto('/edit/daemonsets/kube-system/fluent-bit');
  await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:v2');
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('region', { name: 'Review' });
  await expect(review.getByTestId('changed-fields')).toHaveText(/You changed one field: spec\.template\.spec\.containers\[0\]\.image\./);
  await expect(review.getByTestId('rollout-impact')).toHaveText(/new revision of the pod template .* replaces the pods .* only as they are deleted/);
  await review.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets/kube-system/fluent-bit'));

  const after = (await apiRequest(`${DS}/kube-system/daemonsets/fluent-bit`)).body;
  const expected = structuredClone(userPart(before));
  expected.spec.template.spec.containers[0].image = 'agent:v2';
  // The server bumps its own template-generation annotation on a template change; nothing else may differ.
  expected.metadata.annotations = after.metadata.annotations;
  expect(userPart(after)).toEqual(expected);
  expect(after.metadata.generation).toBe(2);
});

test('a RollingUpdate template change says it rolls out new pods', async ({ page }) => {
  expect((await apiRequest(`${DS}/default/daemonsets`, 'POST', daemonSet('default', 'rolls'))).status).toBe(201);
  await page.goto('/edit/daemonsets/default/rolls');
  await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:v3');
  await page.getByRole('button', { name: /Review changes/ }).click();
  await expect(page.getByRole('region', { name: 'Review' }).getByTestId('rollout-impact')).toHaveText(/This change rolls out new pods on \d+ nodes?/);
});
