// The DaemonSet controller and the garbage collector over the real server,
// with the simulated kubelets running the pods after short delays. Rollouts
// are followed through a pod watch and their invariants checked after every
// event; waits are bounded but nothing asserts on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until, watchEvents } from '../testing.ts';
import { isPodAvailable, rolloutStatus } from '../../lib/rollout.ts';
import { computeHash, judging, revisionData, stableStringify } from './daemonset.ts';
import { daemonPodNodeName } from '../../lib/daemonnodes.ts';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ simulation: { heartbeatSeconds: 1, podStartSeconds: 0.05, podReadySeconds: 0.1, podStopSeconds: 0.05 } });
});
afterAll(() => s.stop());

const NS = 'default';
const DS_PATH = `/apis/apps/v1/namespaces/${NS}/daemonsets`;
/** The node a daemon pod is for, bound or not yet (the scheduler binds it after the controller creates it). */
const nodeOf = (p: any) => daemonPodNodeName(p);


const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
const mergePatch = (path: string, body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });

async function createNodes(group: string, specs: { name: string; labels?: Record<string, string>; spec?: any }[]) {
  for (const n of specs) {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: n.name, labels: { group, ...n.labels } }, spec: n.spec ?? {} } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  await until(
    async () => (await s.api(`/api/v1/nodes?labelSelector=group%3D${group}`)).body.items,
    (items: any[]) => items.length === specs.length && items.every((n) => cond(n, 'Ready')?.status === 'True'),
    `nodes of ${group} Ready`,
  );
}

function daemonSet(name: string, group: string, opts: { strategy?: any; minReadySeconds?: number; revisionHistoryLimit?: number; image?: string; spec?: any } = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, annotations: { team: 'platform' } },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: opts.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      minReadySeconds: opts.minReadySeconds,
      revisionHistoryLimit: opts.revisionHistoryLimit,
      template: {
        metadata: { labels: { app: name } },
        spec: { nodeSelector: { group }, containers: [{ name: 'main', image: opts.image ?? 'registry.k8s.io/pause:3.9' }], ...opts.spec },
      },
    },
  };
}

async function createDaemonSet(obj: any) {
  const r = await s.api(DS_PATH, { method: 'POST', body: obj });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const getDs = async (name: string) => (await s.api(`${DS_PATH}/${name}`)).body;
const podsOf = async (app: string) => (await s.api(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3D${app}`)).body.items as any[];
const revisionsOf = async (app: string) =>
  ((await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions?labelSelector=app%3D${app}`)).body.items as any[]).sort((a, b) => a.revision - b.revision);

/** Waits for the DaemonSet to have observed its generation and report this many nodes all updated and available. */
async function rolledOut(name: string, desired: number) {
  return until(
    () => getDs(name),
    (ds) =>
      ds.status?.observedGeneration >= ds.metadata.generation &&
      ds.status.desiredNumberScheduled === desired &&
      ds.status.updatedNumberScheduled === desired &&
      ds.status.numberAvailable === desired &&
      rolloutStatus(ds).done,
    `${name} rolled out on ${desired} nodes`,
  );
}

/** The status fields recomputed from pods and nodes, as the controller should see them. */
function expectedStatus(pods: any[], desiredNodes: string[], templateGeneration: string, minReadySeconds = 0) {
  const live = pods.filter((p) => !(p.status?.phase === 'Failed' && p.metadata.deletionTimestamp));
  const byNode = new Map<string, any[]>();
  for (const p of live) byNode.set(nodeOf(p) ?? '', [...(byNode.get(nodeOf(p) ?? '') ?? []), p]);
  let current = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const n of desiredNodes) {
    // Bound pods first, then the older (podByCreationTimestampAndPhase).
    const ps = (byNode.get(n) ?? []).sort((a, b) => Number(!a.spec.nodeName) - Number(!b.spec.nodeName) || a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name));
    if (!ps.length) continue;
    current++;
    if (cond(ps[0], 'Ready')?.status === 'True') ready++;
    if (isPodAvailable(ps[0], minReadySeconds, Date.now())) available++;
    if (ps[0].metadata.labels['pod-template-generation'] === templateGeneration) updated++;
  }
  const misscheduled = [...byNode.keys()].filter((n) => !desiredNodes.includes(n)).length;
  return {
    desiredNumberScheduled: desiredNodes.length,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    numberAvailable: available,
    numberUnavailable: desiredNodes.length - available,
    updatedNumberScheduled: updated,
  };
}

/** Status and pods agree (read until they do: the status follows the pods). */
async function statusAgrees(name: string, desiredNodes: string[], minReadySeconds = 0) {
  let want: any;
  const ds = await until(
    async () => {
      const d = await getDs(name);
      want = expectedStatus(await podsOf(name), desiredNodes, d.metadata.annotations['deprecated.daemonset.template.generation'], minReadySeconds);
      return d;
    },
    (d) => Object.entries(want).every(([k, v]) => d.status[k] === v) && d.status.observedGeneration === d.metadata.generation,
    `status of ${name} to agree with its pods`,
  );
  expect(ds.status).toMatchObject(want);
  return ds;
}

interface PodWatch {
  pods: Map<string, any>;
  violations: string[];
  events: number;
  until(pred: (pods: any[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  stop(): void;
}

/** A pod watch for one DaemonSet's pods; `check` runs on the pod set after every event. */
async function watchPods(app: string, check: (pods: any[]) => string | undefined): Promise<PodWatch> {
  const sel = encodeURIComponent(`app=${app}`);
  const list = (await s.api(`/api/v1/namespaces/${NS}/pods?labelSelector=${sel}`)).body;
  const pods = new Map<string, any>(list.items.map((p: any) => [p.metadata.name, p]));
  const ac = new AbortController();
  const res = await fetch(`${s.url}/api/v1/namespaces/${NS}/pods?watch=true&labelSelector=${sel}&resourceVersion=${list.metadata.resourceVersion}`, { signal: ac.signal, headers: s.adminHeaders });
  const waiters = new Set<{ pred: (p: any[]) => boolean; resolve: () => void }>();
  const w: PodWatch = {
    pods,
    violations: [],
    events: 0,
    until(pred, what, timeoutMs = 15_000) {
      if (pred([...pods.values()])) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const entry = { pred, resolve: () => (clearTimeout(t), resolve()) };
        const t = setTimeout(() => {
          waiters.delete(entry);
          reject(new Error(`timed out waiting for ${what}: ${JSON.stringify([...pods.values()].map(brief))}`));
        }, timeoutMs);
        waiters.add(entry);
      });
    },
    stop: () => ac.abort(),
  };
  void (async () => {
    try {
      for await (const e of watchEvents(res.body!)) {
        if (e.type === 'DELETED') pods.delete(e.object.metadata.name);
        else if (e.type === 'ADDED' || e.type === 'MODIFIED') pods.set(e.object.metadata.name, e.object);
        else continue;
        w.events++;
        const all = [...pods.values()];
        const v = check(all);
        if (v) w.violations.push(`after ${e.type} ${e.object.metadata.name}: ${v}`);
        for (const x of [...waiters]) if (x.pred(all)) (waiters.delete(x), x.resolve());
      }
    } catch {
      /* aborted */
    }
  })();
  return w;
}

const brief = (p: any) => ({
  name: p.metadata.name,
  node: nodeOf(p),
  gen: p.metadata.labels['pod-template-generation'],
  ready: cond(p, 'Ready')?.status,
  deleting: !!p.metadata.deletionTimestamp,
});
const live = (pods: any[]) => pods.filter((p) => !p.metadata.deletionTimestamp);

/** Every node holds exactly one pod, of this template generation, available; nothing terminating. */
const settled = (nodes: string[], generation: string, minReadySeconds = 0) => (pods: any[]) =>
  pods.length === nodes.length &&
  nodes.every((n) => {
    const on = pods.filter((p) => nodeOf(p) === n);
    return on.length === 1 && !on[0].metadata.deletionTimestamp && on[0].metadata.labels['pod-template-generation'] === generation && isPodAvailable(on[0], minReadySeconds, Date.now());
  });

async function setImage(name: string, image: string) {
  const r = await mergePatch(`${DS_PATH}/${name}`, { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

describe('revision names and data', () => {
  it('hash the template with FNV-32a into name-safe characters, collisionCount changing it', () => {
    const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } };
    const h = computeHash(template);
    expect(h).toMatch(/^[4-9bcdf]+$/);
    expect(computeHash({ spec: template.spec, metadata: template.metadata })).toBe(h); // key order does not matter
    expect(computeHash(template, 1)).not.toBe(h);
    expect(computeHash(template, 0)).not.toBe(h); // a collisionCount of 0 is hashed too, as upstream
    expect(computeHash({ ...template, spec: { containers: [{ name: 'c', image: 'i:2' }] } })).not.toBe(h);
  });

  it('store the template as a replace patch with sorted keys', () => {
    const ds: any = { metadata: { name: 'x' }, spec: { template: { spec: { b: 1, a: [{ d: 1, c: 2 }] }, metadata: { labels: { z: '1' } } } } };
    expect(stableStringify(revisionData(ds))).toBe('{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"z":"1"}},"spec":{"a":[{"c":2,"d":1}],"b":1}}}}');
  });
});

describe('placement', () => {
  it('runs one pod on each node that matches the selector, affinity and taints', async () => {
    await createNodes('place', [
      { name: 'place-1', labels: { role: 'worker' } },
      { name: 'place-2', labels: { role: 'worker' }, spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } },
      { name: 'place-3', labels: { role: 'worker' }, spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } },
      { name: 'place-4', labels: { role: 'infra' } },
    ]);
    const created = await createDaemonSet(
      daemonSet('place', 'place', {
        spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'role', operator: 'In', values: ['worker'] }] }] } } } },
      }),
    );
    // A cordoned node still runs daemon pods: they tolerate the unschedulable taint.
    await rolledOut('place', 2);
    const pods = await podsOf('place');
    expect(pods.map((p) => nodeOf(p)).sort()).toEqual(['place-1', 'place-3']);
    const pod = pods[0];
    expect(pod.metadata.generateName).toBe('place-');
    expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'place', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const [rev] = await revisionsOf('place');
    expect(pod.metadata.labels).toEqual({ app: 'place', 'controller-revision-hash': rev.metadata.labels['controller-revision-hash'], 'pod-template-generation': '1' });
    expect(pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeOf(pod)] }] }],
    });
    expect(pod.spec.tolerations.map((t: any) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    await statusAgrees('place', ['place-1', 'place-3']);

    // The taint goes: place-2 gets a pod; place-4 becomes a worker: it gets one too.
    await mergePatch('/api/v1/nodes/place-2', { spec: { taints: null } });
    await mergePatch('/api/v1/nodes/place-4', { metadata: { labels: { role: 'worker' } } });
    await rolledOut('place', 4);
    await statusAgrees('place', ['place-1', 'place-2', 'place-3', 'place-4']);

    // A NoSchedule taint keeps the running pod (misscheduled); a NoExecute one evicts it.
    await mergePatch('/api/v1/nodes/place-2', { spec: { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] } });
    await mergePatch('/api/v1/nodes/place-4', { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
    await until(() => podsOf('place'), (ps) => !ps.some((p) => nodeOf(p) === 'place-4'), 'the pod on place-4 evicted');
    const ds = await statusAgrees('place', ['place-1', 'place-3']);
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 2, numberMisscheduled: 1, currentNumberScheduled: 2 });
    expect((await podsOf('place')).map((p) => nodeOf(p)).sort()).toEqual(['place-1', 'place-2', 'place-3']);
  });

  it('acts on the one node whose labels change, leaving the pods of the others alone; a deleted node leaves the counts', async () => {
    await createNodes('one', [1, 2, 3, 4, 5].map((i) => ({ name: `one-${i}`, labels: (i === 5 ? {} : { pick: 'yes' }) as Record<string, string> })));
    await createDaemonSet(daemonSet('one', 'one', { spec: { nodeSelector: { group: 'one', pick: 'yes' } } }));
    await rolledOut('one', 4);
    const podOn = async () => new Map((await podsOf('one')).map((p) => [nodeOf(p), p.metadata.name]));
    const before = await podOn();

    // one-5 now matches: it gets a pod; no other pod is replaced.
    await mergePatch('/api/v1/nodes/one-5', { metadata: { labels: { pick: 'yes' } } });
    await rolledOut('one', 5);
    const added = await podOn();
    expect([...added.keys()].sort()).toEqual(['one-1', 'one-2', 'one-3', 'one-4', 'one-5']);
    for (const [node, name] of before) expect(added.get(node)).toBe(name);
    await statusAgrees('one', ['one-1', 'one-2', 'one-3', 'one-4', 'one-5']);

    // one-2 no longer matches: its pod goes, the others stay.
    await mergePatch('/api/v1/nodes/one-2', { metadata: { labels: { pick: 'no' } } });
    await until(() => podsOf('one'), (ps) => !ps.some((p) => nodeOf(p) === 'one-2'), 'the pod on one-2 deleted');
    const removed = await podOn();
    for (const node of ['one-1', 'one-3', 'one-4', 'one-5']) expect(removed.get(node)).toBe(added.get(node));
    await statusAgrees('one', ['one-1', 'one-3', 'one-4', 'one-5']);

    // one-3 is deleted: it is no longer desired.
    expect((await s.api('/api/v1/nodes/one-3', { method: 'DELETE' })).status).toBe(200);
    const ds = await until(() => getDs('one'), (d) => d.status.desiredNumberScheduled === 3, 'one-3 out of the desired set');
    expect(ds.status).toMatchObject({ numberMisscheduled: 0, updatedNumberScheduled: 3, numberAvailable: 3 });
  });

  it('keeps the pod of a node that goes NotReady, counted misscheduled, as upstream', async () => {
    await createNodes('nr', [{ name: 'nr-1' }, { name: 'nr-2' }]);
    await createDaemonSet(daemonSet('nr', 'nr'));
    await rolledOut('nr', 2);
    const before = (await podsOf('nr')).map((p) => p.metadata.name).sort();
    // The simulated kubelet reports NotReady; the lifecycle controller taints the
    // node not-ready:NoSchedule, which daemon pods do not tolerate (only NoExecute).
    await mergePatch('/api/v1/nodes/nr-2', { metadata: { annotations: { 'sim.k8s.io/not-ready': 'true' } } });
    const ds = await until(() => getDs('nr'), (d) => d.status.desiredNumberScheduled === 1 && d.status.numberMisscheduled === 1, 'nr-2 out of the desired set');
    expect(ds.status).toMatchObject({ currentNumberScheduled: 1, numberAvailable: 1, numberUnavailable: 0 });
    expect((await podsOf('nr')).map((p) => p.metadata.name).sort()).toEqual(before);
    await mergePatch('/api/v1/nodes/nr-2', { metadata: { annotations: { 'sim.k8s.io/not-ready': null } } });
    await rolledOut('nr', 2);
    expect((await podsOf('nr')).map((p) => p.metadata.name).sort()).toEqual(before);
  });

  it('recreates a failed pod on its node', async () => {
    await createNodes('fail', [{ name: 'fail-1' }, { name: 'fail-2' }]);
    await createDaemonSet(daemonSet('fail', 'fail'));
    await rolledOut('fail', 2);
    const [victim] = (await podsOf('fail')).filter((p) => nodeOf(p) === 'fail-1');
    const r = await mergePatch(`/api/v1/namespaces/${NS}/pods/${victim.metadata.name}/status`, { status: { phase: 'Failed' } });
    expect(r.status).toBe(200);
    const pods = await until(
      () => podsOf('fail'),
      (ps) => ps.length === 2 && !ps.some((p) => p.metadata.name === victim.metadata.name) && ps.every((p) => cond(p, 'Ready')?.status === 'True'),
      'the failed pod replaced',
    );
    expect(pods.map((p) => nodeOf(p)).sort()).toEqual(['fail-1', 'fail-2']);
    await statusAgrees('fail', ['fail-1', 'fail-2']);
  });
});

describe('rolling update', () => {
  it('without surge keeps at most maxUnavailable nodes (30% of 6 rounds up to 2) without an available pod', async () => {
    const nodes = Array.from({ length: 6 }, (_, i) => `ru-${i + 1}`);
    await createNodes('ru', nodes.map((name) => ({ name })));
    await createDaemonSet(daemonSet('ru', 'ru', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '30%' } } }));
    await rolledOut('ru', 6);
    let rolling = false;
    let maxUnavailableSeen = 0;
    const w = await watchPods('ru', (pods) => {
      const unavailable = nodes.filter((n) => !live(pods).some((p) => nodeOf(p) === n && isPodAvailable(p, 0, Date.now()))).length;
      const twice = nodes.filter((n) => live(pods).filter((p) => nodeOf(p) === n).length > 1);
      if (twice.length) return `nodes with two pods without surge: ${twice}`;
      if (!rolling) return;
      maxUnavailableSeen = Math.max(maxUnavailableSeen, unavailable);
      if (unavailable > 2) return `${unavailable} nodes without an available pod`;
    });
    try {
      rolling = true;
      const updated = await setImage('ru', 'registry.k8s.io/pause:3.10');
      const generation = updated.metadata.annotations['deprecated.daemonset.template.generation'];
      expect(generation).toBe('2');
      await w.until(settled(nodes, generation), 'the rollout to finish');
      expect(w.violations).toEqual([]);
      expect(maxUnavailableSeen).toBe(2);
      expect(w.events).toBeGreaterThan(6 * 3);
    } finally {
      w.stop();
    }
    await rolledOut('ru', 6);
    await statusAgrees('ru', nodes);
    const revisions = await revisionsOf('ru');
    expect(revisions.map((r) => r.revision)).toEqual([1, 2]);
    const pods = await podsOf('ru');
    expect(new Set(pods.map((p) => p.metadata.labels['controller-revision-hash']))).toEqual(new Set([revisions[1].metadata.labels['controller-revision-hash']]));
  });

  it('with surge never has fewer available nodes than desired nor more than maxSurge nodes with two pods', async () => {
    const nodes = Array.from({ length: 5 }, (_, i) => `surge-${i + 1}`);
    await createNodes('surge', nodes.map((name) => ({ name })));
    const minReadySeconds = 1;
    await createDaemonSet(daemonSet('surge', 'surge', { minReadySeconds, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '40%', maxUnavailable: 0 } } }));
    await rolledOut('surge', 5);
    let rolling = false;
    let maxSurgeSeen = 0;
    const w = await watchPods('surge', (pods) => {
      if (!rolling) return;
      const available = nodes.filter((n) => live(pods).some((p) => nodeOf(p) === n && isPodAvailable(p, minReadySeconds, Date.now()))).length;
      const doubled = nodes.filter((n) => live(pods).filter((p) => nodeOf(p) === n).length > 1).length;
      maxSurgeSeen = Math.max(maxSurgeSeen, doubled);
      if (available < nodes.length) return `only ${available} of ${nodes.length} nodes with an available pod`;
      if (doubled > 2) return `${doubled} nodes with two pods, maxSurge is 2`;
    });
    try {
      rolling = true;
      const updated = await setImage('surge', 'registry.k8s.io/pause:3.10');
      await w.until(settled(nodes, updated.metadata.annotations['deprecated.daemonset.template.generation'], minReadySeconds), 'the surge rollout to finish');
      expect(w.violations).toEqual([]);
      expect(maxSurgeSeen).toBe(2);
    } finally {
      w.stop();
    }
    await rolledOut('surge', 5);
    await statusAgrees('surge', nodes, minReadySeconds);
  });

  it('replaces an unavailable old pod at once, beyond the surge limit', async () => {
    const nodes = ['sick-1', 'sick-2', 'sick-3'];
    await createNodes('sick', nodes.map((name) => ({ name })));
    await createDaemonSet(daemonSet('sick', 'sick', { minReadySeconds: 3600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    // With an hour of minReadySeconds nothing becomes available: the ready pods stay
    // unavailable, so every old pod is "unavailable" and replaced at once, surge or not.
    await until(() => getDs('sick'), (d) => d.status?.numberReady === 3, 'three ready pods');
    const updated = await setImage('sick', 'registry.k8s.io/pause:3.10');
    const generation = updated.metadata.annotations['deprecated.daemonset.template.generation'];
    const pods = await until(
      () => podsOf('sick'),
      (ps) => nodes.every((n) => ps.some((p) => nodeOf(p) === n && p.metadata.labels['pod-template-generation'] === generation)),
      'a new pod on every node',
    );
    expect(pods.filter((p) => p.metadata.labels['pod-template-generation'] === generation)).toHaveLength(3);
  });
});

describe('OnDelete', () => {
  it('replaces pods only when they are deleted, and keeps revisions live pods use', async () => {
    const nodes = ['od-1', 'od-2', 'od-3'];
    await createNodes('od', nodes.map((name) => ({ name })));
    await createDaemonSet(daemonSet('od', 'od', { strategy: { type: 'OnDelete' }, revisionHistoryLimit: 0 }));
    await rolledOut('od', 3);
    const before = (await podsOf('od')).map((p) => p.metadata.name).sort();
    const updated = await setImage('od', 'registry.k8s.io/pause:3.10');
    const ds = await until(() => getDs('od'), (d) => d.status.observedGeneration === updated.metadata.generation, 'the update observed');
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 3, updatedNumberScheduled: 0, numberAvailable: 3 });
    expect(rolloutStatus(ds).error).toBe('rollout status is only available for RollingUpdate strategy type');
    expect((await podsOf('od')).map((p) => p.metadata.name).sort()).toEqual(before);
    // revisionHistoryLimit 0, but the old revision is still in use by live pods.
    expect((await revisionsOf('od')).map((r) => r.revision)).toEqual([1, 2]);

    const victim = (await podsOf('od')).find((p) => nodeOf(p) === 'od-2');
    await s.api(`/api/v1/namespaces/${NS}/pods/${victim.metadata.name}`, { method: 'DELETE' });
    const pods = await until(
      () => podsOf('od'),
      (ps) => ps.length === 3 && ps.some((p) => nodeOf(p) === 'od-2' && p.metadata.labels['pod-template-generation'] === '2' && cond(p, 'Ready')?.status === 'True'),
      'od-2 replaced',
    );
    expect(pods.filter((p) => p.metadata.labels['pod-template-generation'] === '2').map((p) => nodeOf(p))).toEqual(['od-2']);
    await statusAgrees('od', nodes);

    for (const p of pods.filter((x) => nodeOf(x) !== 'od-2')) await s.api(`/api/v1/namespaces/${NS}/pods/${p.metadata.name}`, { method: 'DELETE' });
    await until(() => revisionsOf('od'), (rs) => rs.length === 1, 'the unused old revision cleaned up');
    expect((await revisionsOf('od'))[0].revision).toBe(2);
    await rolledOut('od', 3);
  });
});

describe('revisions', () => {
  it('number templates, reuse a matching old revision on rollback and keep revisionHistoryLimit old ones', async () => {
    await createNodes('hist', [{ name: 'hist-1' }, { name: 'hist-2' }]);
    const created = await createDaemonSet(daemonSet('hist', 'hist', { revisionHistoryLimit: 2, image: 'example/app:v1', strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } }));
    await rolledOut('hist', 2);
    const [first] = await revisionsOf('hist');
    expect(first.metadata.name).toBe(`hist-${first.metadata.labels['controller-revision-hash']}`);
    expect(first.metadata.ownerReferences[0]).toMatchObject({ kind: 'DaemonSet', name: 'hist', uid: created.metadata.uid, controller: true });
    expect(first.metadata.annotations).toMatchObject({ team: 'platform' });
    expect(first.data.spec.template.$patch).toBe('replace');
    expect(first.data.spec.template.spec.containers[0].image).toBe('example/app:v1');

    for (const v of ['v2', 'v3']) {
      await setImage('hist', `example/app:${v}`);
      await rolledOut('hist', 2);
    }
    const three = await revisionsOf('hist');
    expect(three.map((r) => [r.revision, r.data.spec.template.spec.containers[0].image])).toEqual([
      [1, 'example/app:v1'],
      [2, 'example/app:v2'],
      [3, 'example/app:v3'],
    ]);
    // Back to v2: its revision is renumbered, same name, no new revision.
    await setImage('hist', 'example/app:v2');
    await rolledOut('hist', 2);
    const afterRollback = await revisionsOf('hist');
    expect(afterRollback.map((r) => [r.metadata.name, r.revision])).toEqual([
      [three[0].metadata.name, 1],
      [three[2].metadata.name, 3],
      [three[1].metadata.name, 4],
    ]);
    await setImage('hist', 'example/app:v4');
    await rolledOut('hist', 2);
    const final = await until(() => revisionsOf('hist'), (rs) => rs.length === 3, 'history trimmed to the limit');
    expect(final.map((r) => [r.revision, r.data.spec.template.spec.containers[0].image])).toEqual([
      [3, 'example/app:v3'],
      [4, 'example/app:v2'],
      [5, 'example/app:v4'],
    ]);
  });

  it('bump collisionCount when the revision name is taken by other data', async () => {
    await createNodes('coll', [{ name: 'coll-1' }]);
    // Two DaemonSets with one template (the hash depends only on the template).
    const withSharedTemplate = (name: string, selector: Record<string, string>) => {
      const obj: any = daemonSet(name, 'coll');
      obj.spec.selector = { matchLabels: selector };
      obj.spec.template.metadata.labels = { app: 'probe', shared: 'yes' };
      return obj;
    };
    await createDaemonSet(withSharedTemplate('probe', { app: 'probe' }));
    const [probeRev] = await until(() => revisionsOf('probe'), (rs) => rs.length === 1, 'probe revision');
    const hash = probeRev.metadata.labels['controller-revision-hash'];
    // Squat on the name the second DaemonSet would give its revision.
    const squat = await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions`, {
      method: 'POST',
      body: { metadata: { name: `collide-${hash}` }, data: { something: 'else' }, revision: 1 },
    });
    expect(squat.status).toBe(201);
    await createDaemonSet(withSharedTemplate('collide', { shared: 'yes' }));
    const ds = await until(() => getDs('collide'), (d) => d.status?.collisionCount === 1 && d.status.observedGeneration === 1, 'collisionCount 1');
    const revs = (await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).body.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.uid === ds.metadata.uid);
    expect(revs).toHaveLength(1);
    expect(revs[0].metadata.name).not.toBe(`collide-${hash}`);
    expect(revs[0].metadata.name.startsWith('collide-')).toBe(true);
    expect((await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions/collide-${hash}`)).body.data).toEqual({ something: 'else' });
  });
});

describe('host ports', () => {
  it('stall a surge rollout (the new pod cannot be scheduled beside the old one that holds the port); maxUnavailable rolls it out', async () => {
    const nodes = ['hp-1', 'hp-2'];
    await createNodes('hp', nodes.map((name) => ({ name })));
    // As the demo's node-exporter: on the host network, containerPort 9100 (hostPort defaults to it).
    const container = (image: string) => ({ name: 'main', image, ports: [{ name: 'metrics', containerPort: 9100 }] });
    const surge = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    await createDaemonSet(daemonSet('hp', 'hp', { strategy: surge, spec: { hostNetwork: true, containers: [container('exporter:v1')] } }));
    await rolledOut('hp', 2);
    for (const p of await podsOf('hp')) {
      const ip = (await s.api(`/api/v1/nodes/${p.spec.nodeName}`)).body.status.addresses.find((a: any) => a.type === 'InternalIP').address;
      expect(p.status).toMatchObject({ podIP: ip, podIPs: [{ ip }], hostIP: ip });
      expect(p.spec.containers[0].ports[0].hostPort).toBe(9100);
    }

    const r = await mergePatch(`${DS_PATH}/hp`, { spec: { template: { spec: { containers: [container('exporter:v2')] } } } });
    expect(r.status).toBe(200);
    const generation = r.body.metadata.annotations['deprecated.daemonset.template.generation'];
    const isNew = (p: any) => p.metadata.labels['pod-template-generation'] === generation;
    const pods = await until(() => podsOf('hp'), (ps) => ps.some((p) => isNew(p) && cond(p, 'PodScheduled')?.status === 'False'), 'the surge pod unschedulable');
    const surgePod = pods.find(isNew);
    expect(surgePod.spec.nodeName).toBeUndefined();
    expect(surgePod.status.phase).toBe('Pending');
    expect(cond(surgePod, 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    // Upstream's FitError: counts per reason, sorted as strings; the PreFilter (the affinity's one node) leaves out the rest.
    const n = (await s.api('/api/v1/nodes')).body.items.length;
    const sorted = (...xs: string[]) => xs.sort().join(', ');
    expect(cond(surgePod, 'PodScheduled').message).toBe(
      `0/${n} nodes are available: ${sorted("1 node(s) didn't have free ports for the requested pod ports", `${n - 1} node is filtered out by the prefilter result`)}. ` +
        `preemption: 0/${n} nodes are available: ${sorted('1 No preemption victims found for incoming pod', `${n - 1} Preemption is not helpful for scheduling`)}.`,
    );
    // Nothing else moves: the old pods stay and serve, one new pod waits (maxSurge 1).
    const ds = await statusAgrees('hp', nodes);
    expect(ds.status).toMatchObject({ updatedNumberScheduled: 0, numberAvailable: 2 });
    const now = await podsOf('hp');
    expect(now.filter(isNew).map((p) => p.metadata.name)).toEqual([surgePod.metadata.name]);
    expect(now.filter((p) => !isNew(p) && !p.metadata.deletionTimestamp && cond(p, 'Ready')?.status === 'True')).toHaveLength(2);

    // maxUnavailable instead: the old pod goes first, then the new one takes the port.
    expect((await mergePatch(`${DS_PATH}/hp`, { spec: { updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } })).status).toBe(200);
    await rolledOut('hp', 2);
    const after = await podsOf('hp');
    expect(after.map(isNew)).toEqual([true, true]);
    expect(after.map((p) => p.spec.nodeName).sort()).toEqual(nodes);
  });
});

describe('garbage collection', () => {
  it('removes the pods and revisions of a deleted DaemonSet', async () => {
    await createNodes('gc', [{ name: 'gc-1' }, { name: 'gc-2' }]);
    await createDaemonSet(daemonSet('gc', 'gc'));
    await rolledOut('gc', 2);
    expect(await revisionsOf('gc')).toHaveLength(1);
    const r = await s.api(`${DS_PATH}/gc`, { method: 'DELETE' });
    expect(r.status).toBe(200);
    await until(async () => [...(await podsOf('gc')), ...(await revisionsOf('gc'))], (all) => all.length === 0, 'pods and revisions gone');
  });
});

describe('judging many nodes', () => {
  it('judges the nodes of a new DaemonSet in slices of the event loop, a node changed between them judged again', async () => {
    // A slice per 64 nodes (the clock is read every 64): 130 nodes of this group, and every node of the other tests, take several.
    const names = Array.from({ length: 130 }, (_, i) => `sliced-${String(i).padStart(3, '0')}`);
    await createNodes('sliced', names.map((name) => ({ name })));
    const { sliceMs, yields: yieldsBefore } = judging;
    judging.sliceMs = 0;
    try {
      await createDaemonSet(daemonSet('sliced', 'sliced'));
      // The last node leaves the group as the controller judges: whichever slice has judged it, it is judged again.
      expect((await mergePatch(`/api/v1/nodes/${names.at(-1)}`, { metadata: { labels: { group: 'left' } } })).status).toBe(200);
      await rolledOut('sliced', names.length - 1);
      expect(judging.yields - yieldsBefore).toBeGreaterThanOrEqual(2);
    } finally {
      judging.sliceMs = sliceMs;
    }
    // One pod on each node of the group (one made on the node that left is deleted).
    const want = JSON.stringify(names.slice(0, -1));
    await until(async () => JSON.stringify((await podsOf('sliced')).map(nodeOf).sort()), (got) => got === want, 'a pod on each node of the group');
    await statusAgrees('sliced', names.slice(0, -1));
    // The DaemonSet and the nodes go, so that the tests after these do not renew their Leases.
    expect((await s.api(`${DS_PATH}/sliced`, { method: 'DELETE' })).status).toBe(200);
    for (const name of names) expect((await s.api(`/api/v1/nodes/${name}`, { method: 'DELETE' })).status).toBe(200);
  });
});
