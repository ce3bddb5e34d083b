import { expect, test } from '@playwright/test';
import { apiRequest, kubectl, nodeManifest } from './helpers.ts';

// With the audit log on (the e2e server runs with one), a detail page says who
// last changed the object: here kubectl, as the e2e admin, labelling a node.
test('a detail page names who last changed the object, from the audit log', async ({ page }) => {
  expect([201, 409]).toContain((await apiRequest('/api/v1/nodes', 'POST', nodeManifest('audited-node'))).status);
  const labelled = await kubectl('label', 'node', 'audited-node', 'audited=yes', '--overwrite');
  expect(labelled.code, labelled.stderr).toBe(0);
  await page.goto('/nodes/audited-node');
  const line = page.getByTestId('last-changed-by');
  await expect(line).toContainText('e2e-admin');
  await expect(line).toContainText(/patch, .* ago, from the audit log/);
  // The next change (a PUT this time) is shown as the object changes.
  const node = (await apiRequest('/api/v1/nodes/audited-node')).body;
  node.metadata.labels.audited = 'again';
  expect((await apiRequest('/api/v1/nodes/audited-node', 'PUT', node)).status).toBe(200);
  await expect(line).toContainText(/update, .* ago, from the audit log/);
});
