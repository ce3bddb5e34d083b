import { expect, test } from '@playwright/test';
import { apiRequest, appUrl } from './helpers.ts';
import { daemonSetOnOwnNodes } from './daemonset-fixture.ts';

// During a rollout across thousands of nodes a DaemonSet's status is written
// back to back, each write a new resourceVersion. What the user does on its
// page meanwhile (edit the strategy, roll back, edit in the editor) must
// neither be reset by those writes nor refused for them.
const NS = 'default';
const NAME = 'stormed';
const dsPath = `/apis/apps/v1/namespaces/${NS}/daemonsets`;

test.beforeAll(async () => {
  await daemonSetOnOwnNodes({ name: NAME, namespace: NS, nodes: ['st-1', 'st-2', 'st-3'], selector: { storm: 'e2e' } });
});

/** Status written in a loop, as a busy controller does, until stopped; how many writes so far. */
function statusStorm() {
  let running = true;
  let writes = 0;
  const done = (async () => {
    while (running) {
      const r = await apiRequest(`${dsPath}/${NAME}/status`, 'PATCH', { status: { observedGeneration: 0 } }, 'application/merge-patch+json');
      if (r.status === 200) writes++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return { writes: () => writes, stop: () => ((running = false), done) };
}

test('the strategy form keeps what is typed while status is written, applies, and a rollback and a restart land too', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  await expect(page.getByTestId('rollout-message')).toHaveText(`daemon set "${NAME}" successfully rolled out`, { timeout: 30_000 });
  expect((await apiRequest(`${dsPath}/${NAME}`, 'PATCH', { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:v2' }] } } } }, 'application/merge-patch+json')).status).toBe(200);
  const storm = statusStorm();
  try {
    await page.getByRole('button', { name: 'Edit strategy' }).click();
    const maxUnavailable = page.locator('#f-spec-updateStrategy-rollingUpdate-maxUnavailable');
    await maxUnavailable.fill('3');
    const typedAt = storm.writes();
    await expect.poll(storm.writes).toBeGreaterThan(typedAt + 5);
    await expect(maxUnavailable).toHaveValue('3');
    await page.getByRole('button', { name: 'Apply strategy' }).click();
    await expect(page.getByTestId('strategy-summary')).toContainText('maxUnavailable 3');
    const applied = (await apiRequest(`${dsPath}/${NAME}`)).body;
    expect(applied.spec.updateStrategy.rollingUpdate.maxUnavailable).toBe(3);
    expect(applied.spec.template.spec.containers[0].image).toBe('agent:v2');

    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: 'Roll back to 1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(history).not.toContainText(/Conflict|modified/);
    expect((await apiRequest(`${dsPath}/${NAME}`)).body.spec.template.spec.containers[0].image).toBe('agent:v1');

    // Restart, as kubectl rollout restart: a new template annotation, nothing else.
    await history.getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restart' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    const template = (await apiRequest(`${dsPath}/${NAME}`)).body.spec.template;
    expect(template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(template.spec.containers[0].image).toBe('agent:v1');
  } finally {
    await storm.stop();
  }
});

test('an edit in the editor is reviewed and applied while status is written, without a conflict to settle', async ({ page }) => {
  const storm = statusStorm();
  try {
    await page.goto(`/edit/daemonsets/${NS}/${NAME}`);
    await page.locator('#f-spec-template-spec-containers-0-image').fill('agent:v4');
    const typedAt = storm.writes();
    await expect.poll(storm.writes).toBeGreaterThan(typedAt + 5);
    await page.getByRole('button', { name: /Review changes/ }).click();
    const review = page.getByRole('region', { name: 'Review' });
    await expect(review.getByTestId('changed-fields')).toHaveText(/You changed one field: spec\.template\.spec\.containers\[0\]\.image\./);
    await expect.poll(storm.writes).toBeGreaterThan(typedAt + 10);
    await review.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL(appUrl(`/daemonsets/${NS}/${NAME}`));
    expect((await apiRequest(`${dsPath}/${NAME}`)).body.spec.template.spec.containers[0].image).toBe('agent:v4');
  } finally {
    await storm.stop();
  }
});

test('a strategy changed by someone else while the form is open is a conflict named, and the form starts again from the server', async ({ page }) => {
  await page.goto(`/daemonsets/${NS}/${NAME}`);
  await page.getByRole('button', { name: 'Edit strategy' }).click();
  const maxUnavailable = page.locator('#f-spec-updateStrategy-rollingUpdate-maxUnavailable');
  const current = (await apiRequest(`${dsPath}/${NAME}`)).body.spec.updateStrategy.rollingUpdate.maxUnavailable;
  await expect(maxUnavailable).toHaveValue(String(current));
  expect((await apiRequest(`${dsPath}/${NAME}`, 'PATCH', { spec: { updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } } }, 'application/merge-patch+json')).status).toBe(200);
  await maxUnavailable.fill('4');
  await page.getByRole('button', { name: 'Apply strategy' }).click();
  await expect(page.getByRole('alert')).toContainText(`daemonsets.apps "${NAME}" was changed since you opened it (spec)`);
  expect((await apiRequest(`${dsPath}/${NAME}`)).body.spec.updateStrategy.rollingUpdate.maxUnavailable).toBe(2);

  await page.getByRole('button', { name: "Start again from the server's version" }).click();
  await expect(maxUnavailable).toHaveValue('2');
  await maxUnavailable.fill('4');
  await page.getByRole('button', { name: 'Apply strategy' }).click();
  await expect(page.getByTestId('strategy-summary')).toContainText('maxUnavailable 4');
});
