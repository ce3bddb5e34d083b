// The rollout plan (src/lib/rolloutplan.ts) against the DaemonSet controller
// that then rolls out: the real server with its controllers and simulated
// kubelets, a plan made from what the API serves just before the template
// changes, and a pod watch recording the order in which the controller takes
// the nodes. Checked: the nodes it takes and leaves, the first wave exactly,
// every later node within one sync batch of its planned place, the budget
// never exceeded, stalls where the plan said. Waits are bounded; nothing
// asserts on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until as waitUntil, watchEvents } from '../testing.ts';
import { isPodAvailable } from '../../lib/rollout.ts';
import { daemonPodNodeName } from '../../lib/daemonnodes.ts';
import { paceFor, planChange, planRollout, type ClusterView, type RolloutPlan } from '../../lib/rolloutplan.ts';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 } });
});
afterAll(() => s.stop());

const NS = 'default';
const DS_PATH = `/apis/apps/v1/namespaces/${NS}/daemonsets`;
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
const mergePatch = (path: string, body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
const gen = (p: any) => p.metadata.labels['pod-template-generation'];

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 30_000) => waitUntil(read, ok, what, timeoutMs);

const podsOf = async (app: string) => (await s.api(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${app}`)).body.items as any[];
const nodesOf = async (group: string) => (await s.api(`/api/v1/nodes?labelSelector=group%3D${group}`)).body.items as any[];

async function setup(group: string, nodes: { name: string; labels?: Record<string, string>; spec?: any }[], strategy: any) {
  for (const n of nodes) {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: n.name, labels: { group, ...n.labels } }, spec: n.spec ?? {} } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  await until(() => nodesOf(group), (items) => items.length === nodes.length && items.every((n) => cond(n, 'Ready')?.status === 'True'), `nodes of ${group} Ready`);
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: group },
    spec: {
      selector: { matchLabels: { app: group } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: strategy },
      template: { metadata: { labels: { app: group } }, spec: { nodeSelector: { group, role: 'worker' }, containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.9' }] } },
    },
  };
  const r = await s.api(DS_PATH, { method: 'POST', body: ds });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const workers = nodes.filter((n) => n.labels?.role === 'worker').length;
  await until(
    () => podsOf(group),
    (ps) => ps.length === workers && ps.every((p) => isPodAvailable(p, 0, Date.now())),
    `${group} running on its ${workers} nodes`,
  );
}

/** Plans the image change from what the API serves now, then makes it and records the order in which the controller takes nodes. */
async function planAndRoll(group: string) {
  const ds = (await s.api(`${DS_PATH}/${group}`)).body;
  const next = structuredClone(ds);
  next.spec.template.spec.containers[0].image = 'registry.k8s.io/pause:3.10';
  const plan = planRollout({ ds: next, nodes: await nodesOf(group), pods: await podsOf(group), now: Date.now() });

  const order: string[] = [];
  const limit = plan.mode === 'surge' ? plan.maxSurge : plan.maxUnavailable;
  const violations: string[] = [];
  const sel = encodeURIComponent(`app=${group}`);
  const list = (await s.api(`/api/v1/namespaces/${NS}/pods?labelSelector=${sel}`)).body;
  const pods = new Map<string, any>(list.items.map((p: any) => [p.metadata.name, p]));
  const ac = new AbortController();
  const res = await fetch(`${s.url}/api/v1/namespaces/${NS}/pods?watch=true&labelSelector=${sel}&resourceVersion=${list.metadata.resourceVersion}`, { signal: ac.signal, headers: s.adminHeaders });
  const beyond = new Set(plan.waves.flatMap((w) => w.steps.filter((x) => x.beyondBudget || x.action === 'remove').map((x) => x.nodeName)));
  const desired = new Set(plan.waves.flatMap((w) => w.steps.filter((x) => x.action !== 'remove').map((x) => x.nodeName)).concat(plan.notReached));
  void (async () => {
    try {
      for await (const e of watchEvents(res.body!)) {
        const p = e.object;
        const node = daemonPodNodeName(p)!;
        if (e.type === 'DELETED') pods.delete(p.metadata.name);
        else pods.set(p.metadata.name, p);
        // A node is taken when its old pod starts terminating (maxSurge 0) or a new pod appears on it (surge).
        const taken = (gen(p) === '2' && e.type === 'ADDED') || (gen(p) === '1' && (p.metadata.deletionTimestamp || e.type === 'DELETED'));
        if (taken && !order.includes(node)) order.push(node);
        // The budget: nodes of the desired set without an available pod (maxSurge 0) or with two pods (surge), leaving out those taken beyond it.
        const live = [...pods.values()].filter((x) => !x.metadata.deletionTimestamp);
        const counted = [...desired].filter((n) => !beyond.has(n)).filter((n) => {
          const on = live.filter((x) => daemonPodNodeName(x) === n);
          return plan.mode === 'surge' ? on.length > 1 : !on.some((x) => isPodAvailable(x, 0, Date.now()));
        });
        if (counted.length > limit) violations.push(`${counted.length} nodes in the budget of ${limit}: ${counted}`);
      }
    } catch {
      /* aborted */
    }
  })();
  const r = await mergePatch(`${DS_PATH}/${group}`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { plan, order, violations, stop: () => ac.abort() };
}

/** The controller took what the plan said, in its order: wave 1 exactly, later nodes within one batch of their place. */
function expectSameWaves(plan: RolloutPlan, order: string[]) {
  const planned = plan.waves.flatMap((w) => w.steps.map((x) => x.nodeName));
  expect([...order].sort()).toEqual([...planned].sort());
  const first = plan.waves[0].steps.map((x) => x.nodeName);
  expect(order.slice(0, first.length).sort()).toEqual([...first].sort());
  const batch = Math.max(...plan.waves.map((w) => w.steps.length));
  for (const [i, n] of order.entries()) expect(Math.abs(planned.indexOf(n) - i), `${n} taken ${i + 1}th, planned ${planned.indexOf(n) + 1}th: ${order}`).toBeLessThan(batch);
}

/** Waits until every planned node is done: a new available pod, or (removed) none; stalled ones with a new pod waiting. */
async function finished(group: string, plan: RolloutPlan) {
  const steps = plan.waves.flatMap((w) => w.steps);
  return until(
    () => podsOf(group),
    (ps) =>
      steps.every((x) => {
        const on = ps.filter((p) => daemonPodNodeName(p) === x.nodeName);
        if (x.action === 'remove') return on.length === 0;
        if (x.stall) return on.some((p) => gen(p) === '2' && !p.metadata.deletionTimestamp);
        return on.length === 1 && gen(on[0]) === '2' && isPodAvailable(on[0], 0, Date.now());
      }),
    `${group}: every planned node done`,
  );
}

describe('the plan is what the controller does', () => {
  it('maxUnavailable 40% of 5 (2 a wave) in name order; unselected and tainted nodes left out, a cordoned node updated', async () => {
    const worker = { role: 'worker' };
    await setup(
      'pa',
      [
        { name: 'pa-f', labels: worker },
        { name: 'pa-b', labels: worker },
        { name: 'pa-e', labels: worker, spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } },
        { name: 'pa-a', labels: worker },
        { name: 'pa-d', labels: worker },
        { name: 'pa-c', labels: { role: 'infra' } },
        { name: 'pa-g', labels: worker },
      ],
      { maxUnavailable: '40%' },
    );
    // A NoSchedule taint after the fact: the pod there stays, the rollout removes it.
    await mergePatch('/api/v1/nodes/pa-d', { spec: { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] } });
    await until(() => s.api(`${DS_PATH}/pa`).then((r) => r.body), (d) => d.status?.desiredNumberScheduled === 5 && d.status?.numberMisscheduled === 1, 'pa-d out of the desired set');

    const { plan, order, violations, stop } = await planAndRoll('pa');
    try {
      expect(plan.desired).toBe(5);
      expect(plan.maxUnavailable).toBe(2);
      expect(plan.excluded.map((e) => [e.nodeName, e.pod])).toEqual([
        ['pa-c', undefined],
        ['pa-d', 'removed in the rollout'],
      ]);
      expect(plan.waves.map((w) => w.steps.map((x) => x.nodeName))).toEqual([['pa-a', 'pa-b'], ['pa-d', 'pa-e'], ['pa-f', 'pa-g']]);
      expect(plan.waves[1].steps.find((x) => x.nodeName === 'pa-d')!.action).toBe('remove');
      await finished('pa', plan);
      expectSameWaves(plan, order);
      expect(violations).toEqual([]);
    } finally {
      stop();
    }
  });

  it('surge (maxSurge 2): new pods beside old ones, two nodes at a time', async () => {
    const names = ['pb-1', 'pb-2', 'pb-3', 'pb-4', 'pb-5'];
    await setup('pb', names.map((name) => ({ name, labels: { role: 'worker' } })), { maxSurge: 2, maxUnavailable: 0 });
    const { plan, order, violations, stop } = await planAndRoll('pb');
    try {
      expect(plan.mode).toBe('surge');
      expect(plan.waves.map((w) => w.steps.map((x) => x.nodeName))).toEqual([['pb-1', 'pb-2'], ['pb-3', 'pb-4'], ['pb-5']]);
      await finished('pb', plan);
      await until(() => podsOf('pb'), (ps) => ps.length === 5, 'old pods gone');
      expectSameWaves(plan, order);
      expect(violations).toEqual([]);
    } finally {
      stop();
    }
  });

  it('a NotReady node is left out (its pod removed at once); an image-pull fault stalls its node, which holds one slot of two', async () => {
    const names = ['pc-1', 'pc-2', 'pc-3', 'pc-4', 'pc-5', 'pc-6'];
    await setup('pc', names.map((name) => ({ name, labels: { role: 'worker' } })), { maxUnavailable: 2 });
    await mergePatch('/api/v1/nodes/pc-3', { metadata: { annotations: { 'sim.k8s.io/not-ready': 'true' } } });
    await mergePatch('/api/v1/nodes/pc-1', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } });
    await until(
      () => podsOf('pc'),
      (ps) => ps.some((p) => daemonPodNodeName(p) === 'pc-3' && cond(p, 'Ready')?.status === 'False'),
      'the pod on the NotReady node marked not Ready',
    );
    await until(() => s.api('/api/v1/nodes/pc-3').then((r) => r.body), (n) => (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/not-ready'), 'pc-3 tainted');

    const { plan, order, violations, stop } = await planAndRoll('pc');
    try {
      expect(plan.excluded).toEqual([{ nodeName: 'pc-3', reason: 'taint node.kubernetes.io/not-ready:NoSchedule is not tolerated', pod: 'removed in the rollout' }]);
      expect(plan.stalls).toEqual([{ nodeName: 'pc-1', kind: 'stall', reason: expect.stringMatching(/image pulls fail/) }]);
      expect(plan.waves.map((w) => w.steps.map((x) => `${x.nodeName}${x.stall ? '!' : ''}${x.beyondBudget ? '+' : ''}`))).toEqual([['pc-1!', 'pc-3+'], ['pc-2'], ['pc-4'], ['pc-5'], ['pc-6']]);
      // The not-ready pod on pc-3 is deleted at once and counts while it goes, so wave 1 takes one node under the budget.
      expect(plan.waves.slice(1).map((w) => w.held)).toEqual([1, 1, 1, 1]);
      await finished('pc', plan);
      const stalled = (await podsOf('pc')).find((p) => daemonPodNodeName(p) === 'pc-1' && gen(p) === '2');
      await until(() => s.api(`/api/v1/namespaces/${NS}/pods/${stalled.metadata.name}`).then((r) => r.body), (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'ImagePullBackOff on pc-1');
      expectSameWaves(plan, order);
      expect(violations).toEqual([]);
    } finally {
      stop();
    }
  });

  it('with maxUnavailable 1 a stalled node stops the rollout where the plan says', async () => {
    const names = ['pd-1', 'pd-2', 'pd-3'];
    await setup('pd', names.map((name) => ({ name, labels: { role: 'worker' } })), { maxUnavailable: 1 });
    await mergePatch('/api/v1/nodes/pd-2', { metadata: { annotations: { 'sim.k8s.io/image-pull-error': 'true' } } });
    const { plan, order, violations, stop } = await planAndRoll('pd');
    try {
      expect(plan.waves.map((w) => w.steps.map((x) => x.nodeName))).toEqual([['pd-1'], ['pd-2']]);
      expect(plan.notReached).toEqual(['pd-3']);
      await finished('pd', plan);
      const ds = await until(() => s.api(`${DS_PATH}/pd`).then((r) => r.body), (d) => d.status.observedGeneration === d.metadata.generation && d.status.updatedNumberScheduled === 2, 'status of pd');
      expect(ds.status.numberUnavailable).toBe(1);
      expectSameWaves(plan, order);
      expect((await podsOf('pd')).filter((p) => daemonPodNodeName(p) === 'pd-3').map(gen)).toEqual(['1']);
      expect(violations).toEqual([]);
    } finally {
      stop();
    }
  });
});

describe('the pace is read off the cluster', () => {
  const view = async (): Promise<ClusterView> => ({
    nodes: (await s.api('/api/v1/nodes')).body.items,
    pods: (await s.api(`/api/v1/namespaces/${NS}/pods`)).body.items,
    revisions: (await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).body.items,
    daemonSets: (await s.api(DS_PATH)).body.items,
    events: (await s.api(`/api/v1/namespaces/${NS}/events?fieldSelector=source%3Dkubelet`)).body.items,
  });
  const rolledOut = (group: string, generation: string) =>
    until(() => podsOf(group), (ps) => ps.length === 4 && ps.every((p) => gen(p) === generation && !p.metadata.deletionTimestamp && isPodAvailable(p, 0, Date.now())), `${group} at generation ${generation}`);
  const image = (group: string, tag: string, rollingUpdate?: unknown) =>
    mergePatch(`${DS_PATH}/${group}`, { spec: { ...(rollingUpdate ? { updateStrategy: { rollingUpdate } } : {}), template: { spec: { containers: [{ name: 'main', image: `registry.k8s.io/pause:${tag}` }] } } } });

  it("learns the old pods' stop from the kubelets' Killing and Started of a rollout without surge, keeps it past a surge rollout, and adds it back when planning without surge", async () => {
    const names = ['pe-1', 'pe-2', 'pe-3', 'pe-4'];
    await setup('pe', names.map((name) => ({ name, labels: { role: 'worker' } })), { maxUnavailable: 2 });
    const dsOf = async () => (await s.api(`${DS_PATH}/pe`)).body;
    // Without surge: on each node the old pod is killed before the new one starts.
    expect((await image('pe', '3.10')).status).toBe(200);
    await rolledOut('pe', '2');
    const first = await until(async () => paceFor(await dsOf(), await view()), (p) => (p.stop?.length ?? 0) === 4, 'four stops in the events');
    expect(first.source).toMatch(/the old pods' stop from this DaemonSet's events \(4 nodes\)/);
    // With surge: the old pods are killed after the new ones are up, which says nothing of the stop; the pods of the first rollout are gone, their events are not.
    expect((await image('pe', '3.11', { maxSurge: 2, maxUnavailable: 0 })).status).toBe(200);
    await rolledOut('pe', '3');
    const current = await dsOf();
    const cluster = await view();
    const after = paceFor(current, cluster);
    expect(after.observedSurge).toBe(true);
    expect(after.stop).toHaveLength(4);
    // Planned without surge, each node's hand-off gains the stop observed; with no events, it is estimated, and says so.
    const proposed = structuredClone(current);
    proposed.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } };
    proposed.spec.template.spec.containers[0].image = 'registry.k8s.io/pause:3.12';
    expect(planChange({ current, proposed, view: cluster, now: Date.now() }).plan.forecast!.pace.source).toMatch(/planned without: each node's hand-off gains the old pod's stop \(4 stops observed/);
    expect(planChange({ current, proposed, view: { ...cluster, events: [] }, now: Date.now() }).plan.forecast!.pace.source).toMatch(/no stop observed: taken as 0–/);
  });
});
