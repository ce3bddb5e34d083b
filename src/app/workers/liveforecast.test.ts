import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import { paceFor, planRollout } from '../../lib/rolloutplan.ts';
import { IndexedItems } from '../api/watch.ts';
import { FEED_MS, FEED_SLICE, FORECAST_LISTS, ForecastFeed, ForecastMirror, ForecastSender, runsFor, type ForecastList } from './liveforecast.ts';

const t0 = Date.parse('2026-11-24T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const template = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'v2' }] } };
const ds = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'd', namespace: 'ns', uid: 'ds-uid', generation: 2 },
  spec: { selector: { matchLabels: { app: 'd' } }, template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } },
  status: { desiredNumberScheduled: 12 },
} as unknown as KubeObject;
const owner = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'ds-uid', controller: true }];
const revision = (hash: string, n: number, image: string) =>
  ({
    metadata: { name: `d-${hash}`, namespace: 'ns', uid: `r${n}`, ownerReferences: owner, labels: { 'controller-revision-hash': hash }, creationTimestamp: iso(t0 + n * 1000) },
    revision: n,
    data: { spec: { template: { ...template, spec: { containers: [{ name: 'c', image }] } } } },
  }) as unknown as KubeObject;
const node = (i: number) => ({ metadata: { name: `n${i}`, uid: `n${i}`, labels: {} }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } }) as unknown as KubeObject;
const pod = (name: string, node: string, hash: string, createdAt: number, readyAt?: number) =>
  ({
    metadata: { name, namespace: 'ns', uid: name, ownerReferences: owner, labels: { 'controller-revision-hash': hash }, creationTimestamp: iso(createdAt) },
    spec: { nodeName: node },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: readyAt ? 'True' : 'False', lastTransitionTime: iso(readyAt ?? createdAt) }] },
  }) as unknown as KubeObject;

describe('the live forecast off the main thread', () => {
  it('plans from the lists it was sent, change by change, as from the whole lists', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => node(i));
    const revisions = [revision('old1', 1, 'v1'), revision('new2', 2, 'v2')];
    const pods = new IndexedItems();
    pods.reset(nodes.map((n, i) => pod(`o${i}`, n.metadata.name!, 'old1', t0 - 600_000, t0 - 590_000)));
    const mirror = new ForecastMirror();
    mirror.handle({ type: 'reset', list: 'nodes', items: nodes });
    mirror.handle({ type: 'reset', list: 'revisions', items: revisions });
    mirror.handle({ type: 'reset', list: 'pods', items: pods.items });
    // The rollout moves: old pods go, new ones come and turn ready, one change at a time.
    for (let i = 0; i < 5; i++) {
      const created = t0 + 5000 + i * 3000;
      const c1 = pods.apply(
        new Map([
          [`o${i}`, undefined],
          [`p${i}`, pod(`p${i}`, `n${i}`, 'new2', created)],
        ]),
      )!;
      mirror.handle({ type: 'change', list: 'pods', removed: c1.removed.map((p) => p.metadata.uid!), added: c1.added });
      const c2 = pods.apply(new Map([[`p${i}`, pod(`p${i}`, `n${i}`, 'new2', created, created + 2000)]]))!;
      mirror.handle({ type: 'change', list: 'pods', removed: c2.removed.map((p) => p.metadata.uid!), added: c2.added });
    }
    const now = t0 + 30_000;
    const answer = mirror.handle({ type: 'plan', id: 7, ds, now, withPlan: true })!;
    // The same plan made on the whole lists, as the page made it before.
    const view = { nodes, pods: pods.items as never[], revisions: revisions as never[], daemonSets: [], events: [] };
    const whole = planRollout({
      ds: ds as never,
      nodes,
      pods: view.pods,
      isNew: (p: any) => p.metadata.labels['controller-revision-hash'] === 'new2',
      now,
      pace: paceFor(ds as never, view),
      runs: runsFor(12),
    });
    expect(answer).toMatchObject({ id: 7, hash: 'new2', start: t0 + 2000, done: 5 });
    expect(answer.forecast).toEqual({ p10: whole.forecast!.p10, p50: whole.forecast!.p50, p90: whole.forecast!.p90, completes: true });
    expect(answer.plan?.waves.map((w) => w.steps.map((s) => s.nodeName))).toEqual(whole.waves.map((w) => w.steps.map((s) => s.nodeName)));
    // Without asking for the plan, only the forecast comes back; an unknown template has none.
    expect(mirror.handle({ type: 'plan', id: 8, ds, now, withPlan: false })!.plan).toBeUndefined();
    const other = { ...ds, spec: { ...(ds.spec as any), template: { ...template, spec: { containers: [{ name: 'c', image: 'v3' }] } } } } as KubeObject;
    expect(mirror.handle({ type: 'plan', id: 9, ds: other, now, withPlan: false })).toEqual({ id: 9, hash: undefined, done: 0 });
  });
});

describe('the changes sent to the forecast worker', () => {
  it('are gathered between sends: an object changed several times is sent once, in its last state; a list that did not follow is sent whole', () => {
    const t = t0 - 600_000;
    const pods = new IndexedItems();
    pods.reset([pod('a', 'n0', 'old1', t, t + 1000), pod('b', 'n1', 'old1', t, t + 1000)]);
    const feed = new ForecastFeed();
    const mirror = new ForecastMirror();
    const state = (change?: ReturnType<IndexedItems['apply']>) => ({ items: pods.items, change });
    expect(feed.take('pods', state())).toBe(true);
    const first = feed.drain();
    expect(first).toEqual([{ type: 'reset', list: 'pods', items: pods.items }]);
    first.forEach((m) => mirror.take(m));
    expect(feed.take('pods', state())).toBe(false);
    // b goes, c comes and changes twice, a changes once: one change with c's last state.
    const c3 = pod('c', 'n1', 'new2', t0, t0 + 3000);
    for (const updates of [
      [['b', undefined], ['c', pod('c', 'n1', 'new2', t0)]],
      [['c', pod('c', 'n1', 'new2', t0, t0 + 2000)], ['a', pod('a', 'n0', 'old1', t, t + 5000)]],
      [['c', c3]],
    ] as [string, KubeObject | undefined][][])
      expect(feed.take('pods', state(pods.apply(new Map(updates))))).toBe(true);
    const [change, ...rest] = feed.drain();
    expect(rest).toEqual([]);
    expect(change).toMatchObject({ type: 'change', list: 'pods', removed: ['b'] });
    expect((change as { added: readonly KubeObject[] }).added.map((p) => p.metadata.name).sort()).toEqual(['a', 'c']);
    expect((change as { added: readonly KubeObject[] }).added).toContain(c3);
    mirror.take(change);
    expect(mirror.view().pods).toEqual(expect.arrayContaining([...pods.items]));
    expect(mirror.view().pods).toHaveLength(pods.items.length);
    // A state that does not follow the last one taken in (a relist): the list goes whole.
    const relisted = [pod('d', 'n0', 'new2', t0)];
    feed.take('pods', { items: relisted, change: { from: [], removed: [], added: relisted } });
    expect(feed.drain()).toEqual([{ type: 'reset', list: 'pods', items: relisted }]);
    expect(feed.drain()).toEqual([]);
  });

  it('sends nothing to the worker while no forecast is wanted (a page loading its lists), then what was held, once', () => {
    vi.useFakeTimers();
    try {
      const sent: unknown[] = [];
      const sender = new ForecastSender((m) => sent.push(m));
      const nodes = Array.from({ length: 3 }, (_, i) => node(i));
      const pods = new IndexedItems();
      pods.reset([pod('a', 'n0', 'old1', t0)]);
      sender.take('nodes', { items: nodes });
      sender.take('pods', { items: pods.items });
      const added = pods.apply(new Map([['b', pod('b', 'n1', 'old1', t0)]]));
      sender.take('pods', { items: pods.items, change: added });
      vi.advanceTimersByTime(10 * FEED_MS);
      expect(sent).toEqual([]);
      // A rollout starts: the lists as they are now, each whole (the worker had none).
      sender.setActive(true);
      expect(sent).toEqual([
        { type: 'reset', list: 'nodes', items: nodes },
        { type: 'reset', list: 'pods', items: pods.items },
      ]);
      // While it runs, changes go every FEED_MS.
      const was = pods.items;
      const change = pods.apply(new Map([['a', undefined]]))!;
      sender.take('pods', { items: pods.items, change });
      expect(change.from).toBe(was);
      expect(sent).toHaveLength(2);
      vi.advanceTimersByTime(FEED_MS);
      expect(sent).toHaveLength(3);
      expect(sent[2]).toMatchObject({ type: 'change', list: 'pods', removed: ['a'], added: [] });
      // Done: held again.
      sender.setActive(false);
      sender.take('nodes', { items: nodes.slice(1) });
      vi.advanceTimersByTime(10 * FEED_MS);
      expect(sent).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends a list whole in slices, a task each, and a plan only after them: the worker ends with the whole list', () => {
    vi.useFakeTimers();
    try {
      const mirror = new ForecastMirror();
      const sent: { type: string; n: number }[] = [];
      const sender = new ForecastSender((m) => {
        sent.push({ type: m.type, n: m.type === 'reset' ? m.items.length : m.added.length });
        mirror.take(m);
      });
      const nodes = Array.from({ length: 2 * FEED_SLICE + 200 }, (_, i) => node(i));
      sender.take('nodes', { items: nodes });
      sender.take('revisions', { items: [revision('old1', 1, 'v1')] });
      sender.setActive(true);
      const planned: number[] = [];
      sender.then(() => planned.push(mirror.view().nodes.length));
      // The first slice in this task, no more.
      expect(sent).toEqual([{ type: 'reset', n: FEED_SLICE }]);
      expect(planned).toEqual([]);
      vi.advanceTimersByTime(0);
      expect(sent).toHaveLength(2);
      vi.runAllTimers();
      expect(sent).toEqual([
        { type: 'reset', n: FEED_SLICE },
        { type: 'change', n: FEED_SLICE },
        { type: 'change', n: 200 },
        { type: 'reset', n: 1 },
      ]);
      expect(planned).toEqual([nodes.length]);
      expect(mirror.view().nodes).toEqual(nodes);
    } finally {
      vi.useRealTimers();
    }
  });
});

// ---- what is sent: the fields a plan reads ------------------------------------------------------

/**
 * `o` behind a proxy that notes every field read below it, as its path from
 * `path` (`['pods', 3, 'status', 'conditions', '0', 'type']`, in JSON), and
 * every enumeration of an object's keys as its path and `*`. Array methods and
 * lengths are not noted: the cut objects keep arrays whole or map them item for item.
 */
function traced<T>(o: T, path: (string | number)[], reads: Set<string>): T {
  if (!o || typeof o !== 'object') return o;
  const note = (key: string | symbol) => typeof key === 'string' && !(Array.isArray(o) && !/^\d+$/.test(key)) && reads.add(JSON.stringify([...path, key]));
  return new Proxy(o as object, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      return note(key) ? traced(value, [...path, key as string], reads) : value;
    },
    has: (target, key) => (note(key), Reflect.has(target, key)),
    getOwnPropertyDescriptor: (target, key) => (note(key), Reflect.getOwnPropertyDescriptor(target, key)),
    ownKeys: (target) => (reads.add(JSON.stringify([...path, '*'])), Reflect.ownKeys(target)),
  }) as T;
}

const at = (o: unknown, path: string[]) => path.reduce<any>((x, k) => x?.[k], o);

/** A cluster as the API serves it, whole (every field a real server fills in), mid-rollout, with all a plan explains. */
function wholeCluster(now: number) {
  const ns = 'ns';
  const linux = { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' };
  const wholeNode = (i: number, extra: { labels?: object; annotations?: object; taints?: object[]; ready?: string } = {}) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `n${i}`, uid: `node-${i}`, resourceVersion: String(100 + i), creationTimestamp: iso(now - 3600_000), labels: { 'kubernetes.io/hostname': `n${i}`, ...(extra.labels ?? linux) }, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: extra.taints ? { taints: extra.taints } : {},
    status: {
      addresses: [{ type: 'InternalIP', address: `10.0.0.${i}` }],
      allocatable: { cpu: '7910m', memory: '31Gi', pods: '110' },
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: iso(now), lastTransitionTime: iso(now - 3600_000) },
        { type: 'Ready', status: extra.ready ?? 'True', reason: extra.ready === 'False' ? 'KubeletNotReady' : 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: iso(now), lastTransitionTime: iso(now - 3600_000) },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: [{ names: ['registry.k8s.io/pause:3.9'], sizeBytes: 15997775 }],
      nodeInfo: { architecture: 'amd64', kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', bootID: `boot-${i}`, machineID: `m${i}` },
    },
  });
  const nodes = [
    wholeNode(0, { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }),
    wholeNode(1, { labels: { 'kubernetes.io/os': 'windows' } }),
    wholeNode(2, { ready: 'False' }),
    wholeNode(3, { annotations: { 'sim.k8s.io/image-pull-error': 'true', 'node.alpha.kubernetes.io/ttl': '0' } }),
    ...Array.from({ length: 7 }, (_, i) => wholeNode(4 + i)),
  ];
  const uidOfDs = (d: string) => `ds-${d}`;
  const ownedBy = (d: string) => [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: d, uid: uidOfDs(d), controller: true, blockOwnerDeletion: true }];
  const templateOf = (d: string, image: string, ports?: object[]) => ({
    metadata: { labels: { app: d }, annotations: { 'kubectl.kubernetes.io/restartedAt': image } },
    spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image, ...(ports ? { ports } : {}) }], terminationGracePeriodSeconds: 20 },
  });
  const hostPort = [{ containerPort: 9100, hostPort: 9100, protocol: 'TCP' }];
  const daemonSet = (d: string, image: string, strategy: object, ports?: object[]) => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: d, namespace: ns, uid: uidOfDs(d), generation: 2, resourceVersion: '900', annotations: { 'deprecated.daemonset.template.generation': '2' } },
    spec: { selector: { matchLabels: { app: d } }, template: templateOf(d, image, ports), updateStrategy: { type: 'RollingUpdate', rollingUpdate: strategy }, revisionHistoryLimit: 10 },
    status: { observedGeneration: 2, desiredNumberScheduled: 7, updatedNumberScheduled: 3, numberAvailable: 6, currentNumberScheduled: 7, numberReady: 6 },
  });
  const a = daemonSet('a', 'v2', { maxUnavailable: 2, maxSurge: 0 });
  const b = daemonSet('b', 'v2', { maxUnavailable: 0, maxSurge: 1 }, hostPort);
  const revision = (d: string, hash: string, n: number, image: string, at: number, ports?: object[]) => ({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: `${d}-${hash}`, namespace: ns, uid: `rev-${d}-${n}`, ownerReferences: ownedBy(d), labels: { app: d, 'controller-revision-hash': hash }, creationTimestamp: iso(at) },
    revision: n,
    data: { spec: { template: { ...templateOf(d, image, ports), $patch: 'replace' } } },
  });
  const start = now - 60_000;
  const revisions = [revision('a', 'a1', 1, 'v1', now - 7200_000), revision('a', 'a2', 2, 'v2', start), revision('b', 'b1', 1, 'v1', now - 7200_000, hostPort), revision('b', 'b2', 2, 'v2', start, hostPort)];
  let podNo = 0;
  const containerStatus = (state: object, ready: boolean, restarts = 0) => ({ name: 'agent', image: 'registry.k8s.io/agent:v', imageID: 'registry.k8s.io/agent@sha256:0123', containerID: 'containerd://abc', ready, started: ready, restartCount: restarts, state });
  const wholePod = (d: string, hash: string, node: string, created: number, how: { readyAt?: number; waiting?: { reason: string; message: string }; bound?: boolean; deleting?: number; restarts?: number; ports?: object[] } = {}) => {
    const name = `${d}-${(podNo++).toString(36).padStart(5, 'x')}`;
    const ready = how.readyAt !== undefined;
    const bound = how.bound ?? true;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        generateName: `${d}-`,
        namespace: ns,
        uid: `pod-${name}`,
        resourceVersion: String(1000 + podNo),
        creationTimestamp: iso(created),
        ...(how.deleting ? { deletionTimestamp: iso(how.deleting), deletionGracePeriodSeconds: 20 } : {}),
        labels: { app: d, 'controller-revision-hash': hash, 'pod-template-generation': hash.endsWith('2') ? '2' : '1' },
        ownerReferences: ownedBy(d),
      },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } },
        containers: [{ name: 'agent', image: `registry.k8s.io/agent:${hash}`, imagePullPolicy: 'IfNotPresent', resources: { requests: { cpu: '10m' } }, terminationMessagePath: '/dev/termination-log', ...(how.ports ? { ports: how.ports } : {}) }],
        ...(bound ? { nodeName: node } : {}),
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        terminationGracePeriodSeconds: 20,
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
      },
      status: {
        phase: bound ? 'Running' : 'Pending',
        conditions: bound
          ? [
              { type: 'PodScheduled', status: 'True', lastTransitionTime: iso(created) },
              { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(how.readyAt ?? created), ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status: [agent]' }) },
            ]
          : [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 node(s) didn\'t have free ports.', lastTransitionTime: iso(created) }],
        ...(bound
          ? {
              hostIP: '10.0.0.1',
              hostIPs: [{ ip: '10.0.0.1' }],
              podIP: '10.1.0.1',
              podIPs: [{ ip: '10.1.0.1' }],
              startTime: iso(created),
              containerStatuses: [containerStatus(how.waiting ? { waiting: how.waiting } : { running: { startedAt: iso(created + 1000) } }, ready, how.restarts)],
            }
          : {}),
        qosClass: 'Burstable',
      },
    };
  };
  const pods = [
    // a: n0 and n1 are not its nodes; n2 (NotReady) and n3 (images fail) still have the old pod.
    wholePod('a', 'a1', 'n2', now - 7000_000, { readyAt: now - 6990_000 }),
    wholePod('a', 'a1', 'n3', now - 7000_000, { readyAt: now - 6990_000 }),
    // Updated in this rollout: created as a slot freed, Ready seconds later.
    wholePod('a', 'a2', 'n4', start + 2000, { readyAt: start + 6000 }),
    wholePod('a', 'a2', 'n5', start + 2500, { readyAt: start + 7000 }),
    wholePod('a', 'a2', 'n6', start + 9000, { readyAt: start + 13000 }),
    // Updating: a new pod whose image does not pull, beside the old pod on its way out.
    wholePod('a', 'a1', 'n7', now - 7000_000, { readyAt: now - 6990_000, deleting: now - 5000 }),
    wholePod('a', 'a2', 'n7', now - 4000, { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.k8s.io/agent:a2"' } }),
    // An old pod whose readiness fails now, and one not yet reached.
    wholePod('a', 'a1', 'n8', now - 7000_000, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' }, restarts: 7 }),
    wholePod('a', 'a1', 'n9', now - 7000_000, { readyAt: now - 6990_000 }),
    // And one whose container runs but does not pass readiness.
    wholePod('a', 'a1', 'n10', now - 7000_000),
    // b surges with a host port: the new pod on n4 waits for the old pod's port.
    wholePod('b', 'b1', 'n4', now - 7000_000, { readyAt: now - 6990_000, ports: hostPort }),
    wholePod('b', 'b1', 'n5', now - 7000_000, { readyAt: now - 6990_000, ports: hostPort }),
    wholePod('b', 'b2', 'n4', now - 3000, { bound: false, ports: hostPort }),
  ];
  // The kubelets' Killing and Started of a's rollout: the old pods' stop.
  const killed = (p: (typeof pods)[number]) => ({ name: p.metadata.name.replace('a2', 'a1'), uid: `${p.metadata.uid}-old` });
  const event = (reason: string, pod: { name: string; uid: string }, host: string, at: number, newApi = false) => {
    const about = { apiVersion: 'v1', kind: 'Pod', name: pod.name, namespace: ns, uid: pod.uid, resourceVersion: '5', fieldPath: 'spec.containers{agent}' };
    const meta = { name: `${pod.name}.${(BigInt(at) * 1_000_000n).toString(16)}`, namespace: ns, uid: `ev-${pod.name}-${reason}`, resourceVersion: '77', creationTimestamp: iso(at) };
    return newApi
      ? { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: meta, regarding: about, reason, note: reason, type: 'Normal', action: reason, reportingController: 'kubelet', reportingInstance: host, deprecatedSource: { component: 'kubelet', host }, deprecatedFirstTimestamp: iso(at), deprecatedLastTimestamp: iso(at), deprecatedCount: 1 }
      : { apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: about, reason, message: `${reason} container agent`, type: 'Normal', source: { component: 'kubelet', host }, reportingComponent: 'kubelet', reportingInstance: host, firstTimestamp: iso(at), lastTimestamp: iso(at), count: 1 };
  };
  const events = pods
    .filter((p) => p.metadata.labels['controller-revision-hash'] === 'a2' && p.metadata.name !== pods[6].metadata.name)
    .flatMap((p, i) => {
      const at = Date.parse(p.metadata.creationTimestamp);
      return [event('Killing', { ...killed(p), name: `a-old${i}x` }, p.spec.nodeName!, at - 1500, i === 1), event('Started', { name: p.metadata.name, uid: p.metadata.uid }, p.spec.nodeName!, at + 1200, i === 2)];
    });
  return { lists: { nodes, pods, revisions, daemonSets: [a, b], events } as unknown as Record<ForecastList, KubeObject[]>, a: a as unknown as KubeObject, b: b as unknown as KubeObject };
}

describe('the objects sent to the forecast worker', () => {
  it('are cut to what a plan reads: the same plans as from whole objects, and every field a plan read of them is there', () => {
    const now = t0 + 3600_000;
    const { lists, a, b } = wholeCluster(now);
    // The whole objects, each read through a proxy that notes what the plans read.
    const reads = new Set<string>();
    const whole = new ForecastMirror();
    for (const list of FORECAST_LISTS) whole.take({ type: 'reset', list, items: lists[list].map((o, i) => traced(o, [list, i], reads)) });
    // The same lists through the sender, as the page sends them.
    const sent = new Map<ForecastList, readonly KubeObject[]>();
    const cut = new ForecastMirror();
    const sender = new ForecastSender((m) => {
      if (m.type === 'reset') sent.set(m.list, m.items);
      cut.take(m);
    });
    for (const list of FORECAST_LISTS) sender.take(list, { items: lists[list] });
    sender.setActive(true);
    // Each list went whole in one message (none is past a slice), in order: the i-th sent is the i-th whole.
    for (const list of FORECAST_LISTS) expect(sent.get(list)?.map((o) => o.metadata?.uid)).toEqual(lists[list].map((o) => o.metadata.uid));

    const plans = [a, b].map((ds, i) => ({ whole: whole.plan(i, ds, now, true), cut: cut.plan(i, ds, now, true) }));
    // The fixture makes the plans read what they can: every stall and exclusion a plan explains.
    const [planA, planB] = plans.map((p) => p.whole);
    expect(planA.plan!.excluded.map((x) => x.nodeName).sort()).toEqual(['n0', 'n1']);
    const stalls = planA.plan!.stalls.map((s) => `${s.nodeName}: ${s.reason}`).join('\n');
    expect(stalls).toMatch(/n2: node NotReady.*KubeletNotReady/);
    expect(stalls).toMatch(/n3: image pulls fail on this node \(annotation/);
    expect(stalls).toMatch(/n7: image pulls fail on this node now/);
    expect(stalls).toMatch(/n8: readiness failing now \(.*CrashLoopBackOff/);
    expect(stalls).toMatch(/n10: readiness failing now \(readiness failing: agent running but not ready/);
    expect(planA.plan!.forecast?.pace.source).toMatch(/stop from this DaemonSet's events \(3 nodes\)/);
    expect(planA).toMatchObject({ hash: 'a2', done: 3 });
    expect(planB.plan!.stalls.map((s) => s.reason).join()).toMatch(/maxSurge with a host port/);
    for (const p of plans) expect(p.cut).toEqual(p.whole);

    // Each field read of a whole object has the same value in the one sent; each object enumerated is sent whole.
    const missing: string[] = [];
    for (const read of reads) {
      const [list, index, ...path] = JSON.parse(read) as [ForecastList, number, ...string[]];
      const enumerated = path[path.length - 1] === '*';
      const field = enumerated ? path.slice(0, -1) : path;
      const wholeValue = at(lists[list][index], field);
      const sentValue = at(sent.get(list)![index], field);
      // A value read as it is (a string, a number) is the same; an object read (if only to test it is there) is there too.
      const kept = enumerated ? JSON.stringify(sentValue) === JSON.stringify(wholeValue) : typeof wholeValue === 'object' && wholeValue !== null ? typeof sentValue === 'object' : sentValue === wholeValue;
      if (!kept) missing.push(read);
    }
    expect(missing).toEqual([]);
    // And the cut is a cut: the pods, nodes and events sent are a fraction of the bytes.
    for (const list of ['nodes', 'pods', 'events'] as const) expect(JSON.stringify(sent.get(list)).length).toBeLessThan(JSON.stringify(lists[list]).length * 0.6);
  });
});
