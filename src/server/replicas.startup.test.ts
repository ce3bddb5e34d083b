// Replicas started together on a fresh etcd (as a service manager starts
// them): each sees an empty store and sets up the system namespaces, the
// bootstrap RBAC policy and the demo cluster; whichever writes an object
// first wins and the others take it as theirs, so every replica comes up
// and one copy of each object exists. In-process servers interleave their
// writes as closely as processes would.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ApiServer } from './server.ts';
import { sharedEtcd, uniqueEtcdPrefix } from './testing-etcd.ts';
import { nodeKind } from '../kinds/node.ts';
import { clusterRoleKind } from '../kinds/rbac.ts';
import { leaseKind } from '../kinds/coordination.ts';

describe('replicas starting together on a fresh etcd', () => {
  const servers: ApiServer[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('all come up, with one demo cluster, one bootstrap policy and one leader', async () => {
    const etcd = await sharedEtcd();
    const prefix = uniqueEtcdPrefix();
    const start = () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'kw-startup-'));
      dirs.push(dataDir);
      return startServer({ port: 0, dataDir, storage: 'etcd', etcd: { servers: etcd.endpoints, prefix }, demo: true, simulation: false });
    };
    const started = await Promise.allSettled([start(), start(), start()]);
    for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
    expect(started.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);

    for (const s of servers) {
      expect((await s.client.list(nodeKind)).map((n) => n.object.metadata.name)).toHaveLength(8);
      expect((await s.client.list(clusterRoleKind)).some((c) => c.object.metadata.name === 'system:kube-controller-manager')).toBe(true);
    }
    expect(servers.filter((s) => s.controllers.running)).toHaveLength(1);
    const holder = servers[0].client.get(leaseKind, 'kube-system', 'kube-controller-manager').spec as any;
    expect(holder.holderIdentity).toBe(servers.find((s) => s.controllers.running)!.controllers.elector!.config.identity);
  });
});
