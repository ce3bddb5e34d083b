// The controllers after a restart of the server on the same data: they take
// in the store (informer.ts) before they judge, so a DaemonSet keeps its one
// pod per node and the garbage collector keeps every owned pod.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until } from '../testing.ts';

const NODES = 40;
const simulation = { extraNodes: NODES, heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 };
const dataDir = mkdtempSync(join(tmpdir(), 'kw-restart-'));
let s: TestServer | undefined;
afterAll(async () => {
  await s?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const DS = '/apis/apps/v1/namespaces/default/daemonsets';
const podsOf = async (srv: TestServer) => (await srv.api('/api/v1/namespaces/default/pods?labelSelector=app%3Devery')).body.items as any[];

describe('controllers after a restart', () => {
  it('keep a DaemonSet at one pod a node and its pods owned, then place a pod on a node added after', async () => {
    s = await startTestServer({ dataDir, simulation });
    const r = await s.api(DS, {
      method: 'POST',
      body: { metadata: { name: 'every' }, spec: { selector: { matchLabels: { app: 'every' } }, template: { metadata: { labels: { app: 'every' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] } } } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await until(() => s!.api(`${DS}/every`), (x) => x.body.status?.numberAvailable === NODES, 'the DaemonSet available on every node', 30_000);
    const before = new Set((await podsOf(s)).map((p) => p.metadata.uid));
    expect(before.size).toBe(NODES);
    await s.stop();

    s = await startTestServer({ dataDir, simulation });
    // A node that comes after the restart gets its pod once the controller has taken in the store and synced.
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'late-node' } } })).status).toBe(201);
    await until(() => podsOf(s!), (items) => items.some((p) => p.spec?.nodeName === 'late-node' || JSON.stringify(p.spec?.affinity ?? {}).includes('late-node')), 'a pod for the late node', 30_000);
    const srv = s;
    const settled = await until(() => srv.api(`${DS}/every`), (x) => x.body.status?.numberAvailable === NODES + 1 && x.body.status?.desiredNumberScheduled === NODES + 1, 'the DaemonSet available on the new node too', 30_000);
    const after = await podsOf(srv);
    // Every pod from before is still there (none collected, none replaced), and the only new one is the late node's.
    expect(after.filter((p) => before.has(p.metadata.uid))).toHaveLength(NODES);
    expect(after.filter((p) => !before.has(p.metadata.uid))).toHaveLength(1);
    expect(settled.body.status.currentNumberScheduled).toBe(NODES + 1);
  });
});
