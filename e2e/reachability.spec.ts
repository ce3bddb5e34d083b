import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, kubectl, nodeManifest } from './helpers.ts';

// Two pods in their own namespace on a simulated node; the matrix is read on
// TCP 80, which both declare.
const NS = 'rx-e2e';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: name } },
  spec: { nodeName: 'rx-node', containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 80 }] }] },
});

const denyAll = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny-all', namespace: NS },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};

const cell = (page: Page, from: string, to: string) => page.locator(`button.rx-cell[data-from="${NS}/${from}"][data-to="${NS}/${to}"]`);

async function applyFile(manifest: unknown) {
  const file = join(mkdtempSync(join(tmpdir(), 'kw-e2e-')), 'manifest.json');
  writeFileSync(file, JSON.stringify(manifest));
  return kubectl('apply', '-f', file);
}

/** Replaces the whole text of the Monaco editor on the page (pasted: Monaco indents typed lines itself). */
async function setEditorText(page: Page, text: string) {
  await page.locator('.monaco-editor').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('ControlOrMeta+V');
}

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test.beforeAll(async () => {
  await apiRequest('/api/v1/nodes', 'POST', nodeManifest('rx-node'));
  expect((await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
  for (const name of ['web', 'db']) expect((await apiRequest(`/api/v1/namespaces/${NS}/pods`, 'POST', pod(name))).status).toBe(201);
});

test('a deny-all applied with kubectl turns the matrix cells denied without a reload, and the explanation names it', async ({ page }) => {
  await page.goto('/reachability?port=80');
  await expect(page.getByRole('heading', { name: 'Reachability' })).toBeVisible();
  await expect(cell(page, 'web', 'db')).toHaveAttribute('data-state', 'allowed');
  await expect(cell(page, 'db', 'web')).toHaveAttribute('data-state', 'allowed');
  await expect(cell(page, 'web', 'db')).toHaveText('✓');

  const r = await applyFile(denyAll);
  expect(r.code, r.stderr).toBe(0);

  await expect(cell(page, 'web', 'db')).toHaveAttribute('data-state', 'denied');
  await expect(cell(page, 'db', 'web')).toHaveAttribute('data-state', 'denied');
  await expect(cell(page, 'web', 'db')).toHaveText('✕');
  await expect(page.getByTestId('reach-status')).toHaveText(/up to date/);

  await cell(page, 'web', 'db').click();
  const explanation = page.getByTestId('explanation');
  await expect(explanation).toContainText('denied');
  await expect(explanation).toContainText(`${NS}/deny-all`);
  await expect(explanation.getByRole('link', { name: `${NS}/deny-all` }).first()).toHaveAttribute('href', `/networkpolicies/${NS}/deny-all`);

  // The policy highlighted from its detail page.
  await page.goto(`/networkpolicies/${NS}/deny-all`);
  await page.getByRole('link', { name: 'Show in reachability matrix' }).click();
  await expect(page).toHaveURL(/\/reachability\?policy=rx-e2e%2Fdeny-all/);
  await expect(page.getByRole('button', { name: new RegExp(`${NS}/deny-all`) })).toHaveAttribute('aria-pressed', 'true');
});

test('a what-if edit in the editor shows the pairs it would allow before anything is saved', async ({ page }) => {
  // Same state whichever test ran first.
  expect((await applyFile(denyAll)).code).toBe(0);
  await page.goto(`/edit/networkpolicies/${NS}/deny-all`);
  const whatIf = page.getByTestId('whatif');
  await expect(whatIf).toContainText('no change');

  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.locator('.monaco-editor')).toBeVisible();
  await setEditorText(
    page,
    [
      'apiVersion: networking.k8s.io/v1',
      'kind: NetworkPolicy',
      'metadata:',
      '  name: deny-all',
      `  namespace: ${NS}`,
      'spec:',
      '  podSelector: {}',
      '  policyTypes: [Ingress]',
      '  ingress:',
      '  - from:',
      '    - podSelector: {matchLabels: {app: web}}',
      '',
    ].join('\n'),
  );

  // web may now reach db and itself; db still reaches nothing in the namespace.
  await expect(whatIf).toContainText('Newly allowed');
  await expect(whatIf.locator(`[data-pair="${NS}/web>${NS}/db"]`)).toContainText('TCP 80');
  await expect(whatIf.locator(`[data-pair="${NS}/db>${NS}/web"]`)).toHaveCount(0);
  await expect(whatIf.getByRole('status')).toHaveText(/\+\d+ allowed, −0 denied/);

  // Nothing was saved.
  const r = await kubectl('get', 'netpol', 'deny-all', '-n', NS, '-o', 'jsonpath={.spec.ingress}');
  expect(r.stdout).toBe('');
});

test('matrix heads show whole names, the graph\'s edge labels never cover one another, and the summary is in plain words', async ({ page }) => {
  // A long namespace name over a single column, and several edges into one group.
  const ns = 'observability-and-logging';
  expect((await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  for (const name of ['collector-aggregator-primary', 'shipper', 'store']) {
    const p = pod(name);
    p.metadata.namespace = ns;
    expect((await apiRequest(`/api/v1/namespaces/${ns}/pods`, 'POST', p)).status).toBe(201);
  }
  const allowIntoStore = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'into-store', namespace: ns },
    spec: {
      podSelector: { matchLabels: { app: 'store' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: {} }, { namespaceSelector: {}, podSelector: { matchLabels: { app: 'web' } } }], ports: [{ protocol: 'TCP', port: 80 }] }],
    },
  };
  expect((await apiRequest(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies`, 'POST', allowIntoStore)).status).toBe(201);

  await page.goto('/reachability?view=matrix&port=80&protocol=TCP');
  const head = page.locator('th.rx-ns-col', { hasText: ns });
  await expect(head).toBeVisible();
  await expect(page.locator('.sub')).toContainText(/network polic(y|ies), which treat(s)? the pods as \d+ distinct sets?/);
  await expect(page.locator('.sub')).not.toContainText('tells apart');
  // Every head's text fits inside its cell.
  const cut = await page.evaluate(() => {
    const out: string[] = [];
    const inside = (inner: DOMRect, outer: DOMRect) => inner.left >= outer.left - 1 && inner.right <= outer.right + 1 && inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
    for (const th of document.querySelectorAll<HTMLElement>('th.rx-ns-col, th.rx-col')) {
      const text = th.firstElementChild as HTMLElement;
      if (!inside(text.getBoundingClientRect(), th.getBoundingClientRect()) || text.scrollWidth > text.clientWidth + 1 || text.scrollHeight > text.clientHeight + 1) out.push(text.textContent ?? '');
    }
    return out;
  });
  expect(cut).toEqual([]);

  await page.goto('/reachability?view=graph');
  const labels = page.locator('svg.rx-graph .rx-edge-label');
  await expect(labels.first()).toBeVisible();
  const overlaps = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll<SVGTextElement>('svg.rx-graph .rx-edge-label')].map((t) => ({ text: t.textContent, b: t.getBBox() }));
    const out: string[] = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].b, boxes[j].b];
        if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) out.push(`${boxes[i].text} / ${boxes[j].text}`);
      }
    return { count: boxes.length, out };
  });
  expect(overlaps.count).toBeGreaterThan(2);
  expect(overlaps.out).toEqual([]);
});

test('while the pods are still read in pages, the page says its answers are for those read so far, and checks intents only once all are read', async ({ page }) => {
  // More pods than the first page holds (100), in a namespace of their own; the later pages are held back.
  const ns = 'rx-reading';
  expect((await apiRequest('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const have = (await apiRequest('/api/v1/pods')).body.items.length as number;
  for (let i = 0; i < Math.max(0, 130 - have); i += 20) {
    const made = await Promise.all(Array.from({ length: 20 }, (_, j) => apiRequest(`/api/v1/namespaces/${ns}/pods`, 'POST', { ...pod(`p-${i + j}`), metadata: { name: `p-${i + j}`, namespace: ns, labels: { app: 'many' } } })));
    expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
  }
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.context().route(/\/api\/v1\/pods\?.*continue=/, async (route) => {
    await released;
    await route.continue();
  });
  try {
    await page.goto('/reachability?view=intents');
    const status = page.getByTestId('reach-status');
    // Of how many the server holds, from the first page's remainingItemCount.
    await expect(status).toHaveText(/^reading pods · 100 of [\d,]{3,}$/);
    const total = (await status.textContent())!.split(' of ')[1];
    expect(Number(total.replaceAll(',', ''))).toBeGreaterThanOrEqual(130);
    await expect(page.locator('.page-head .sub')).toContainText('100 pods (of those read so far) in');
    await expect(page.getByTestId('intents-summary')).toHaveText(`reading pods · 100 of ${total}`);
    release();
    await expect(status).toHaveText(/^up to date/);
    await expect(page.locator('.page-head .sub')).not.toContainText('so far');
    await expect(page.getByTestId('intents-summary')).not.toContainText('reading');
  } finally {
    release();
    expect((await apiRequest(`/api/v1/namespaces/${ns}`, 'DELETE')).status).toBe(200);
  }
});
