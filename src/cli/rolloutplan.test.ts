// `kube-workbench rollout-plan` against the real server: through its
// kubeconfig (TLS, the CA it wrote, the admin token) and through a URL with a
// token; the manifest dry-run by the server; the waves it prints are the
// library's plan.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/testing.ts';
import { main } from './main.ts';

let s: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'kw-plan-cli-'));

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (x) => (out += x), err: (x) => (err += x) });
  return { code, out, err };
}

const manifest = (image: string, maxUnavailable: number | string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cli-agent
  namespace: default
spec:
  selector:
    matchLabels: {app: cli-agent}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: ${JSON.stringify(maxUnavailable)}}
  template:
    metadata:
      labels: {app: cli-agent}
    spec:
      nodeSelector: {group: cli}
      containers: [{name: main, image: ${image}}]
`;

beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 } });
  for (const name of ['cli-1', 'cli-2', 'cli-3', 'cli-4']) {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name, labels: { group: 'cli' } }, spec: name === 'cli-4' ? { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } : {} } });
    expect(r.status).toBe(201);
  }
  writeFileSync(join(dir, 'v1.yaml'), manifest('agent:v1', 1));
  const created = await s.api('/apis/apps/v1/namespaces/default/daemonsets', { method: 'POST', body: manifest('agent:v1', 1), headers: { 'Content-Type': 'application/yaml' } });
  expect(created.status).toBe(201);
  for (let i = 0; i < 400; i++) {
    const st = (await s.api('/apis/apps/v1/namespaces/default/daemonsets/cli-agent')).body.status ?? {};
    if (st.desiredNumberScheduled === 3 && st.numberAvailable === 3) break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(() => s.stop());

describe('kube-workbench rollout-plan', () => {
  it('prints the waves, the nodes left out and the forecast, through the kubeconfig', async () => {
    writeFileSync(join(dir, 'v2.yaml'), manifest('agent:v2', 2));
    const r = await run('rollout-plan', join(dir, 'v2.yaml'), '--cluster', join(s.dataDir, 'kubeconfig'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('DaemonSet default/cli-agent: the pod template changes');
    expect(r.out).toMatch(/^2 waves over 3 nodes under maxUnavailable 2 of 3, about \S+ \(\S+–\S+\)$/m);
    expect(r.out).toMatch(/^1 +2\/2 +\S+ +cli-1, cli-2$/m);
    expect(r.out).toMatch(/^2 +1\/2 +\S+ +cli-3$/m);
    expect(r.out).toContain('cli-4: taint gpu:NoSchedule is not tolerated');
    // Nothing was applied.
    expect((await s.api('/apis/apps/v1/namespaces/default/daemonsets/cli-agent')).body.spec.template.spec.containers[0].image).toBe('agent:v1');
  });

  it('takes a URL and a token, and prints JSON on request; an unchanged template plans the next change', async () => {
    const r = await run('rollout-plan', join(dir, 'v1.yaml'), '--cluster', s.url, '--token', s.adminToken, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.daemonSet).toBe('default/cli-agent');
    expect(out.hypothetical).toBe(true);
    expect(out.plan.waves.map((w: any) => w.steps.map((x: any) => x.nodeName))).toEqual([['cli-1'], ['cli-2'], ['cli-3']]);
  });

  it('fails with the server\'s message on a manifest it would reject, and on missing arguments', async () => {
    writeFileSync(join(dir, 'bad.yaml'), manifest('agent:v2', '200%'));
    const bad = await run('rollout-plan', join(dir, 'bad.yaml'), '--cluster', s.url, '--token', s.adminToken);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/rollout-plan: .*maxUnavailable/);
    expect((await run('rollout-plan', join(dir, 'v1.yaml'))).code).toBe(2);
  });
});
