// The simulated CSI attacher over the real server: finalizer, attach, the
// node's volumesAttached, detach on deletion, injected attach/detach errors.
// Also the demo cluster, which leans on the attacher for its failing volume.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until as waitUntil } from '../testing.ts';

let s: TestServer;
const VA = '/apis/storage.k8s.io/v1/volumeattachments';

beforeAll(async () => {
  s = await startTestServer({ simulation: { attachSeconds: 0.1, heartbeatSeconds: 1, podStartSeconds: 0.1, podReadySeconds: 0.1 } });
  await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'att-n1' } } });
});
afterAll(() => s.stop());

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 8_000) => waitUntil(read, ok, what, timeoutMs);

const getVA = async (name: string) => s.api(`${VA}/${name}`);
const nodeVolumes = async () => ((await s.api('/api/v1/nodes/att-n1')).body.status.volumesAttached ?? []) as { name: string; devicePath: string }[];
const mergePatch = (path: string, body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
const createVA = (name: string, attacher: string, pv: string, annotations?: Record<string, string>) =>
  s.api(VA, { method: 'POST', body: { metadata: { name, annotations }, spec: { attacher, nodeName: 'att-n1', source: { persistentVolumeName: pv } } } });

describe('simulated CSI attacher', () => {
  it('adds its finalizer, attaches, records the volume on the node, and detaches on deletion', async () => {
    expect((await createVA('va-ok', 'csi.sim.k8s.io', 'pv-ok')).status).toBe(201);
    const attached = await until(async () => (await getVA('va-ok')).body, (v) => v.status?.attached === true, 'attached');
    expect(attached.metadata.finalizers).toEqual(['external-attacher/csi-sim-k8s-io']);
    expect(attached.status.attachmentMetadata.devicePath).toMatch(/^\/dev\//);
    expect(await nodeVolumes()).toContainEqual(expect.objectContaining({ name: 'kubernetes.io/csi/csi.sim.k8s.io^pv-ok' }));

    const del = await s.api(`${VA}/va-ok`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    await until(async () => (await getVA('va-ok')).status, (code) => code === 404, 'VolumeAttachment gone');
    expect((await nodeVolumes()).map((v) => v.name)).not.toContain('kubernetes.io/csi/csi.sim.k8s.io^pv-ok');
  });

  it('leaves other drivers alone', async () => {
    await createVA('va-other', 'ebs.csi.aws.com', 'pv-other');
    await createVA('va-hostpath', 'hostpath.csi.k8s.io', 'pv-hp');
    await until(async () => (await getVA('va-hostpath')).body, (v) => v.status?.attached === true, 'hostpath attached');
    const other = (await getVA('va-other')).body;
    expect(other.metadata.finalizers).toBeUndefined();
    expect(other.status).toEqual({ attached: false });
  });

  it('reports an injected attach error, and attaches once it is removed', async () => {
    await createVA('va-fail', 'csi.sim.k8s.io', 'pv-fail', { 'sim.k8s.io/attach-error': 'disk is busy' });
    const failed = await until(async () => (await getVA('va-fail')).body, (v) => !!v.status?.attachError, 'attach error');
    expect(failed.status.attached).toBe(false);
    expect(failed.status.attachError.message).toBe('disk is busy');
    expect(failed.status.attachError.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    // errorCode is alpha (MutableCSINodeAllocatableCount gate off): the server drops it.
    expect(failed.status.attachError.errorCode).toBeUndefined();
    await mergePatch(`${VA}/va-fail`, { metadata: { annotations: { 'sim.k8s.io/attach-error': null } } });
    const ok = await until(async () => (await getVA('va-fail')).body, (v) => v.status?.attached === true, 'attached after fix');
    expect(ok.status.attachError).toBeUndefined();
  });

  it('reports an injected detach error and keeps its finalizer until it is removed', async () => {
    await createVA('va-stuck', 'csi.sim.k8s.io', 'pv-stuck', { 'sim.k8s.io/detach-error': 'device is mounted' });
    await until(async () => (await getVA('va-stuck')).body, (v) => v.status?.attached === true, 'attached');
    await s.api(`${VA}/va-stuck`, { method: 'DELETE' });
    const stuck = await until(async () => (await getVA('va-stuck')).body, (v) => !!v.status?.detachError, 'detach error');
    expect(stuck.status.detachError.message).toBe('device is mounted');
    expect(stuck.status.attached).toBe(true);
    expect(stuck.metadata.finalizers).toEqual(['external-attacher/csi-sim-k8s-io']);
    expect((await nodeVolumes()).map((v) => v.name)).toContain('kubernetes.io/csi/csi.sim.k8s.io^pv-stuck');
    await mergePatch(`${VA}/va-stuck`, { metadata: { annotations: { 'sim.k8s.io/detach-error': null } } });
    await until(async () => (await getVA('va-stuck')).status, (code) => code === 404, 'gone after fix');
    expect((await nodeVolumes()).map((v) => v.name)).not.toContain('kubernetes.io/csi/csi.sim.k8s.io^pv-stuck');
  });

  it('reports an attach error for a node that does not exist', async () => {
    await s.api(VA, { method: 'POST', body: { metadata: { name: 'va-nonode' }, spec: { attacher: 'csi.sim.k8s.io', nodeName: 'no-such-node', source: { persistentVolumeName: 'pv-x' } } } });
    const v = await until(async () => (await getVA('va-nonode')).body, (x) => !!x.status?.attachError, 'attach error');
    expect(v.status.attachError.message).toMatch(/not found/);
  });
});

describe('demo cluster', () => {
  it('is created on a fresh data dir, once, and not with demo off', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kw-demo-'));
    try {
      let d = await startTestServer({ dataDir, demo: true, simulation: { attachSeconds: 0.1, podStartSeconds: 0.1, podReadySeconds: 0.1 } });
      try {
        const nodes = (await d.api('/api/v1/nodes')).body.items;
        expect(nodes.length).toBe(8);
        expect(nodes.some((n: any) => n.spec.unschedulable)).toBe(true);
        expect(nodes.some((n: any) => (n.spec.taints ?? []).some((t: any) => t.key === 'nvidia.com/gpu'))).toBe(true);
        expect(new Set(nodes.map((n: any) => n.metadata.labels['topology.kubernetes.io/zone'])).size).toBe(3);
        const ns = (await d.api('/api/v1/namespaces/shop')).body;
        expect(ns.metadata.labels.team).toBe('storefront');
        expect((await d.api('/apis/apps/v1/daemonsets')).body.items.map((x: any) => x.spec.updateStrategy.type).sort()).toEqual(['OnDelete', 'RollingUpdate']);
        expect((await d.api('/apis/networking.k8s.io/v1/networkpolicies')).body.items.length).toBeGreaterThanOrEqual(4);
        await until(
          async () => (await d.api('/api/v1/namespaces/shop/pods')).body.items,
          (pods: any[]) => pods.length === 4 && pods.every((p) => p.status.podIP && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')),
          'shop pods running with IPs',
        );
        await until(
          async () => (await d.api(VA)).body.items,
          (vas: any[]) => vas.some((v) => v.status.attachError) && vas.filter((v) => v.status.attached).length >= 3,
          'volume attachments attached, one failing',
        );
        expect((await d.api('/apis/networking.k8s.io/v1/namespaces/shop/networkpolicies/default-deny-all', { method: 'DELETE' })).status).toBe(200);
      } finally {
        await d.stop();
      }
      // Restart on the same data dir: the demo is not created again.
      d = await startTestServer({ dataDir, demo: true });
      try {
        expect((await d.api('/apis/networking.k8s.io/v1/namespaces/shop/networkpolicies/default-deny-all')).status).toBe(404);
        expect((await d.api('/api/v1/nodes')).body.items.length).toBe(8);
      } finally {
        await d.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is not created with demo off (--no-demo)', async () => {
    const d = await startTestServer({ demo: false });
    try {
      expect((await d.api('/api/v1/nodes')).body.items).toEqual([]);
      expect((await d.api('/api/v1/namespaces')).body.items.map((n: any) => n.metadata.name).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    } finally {
      await d.stop();
    }
  });
});
