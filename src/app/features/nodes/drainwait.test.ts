// A drain as kubectl drain does it, against the real server with simulated
// kubelets that take a second to stop a pod: the drain ends when the evicted
// pods are gone (not when the evictions are taken), an eviction refused with
// 429 is asked again until taken, and stopping ends it saying what was left.
// The 429 is the server's own: its one mutating slot held by a request whose
// body never comes, as a busy API server or a disruption budget answers. Before
// a drain of many nodes, what it would evict is read node by node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, until, type TestServer } from '../../../server/testing.ts';
import { drain, DrainStopped, readDrainOutlook, type DrainOutlook, type DrainProgress } from './drain.ts';

const OPERATOR = 'operator-token';
let s: TestServer;
const conn = () => ({ baseUrl: s.url, token: OPERATOR });

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-drain-'));
  writeFileSync(join(dir, 'tokens.csv'), `${OPERATOR},operator,uid-operator,\n`);
  s = await startTestServer({
    tokenFile: join(dir, 'tokens.csv'),
    limits: { maxMutatingRequestsInflight: 1 },
    simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.05, podStopSeconds: 1 },
  });
  // An admin by role, not in system:masters: the in-flight limit applies to it.
  await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    method: 'POST',
    body: { metadata: { name: 'operator' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'operator' }] },
  });
}, 30_000);
afterAll(() => s.stop());

const pod = (name: string) => s.api(`/api/v1/namespaces/default/pods/${name}`);
/** The node as the app holds it from its watch. */
const node = async (name: string) => (await s.api(`/api/v1/nodes/${name}`)).body;

async function nodeWithPods(node: string, pods: string[], unschedulable = false) {
  expect((await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node }, spec: { unschedulable } } })).status).toBe(201);
  for (const name of pods) {
    const r = await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27' }] } } });
    expect(r.status).toBe(201);
  }
  for (const name of pods) await until(() => pod(name), (r) => r.body.status?.phase === 'Running', `${name} running`);
}

/** The operator's POST whose body never finishes arriving: the one mutating slot is taken until the socket goes. */
function holdMutatingSlot(): Socket {
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${OPERATOR}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"metadata":`);
  return socket;
}

describe('draining a node', () => {
  it('ends when the evicted pods are gone, leaving the DaemonSet pods', async () => {
    const ds = await s.api('/apis/apps/v1/namespaces/default/daemonsets', {
      method: 'POST',
      body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'agent:1' }] } } } },
    });
    expect(ds.status).toBe(201);
    await nodeWithPods('d-1', ['web-1', 'web-2']);
    const daemonPod = await until(
      () => s.api('/api/v1/pods?fieldSelector=spec.nodeName%3Dd-1&labelSelector=app%3Dagent'),
      (r) => r.body.items?.length === 1,
      'the DaemonSet pod on d-1',
    );
    const heard: DrainProgress[] = [];
    const done = await drain(conn(), await node('d-1'), { onProgress: (p) => heard.push(p) });

    expect(done.evicted.sort()).toEqual(['default/web-1', 'default/web-2']);
    expect(done.skipped).toEqual([`default/${daemonPod.body.items[0].metadata.name}`]);
    expect(done.terminating).toEqual([]);
    // Gone when the drain says so, not merely asked to go: they took a second to stop.
    expect((await pod('web-1')).status).toBe(404);
    expect((await pod('web-2')).status).toBe(404);
    expect(heard.some((p) => p.terminating.length === 2)).toBe(true);
    expect((await s.api('/api/v1/nodes/d-1')).body.spec.unschedulable).toBe(true);
    expect((await s.api(`/api/v1/namespaces/default/pods/${daemonPod.body.items[0].metadata.name}`)).status).toBe(200);
  });

  it('asks again for an eviction refused with 429 until it is taken', async () => {
    // Cordoned already: the drain writes nothing before its eviction (kubectl: "already cordoned").
    await nodeWithPods('d-2', ['db-1'], true);
    const held = holdMutatingSlot();
    try {
      const heard: DrainProgress[] = [];
      const draining = drain(conn(), await node('d-2'), { onProgress: (p) => heard.push(p), retryMs: 100 });
      await until(() => heard.at(-1), (p) => !!p?.refused.length, 'the eviction refused', 10_000);
      expect(heard.at(-1)!.refused).toEqual([{ pod: 'default/db-1', message: expect.stringMatching(/too many requests/i) }]);
      expect((await pod('db-1')).body.metadata.deletionTimestamp).toBeUndefined();
      held.destroy();
      const done = await draining;
      expect(done.evicted).toEqual(['default/db-1']);
      expect(done.refused).toEqual([]);
      expect((await pod('db-1')).status).toBe(404);
    } finally {
      held.destroy();
    }
  });

  it('when stopped, ends saying which pod was still waiting', async () => {
    await nodeWithPods('d-3', ['cache-1'], true);
    const held = holdMutatingSlot();
    try {
      const stop = new AbortController();
      const heard: DrainProgress[] = [];
      const draining = drain(conn(), await node('d-3'), { signal: stop.signal, onProgress: (p) => heard.push(p), retryMs: 100 });
      await until(() => heard.at(-1), (p) => !!p?.refused.length, 'the eviction refused', 10_000);
      stop.abort();
      const error = await draining.catch((e) => e);
      expect(error).toBeInstanceOf(DrainStopped);
      expect(error.message).toBe('Stopped before default/cache-1 was evicted');
      expect((await pod('cache-1')).status).toBe(200);
    } finally {
      held.destroy();
    }
  });
});

describe('what a drain of many nodes would do', () => {
  /** A node no DaemonSet pod lands on (the agent DaemonSet above tolerates no taint), with bare pods bound to it. */
  async function taintedNodeWith(node: string, pods: { name: string; emptyDir?: boolean }[]) {
    const made = await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node }, spec: { taints: [{ key: 'drain-test', effect: 'NoSchedule' }] } } });
    expect(made.status).toBe(201);
    for (const p of pods) {
      const volumes = p.emptyDir ? [{ name: 'scratch', emptyDir: {} }] : [];
      const r = await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: p.name }, spec: { nodeName: node, volumes, containers: [{ name: 'app', image: 'nginx:1.27' }] } } });
      expect(r.status).toBe(201);
    }
  }

  it('counts the pods each node would lose, node by node, before anything is changed', async () => {
    await taintedNodeWith('o-1', [{ name: 'bare-1' }, { name: 'scratch-1', emptyDir: true }]);
    await taintedNodeWith('o-2', []);
    const heard: DrainOutlook[] = [];
    const outlook = await readDrainOutlook(conn(), ['o-1', 'o-2', 'o-gone'], { onProgress: (o) => heard.push(o) });
    expect(outlook).toEqual({ nodes: 3, nodesToEvict: 1, evict: 2, stay: 0, orphans: ['default/bare-1', 'default/scratch-1'], scratch: ['default/scratch-1'], unread: [] });
    expect(heard.map((o) => o.nodes)).toEqual([1, 2, 3]);
    // Only read: nothing cordoned, nothing evicted.
    expect((await s.api('/api/v1/nodes/o-1')).body.spec.unschedulable).toBeUndefined();
    expect((await pod('bare-1')).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('tells the nodes whose pods it could not read, and reads none once stopped', async () => {
    const refused = await readDrainOutlook({ baseUrl: s.url, token: 'no-such-token' }, ['o-1', 'o-2'], { onProgress: () => {} });
    expect(refused.nodes).toBe(0);
    expect(refused.unread.map((u) => u.node).sort()).toEqual(['o-1', 'o-2']);
    expect(refused.unread[0].message).toMatch(/Unauthorized/);

    const stop = new AbortController();
    stop.abort();
    const heard: DrainOutlook[] = [];
    expect((await readDrainOutlook(conn(), ['o-1', 'o-2'], { signal: stop.signal, onProgress: (o) => heard.push(o) })).nodes).toBe(0);
    expect(heard).toEqual([]);
  });
});
