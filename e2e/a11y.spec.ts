import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { apiRequest, nodeManifest } from './helpers.ts';

// WCAG 2.1 A and AA as axe-core checks them, on the main pages in both themes.
const PAGES = [
  '/',
  '/nodes',
  '/nodes/a11y-node',
  '/daemonsets/default/a11y-ds',
  '/networkpolicies/default/a11y-np',
  '/edit/networkpolicies/default/a11y-np',
  '/reachability',
  '/settings',
];
/** Access control: the who-can views and the role and binding pages. */
const ACCESS_PAGES = [
  '/access?verb=delete&resource=daemonsets.apps',
  '/access?tab=mine',
  '/access?tab=subject&kind=Group&name=system:authenticated',
  '/clusterroles',
  '/clusterroles/admin',
  '/clusterrolebindings/cluster-admin',
];

test.beforeAll(async () => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('a11y-node', { a11y: 'yes' }));
  await apiRequest('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', 'POST', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'a11y-np', namespace: 'default' },
    spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 8080 }] }] },
  });
  await apiRequest('/apis/apps/v1/namespaces/default/daemonsets', 'POST', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'a11y-ds', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'a11y' } }, template: { metadata: { labels: { app: 'a11y' } }, spec: { nodeSelector: { a11y: 'yes' }, containers: [{ name: 'c', image: 'a11y:v1' }] } } },
  });
});

async function violations(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const [name, pages] of [
  ['main', PAGES],
  ['access', ACCESS_PAGES],
] as const) {
  for (const theme of ['light', 'dark']) {
    test(`the ${name} pages pass axe's WCAG 2.1 AA checks (${theme} theme)`, async ({ page }) => {
      // axe takes seconds per page on a busy two-core machine.
      test.setTimeout(240_000);
      await page.goto('/settings');
      await page.evaluate((t) => localStorage.setItem('kw.theme', t), theme);
      for (const path of pages) {
        await page.goto(path);
        await expect(page.getByTestId('connection')).toHaveText(/Live/);
        await expect(page.locator('main h1').first()).toBeVisible();
        // Lazy editors name their text areas once mounted; wait for that, not for time.
        if (path.startsWith('/edit/')) await expect(page.locator('form[aria-label]')).toBeVisible();
        // Reachability's answer is judged once it is up to date, not while it is computed again.
        const reach = page.getByTestId('reach-status');
        if (await reach.count()) await expect(reach).toHaveText(/up to date/);
        expect(await violations(page), path).toEqual([]);
      }
    });
  }
}

for (const theme of ['light', 'dark']) {
  test(`the sign-in form, with a kubeconfig's contexts, passes axe's checks (${theme} theme)`, async ({ page }) => {
    await page.goto('/settings');
    await page.evaluate((t) => (localStorage.clear(), localStorage.setItem('kw.theme', t)), theme);
    await page.goto('/nodes');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    expect(await violations(page), 'token').toEqual([]);
    await page.getByRole('tab', { name: 'Kubeconfig' }).click();
    await page.getByLabel('Kubeconfig').fill(
      'apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters: [{name: c, cluster: {server: "https://example.test:6443", certificate-authority-data: LS0t}}]\n' +
        'users: [{name: cert, user: {client-certificate-data: LS0t, client-key-data: LS0t}}, {name: t, user: {token: x}}]\n' +
        'contexts: [{name: a, context: {cluster: c, user: cert}}, {name: b, context: {cluster: c, user: t}}]\n',
    );
    await page.getByRole('radio', { name: 'a', exact: true }).check();
    await expect(page.getByText(/client certificate/).first()).toBeVisible();
    expect(await violations(page), 'kubeconfig').toEqual([]);
  });
}
