// `kubectl delete --cascade=…` against the real server, with the DaemonSet
// controller, the garbage collector and simulated kubelets running: orphan
// leaves the pods and revisions (without their owner references), foreground
// removes the pods before the DaemonSet, background removes everything.
// And `kubectl delete node`: pod GC removes the pods bound to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

// Pods take a while to stop, so a foreground deletion can be watched waiting for them.
beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 1.5 } });
  k = kubectlFor(s, { timeoutMs: 60_000 });
  for (const n of ['cas-1', 'cas-2']) {
    const r = await k('create', '-f', k.manifest(n, `apiVersion: v1\nkind: Node\nmetadata: {name: ${n}}\n`));
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(() => s.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const daemonSet = (name: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: main
        image: registry.k8s.io/pause:3.9
`;

const getDs = (name: string) => s.api(`/apis/apps/v1/namespaces/default/daemonsets/${name}`);
const podsOf = async (app: string) => (await s.api(`/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as any[];
const revisionsOf = async (app: string) => (await s.api(`/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3D${app}`)).body.items as any[];

async function runningDaemonSet(name: string) {
  const r = await k('create', '-f', k.manifest(name, daemonSet(name)));
  expect(r.code, r.stderr).toBe(0);
  const ds = (await getDs(name)).body;
  const pods = await until(
    () => podsOf(name),
    (ps) => ps.length === 2 && ps.every((p) => p.status?.phase === 'Running'),
    `two running pods of ${name}`,
  );
  expect(pods.every((p) => p.metadata.ownerReferences?.[0]?.uid === ds.metadata.uid)).toBe(true);
  expect(await revisionsOf(name)).toHaveLength(1);
  return ds;
}

describe('kubectl delete ds --cascade', () => {
  it('orphan leaves the pods, without owner references, and the ControllerRevisions', async () => {
    await runningDaemonSet('orph');
    const r = await k('delete', 'ds', 'orph', '--cascade=orphan');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('daemonset.apps "orph" deleted');
    expect((await getDs('orph')).status).toBe(404);
    const pods = await podsOf('orph');
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.metadata.ownerReferences).toBeUndefined();
      expect(p.metadata.deletionTimestamp).toBeUndefined();
    }
    const revs = await revisionsOf('orph');
    expect(revs).toHaveLength(1);
    expect(revs[0].metadata.ownerReferences).toBeUndefined();
    // Nothing comes back for them later either.
    await sleep(300);
    expect((await podsOf('orph')).map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
  });

  it('foreground removes the pods first and the DaemonSet last, which waits marked with the finalizer', async () => {
    await runningDaemonSet('fore');
    const deleting = k('delete', 'ds', 'fore', '--cascade=foreground');
    // While the pods stop, the DaemonSet is there with deletionTimestamp and foregroundDeletion.
    const marked = await until(
      async () => ({ ds: (await getDs('fore')).body, pods: await podsOf('fore') }),
      (v) => !!v.ds.metadata?.deletionTimestamp && v.pods.length > 0 && v.pods.every((p) => p.metadata.deletionTimestamp),
      'the DaemonSet waiting for its terminating pods',
    );
    expect(marked.ds.metadata.finalizers).toEqual(['foregroundDeletion']);
    // The DaemonSet never goes while a pod remains.
    for (;;) {
      const gone = (await getDs('fore')).status === 404;
      const pods = await podsOf('fore');
      if (gone) {
        expect(pods).toEqual([]);
        break;
      }
      await sleep(25);
    }
    const r = await deleting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('daemonset.apps "fore" deleted');
    expect(await revisionsOf('fore')).toEqual([]);
  });

  it('background (the default) deletes the DaemonSet at once and then its pods and revisions', async () => {
    await runningDaemonSet('back');
    const r = await k('delete', 'ds', 'back');
    expect(r.code, r.stderr).toBe(0);
    expect((await getDs('back')).status).toBe(404);
    await until(async () => [...(await podsOf('back')), ...(await revisionsOf('back'))], (all) => all.length === 0, 'pods and revisions gone');
  });

  it('rejects an unknown propagation policy as the server words it', async () => {
    const r = await s.api('/apis/apps/v1/namespaces/default/daemonsets/none?propagationPolicy=orphan', { method: 'DELETE' });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "orphan": supported values: "Foreground", "Background", "Orphan", "nil"');
  });
});

describe('kubectl delete node', () => {
  it('leaves its pods to pod GC, which force-deletes them after the quarantine', async () => {
    expect((await k('create', '-f', k.manifest('cas-3', 'apiVersion: v1\nkind: Node\nmetadata: {name: cas-3}\n'))).code).toBe(0);
    for (const name of ['stray-1', 'stray-2']) {
      const r = await k('run', name, '--image=registry.k8s.io/pause:3.9', '--overrides={"spec":{"nodeName":"cas-3"}}');
      expect(r.code, r.stderr).toBe(0);
    }
    const running = await k('wait', '--for=jsonpath={.status.phase}=Running', 'pod/stray-1', 'pod/stray-2', '--timeout=20s');
    expect(running.code, running.stderr).toBe(0);
    const del = await k('delete', 'node', 'cas-3');
    expect(del.stdout.trim()).toBe('node "cas-3" deleted');
    const gone = await k('wait', '--for=delete', 'pod/stray-1', 'pod/stray-2', '--timeout=30s');
    expect(gone.code, gone.stderr).toBe(0);
    expect((await k('get', 'pods', '--field-selector=spec.nodeName=cas-3', '-o', 'name')).stdout.trim()).toBe('');
  });
});
