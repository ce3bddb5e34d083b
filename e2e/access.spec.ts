import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { SERVER } from './helpers.ts';
import { E2E_KUBECONFIG } from '../playwright.config.ts';

// Signing in and what the app lets each user do, against the real server's
// RBAC. The users come from e2e/tokens.csv (the e2e server's --token-file);
// their rights from bindings made here as e2e-admin (in system:masters).
const VIEWER = 'e2e-viewer-token';
const EDITOR = 'e2e-editor-token';
const ADMIN = 'e2e-admin-token';

async function asAdmin(path: string, method: string, body?: unknown) {
  const res = await fetch(SERVER + path, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok && res.status !== 409) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const bind = (name: string, role: string, group: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: group }],
});

test.beforeAll(async () => {
  // view (namespaced reads) and a role to read nodes for the viewers; edit for the editors.
  await asAdmin(`${rbac}/clusterroles`, 'POST', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'e2e-node-reader' },
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
  });
  await asAdmin(`${rbac}/clusterrolebindings`, 'POST', bind('e2e-viewers-view', 'view', 'e2e:viewers'));
  await asAdmin(`${rbac}/clusterrolebindings`, 'POST', bind('e2e-viewers-nodes', 'e2e-node-reader', 'e2e:viewers'));
  await asAdmin(`${rbac}/clusterrolebindings`, 'POST', bind('e2e-editors-edit', 'edit', 'e2e:editors'));
  await asAdmin('/api/v1/nodes', 'POST', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'access-node' } });
  await asAdmin('/apis/apps/v1/namespaces/default/daemonsets', 'POST', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'access-ds', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'access' } }, template: { metadata: { labels: { app: 'access' } }, spec: { nodeSelector: { none: 'x' }, containers: [{ name: 'c', image: 'c:1' }] } } },
  });
});

/** Signs in on the form the app shows after a 401. */
async function signInWithToken(page: Page, token: string) {
  await page.goto('/settings');
  await page.evaluate(() => localStorage.clear());
  await page.goto('/nodes');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Bearer token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
}

test('a view-only user finds no enabled Edit or Delete, and Create disabled with the reason', async ({ page }) => {
  await signInWithToken(page, VIEWER);
  await expect(page.getByTestId('whoami')).toHaveText('e2e-viewer');
  await expect(page.locator('[role=row][data-name="access-node"]')).toBeVisible();
  // view does not read RBAC objects: the sidebar says so, with the reason on hover.
  await expect(page.getByRole('link', { name: /^Cluster roles/ })).toContainText('no access');
  await expect(page.getByRole('link', { name: /^Cluster roles/ })).toHaveAttribute('title', 'e2e-viewer may not list clusterroles.rbac.authorization.k8s.io');
  await expect(page.getByRole('link', { name: /^Nodes/ })).not.toContainText('no access');
  // The overview does not count what it may not read as nothing.
  await page.goto('/');
  await expect(page.getByRole('link', { name: /^Volume attachments/ }).filter({ hasText: 'no access' })).toHaveCount(2);
  await expect(page.getByText('No volume attachment reports an error.')).toHaveCount(0);

  for (const path of ['/nodes/access-node', '/daemonsets/default/access-ds']) {
    await page.goto(path);
    await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Edit', exact: true })).toBeDisabled();
    // Nothing named Edit or Delete is left enabled (a link or a button).
    await expect(page.getByRole('link', { name: 'Edit', exact: true })).toHaveCount(0);
    await expect(page.locator('main').getByRole('button', { name: /^(Edit|Delete)$/, disabled: false })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete' })).toHaveAttribute('title', /^e2e-viewer may not delete /);
    await expect(page.getByText('read-only for you')).toBeVisible();
  }
  // The DaemonSet page's own writes: restart and the update strategy.
  await page.goto('/daemonsets/default/access-ds');
  await expect(page.getByRole('button', { name: 'Restart' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Edit strategy' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Edit strategy' })).toHaveAttribute('title', 'e2e-viewer may not patch daemonsets.apps "access-ds" in namespace "default"');
  await page.goto('/nodes/access-node');
  await expect(page.getByRole('button', { name: 'Cordon' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Drain' })).toBeDisabled();

  await page.goto('/daemonsets?ns=default');
  const create = page.getByRole('button', { name: 'Create' });
  await expect(create).toBeDisabled();
  await expect(create).toHaveAttribute('title', 'e2e-viewer may not create daemonsets.apps in namespace "default"');
  await expect(page.getByRole('link', { name: 'Create' })).toHaveCount(0);
});

test('an editor who may not list nodes is told the DaemonSet page and its rollout plan need them, not shown them loading for ever', async ({ page }) => {
  await page.goto('/settings');
  await page.evaluate(() => localStorage.clear());
  await page.goto(`/daemonsets/default/access-ds#token=${EDITOR}`);
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
  const note = page.getByTestId('nodes-unreadable');
  await expect(note).toContainText('the nodes could not be read');
  await expect(note).toContainText('cannot list resource "nodes"');
  await expect(page.getByRole('region', { name: 'Nodes' }).getByRole('heading')).toContainText('not shown');
  await expect(page.getByTestId('rollout-budget')).toContainText("(the controller's count)");
  // The editor's review of a template change: no plan, and why.
  await page.goto('/edit/daemonsets/default/access-ds');
  await page.locator('#f-spec-template-spec-containers-0-image').fill('c:2');
  await page.getByRole('button', { name: /Review changes/ }).click();
  await expect(page.getByRole('region', { name: 'Review' }).getByTestId('rollout-plan')).toContainText('No plan: the nodes could not be read');
  await page.screenshot({ path: 'test-results/access-editor-no-nodes.png', fullPage: true });
});

test('the token in the address fragment signs in and leaves the address bar', async ({ page }) => {
  await page.goto('/settings');
  await page.evaluate(() => localStorage.clear());
  await page.goto(`/daemonsets?ns=default#token=${EDITOR}`);
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
  expect(new URL(page.url()).hash).toBe('');
  expect(page.url()).not.toContain(EDITOR);
  // An editor may create DaemonSets in default.
  await expect(page.getByRole('link', { name: 'Create' })).toBeVisible();
});

test('signing in by pasting a kubeconfig: a certificate user is explained, a token user signs in', async ({ page }) => {
  await page.goto('/settings');
  await page.evaluate(() => localStorage.clear());
  await page.goto('/daemonsets?ns=default');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByRole('tab', { name: 'Kubeconfig' }).click();
  await page.getByLabel('Kubeconfig').fill(`apiVersion: v1
kind: Config
current-context: admin
clusters:
  - name: e2e
    cluster:
      server: ${SERVER}
users:
  - name: admin
    user:
      client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
      client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t
  - name: editor
    user:
      token: ${EDITOR}
contexts:
  - name: admin
    context: { cluster: e2e, user: admin }
  - name: editor
    context: { cluster: e2e, user: editor, namespace: default }
`);
  // The current context signs in with a client certificate: chosen, it says why a browser cannot use it.
  await page.getByRole('radio', { name: 'admin', exact: true }).check();
  await expect(page.getByText(/signs in with a client certificate.*A web page cannot use it/)).toBeVisible();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('client certificate');

  await page.getByRole('radio', { name: 'editor', exact: true }).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Daemon sets' })).toBeVisible();
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
});

test("the server's own kubeconfig signs in as its admin, through this page's address", async ({ page }) => {
  await page.goto('/settings');
  await page.evaluate(() => localStorage.clear());
  await page.goto('/nodes');
  await page.getByRole('tab', { name: 'Kubeconfig' }).click();
  // It names https://127.0.0.1:<port>: the same server, which the browser reaches over the page's plain HTTP.
  await page.getByLabel('Kubeconfig').fill(readFileSync(E2E_KUBECONFIG, 'utf8'));
  await expect(page.getByLabel('API base URL')).toHaveValue(SERVER);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('whoami')).toHaveText('system:admin');
  await expect(page.locator('[role=row][data-name="access-node"]')).toBeVisible();
});

test('switching between two saved connections changes who the app acts as', async ({ page }) => {
  await signInWithToken(page, VIEWER);
  await page.goto('/settings');
  await page.getByRole('button', { name: 'Add a connection…' }).click();
  const form = page.getByRole('form', { name: 'Credentials' });
  await form.getByLabel('Name').fill('as editor');
  await form.getByLabel('Bearer token').fill(EDITOR);
  await form.getByRole('button', { name: 'Save and switch' }).click();
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
  await expect(page.getByRole('row', { name: /as editor.*current/ })).toBeVisible();

  await page.goto('/daemonsets?ns=default');
  await expect(page.getByRole('link', { name: 'Create' })).toBeVisible();
  const switcher = page.getByRole('combobox', { name: 'Connection' });
  await switcher.selectOption({ label: 'This server' });
  await expect(page.getByTestId('whoami')).toHaveText('e2e-viewer');
  await expect(page.getByRole('button', { name: 'Create' })).toBeDisabled();
  await switcher.selectOption({ label: 'as editor' });
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
  await expect(page.getByRole('link', { name: 'Create' })).toBeVisible();
  // Both survive a reload, tokens and all.
  await page.reload();
  await expect(page.getByTestId('whoami')).toHaveText('e2e-editor');
  await expect(switcher.locator('option')).toHaveText(['This server', 'as editor']);
});

test('who can delete DaemonSets: the editors through edit, and system:masters; not the viewers', async ({ page }) => {
  await signInWithToken(page, ADMIN);
  await page.goto('/access?verb=delete&resource=daemonsets.apps&ns=default');
  const table = page.getByRole('table', { name: /Subjects allowed/ });
  await expect(table.getByRole('row', { name: /e2e:editors.*e2e-editors-edit.*ClusterRole edit/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /system:masters/ }).first()).toBeVisible();
  await expect(table.getByRole('row', { name: /e2e:viewers/ })).toHaveCount(0);
  // view grants list through aggregation; the what-can view of the viewers' group says so.
  await page.goto('/access?tab=subject&kind=Group&name=e2e:viewers');
  await expect(page.getByRole('row', { name: /get, list, watch.*nodes.*cluster-wide.*e2e-viewers-nodes/ })).toBeVisible();
  await expect(page.getByText(/aggregated from/).first()).toBeVisible();
});
