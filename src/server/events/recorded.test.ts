// The events the actors record, over the real server with the controllers
// and the simulated kubelets and attacher running: each under its own
// identity, with upstream's reasons and messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05, attachSeconds: 0.05 } });
});
afterAll(() => s.stop());

const eventsFor = async (selector: string, ns = 'default') =>
  (await s.api(`/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(selector)}`)).body.items as any[];
const has = (items: any[], reason: string, message?: string | RegExp) =>
  items.some((e) => e.reason === reason && (message === undefined || (typeof message === 'string' ? e.message === message : message.test(e.message))));

describe('events recorded by the actors', () => {
  it('the DaemonSet controller, the kubelets (pulls, starts, a failing pull) and the node lifecycle', async () => {
    for (const [name, ann] of [['ev-ok', {}], ['ev-pull', { 'sim.k8s.io/image-pull-error': 'true' }]] as const) {
      const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name, labels: { group: 'ev' }, annotations: ann } } });
      expect(r.status).toBe(201);
    }
    const ds = await s.api('/apis/apps/v1/namespaces/default/daemonsets', {
      method: 'POST',
      body: {
        metadata: { name: 'ev-ds' },
        spec: { selector: { matchLabels: { app: 'ev-ds' } }, template: { metadata: { labels: { app: 'ev-ds' } }, spec: { nodeSelector: { group: 'ev' }, containers: [{ name: 'agent', image: 'registry.k8s.io/agent:1' }] } } },
      },
    });
    expect(ds.status).toBe(201);

    const dsEvents = await until(() => eventsFor('involvedObject.kind=DaemonSet,involvedObject.name=ev-ds'), (items) => items.filter((e) => e.reason === 'SuccessfulCreate').length === 2, 'SuccessfulCreate x2');
    for (const e of dsEvents) {
      expect(e).toMatchObject({ type: 'Normal', source: { component: 'daemonset-controller' }, involvedObject: { apiVersion: 'apps/v1', uid: ds.body.metadata.uid } });
      expect(e.message).toMatch(/^Created pod: ev-ds-[a-z0-9]{5}$/);
    }

    const pods = (await s.api('/api/v1/namespaces/default/pods?labelSelector=app%3Dev-ds')).body.items as any[];
    const podOn = (node: string) => pods.find((p) => (p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0] ?? p.spec.nodeName) === node);
    const ok = podOn('ev-ok');
    const okEvents = await until(() => eventsFor(`involvedObject.name=${ok.metadata.name}`), (items) => has(items, 'Started'), 'Started');
    expect(okEvents.filter((e) => e.source?.component === 'kubelet').map((e) => e.reason)).toEqual(expect.arrayContaining(['Pulling', 'Pulled', 'Created', 'Started']));
    expect(has(okEvents, 'Pulling', 'Pulling image "registry.k8s.io/agent:1"')).toBe(true);
    expect(has(okEvents, 'Created', 'Created container: agent')).toBe(true);
    expect(has(okEvents, 'Started', 'Started container agent')).toBe(true);
    expect(okEvents.find((e) => e.reason === 'Started')).toMatchObject({ source: { component: 'kubelet', host: 'ev-ok' }, involvedObject: { kind: 'Pod', fieldPath: 'spec.containers{agent}' } });
    expect(has(okEvents, 'Scheduled', 'Successfully assigned default/' + ok.metadata.name + ' to ev-ok')).toBe(true);

    const bad = podOn('ev-pull');
    const badEvents = await until(() => eventsFor(`involvedObject.name=${bad.metadata.name},type=Warning`), (items) => has(items, 'Failed', 'Error: ImagePullBackOff'), 'pull failure');
    expect(has(badEvents, 'Failed', /^Failed to pull image "registry.k8s.io\/agent:1": /)).toBe(true);
    expect(badEvents.every((e) => e.source.host === 'ev-pull')).toBe(true);

    const nodeEvents = await until(() => eventsFor('involvedObject.kind=Node,involvedObject.name=ev-ok'), (items) => has(items, 'NodeReady'), 'NodeReady');
    expect(has(nodeEvents, 'Starting', 'Starting kubelet.')).toBe(true);
    expect(has(nodeEvents, 'NodeReady', 'Node ev-ok status is now: NodeReady')).toBe(true);

    // A node going NotReady: its kubelet says so, and the lifecycle controller marks its pods
    // (those that are Ready: the pod's readiness comes on the kubelet's next sync).
    await until(
      async () => (await s.api(`/api/v1/namespaces/default/pods/${ok.metadata.name}`)).body.status?.conditions ?? [],
      (conds: any[]) => conds.some((c) => c.type === 'Ready' && c.status === 'True'),
      'the pod to be Ready',
    );
    expect((await s.api('/api/v1/nodes/ev-ok', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { annotations: { 'sim.k8s.io/not-ready': 'true' } } } })).status).toBe(200);
    await until(() => eventsFor('involvedObject.kind=Node,involvedObject.name=ev-ok,reason=NodeNotReady'), (items) => items.some((e) => e.source.component === 'kubelet') && items.some((e) => e.source.component === 'node-controller'), 'NodeNotReady');
    await until(() => eventsFor(`involvedObject.name=${ok.metadata.name},reason=NodeNotReady`), (items) => has(items, 'NodeNotReady', 'Node is not ready'), 'pod NodeNotReady');
    expect((await s.api('/api/v1/nodes/ev-ok', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { annotations: { 'sim.k8s.io/not-ready': null } } } })).status).toBe(200);

    // Deleting a pod: the kubelet stops its containers (Killing) and the controller replaces it.
    expect((await s.api(`/api/v1/namespaces/default/pods/${bad.metadata.name}`, { method: 'DELETE' })).status).toBe(200);
    await until(() => eventsFor(`involvedObject.name=${bad.metadata.name},reason=Killing`), (items) => has(items, 'Killing', 'Stopping container agent'), 'Killing');
  });

  it('the kubelet reports a crash loop (BackOff) and failing readiness (Unhealthy)', async () => {
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'ev-probe' } } })).status).toBe(201);
    for (const [name, ann] of [['ev-crash', 'sim.k8s.io/crash'], ['ev-unready', 'sim.k8s.io/fail-readiness']]) {
      const r = await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: { metadata: { name, annotations: { [ann]: 'true' } }, spec: { nodeName: 'ev-probe', containers: [{ name: 'c', image: 'busybox:1.36' }] } } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const crash = await until(() => eventsFor('involvedObject.name=ev-crash,reason=BackOff'), (i) => i.length > 0, 'BackOff');
    expect(crash[0].type).toBe('Warning');
    expect(crash[0].message).toMatch(/^Back-off restarting failed container c in pod ev-crash_default\(.+\)$/);
    expect((await eventsFor('involvedObject.name=ev-crash')).map((e) => e.reason)).toEqual(expect.arrayContaining(['Pulled', 'Created', 'Started', 'BackOff']));
    const unready = await until(() => eventsFor('involvedObject.name=ev-unready,reason=Unhealthy'), (i) => i.length > 0, 'Unhealthy');
    expect(unready[0].type).toBe('Warning');
    expect(unready[0].message).toMatch(/^Readiness probe failed: /);
    expect(unready[0].involvedObject.fieldPath).toBe('spec.containers{c}');
  });

  it('the kubelet reports a cordon and an uncordon (NodeNotSchedulable, NodeSchedulable)', async () => {
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'ev-cordon' } } })).status).toBe(201);
    await until(() => eventsFor('involvedObject.name=ev-cordon,reason=NodeReady'), (i) => i.length > 0, 'NodeReady');
    expect(await eventsFor('involvedObject.name=ev-cordon,reason=NodeSchedulable')).toEqual([]); // schedulable from the start: nothing to say
    const cordon = (unschedulable: boolean) => s.api('/api/v1/nodes/ev-cordon', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { unschedulable } } });
    expect((await cordon(true)).status).toBe(200);
    const off = await until(() => eventsFor('involvedObject.name=ev-cordon,reason=NodeNotSchedulable'), (i) => i.length > 0, 'NodeNotSchedulable');
    expect(off[0]).toMatchObject({ type: 'Normal', message: 'Node ev-cordon status is now: NodeNotSchedulable', source: { component: 'kubelet', host: 'ev-cordon' }, involvedObject: { kind: 'Node', name: 'ev-cordon' } });
    expect((await cordon(false)).status).toBe(200);
    const on = await until(() => eventsFor('involvedObject.name=ev-cordon,reason=NodeSchedulable'), (i) => i.length > 0, 'NodeSchedulable');
    expect(on[0].message).toBe('Node ev-cordon status is now: NodeSchedulable');
  });

  it('the kubelet reports moving to another config source', async () => {
    const cm = await s.api('/api/v1/namespaces/kube-system/configmaps', {
      method: 'POST',
      body: { metadata: { name: 'ev-kubelet' }, data: { kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\n' } },
    });
    expect(cm.status, JSON.stringify(cm.body)).toBe(201);
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'ev-config' }, spec: { configSource: { configMap: { namespace: 'kube-system', name: 'ev-kubelet', kubeletConfigKey: 'kubelet' } } } } })).status).toBe(201);
    const items = await until(() => eventsFor('involvedObject.name=ev-config,reason=KubeletConfigChanged'), (i) => i.length > 0, 'KubeletConfigChanged');
    expect(items[0].message).toBe(`Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/ev-kubelet, UID: ${cm.body.metadata.uid}, ResourceVersion: ${cm.body.metadata.resourceVersion}, KubeletConfigKey: kubelet`);
  });

  it('the attacher reports a failed attach with the volume and the driver error', async () => {
    const r = await s.api('/apis/storage.k8s.io/v1/volumeattachments', {
      method: 'POST',
      body: { metadata: { name: 'ev-va', annotations: { 'sim.k8s.io/attach-error': 'rpc error: code = Internal desc = disk busy' } }, spec: { attacher: 'csi.sim.k8s.io', nodeName: 'ev-pull', source: { persistentVolumeName: 'pv-ev' } } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const items = await until(() => eventsFor('involvedObject.kind=VolumeAttachment,involvedObject.name=ev-va'), (i) => i.length > 0, 'FailedAttachVolume');
    expect(items[0]).toMatchObject({ type: 'Warning', reason: 'FailedAttachVolume', message: 'AttachVolume.Attach failed for volume "pv-ev" : rpc error: code = Internal desc = disk busy', source: { component: 'attachdetach-controller' } });
  });
});
