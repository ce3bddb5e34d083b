// Talking to the real server from e2e tests: JSON over HTTP and the real kubectl,
// both as the e2e admin (see playwright.config.ts).
import { readFileSync } from 'node:fs';
import { kubectlFor, type Kubectl } from '../src/server/clients/kubectl.ts';
import { E2E_DIR, E2E_PORT, E2E_TOKEN } from '../playwright.config.ts';
import type { Page } from '@playwright/test';

export const SERVER = `http://127.0.0.1:${E2E_PORT}`;

/** The page URL of an app path exactly (any query string allowed): `/x/y` must not match `/edit/x/y`. */
export const appUrl = (path: string) => new RegExp(`^${SERVER.replace(/\./g, '\\.')}${path.replace(/[.?]/g, '\\$&')}(\\?.*)?$`);

export async function apiRequest(path: string, method = 'GET', body?: unknown, contentType = 'application/json') {
  const headers: Record<string, string> = { Authorization: `Bearer ${E2E_TOKEN}` };
  if (body) headers['Content-Type'] = contentType;
  const res = await fetch(SERVER + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export function nodeManifest(name: string, labels: Record<string, string> = {}, ready = true) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    // The simulated kubelet owns node status on the e2e server, so a node meant
    // to stay NotReady carries the simulator's fault annotation too.
    metadata: { name, labels, annotations: ready ? {} : { 'sim.k8s.io/not-ready': 'true' } },
    spec: {},
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'KubeletReady' : 'KubeletNotReady', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.24', architecture: 'amd64', operatingSystem: 'linux', machineID: '', systemUUID: '', bootID: '', kubeProxyVersion: '' },
      addresses: [{ type: 'InternalIP', address: '10.0.0.10' }],
    },
  };
}

let k: Kubectl | undefined;

/** The real kubectl against the e2e server, over TLS trusting the CA the server made. */
export const kubectl = (...args: string[]) =>
  (k ??= kubectlFor({ httpsUrl: `https://127.0.0.1:${E2E_PORT}`, ca: readFileSync(`${E2E_DIR}/pki/ca.crt`, 'utf8'), adminToken: E2E_TOKEN }))(...args);

/** Replaces the whole text of the Monaco editor on the page. */
export async function setEditorText(page: Page, text: string) {
  const editor = page.locator('.monaco-editor').first();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  // Pasted, not typed: Monaco indents typed lines itself.
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('ControlOrMeta+V');
}

/** The whole text of the editor, read as a user would: select all and copy (Monaco renders only the visible lines). */
export async function editorText(page: Page): Promise<string> {
  await page.locator('.monaco-editor').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+C');
  return page.evaluate(() => navigator.clipboard.readText());
}
