import { expect, test } from '@playwright/test';
import { apiRequest, kubectl, nodeManifest } from './helpers.ts';

// With the audit log on (the e2e server runs with one), a detail page says who
// last changed the object: here kubectl, as the e2e admin, labelling a node.
test('a detail page names who last changed the object, from the audit log', async ({ page }) => {
  expect([201, 409]).toContain((await apiRequest('/api/v1/nodes', 'POST', nodeManifest('audited-node'))).status);
  const labelled = await kubectl('label', 'node', 'audited-node', 'audited=yes', '--overwrite');
  expect(labelled.code, labelled.stderr).toBe(0);
  const asked: string[] = [];
  page.on('request', (r) => void (r.url().includes('/debug/audit/last-change') && asked.push(r.url())));
  await page.goto('/nodes/audited-node');
  const line = page.getByTestId('last-changed-by');
  await expect(line).toContainText('e2e-admin');
  await expect(line).toContainText(/patch, .* ago, from the audit log/);
  // The next change (a PUT this time) is shown as the object changes.
  const node = (await apiRequest('/api/v1/nodes/audited-node')).body;
  node.metadata.labels.audited = 'again';
  expect((await apiRequest('/api/v1/nodes/audited-node', 'PUT', node)).status).toBe(200);
  await expect(line).toContainText(/update, .* ago, from the audit log/);

  // Status written (as the node agent does, and a DaemonSet's controller many times a second in a
  // rollout) is no change of the object: the line stays, and the page does not ask again for it.
  const askedBefore = asked.length;
  let written = 0;
  for (let i = 1; i <= 5; i++) {
    const r = await apiRequest('/api/v1/nodes/audited-node/status', 'PATCH', { status: { conditions: [{ type: 'AuditProbe', status: 'True', reason: `Probe${i}`, lastTransitionTime: new Date().toISOString() }] } }, 'application/strategic-merge-patch+json');
    expect(r.status).toBe(200);
    written = Number(r.body.metadata.resourceVersion);
  }
  const shownVersion = page.locator('dt:has-text("Resource version") + dd');
  await expect.poll(async () => Number(await shownVersion.textContent())).toBeGreaterThanOrEqual(written);
  await expect(line).toContainText(/update, .* ago, from the audit log/);
  expect(asked.length).toBe(askedBefore);
});
