// Talking to the real server from e2e tests: JSON over HTTP and the real kubectl.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { E2E_PORT } from '../playwright.config.ts';

export const SERVER = `http://127.0.0.1:${E2E_PORT}`;

export async function apiRequest(path: string, method = 'GET', body?: unknown, contentType = 'application/json') {
  const res = await fetch(SERVER + path, { method, headers: body ? { 'Content-Type': contentType } : {}, body: body ? JSON.stringify(body) : undefined });
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

const run = promisify(execFile);
let kubeconfig: string | undefined;

export async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  if (!kubeconfig) {
    const dir = mkdtempSync(join(tmpdir(), 'kw-e2e-'));
    kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: e2e, cluster: {server: "${SERVER}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: e2e, context: {cluster: e2e, user: u}}]\ncurrent-context: e2e\n`,
    );
  }
  try {
    const r = await run('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: join(kubeconfig, '..') } });
    return { ...r, code: 0 };
  } catch (e: any) {
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? String(e), code: e.code ?? 1 };
  }
}
