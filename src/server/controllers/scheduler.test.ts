// The simulated scheduler over the real server: pods without a node are
// bound where the filters allow; a pod no node fits waits Pending with the
// scheduler's reasons and is placed once a node frees up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until as waitUntil } from '../testing.ts';
import { fitErrorMessage } from './scheduler.ts';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.05, podStopSeconds: 0.05 } });
});
afterAll(() => s.stop());

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 10_000) => waitUntil(read, ok, what, timeoutMs);

const PODS = '/api/v1/namespaces/default/pods';
const getPod = async (name: string) => (await s.api(`${PODS}/${name}`)).body;
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
const nodeCount = async () => (await s.api('/api/v1/nodes')).body.items.length;

async function createPod(name: string, spec: Record<string, unknown>) {
  const r = await s.api(PODS, { method: 'POST', body: { metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

describe('the scheduler', () => {
  beforeAll(async () => {
    for (const [name, labels, spec] of [
      ['sched-a', { pool: 'a' }, {}],
      ['sched-b', { pool: 'b' }, { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }],
    ] as const) {
      expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name, labels }, spec } })).status).toBe(201);
    }
  });

  it('binds a pod to a node its selector matches and whose taints it tolerates, marking it PodScheduled', async () => {
    await createPod('picky', { nodeSelector: { pool: 'a' } });
    const pod = await until(() => getPod('picky'), (p) => p.status?.phase === 'Running', 'picky Running');
    expect(pod.spec.nodeName).toBe('sched-a');
    expect(cond(pod, 'PodScheduled').status).toBe('True');
    await createPod('tolerant', { nodeSelector: { pool: 'b' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] });
    expect((await until(() => getPod('tolerant'), (p) => !!p.spec.nodeName, 'tolerant bound')).spec.nodeName).toBe('sched-b');
  });

  it("keeps a pod no node fits Pending with the scheduler's reasons, and places it when a port frees up", async () => {
    const port = { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, hostPort: 9100 }] }] };
    await createPod('holder', { nodeName: 'sched-a', ...port });
    await until(() => getPod('holder'), (p) => p.status?.phase === 'Running', 'holder Running');
    // sched-a's port is taken; sched-b fails the taint filter first (filters run in upstream's order, the first failure counts).
    await createPod('wants-port', { nodeSelector: { pool: 'a' }, ...port });
    const pending = await until(() => getPod('wants-port'), (p) => cond(p, 'PodScheduled')?.status === 'False', 'wants-port unschedulable');
    const n = await nodeCount();
    expect(n).toBe(2);
    expect(pending.spec.nodeName).toBeUndefined();
    expect(pending.status.phase).toBe('Pending');
    expect(cond(pending, 'PodScheduled')).toMatchObject({
      reason: 'Unschedulable',
      message: `0/${n} nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) had untolerated taint {dedicated: db}. preemption: 0/${n} nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.`,
    });
    // The holder goes: the port is free and the pod is bound there.
    expect((await s.api(`${PODS}/holder`, { method: 'DELETE' })).status).toBe(200);
    const placed = await until(() => getPod('wants-port'), (p) => p.status?.phase === 'Running', 'wants-port Running');
    expect(placed.spec.nodeName).toBe('sched-a');
    expect(cond(placed, 'PodScheduled').status).toBe('True');
  });

  it('leaves pods for other schedulers alone', async () => {
    await createPod('other-scheduler', { schedulerName: 'my-scheduler' });
    // A pod created after it is bound: the scheduler has seen both by then.
    await createPod('after', { nodeSelector: { pool: 'a' } });
    await until(() => getPod('after'), (p) => !!p.spec.nodeName, 'after bound');
    const p = await getPod('other-scheduler');
    expect(p.spec.nodeName).toBeUndefined();
    expect(cond(p, 'PodScheduled')).toBeUndefined();
  });

  it('words its message as upstream, sorted by count and reason', () => {
    expect(fitErrorMessage(3, [{ reason: 'node is filtered out by the prefilter result' }, { reason: 'node is filtered out by the prefilter result' }, { reason: "node(s) didn't have free ports for the requested pod ports", resolvable: true }])).toBe(
      "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 2 node is filtered out by the prefilter result. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
    );
    expect(fitErrorMessage(0, [])).toBe('no nodes available to schedule pods');
    // The nodes a PreFilter left out are counted, not listed: a daemon pod names one node of thousands.
    expect(fitErrorMessage(5000, [{ reason: "node(s) didn't have free ports for the requested pod ports", resolvable: true }], 4999)).toBe(
      "0/5000 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 4999 node is filtered out by the prefilter result. preemption: 0/5000 nodes are available: 1 No preemption victims found for incoming pod, 4999 Preemption is not helpful for scheduling.",
    );
  });
});
