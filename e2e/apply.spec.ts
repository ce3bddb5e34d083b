// Server-side apply from the editor: a DaemonSet written by kubectl
// (client-side apply) is edited in the app with "Save with server-side
// apply": the form shows who manages the field, the review lists what apply
// would take over from kubectl, cancel leaves the object as it was, confirming
// forces, and managedFields then name kube-workbench; the YAML hover says so.
import { writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { apiRequest, appUrl, kubectl } from './helpers.ts';

const SHOTS = process.env.E2E_SHOTS;
const shot = async (page: Page, name: string) => SHOTS && (await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true }));

const manifest = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ssa-app
  namespace: default
  labels: {team: kubectl-team}
spec:
  selector: {matchLabels: {app: ssa-app}}
  template:
    metadata: {labels: {app: ssa-app}}
    spec:
      containers:
      - {name: agent, image: "registry.k8s.io/agent:1"}
`;

const get = async () => (await apiRequest('/apis/apps/v1/namespaces/default/daemonsets/ssa-app')).body;
const imageOf = (ds: any) => ds.spec.template.spec.containers[0].image;
const owners = (ds: any, field: string) =>
  ds.metadata.managedFields.filter((m: any) => JSON.stringify(m.fieldsV1).includes(field)).map((m: any) => `${m.manager}/${m.operation}`);

test('apply from the editor: the takeover from kubectl is listed, cancel changes nothing, confirming forces and kube-workbench owns the field', async ({ page }) => {
  // Many steps (kubectl, four requests per review, two editor loads) on a shared machine.
  test.setTimeout(180_000);
  const file = `/tmp/kw-e2e-ssa-${process.pid}.yaml`;
  writeFileSync(file, manifest);
  const r = await kubectl('apply', '-f', file);
  expect(r.code, r.stderr).toBe(0);
  const before = await get();
  expect(owners(before, '"f:image"')).toEqual(['kubectl-client-side-apply/Update']);

  // Through the list, as a user comes: the list's objects hold no managedFields, the editor's does.
  await page.goto('/daemonsets');
  await page.locator('[role=row][data-name="ssa-app"]').click();
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  await expect(page).toHaveURL(/\/edit\/daemonsets\/default\/ssa-app/);
  const image = page.locator('#f-spec-template-spec-containers-0-image');
  await expect(image).toHaveValue('registry.k8s.io/agent:1');
  await expect(page.locator('[aria-label="Field managers"]')).toContainText('kubectl-client-side-apply (Update');
  await shot(page, 'apply-form-top');
  // The form names the manager of a field another manager owns.
  const imageField = page.locator('.form-field', { has: image });
  await expect(imageField.locator('.badge.owner')).toHaveText('managed by kubectl-client-side-apply');
  await image.fill('registry.k8s.io/agent:2');

  // An existing object saves by update unless asked; the toggle says which.
  const mode = page.getByRole('radiogroup', { name: 'Save with' });
  await expect(mode.getByRole('radio', { name: 'Save with update' })).toBeChecked();
  await mode.getByRole('radio', { name: 'Save with server-side apply' }).check();
  await shot(page, 'apply-form');

  let patches = 0;
  page.on('request', (req) => req.method() === 'PATCH' && req.headers()['content-type'] === 'application/apply-patch+yaml' && patches++);
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('region', { name: 'Review' });
  const takeover = review.getByRole('group', { name: 'Fields to take over' });
  await expect(takeover).toBeVisible();
  const fromKubectl = takeover.getByRole('group', { name: 'From kubectl-client-side-apply' });
  await expect(fromKubectl).toContainText('.spec.template.spec.containers[name="agent"].image');
  // Only the changed field is sent, so only it is taken.
  await expect(fromKubectl.getByRole('listitem')).toHaveCount(1);
  await expect(review.locator('.monaco-diff-editor')).toBeVisible();
  await shot(page, 'apply-takeover');
  // The dry runs (without force, then forced to show the result) wrote nothing.
  expect(patches).toBe(2);
  expect(imageOf(await get())).toBe('registry.k8s.io/agent:1');

  await review.getByRole('button', { name: 'Cancel' }).click();
  await expect(review).toBeHidden();
  const cancelled = await get();
  expect(imageOf(cancelled)).toBe('registry.k8s.io/agent:1');
  // (The DaemonSet controller may have written its status meanwhile: the spec and its owners are what count.)
  expect(cancelled.metadata.generation).toBe(before.metadata.generation);
  expect(cancelled.metadata.managedFields.filter((m: any) => !m.subresource)).toEqual(before.metadata.managedFields.filter((m: any) => !m.subresource));
  await expect(image).toHaveValue('registry.k8s.io/agent:2');

  await page.getByRole('button', { name: /Review changes/ }).click();
  await review.getByRole('button', { name: 'Take over one field and apply' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets/default/ssa-app'));
  const after = await get();
  expect(imageOf(after)).toBe('registry.k8s.io/agent:2');
  expect(owners(after, '"f:image"')).toEqual(['kube-workbench/Apply']);
  const mine = after.metadata.managedFields.find((m: any) => m.manager === 'kube-workbench');
  expect(mine.fieldsV1).toEqual({ 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"agent"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } });
  // Fields the user left alone stay kubectl's.
  expect(owners(after, '"f:team"')).toEqual(['kubectl-client-side-apply/Update']);
  expect(after.metadata.labels).toEqual({ team: 'kubectl-team' });

  // The YAML editor's hover names each field's manager.
  await page.goto('/edit/daemonsets/default/ssa-app');
  await expect(page.locator('.form-field', { has: image }).locator('.badge.owner')).toHaveCount(0);
  await expect(page.locator('.form-field', { has: page.locator('#f-spec-updateStrategy-type') }).locator('.badge.owner')).toHaveText('managed by kubectl-client-side-apply');
  await page.getByRole('tab', { name: 'YAML' }).click();
  const hoverOver = async (key: string) => {
    const token = page.locator('.view-lines .view-line span', { hasText: new RegExp(`^${key}$`) }).first();
    // Monaco renders only the lines in view: scroll until the key is in the
    // editor's middle, clear of the sticky lines over its top.
    const editor = page.locator('.monaco-editor').first();
    await editor.hover({ position: { x: 300, y: 100 } });
    const box = (await editor.boundingBox())!;
    for (let i = 0; i < 80; i++) {
      const at = (await token.count()) ? await token.boundingBox() : null;
      if (at && at.y > box.y + box.height * 0.4 && at.y < box.y + box.height * 0.75) break;
      await page.mouse.wheel(0, !at || at.y >= box.y + box.height * 0.75 ? 60 : -60);
      await page.waitForTimeout(30);
    }
    await token.hover();
    return page.locator('.monaco-hover:not(.hidden)').filter({ hasText: 'Field manager' });
  };
  await expect(await hoverOver('team')).toContainText('kubectl-client-side-apply — Update');
  await page.mouse.move(0, 0);
  const imageHover = await hoverOver('image');
  await expect(imageHover).toContainText('kube-workbench — Apply');
  await shot(page, 'apply-hover');
});

test('a new object is created by apply, owned by kube-workbench', async ({ page }) => {
  await page.goto('/new/networkpolicies?ns=default');
  await page.locator('#f-metadata-name').fill('by-apply');
  await expect(page.getByRole('radiogroup', { name: 'Save with' }).getByRole('radio', { name: 'Save with server-side apply' })).toBeChecked();
  await page.getByRole('button', { name: /Review and create/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(appUrl('/networkpolicies/default/by-apply'));
  const np = (await apiRequest('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/by-apply')).body;
  expect(np.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toEqual(['kube-workbench/Apply']);

  // Creating one that exists is refused, not merged into it.
  await page.goto('/new/networkpolicies?ns=default');
  await page.locator('#f-metadata-name').fill('by-apply');
  await page.getByRole('button', { name: /Review and create/ }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'already exists' })).toBeVisible();
});
