import { expect, test } from '@playwright/test';
import { apiRequest } from './helpers.ts';
import { daemonSetOnOwnNodes } from './daemonset-fixture.ts';

// A DaemonSet on six simulated nodes of its own (label plan=e2e); the rollout
// plan is read where an operator sees it: the editor's review, the strategy
// editor, the live rollout and the history.
const NS = 'default';
const NAME = 'planned';
const NODES = ['pl-1', 'pl-2', 'pl-3', 'pl-4', 'pl-5', 'pl-6'];
const dsPath = `/apis/apps/v1/namespaces/${NS}/daemonsets`;

test.beforeAll(async () => {
  // pl-6 is tainted: the plan leaves it out and says why.
  await daemonSetOnOwnNodes({ name: NAME, namespace: NS, nodes: NODES, selector: { plan: 'e2e' }, nodeSpec: (n) => (n === 'pl-6' ? { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } : undefined) });
});

const waves = (page: import('@playwright/test').Page) => page.getByTestId('rollout-plan').getByTestId('plan-waves').locator('tbody tr');

test('the strategy editor shows the plan before and after as maxUnavailable is edited, before applying', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Edit strategy' }).click();
  const form = page.getByRole('form', { name: 'Update strategy form' });
  const plan = form.getByTestId('rollout-plan');
  // Unchanged: one plan, for the next template change, one node a wave.
  await expect(plan).toContainText('for the next template change');
  await expect(plan.getByTestId('plan-summary')).toContainText('5 waves over 5 nodes, maxUnavailable 1 of 5');
  await expect(plan.getByTestId('plan-waves').locator('tbody tr').first()).toContainText('pl-1');
  await expect(plan.getByTestId('plan-excluded')).toContainText('pl-6');

  await form.locator('#f-spec-updateStrategy-rollingUpdate-maxUnavailable').fill('40%');
  await expect(plan.getByTestId('plan-before')).toContainText('5 waves over 5 nodes, maxUnavailable 1 of 5');
  await expect(plan.getByTestId('plan-after')).toContainText('3 waves over 5 nodes, maxUnavailable 2 of 5');
  await expect(plan.getByTestId('plan-change')).toContainText('5 → 3 waves');
  await expect(plan.getByTestId('plan-waves').locator('tbody tr').first()).toContainText('pl-1, pl-2');
  // Nothing was applied: the DaemonSet still says 1.
  expect((await apiRequest(`${dsPath}/${NAME}`)).body.spec.updateStrategy.rollingUpdate.maxUnavailable).toBe(1);
  await form.getByRole('button', { name: 'Cancel' }).click();
});

test('the review of a template and maxUnavailable edit shows the plan beside the diff; the rollout is then judged against it', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 30_000 });
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:v2');
  await page.locator('#f-spec-updateStrategy-rollingUpdate-maxUnavailable').fill('3');
  await page.getByRole('button', { name: /Review changes/ }).click();
  const review = page.getByRole('region', { name: 'Review' });
  const plan = review.getByTestId('rollout-plan');
  await expect(plan.getByTestId('plan-before')).toContainText('5 waves over 5 nodes, maxUnavailable 1 of 5');
  await expect(plan.getByTestId('plan-after')).toContainText('2 waves over 5 nodes, maxUnavailable 3 of 5');
  await expect(waves(page)).toHaveCount(2);
  await expect(waves(page).nth(0)).toContainText('pl-1, pl-2, pl-3');
  await expect(waves(page).nth(1)).toContainText('pl-4, pl-5');
  await expect(plan.getByTestId('plan-excluded')).toContainText('pl-6: taint dedicated=db:NoSchedule is not tolerated');
  await expect(plan).toContainText('Pace:');
  await page.screenshot({ path: 'test-results/rollout-plan-review.png', fullPage: true });

  await review.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 45_000 });
  // After the rollout the history sets the plan from the review against what happened, per wave and per node.
  const history = page.getByRole('region', { name: 'Plan against what happened' });
  const record = history.locator('details.plan-record').first();
  await expect(record).toContainText('planned');
  await expect(record).toContainText('maxUnavailable 3 of 5');
  await expect(record.getByTestId('plan-actual')).toBeVisible({ timeout: 30_000 });
  await expect(record.locator('table.plan-waves tbody tr')).toHaveCount(2);
  await record.getByText('Per node').click();
  await expect(record.locator('[data-plan-node]')).toHaveCount(5);
  await page.screenshot({ path: 'test-results/rollout-plan-history.png', fullPage: true });
});

test('a running rollout shows the finish forecast, and says when it falls behind its plan', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}?stall=5`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 30_000 });
  const annotate = async (value: string | null) =>
    expect((await apiRequest('/api/v1/nodes/pl-5', 'PATCH', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': value } } }, 'application/merge-patch+json')).status).toBe(200);
  try {
    // Started outside the app (no review plan): the view plans it when it first sees it, one node at a time.
    const ds = (await apiRequest(`${dsPath}/${NAME}`)).body;
    ds.spec.updateStrategy.rollingUpdate.maxUnavailable = 1;
    ds.spec.template.spec.containers[0].image = 'agent:v3';
    expect((await apiRequest(`${dsPath}/${NAME}`, 'PUT', ds)).status).toBe(200);
    const forecast = page.getByTestId('rollout-forecast');
    await expect(forecast).toContainText('forecast: done at', { timeout: 30_000 });
    await expect(forecast).toContainText('plan when first seen');
    await expect(forecast).toContainText('on plan');
    // Then pl-5, the last node, cannot pull images: the plan did not expect that, the rollout is behind it.
    await annotate('true');
    await expect(page.getByTestId('rollout-behind')).toContainText('a node stalls that the plan did not expect', { timeout: 30_000 });
    await expect(forecast).toContainText('then stalled');
    await page.screenshot({ path: 'test-results/rollout-plan-live.png', fullPage: true });
  } finally {
    await annotate(null);
  }
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 60_000 });
});
