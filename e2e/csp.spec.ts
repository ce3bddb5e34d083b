import { expect, test, type Page } from '@playwright/test';
import { SERVER, apiRequest, nodeManifest, setEditorText } from './helpers.ts';

// The app under its Content-Security-Policy in Chromium: every page it has,
// the Monaco editor with its workers, the reachability worker; no violation
// reported, no worker falling back to the main thread, and no framing.
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** Collects CSP violations (the DOM event and Chromium's console lines) and the workers the page starts. */
async function watchPolicy(page: Page) {
  const violations: string[] = [];
  const workers: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`));
  });
  page.on('console', (m) => {
    if (/Content Security Policy|CSP violation|Refused to|Could not create web worker/i.test(m.text())) violations.push(m.text());
  });
  page.on('worker', (w) => workers.push(w.url()));
  return { violations, workers };
}

test('the app works under its CSP: its pages and the reachability worker', async ({ page }) => {
  test.setTimeout(120_000);
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('csp-node'));
  const { violations, workers } = await watchPolicy(page);
  const first = await page.goto('/nodes');
  expect(first!.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect(page.locator('[role=row][data-name="csp-node"]')).toBeVisible();
  for (const path of ['/daemonsets', '/networkpolicies', '/volumeattachments', '/access', '/nodes/csp-node']) {
    await page.goto(path);
    await expect(page.locator('main')).toBeVisible();
  }
  await page.goto('/reachability');
  await expect.poll(() => workers.some((u) => /reachability\.worker/.test(u))).toBe(true);
  expect(violations).toEqual([]);
});

test('Monaco and its workers run under the CSP', async ({ page }) => {
  test.setTimeout(120_000);
  const { violations, workers } = await watchPolicy(page);
  await page.goto('/new/networkpolicies?ns=default');
  await page.locator('#f-metadata-name').fill('csp-policy');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.locator('.monaco-editor')).toBeVisible();
  await expect.poll(() => workers.some((u) => /editor\.worker/.test(u))).toBe(true);
  // The YAML worker validates against the kind's schema: a wrong type gets a marker.
  await setEditorText(page, 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: csp-policy\nspec:\n  podSelector: 5\n');
  await expect.poll(() => workers.some((u) => /yaml\.worker/.test(u))).toBe(true);
  await expect(page.locator('.monaco-editor .squiggly-error').first()).toBeVisible();
  expect(violations).toEqual([]);
});

test('no other page may frame the app', async ({ page }) => {
  await page.goto('about:blank');
  await page.setContent(`<iframe id="f" src="${SERVER}/nodes" width="400" height="300"></iframe>`);
  const frame = page.frameLocator('#f');
  // A framed app would render its navigation; the browser shows its error page instead.
  await expect.poll(() => page.frames().find((f) => f !== page.mainFrame())?.url()).toMatch(/^chrome-error:/);
  await expect(frame.getByRole('link', { name: 'Nodes', exact: true })).toHaveCount(0);
});
