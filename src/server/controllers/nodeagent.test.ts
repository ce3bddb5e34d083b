// The simulated kubelets over the real server: node status and heartbeats,
// the pod lifecycle, graceful deletion, fault injection and the deprecated
// dynamic configuration moves, with short delays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer, until as waitUntil } from '../testing.ts';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    simulation: { heartbeatSeconds: 1, podStartSeconds: 0.2, podReadySeconds: 0.2, podStopSeconds: 0.1, crashBackoffSeconds: 0.1, soakSeconds: 1 },
  });
});
afterAll(() => s.stop());

/** Polls `read` until `ok` holds (bounded), returning the last value. */
const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 8_000) => waitUntil(read, ok, what, timeoutMs);

const getNode = async (name: string) => (await s.api(`/api/v1/nodes/${name}`)).body;
const getLease = async (name: string) => (await s.api(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`)).body;
const getPod = async (ns: string, name: string) => (await s.api(`/api/v1/namespaces/${ns}/pods/${name}`)).body;
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
const mergePatch = (path: string, body: unknown) =>
  s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });

async function createNode(name: string, extra: Record<string, unknown> = {}) {
  const r = await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, ...extra } } });
  expect(r.status).toBe(201);
  return until(() => getNode(name), (n) => cond(n, 'Ready')?.status === 'True', `node ${name} Ready`);
}

async function createPod(name: string, node: string, annotations?: Record<string, string>, extraSpec: Record<string, unknown> = {}) {
  const r = await s.api('/api/v1/namespaces/default/pods', {
    method: 'POST',
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27' }], ...extraSpec } },
  });
  expect(r.status).toBe(201);
  return r.body;
}

describe('node status', () => {
  it('is filled by the kubelet and its heartbeat advances', async () => {
    const node = await createNode('agent-n1');
    const st = node.status;
    expect(st.nodeInfo.kubeletVersion).toBe('v1.32.0');
    for (const k of ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture']) {
      expect(st.nodeInfo[k], k).not.toBe('');
    }
    expect(st.capacity).toMatchObject({ cpu: '8', memory: '32Gi', pods: '110' });
    expect(st.allocatable.pods).toBe('110');
    expect(st.daemonEndpoints.kubeletEndpoint.Port).toBe(10250);
    expect(st.addresses.map((a: any) => a.type)).toEqual(['InternalIP', 'Hostname']);
    expect(st.images.length).toBeGreaterThan(0);
    expect(st.conditions.map((c: any) => [c.type, c.status])).toEqual([
      ['MemoryPressure', 'False'],
      ['DiskPressure', 'False'],
      ['PIDPressure', 'False'],
      ['Ready', 'True'],
    ]);
  });

  it('lists the images its pods pulled, and keeps them after the pods go (no Node write for a pod leaving)', async () => {
    await createNode('agent-images');
    await createPod('img-pod', 'agent-images', undefined, { containers: [{ name: 'app', image: 'example.com/pulled:1.0' }] });
    const names = (n: any) => (n.status.images ?? []).flatMap((i: any) => i.names);
    const pulled = await until(() => getNode('agent-images'), (n) => names(n).includes('example.com/pulled:1.0'), 'the pulled image listed');
    expect((await s.api('/api/v1/namespaces/default/pods/img-pod?gracePeriodSeconds=0', { method: 'DELETE' })).status).toBe(200);
    await until(() => getPod('default', 'img-pod'), (p) => p.code === 404, 'the pod gone');
    // Two heartbeats later the image is still listed and the Node was not written for the pod leaving.
    const lease = await until(() => getLease('agent-images'), (l) => !!l?.spec?.renewTime, 'the node Lease');
    const once = await until(() => getLease('agent-images'), (l) => l.spec.renewTime > lease.spec.renewTime, 'a renewal');
    await until(() => getLease('agent-images'), (l) => l.spec.renewTime > once.spec.renewTime, 'a second renewal');
    const after = await getNode('agent-images');
    expect(names(after)).toContain('example.com/pulled:1.0');
    expect(after.metadata.resourceVersion).toBe(pulled.metadata.resourceVersion);
  });

  it('heartbeats renew the node Lease in kube-node-lease, not the Node', async () => {
    const node = await createNode('agent-lease');
    const lease = await until(() => getLease('agent-lease'), (l) => !!l?.spec?.renewTime, 'the node Lease');
    expect(lease.spec).toMatchObject({ holderIdentity: 'agent-lease', leaseDurationSeconds: 4 }); // 0.25 renew interval, as the kubelet's 10 s / 40 s
    expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'agent-lease', uid: node.metadata.uid }]);
    const settled = await getNode('agent-lease');
    // Two renewals later the Node is as it was: an unchanged status waits for nodeStatusReportFrequency (5 min).
    const once = await until(() => getLease('agent-lease'), (l) => l.spec.renewTime > lease.spec.renewTime, 'a renewal');
    await until(() => getLease('agent-lease'), (l) => l.spec.renewTime > once.spec.renewTime, 'a second renewal');
    const after = await getNode('agent-lease');
    expect(after.metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
    expect(cond(after, 'Ready').lastHeartbeatTime).toBe(cond(settled, 'Ready').lastHeartbeatTime);
  });

  it('leaves nodes outside --simulate-nodes alone', async () => {
    const other = await startTestServer({ simulation: { nodes: 'sim=yes', heartbeatSeconds: 1 } });
    try {
      await other.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'real-1' } } });
      await other.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'sim-1', labels: { sim: 'yes' } } } });
      await until(async () => (await other.api('/api/v1/nodes/sim-1')).body, (n) => cond(n, 'Ready')?.status === 'True', 'sim-1 Ready');
      expect((await other.api('/api/v1/nodes/real-1')).body.status.conditions).toBeUndefined();
    } finally {
      await other.stop();
    }
  });

  it('registers --sim-nodes extra nodes', async () => {
    const other = await startTestServer({ simulation: { extraNodes: 3, heartbeatSeconds: 1 } });
    try {
      const list = await until(
        async () => (await other.api('/api/v1/nodes')).body.items,
        (items: any[]) => items.length === 3 && items.every((n) => cond(n, 'Ready')?.status === 'True'),
        'three ready sim nodes',
      );
      expect(list.map((n: any) => n.metadata.name)).toEqual(['sim-node-00001', 'sim-node-00002', 'sim-node-00003']);
    } finally {
      await other.stop();
    }
  });
});

describe('pods', () => {
  beforeAll(() => createNode('agent-n2'));

  it('go Pending -> Running -> Ready', async () => {
    const created = await createPod('lifecycle', 'agent-n2');
    const events = await readWatch(
      `${s.url}/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name=lifecycle&resourceVersion=${created.metadata.resourceVersion}`,
      (ev) => ev.some((e) => cond(e.object, 'Ready')?.status === 'True'),
    );
    const states = events.map((e) => e.object.status);
    const pending = states.find((st) => st.phase === 'Pending' && st.hostIP);
    expect(pending.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    const running = states.find((st) => st.phase === 'Running');
    expect(running.podIP).toMatch(/^10\./);
    expect(running.containerStatuses[0].state.running.startedAt).toBeTruthy();
    expect(running.conditions.find((c: any) => c.type === 'Ready').status).toBe('False');
    const ready = states.at(-1);
    expect(ready.phase).toBe('Running');
    expect(ready.startTime).toBeTruthy();
    expect(ready.hostIP).toBe(ready.hostIPs[0].ip);
    expect(ready.podIP).toBe(running.podIP);
    for (const t of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']) {
      const c = ready.conditions.find((x: any) => x.type === t);
      expect(c?.status, t).toBe('True');
      expect(c.lastTransitionTime, t).toBeTruthy();
    }
    expect(ready.containerStatuses[0]).toMatchObject({ name: 'app', ready: true, started: true, restartCount: 0, image: 'docker.io/library/nginx:1.27' });
  });

  it("on the host's network have the node's InternalIP as their address, not one from the pod CIDR", async () => {
    await createPod('on-host', 'agent-n2', undefined, { hostNetwork: true, containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 8080 }] }] });
    const node = await getNode('agent-n2');
    const ip = node.status.addresses.find((a: any) => a.type === 'InternalIP').address;
    const pod = await until(() => getPod('default', 'on-host'), (p) => p.status?.phase === 'Running', 'on-host Running');
    expect(pod.status).toMatchObject({ podIP: ip, podIPs: [{ ip }], hostIP: ip, hostIPs: [{ ip }] });
    expect(pod.spec.containers[0].ports[0].hostPort).toBe(8080); // defaulted from containerPort on the host network
  });

  it('asking for a host port an admitted pod holds are rejected by the kubelet (bound past the scheduler)', async () => {
    await until(() => getPod('default', 'on-host'), (p) => p.status?.phase === 'Running', 'on-host Running');
    await createPod('port-clash', 'agent-n2', undefined, { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
    const pod = await until(() => getPod('default', 'port-clash'), (p) => p.status?.phase === 'Failed', 'port-clash rejected');
    expect(pod.status).toMatchObject({ reason: 'NodePorts', message: "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" });
    expect(pod.status.containerStatuses).toBeUndefined();
    // Another port, or the same port over UDP, is admitted.
    await createPod('port-udp', 'agent-n2', undefined, { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }] }] });
    await until(() => getPod('default', 'port-udp'), (p) => p.status?.phase === 'Running', 'port-udp Running');
  });

  it('are deleted by the kubelet after a graceful delete', async () => {
    await createPod('graceful', 'agent-n2');
    await until(() => getPod('default', 'graceful'), (p) => p.status?.phase === 'Running', 'running');
    const del = await s.api('/api/v1/namespaces/default/pods/graceful', { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    await until(async () => (await s.api('/api/v1/namespaces/default/pods/graceful')).status, (code) => code === 404, 'pod gone');
  });

  it('fail readiness while annotated, and recover', async () => {
    await createPod('unready', 'agent-n2', { 'sim.k8s.io/fail-readiness': 'true' });
    const running = await until(() => getPod('default', 'unready'), (p) => p.status?.containerStatuses?.[0]?.started === true, 'started');
    // Wait well past the readiness delay: the pod stays unready.
    await new Promise((r) => setTimeout(r, 600));
    const still = await getPod('default', 'unready');
    expect(still.status.phase).toBe('Running');
    expect(cond(still, 'Ready').status).toBe('False');
    expect(running.status.containerStatuses[0].ready).toBe(false);
    await mergePatch('/api/v1/namespaces/default/pods/unready', { metadata: { annotations: { 'sim.k8s.io/fail-readiness': null } } });
    await until(() => getPod('default', 'unready'), (p) => cond(p, 'Ready')?.status === 'True', 'ready after recovery');
  });

  it('crash-loop while annotated, with restartCount increasing, and recover', async () => {
    await createPod('crasher', 'agent-n2', { 'sim.k8s.io/crash': 'true' });
    const p = await until(() => getPod('default', 'crasher'), (x) => (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2, 'restarts');
    const cs = p.status.containerStatuses[0];
    expect(p.status.phase).toBe('Running');
    expect(cs.state.waiting.reason).toBe('CrashLoopBackOff');
    expect(cs.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(cond(p, 'Ready').status).toBe('False');
    await mergePatch('/api/v1/namespaces/default/pods/crasher', { metadata: { annotations: { 'sim.k8s.io/crash': null } } });
    const ok = await until(() => getPod('default', 'crasher'), (x) => cond(x, 'Ready')?.status === 'True', 'ready after crash loop');
    expect(ok.status.containerStatuses[0].state.running).toBeTruthy();
    expect(ok.status.containerStatuses[0].restartCount).toBeGreaterThan(cs.restartCount);
  });

  it('with restartPolicy Never fail for good when they crash', async () => {
    await createPod('crash-once', 'agent-n2', { 'sim.k8s.io/crash': 'true' }, { restartPolicy: 'Never' });
    const p = await until(() => getPod('default', 'crash-once'), (x) => x.status?.phase === 'Failed', 'Failed');
    expect(p.status.containerStatuses[0].state.terminated.exitCode).toBe(1);
  });
});

describe('node faults', () => {
  beforeAll(() => createNode('agent-n3'));

  it('not-ready: Ready=False, the not-ready taint, pods not Ready; then recovery', async () => {
    await createPod('on-n3', 'agent-n3');
    await until(() => getPod('default', 'on-n3'), (p) => cond(p, 'Ready')?.status === 'True', 'pod ready');
    await mergePatch('/api/v1/nodes/agent-n3', { metadata: { annotations: { 'sim.k8s.io/not-ready': 'true' } } });
    const down = await until(
      () => getNode('agent-n3'),
      (n) => cond(n, 'Ready').status === 'False' && (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/not-ready'),
      'NotReady and tainted',
    );
    expect(cond(down, 'Ready').reason).toBe('KubeletNotReady');
    expect(down.spec.taints).toContainEqual({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    await until(() => getPod('default', 'on-n3'), (p) => cond(p, 'Ready')?.status === 'False', 'pod marked not ready');
    await mergePatch('/api/v1/nodes/agent-n3', { metadata: { annotations: { 'sim.k8s.io/not-ready': null } } });
    await until(() => getNode('agent-n3'), (n) => cond(n, 'Ready').status === 'True' && !(n.spec.taints ?? []).length, 'Ready, untainted');
    await until(() => getPod('default', 'on-n3'), (p) => cond(p, 'Ready')?.status === 'True', 'pod ready again');
  });

  it('unreachable: heartbeats stop, conditions Unknown past the grace period, the unreachable taint; then recovery', async () => {
    await mergePatch('/api/v1/nodes/agent-n3', { metadata: { annotations: { 'sim.k8s.io/unreachable': 'true' } } });
    // The grace period is five heartbeats (50 s for the kubelet's 10 s): 5 s here.
    const down = await until(
      () => getNode('agent-n3'),
      (n) => cond(n, 'Ready').status === 'Unknown' && (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/unreachable'),
      'Unknown and tainted',
      30_000,
    );
    const silent = await getLease('agent-n3');
    expect(down.status.conditions.every((c: any) => c.status === 'Unknown' && c.reason === 'NodeStatusUnknown')).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // longer than the heartbeat interval
    expect(cond(await getNode('agent-n3'), 'Ready').lastHeartbeatTime).toBe(cond(down, 'Ready').lastHeartbeatTime);
    expect((await getLease('agent-n3')).spec.renewTime).toBe(silent.spec.renewTime);
    await mergePatch('/api/v1/nodes/agent-n3', { metadata: { annotations: { 'sim.k8s.io/unreachable': null } } });
    await until(() => getNode('agent-n3'), (n) => cond(n, 'Ready').status === 'True' && !(n.spec.taints ?? []).length, 'back');
  });
});

describe('dynamic kubelet configuration (deprecated)', () => {
  const cmPath = '/api/v1/namespaces/kube-system/configmaps';
  const good = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\n';
  const config = async () => (await getNode('agent-cfg')).status.config;

  beforeAll(async () => {
    await createNode('agent-cfg');
    expect((await s.api(cmPath, { method: 'POST', body: { metadata: { name: 'kubelet-cfg' }, data: { kubelet: good } } })).status).toBe(201);
  });

  it('moves through assigned, lastKnownGood, errors with and without rollback, and reset', async () => {
    const cm = (await s.api(`${cmPath}/kubelet-cfg`)).body;
    await mergePatch('/api/v1/nodes/agent-cfg', { spec: { configSource: { configMap: { namespace: 'kube-system', name: 'kubelet-cfg', kubeletConfigKey: 'kubelet' } } } });
    const assigned = { configMap: { namespace: 'kube-system', name: 'kubelet-cfg', kubeletConfigKey: 'kubelet', uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion } };

    // Assigned at once, active, lastKnownGood only after the soak period.
    const first = await until(config, (c) => !!c?.assigned, 'assigned');
    expect(first.assigned).toEqual(assigned);
    expect(first.active).toEqual(assigned);
    expect(first.error).toBeUndefined();
    const soaked = await until(config, (c) => !!c?.lastKnownGood, 'lastKnownGood after soak');
    expect(soaked.lastKnownGood).toEqual(assigned);

    // Invalid content (late error): assigned moves on, active falls back to lastKnownGood.
    const bad = (await s.api(`${cmPath}/kubelet-cfg`, { method: 'PUT', body: { ...cm, data: { kubelet: 'kind: KubeletConfiguration\nmaxPods: -1\n' } } })).body;
    const invalid = await until(config, (c) => c?.assigned?.configMap?.resourceVersion === bad.metadata.resourceVersion && !!c.error, 'validate error');
    expect(invalid.error).toMatch(/^failed to validate config/);
    expect(invalid.active).toEqual(assigned);
    expect(invalid.lastKnownGood).toEqual(assigned);

    // Unparseable content: a load error, same fallback.
    const garbled = (await s.api(`${cmPath}/kubelet-cfg`, { method: 'PUT', body: { ...bad, data: { kubelet: 'maxPods: [1,' } } })).body;
    const unparsable = await until(config, (c) => c?.assigned?.configMap?.resourceVersion === garbled.metadata.resourceVersion, 'load error');
    expect(unparsable.error).toMatch(/^failed to load config/);
    expect(unparsable.active).toEqual(assigned);

    // A missing key is a load error too.
    await mergePatch('/api/v1/nodes/agent-cfg', { spec: { configSource: { configMap: { kubeletConfigKey: 'nope' } } } });
    const missingKey = await until(config, (c) => c?.assigned?.configMap?.kubeletConfigKey === 'nope', 'missing key');
    expect(missingKey.error).toMatch(/key "nope" not found/);
    expect(missingKey.active).toEqual(assigned);

    // Download error (no such ConfigMap): error set, nothing rolls back.
    await mergePatch('/api/v1/nodes/agent-cfg', { spec: { configSource: { configMap: { name: 'absent', kubeletConfigKey: 'kubelet' } } } });
    const download = await until(config, (c) => /failed to download/.test(c?.error ?? ''), 'download error');
    expect(download.assigned).toEqual(missingKey.assigned);
    expect(download.active).toEqual(missingKey.active);
    expect(download.lastKnownGood).toEqual(assigned);

    // The ConfigMap appears with good content: assigned, active, then soaked into lastKnownGood.
    const fixed = (await s.api(cmPath, { method: 'POST', body: { metadata: { name: 'absent' }, data: { kubelet: good } } })).body;
    const recovered = await until(config, (c) => c?.active?.configMap?.uid === fixed.metadata.uid && !c.error, 'recovered');
    expect(recovered.assigned).toEqual(recovered.active);
    await until(config, (c) => c?.lastKnownGood?.configMap?.uid === fixed.metadata.uid, 'new lastKnownGood');

    // Reset to nil: local defaults, lastKnownGood cleared at once.
    await mergePatch('/api/v1/nodes/agent-cfg', { spec: { configSource: null } });
    await until(config, (c) => c === undefined, 'config cleared');
  });
});

describe('node health from the Lease', () => {
  let f: TestServer;
  beforeAll(async () => {
    f = await startTestServer({ simulation: { heartbeatSeconds: 0.5, nodeStatusReportSeconds: 2 } });
  });
  afterAll(() => f.stop());
  const node = async (name: string) => (await f.api(`/api/v1/nodes/${name}`)).body;
  const leasePath = (name: string) => `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;

  it('an unchanged status is posted again every nodeStatusReportFrequency', async () => {
    expect((await f.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'report-n1' } } })).status).toBe(201);
    const ready = await until(() => node('report-n1'), (n) => cond(n, 'Ready')?.status === 'True', 'Ready');
    const first = cond(ready, 'Ready');
    const later = await until(() => node('report-n1'), (n) => cond(n, 'Ready').lastHeartbeatTime > first.lastHeartbeatTime, 'a later report');
    expect(cond(later, 'Ready').lastTransitionTime).toBe(first.lastTransitionTime);
  });

  it("the lifecycle controller keeps a node Ready while its Lease is renewed, and marks it Unknown once the Lease goes stale", async () => {
    expect((await f.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'lease-n1' } } })).status).toBe(201);
    await until(() => node('lease-n1'), (n) => cond(n, 'Ready')?.status === 'True', 'Ready');
    // The kubelet falls silent, but someone else keeps its Lease renewed: the node is still heard from.
    await f.api('/api/v1/nodes/lease-n1', { method: 'PATCH', body: { metadata: { annotations: { 'sim.k8s.io/unreachable': 'true' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const renewUntil = Date.now() + 3 * 2500; // three grace periods (5 x 0.5 s)
    while (Date.now() < renewUntil) {
      const lease = (await f.api(leasePath('lease-n1'))).body;
      lease.spec.renewTime = new Date().toISOString().replace(/Z$/, '000Z');
      expect((await f.api(leasePath('lease-n1'), { method: 'PUT', body: lease })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(cond(await node('lease-n1'), 'Ready').status).toBe('True');
    // Renewals stop: past the grace period the conditions go Unknown.
    const down = await until(() => node('lease-n1'), (n) => cond(n, 'Ready').status === 'Unknown', 'Unknown after the Lease went stale', 20_000);
    expect(cond(down, 'Ready')).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
  });
});
