// @kubernetes/client-node against the real server: typed calls and an informer.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
let kc: k8s.KubeConfig;
beforeAll(async () => {
  s = await startTestServer();
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'local', server: s.httpsUrl, caData: Buffer.from(s.ca).toString('base64') }],
    users: [{ name: 'admin', token: s.adminToken }],
    contexts: [{ name: 'local', cluster: 'local', user: 'admin' }],
    currentContext: 'local',
  });
});
afterAll(async () => {
  await s.stop();
});

const waitFor = async (pred: () => boolean) => {
  for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
};

describe('@kubernetes/client-node', () => {
  it('creates, lists, replaces and deletes DaemonSets', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const created = await apps.createNamespacedDaemonSet({
      namespace: 'default',
      body: {
        metadata: { name: 'logs' },
        spec: {
          selector: { matchLabels: { app: 'logs' } },
          template: { metadata: { labels: { app: 'logs' } }, spec: { containers: [{ name: 'logs', image: 'fluent-bit:3' }] } },
        },
      },
    });
    expect(created.spec?.updateStrategy?.type).toBe('RollingUpdate');
    const list = await apps.listNamespacedDaemonSet({ namespace: 'default' });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['logs']);
    // The DaemonSet controller writes status meanwhile: read-modify-write until the write is not stale.
    let replaced: k8s.V1DaemonSet | undefined;
    let stale = created;
    while (!replaced) {
      const current = await apps.readNamespacedDaemonSet({ name: 'logs', namespace: 'default' });
      current.spec!.minReadySeconds = 5;
      try {
        replaced = await apps.replaceNamespacedDaemonSet({ name: 'logs', namespace: 'default', body: current });
      } catch (e: any) {
        if (e.code !== 409) throw e;
      }
      stale = current;
    }
    expect(replaced.spec?.minReadySeconds).toBe(5);
    expect(replaced.metadata?.generation).toBe(2);
    await expect(apps.replaceNamespacedDaemonSet({ name: 'logs', namespace: 'default', body: stale })).rejects.toMatchObject({ code: 409 });
    await apps.deleteNamespacedDaemonSet({ name: 'logs', namespace: 'default' });
    expect((await apps.listNamespacedDaemonSet({ namespace: 'default' })).items).toEqual([]);
  });

  it('round-trips a NetworkPolicy and a VolumeAttachment through the typed models', async () => {
    const net = kc.makeApiClient(k8s.NetworkingV1Api);
    const np = await net.createNamespacedNetworkPolicy({
      namespace: 'default',
      body: { metadata: { name: 'deny' }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
    });
    expect(np.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    const storage = kc.makeApiClient(k8s.StorageV1Api);
    const va = await storage.createVolumeAttachment({
      body: { metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', nodeName: 'n', source: { persistentVolumeName: 'pv' } } },
    });
    expect(va.status?.attached).toBe(false);
    const deleted = await storage.deleteVolumeAttachment({ name: 'va' });
    expect(deleted.metadata?.name).toBe('va');
  });

  it('keeps an informer in step with creates, updates and deletes', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/nodes', () => core.listNode());
    const seen: string[] = [];
    informer.on('add', (n) => seen.push(`add ${n.metadata?.name}`));
    informer.on('update', (n) => seen.push(`update ${n.metadata?.name} ${n.spec?.unschedulable ?? false}`));
    informer.on('delete', (n) => seen.push(`delete ${n.metadata?.name}`));
    await core.createNode({ body: { metadata: { name: 'before' } } });
    await informer.start();
    await waitFor(() => seen.includes('add before'));
    await core.createNode({ body: { metadata: { name: 'during' } } });
    await core.patchNode({ name: 'during', body: { spec: { unschedulable: true } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await core.deleteNode({ name: 'before' });
    await waitFor(() => seen.includes('delete before'));
    await informer.stop();
    expect(seen).toEqual(['add before', 'add during', 'update during true', 'delete before']);
    expect(informer.list().map((n) => n.metadata?.name)).toEqual(['during']);
  });
});
