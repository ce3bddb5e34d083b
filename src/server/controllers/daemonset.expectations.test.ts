// The DaemonSet controller over a watch cache that trails etcd by longer than
// a write waits for it (3 s), as it did at 5000 nodes: a node whose create
// has answered but whose pod the controller has not seen yet must not get a
// second pod (upstream's expectations). The lag is made by delivering every
// etcd event to the cache 4.5 s late, in order.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, until, watchEvents, type TestServer } from '../testing.ts';
import { sharedEtcd, uniqueEtcdPrefix } from '../testing-etcd.ts';
import type { StorageEvent } from '../storage/storage.ts';
import { daemonPodNodeName } from '../../lib/daemonnodes.ts';

const LAG_MS = 4500;
const NODES = ['lag-a', 'lag-b', 'lag-c'];
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    storage: 'etcd',
    etcd: { servers: (await sharedEtcd()).endpoints, prefix: uniqueEtcdPrefix() },
    simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 },
  });
  for (const name of NODES) {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name, labels: { group: 'lag' } } } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  await until(
    async () => (await s.api('/api/v1/nodes?labelSelector=group%3Dlag')).body.items,
    (items: any[]) => items.length === NODES.length && items.every((n) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')),
    'nodes Ready',
  );
}, 60_000);
afterAll(() => s?.stop());

it('creates one pod per node while its cache trails etcd by more than a write waits, however many syncs run meanwhile', async () => {
  // Events and progress alike (progress says the events before it came).
  const storage = s.storage as unknown as { emit(events: StorageEvent[], revision?: number): void };
  const emit = storage.emit.bind(storage);
  storage.emit = (events, revision) => void setTimeout(() => emit(events, revision), LAG_MS);

  // Every pod ever added, by node, from a watch that starts before the DaemonSet.
  const list = (await s.api('/api/v1/namespaces/default/pods')).body;
  const added = new Map<string, Set<string>>();
  const ac = new AbortController();
  const res = await fetch(`${s.url}/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dlag&resourceVersion=${list.metadata.resourceVersion}`, { signal: ac.signal, headers: s.adminHeaders });
  void (async () => {
    try {
      for await (const e of watchEvents(res.body!)) {
        if (e.type !== 'ADDED') continue;
        const node = daemonPodNodeName(e.object) ?? '?';
        if (!added.has(node)) added.set(node, new Set());
        added.get(node)!.add(e.object.metadata.name);
      }
    } catch {
      /* aborted */
    }
  })();

  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'lag' },
    spec: {
      selector: { matchLabels: { app: 'lag' } },
      template: { metadata: { labels: { app: 'lag' } }, spec: { nodeSelector: { group: 'lag' }, containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }] } },
    },
  };
  const created = await s.api('/apis/apps/v1/namespaces/default/daemonsets', { method: 'POST', body: ds });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // Node events written in the seconds after the DaemonSet reach the controller just after its creates
  // have answered (3 s) and before their pods do (LAG_MS): each is a sync that judges the nodes again.
  const touches: Promise<{ status: number; body: any }>[] = [];
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const node = NODES[i % NODES.length];
    touches.push(
      s.api(`/api/v1/nodes/${node}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { annotations: { touched: String(i) } } } }),
    );
  }
  for (const r of await Promise.all(touches)) expect(r.status, JSON.stringify(r.body)).toBe(200);
  await until(
    async () => (await s.api('/apis/apps/v1/namespaces/default/daemonsets/lag')).body.status,
    (st: any) => st?.numberAvailable === NODES.length && st?.updatedNumberScheduled === NODES.length,
    'the DaemonSet available on every node',
    60_000,
  );
  // Everything written until now has reached the watch.
  await new Promise((r) => setTimeout(r, LAG_MS + 1000));
  ac.abort();
  expect(Object.fromEntries([...added].map(([node, pods]) => [node, pods.size]))).toEqual(Object.fromEntries(NODES.map((n) => [n, 1])));
}, 120_000);
