// Editing where it goes wrong: multi-valued enums, errors inside list items,
// YAML markers on the field's own line, and a conflict on a field both sides
// changed. Every test also fails on an uncaught page error (a diff closing
// used to throw one).
import { expect, test } from '@playwright/test';
import { apiRequest, appUrl, editorText, nodeManifest, setEditorText } from './helpers.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
});
test.afterEach(() => expect(pageErrors).toEqual([]));

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

const NP = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
const policy = (name: string, spec: unknown) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'default' }, spec });

test('policyTypes is a multi-select: both types show checked, and unchecking one saves the other', async ({ page }) => {
  expect((await apiRequest(NP, 'POST', policy('both-types', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }))).status).toBe(201);
  await page.goto('/edit/networkpolicies/default/both-types');
  const ingress = page.locator('#f-spec-policyTypes-Ingress');
  const egress = page.locator('#f-spec-policyTypes-Egress');
  await expect(ingress).toBeChecked();
  await expect(egress).toBeChecked();
  await egress.uncheck();
  await page.getByRole('button', { name: /Review changes/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/networkpolicies/default/both-types'));
  expect((await apiRequest(`${NP}/both-types`)).body.spec.policyTypes).toEqual(['Ingress']);
});

test('a bad ipBlock beside a podSelector: both errors next to their fields, in the list, and on their YAML lines; no what-if for the invalid draft', async ({ page }) => {
  expect((await apiRequest(NP, 'POST', policy('peers', { podSelector: {}, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] }))).status).toBe(201);
  await page.goto('/edit/networkpolicies/default/peers');
  const whatIf = page.getByRole('region', { name: 'What-if' });
  await expect(whatIf).toBeVisible();
  await expect(whatIf.getByTestId('whatif-waiting')).toHaveCount(0);
  const peer = page.locator('[data-key="spec.ingress.0.from.0"]');
  await peer.getByRole('button', { name: '+ Add ip block' }).click();
  await page.locator('#f-spec-ingress-0-from-0-ipBlock-cidr').fill('10.0.0.300/33');
  await expect(whatIf.getByTestId('whatif-waiting')).toBeVisible();

  await page.getByRole('button', { name: /Review changes/ }).click();
  await expect(page.getByRole('region', { name: 'Review' })).toHaveCount(0);
  const banner = page.getByRole('alert', { name: 'Errors' });
  await expect(banner).toContainText('spec.ingress[0].from[0].ipBlock.cidr');
  await expect(banner).toContainText('may not specify both ipBlock and another peer');
  await expect(page.locator('[data-field="spec.ingress.0.from.0.ipBlock.cidr"]')).toContainText('10.0.0.300/33');
  await expect(peer.locator('> [data-field="spec.ingress.0.from.0"]')).toContainText('may not specify both ipBlock and another peer');

  // The YAML tab marks each on its own line: the CIDR on `cidr:`, the peer on the item's first line.
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect.poll(() => editorText(page)).toContain('10.0.0.300/33');
  const text = await editorText(page);
  const problems = page.getByRole('list', { name: 'Problems' });
  await expect(problems.locator(`li[data-line="${lineOf(text, 'cidr: 10.0.0.300/33')}"]`)).toContainText('ipBlock.cidr');
  await expect(problems.locator(`li[data-line="${lineOf(text, '- podSelector:')}"]`)).toContainText('may not specify both');
  await expect(problems.locator('li')).toHaveCount(2);
});

test('a bad Node taint effect typed in YAML is marked once, on the effect line', async ({ page }) => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('taint-yaml'));
  await page.goto('/edit/nodes/taint-yaml');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect.poll(() => editorText(page)).toContain('taint-yaml');
  const stored = await editorText(page);
  const taint = 'spec:\n  taints:\n    - key: dedicated\n      effect: Sometimes\n';
  const yaml = stored.includes('spec: {}') ? stored.replace('spec: {}\n', taint) : stored.replace(/^spec:\n/m, taint);
  expect(yaml).toContain('effect: Sometimes');
  await setEditorText(page, yaml);
  const problems = page.getByRole('list', { name: 'Problems' });
  await expect(problems.locator('li')).toHaveCount(1);
  await expect(problems.locator('li').first()).toHaveAttribute('data-line', String(lineOf(yaml, 'effect: Sometimes')));
  await expect(problems).toContainText('spec.taints[0].effect: Unsupported value: "Sometimes"');
});

test('a field both sides changed is a conflict the user settles before rebasing; the rest of both edits is kept', async ({ page }) => {
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'both-changed', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'both' } }, template: { metadata: { labels: { app: 'both' } }, spec: { containers: [{ name: 'c', image: 'agent:v1' }] } } },
  };
  expect((await apiRequest('/apis/apps/v1/namespaces/default/daemonsets', 'POST', ds)).status).toBe(201);
  await page.goto('/edit/daemonsets/default/both-changed');
  await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:mine');
  const patch = { metadata: { labels: { theirs: 'yes' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:theirs' }] } } } };
  expect((await apiRequest('/apis/apps/v1/namespaces/default/daemonsets/both-changed', 'PATCH', patch, 'application/merge-patch+json')).status).toBe(200);
  await page.getByRole('button', { name: /Review changes/ }).click();

  const conflict = page.getByRole('region', { name: 'Conflict' });
  await expect(conflict.getByRole('group', { name: 'Changed by you' })).toHaveText(/spec\.template\.spec\.containers\[0\]\.image$/);
  await expect(conflict.getByRole('group', { name: 'Changed on the server' })).toContainText('metadata.labels.theirs');
  const table = conflict.getByRole('group', { name: 'Conflicting fields' });
  await expect(table).toContainText('spec.template.spec.containers[0].image');
  const rebase = conflict.getByRole('button', { name: 'Rebase my changes onto theirs' });
  await expect(rebase).toBeDisabled();
  await table.getByLabel('Use my spec.template.spec.containers[0].image').check();
  await rebase.click();
  await page.getByRole('button', { name: /Review changes/ }).click();
  await page.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(appUrl('/daemonsets/default/both-changed'));
  const saved = (await apiRequest('/apis/apps/v1/namespaces/default/daemonsets/both-changed')).body;
  expect(saved.spec.template.spec.containers[0].image).toBe('agent:mine');
  expect(saved.metadata.labels).toEqual({ theirs: 'yes' });
});
