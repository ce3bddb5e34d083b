// Events through the real kubectl: `describe` lists an object's events (by
// its involvedObject field selector), `kubectl events --for … --types …`,
// `kubectl events -w` and `kubectl get events -w`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { spawn } from 'node:child_process';
import { kubectlFor, type Kubectl } from '../clients/kubectl.ts';

let s: TestServer;
let kubectl: Kubectl;
beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 } });
  kubectl = kubectlFor(s);
  for (const [name, ann] of [['k-ok', {}], ['k-pull', { 'sim.k8s.io/image-pull-error': 'true' }]] as const) {
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name, labels: { group: 'k' }, annotations: ann } } })).status).toBe(201);
  }
  const ds = await s.api('/apis/apps/v1/namespaces/default/daemonsets', {
    method: 'POST',
    body: {
      metadata: { name: 'kds' },
      spec: { selector: { matchLabels: { app: 'kds' } }, template: { metadata: { labels: { app: 'kds' } }, spec: { nodeSelector: { group: 'k' }, containers: [{ name: 'agent', image: 'registry.k8s.io/agent:2' }] } } },
    },
  });
  expect(ds.status).toBe(201);
  // Wait for the kubelet's warning about the node that cannot pull.
  for (let i = 0; i < 400; i++) {
    const items = (await s.api('/api/v1/namespaces/default/events?fieldSelector=type%3DWarning,source%3Dkubelet')).body.items;
    if (items.some((e: any) => e.message === 'Error: ImagePullBackOff')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(() => s.stop());

describe('kubectl and events', () => {
  it('describe ds shows the controller\'s events; describe pod the kubelet\'s; describe node the node\'s', async () => {
    const ds = await kubectl('describe', 'ds', 'kds');
    expect(ds.code, ds.stderr).toBe(0);
    expect(ds.stdout).toMatch(/Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message/);
    expect(ds.stdout).toMatch(/Normal\s+SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: kds-[a-z0-9]{5}/);

    const pods = await kubectl('get', 'pods', '-l', 'app=kds', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\\n"}{end}');
    const failing = pods.stdout.split('\n').find((l) => l.endsWith(' k-pull'))!.split(' ')[0];
    const pod = await kubectl('describe', 'pod', failing);
    expect(pod.code, pod.stderr).toBe(0);
    expect(pod.stdout).toMatch(/Warning\s+Failed\s+\S+\s+kubelet\s+Error: ImagePullBackOff/);
    expect(pod.stdout).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/kds-\w+ to k-pull/);

    const node = await kubectl('describe', 'node', 'k-ok');
    expect(node.code, node.stderr).toBe(0);
    expect(node.stdout).toMatch(/Normal\s+NodeReady\s+\S+\s+kubelet\s+Node k-ok status is now: NodeReady/);
  });

  it('kubectl events --for ds/x, --types Warning, and get events print the upstream columns', async () => {
    const forDs = await kubectl('events', '--for', 'daemonset/kds');
    expect(forDs.code, forDs.stderr).toBe(0);
    expect(forDs.stdout.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(forDs.stdout).toMatch(/Normal\s+SuccessfulCreate\s+DaemonSet\/kds\s+Created pod: kds-/);
    expect(forDs.stdout).not.toContain('kubelet');

    const warnings = await kubectl('events', '--types', 'Warning');
    expect(warnings.code, warnings.stderr).toBe(0);
    expect(warnings.stdout).toMatch(/Warning\s+Failed\s+Pod\/kds-\w+\s+Error: ImagePullBackOff/);
    expect(warnings.stdout).not.toMatch(/\sNormal\s/);

    const get = await kubectl('get', 'events', '--field-selector', 'reason=SuccessfulCreate');
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    expect(get.stdout).toMatch(/Normal\s+SuccessfulCreate\s+daemonset\/kds\s+Created pod: kds-/);

    const viaNew = await kubectl('get', 'events.events.k8s.io', '--field-selector', 'regarding.name=kds', '-o', 'jsonpath={.items[0].note}');
    expect(viaNew.code, viaNew.stderr).toBe(0);
    expect(viaNew.stdout).toMatch(/^Created pod: kds-/);
  });

  it('kubectl events -w and kubectl get events -w stream new events', async () => {
    // Each watcher runs until it prints the line it waits for; events are written until both have.
    const watchers = [
      watchUntil(['events', '--for', 'pod/watched', '-w'], /Normal\s+Watched\s+Pod\/watched\s+seen while watching/),
      watchUntil(['get', 'events', '-w', '--field-selector', 'involvedObject.name=watched'], /Normal\s+Watched\s+pod\/watched\s+seen while watching/),
    ];
    let done = false;
    const all = Promise.all(watchers.map((w) => w.seen)).finally(() => (done = true));
    for (let i = 0; !done && i < 60; i++) {
      const r = await s.api('/api/v1/namespaces/default/events', {
        method: 'POST',
        body: { metadata: { name: `watched.${i}` }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'watched', apiVersion: 'v1' }, reason: 'Watched', message: 'seen while watching', type: 'Normal', source: { component: 'test' } },
      });
      expect(r.status).toBe(201);
      await Promise.race([all, new Promise((r) => setTimeout(r, 500))]);
    }
    expect(await all).toEqual([true, true]);
  });
});

/** Runs kubectl until its output matches `pattern` (then stops it) or 30 s pass. */
function watchUntil(args: string[], pattern: RegExp): { seen: Promise<boolean> } {
  const child = spawn('kubectl', args, { env: kubectl.env });
  let out = '';
  const seen = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => (child.kill(), resolve(false)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (pattern.test(out)) {
        clearTimeout(timer);
        child.kill();
        resolve(true);
      }
    });
    child.on('exit', () => (clearTimeout(timer), resolve(pattern.test(out))));
  });
  return { seen };
}
