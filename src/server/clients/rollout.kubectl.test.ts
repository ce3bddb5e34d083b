// The real `kubectl rollout status` against the real server, with the
// DaemonSet controller and simulated kubelets running: it waits while the
// rollout is in progress and reports success at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.1, podReadySeconds: 0.2, podStopSeconds: 0.1 } });
  k = kubectlFor(s, { timeoutMs: 90_000 });
});
afterAll(() => s.stop());

const kubectl = (...args: string[]) => k(...args);
const manifest = (name: string, text: string) => k.manifest(name, text);

const daemonSet = (image: string, strategy = 'RollingUpdate') => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  minReadySeconds: 1
  updateStrategy:
    type: ${strategy}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: ${image}
`;

describe('kubectl rollout status ds', () => {
  it('waits for the rollout after an image change and then reports success', async () => {
    for (const n of ['ro-1', 'ro-2', 'ro-3']) {
      expect((await kubectl('create', '-f', manifest(n, `apiVersion: v1\nkind: Node\nmetadata: {name: ${n}}\n`))).code).toBe(0);
    }
    const created = await kubectl('create', '-f', manifest('ds-v1', daemonSet('registry.k8s.io/pause:3.9')));
    expect(created.stderr).toBe('');
    const first = await kubectl('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(first.stderr).toBe('');
    expect(first.stdout.trim().split('\n').at(-1)).toBe('daemon set "agent" successfully rolled out');

    // Replace the image; rollout status must watch the rolling update to its end.
    const replaced = await kubectl('replace', '-f', manifest('ds-v2', daemonSet('registry.k8s.io/pause:3.10')));
    expect(replaced.stdout).toContain('daemonset.apps/agent replaced');
    const status = await kubectl('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(status.code).toBe(0);
    const lines = status.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('daemon set "agent" successfully rolled out');
    // It waited: progress lines came first, in kubectl's words.
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(0, -1)) {
      expect(line).toMatch(
        /^(Waiting for daemon set spec update to be observed\.\.\.|Waiting for daemon set "agent" rollout to finish: \d+ out of 3 new pods have been updated\.\.\.|Waiting for daemon set "agent" rollout to finish: \d+ of 3 updated pods are available\.\.\.)$/,
      );
    }
    const pods = JSON.parse((await kubectl('get', 'pods', '-l', 'app=agent', '-o', 'json')).stdout).items;
    expect(pods.filter((p: any) => !p.metadata.deletionTimestamp).map((p: any) => p.spec.containers[0].image)).toEqual(Array(3).fill('registry.k8s.io/pause:3.10'));

    // A merge patch works the same way.
    const patched = await kubectl('patch', 'ds/agent', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"registry.k8s.io/pause:3.10.1"}]}}}}');
    expect(patched.code).toBe(0);
    const again = await kubectl('rollout', 'status', 'ds/agent', '--timeout=60s');
    expect(again.stdout.trim().split('\n').at(-1)).toBe('daemon set "agent" successfully rolled out');
  });

  it('refuses OnDelete DaemonSets as kubectl does', async () => {
    await kubectl('replace', '-f', manifest('ds-ondelete', daemonSet('registry.k8s.io/pause:3.10', 'OnDelete')));
    const r = await kubectl('rollout', 'status', 'ds/agent', '--timeout=10s');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('rollout status is only available for RollingUpdate strategy type');
  });
});

