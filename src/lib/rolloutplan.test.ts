import { describe, expect, it } from 'vitest';
import { choosePace, daemonPodNamePattern, eventRecordedAt, faultsOf, needsClusterPace, observePace, observeStops, ownPace, paceDonors, planRollout, type PlanNodeLike, type PlanPodLike } from './rolloutplan.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

const node = (name: string, extra: Partial<PlanNodeLike> & { ready?: string } = {}): PlanNodeLike => ({
  metadata: { name, labels: { group: 'g', ...extra.metadata?.labels }, annotations: extra.metadata?.annotations },
  spec: extra.spec,
  status: { conditions: [{ type: 'Ready', status: extra.ready ?? 'True' }] },
});

const pod = (nodeName: string, hash = 'old', ready = true, created = T0, readyAt = T0): PlanPodLike => ({
  metadata: { name: `ds-${nodeName}-${hash}`, labels: { app: 'ds', 'controller-revision-hash': hash }, creationTimestamp: iso(created) },
  spec: { nodeName },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(readyAt) }] },
});

const ds = (rollingUpdate: any, template: any = {}) => ({
  metadata: { name: 'ds' },
  spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate }, template: { metadata: { labels: { app: 'ds' } }, spec: { nodeSelector: { group: 'g' }, containers: [{ name: 'c', image: 'x:2' }], ...template } } },
});

const names = (n: number) => Array.from({ length: n }, (_, i) => `n-${String(i + 1).padStart(2, '0')}`);
const waveNodes = (plan: ReturnType<typeof planRollout>) => plan.waves.map((w) => w.steps.map((s) => s.nodeName));

describe('planRollout', () => {
  it('takes nodes in name order, maxUnavailable at a time (30% of 10 rounds up to 3)', () => {
    const ns = names(10);
    const plan = planRollout({ ds: ds({ maxUnavailable: '30%' }), nodes: [...ns].reverse().map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0 });
    expect(plan.mode).toBe('unavailable');
    expect(plan.maxUnavailable).toBe(3);
    expect(waveNodes(plan)).toEqual([ns.slice(0, 3), ns.slice(3, 6), ns.slice(6, 9), ns.slice(9)]);
    expect(plan.waves.every((w) => w.limit === 3 && w.held === 0)).toBe(true);
    expect(plan.notReached).toEqual([]);
  });

  it('surges maxSurge nodes at a time', () => {
    const ns = names(5);
    const plan = planRollout({ ds: ds({ maxSurge: 2, maxUnavailable: 0 }), nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0 });
    expect(plan.mode).toBe('surge');
    expect(waveNodes(plan)).toEqual([ns.slice(0, 2), ns.slice(2, 4), ns.slice(4)]);
  });

  it('leaves out tainted and unselected nodes; removes an old pod a NoSchedule taint left behind, within the budget', () => {
    const ns = names(4);
    const nodes = [
      node(ns[0]),
      node(ns[1], { spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] } }),
      node(ns[2], { metadata: { name: ns[2], labels: { group: 'other' } } }),
      node(ns[3], { spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } }),
    ];
    const plan = planRollout({ ds: ds({ maxUnavailable: 1 }), nodes, pods: [pod(ns[0]), pod(ns[1]), pod(ns[3])], now: T0 });
    expect(plan.desired).toBe(2);
    expect(plan.excluded.map((e) => [e.nodeName, e.pod])).toEqual([
      [ns[1], 'removed in the rollout'],
      [ns[2], undefined],
    ]);
    expect(plan.excluded[0].reason).toMatch(/taint dedicated:NoSchedule/);
    expect(plan.excluded[1].reason).toMatch(/node selector group=g/);
    // The cordoned node still runs the daemon (the unschedulable taint is tolerated).
    expect(plan.waves.map((w) => w.steps.map((s) => `${s.nodeName}:${s.action}`))).toEqual([[`${ns[0]}:replace`], [`${ns[1]}:remove`], [`${ns[3]}:replace`]]);
  });

  it('a stalled node holds its share of the budget: with maxUnavailable 1 the rollout stops there', () => {
    const ns = names(4);
    const nodes = ns.map((n, i) => node(n, i === 1 ? { metadata: { name: n, annotations: { 'sim.k8s.io/image-pull-error': 'true' } } } : {}));
    const plan = planRollout({ ds: ds({ maxUnavailable: 1 }), nodes, pods: ns.map((n) => pod(n)), now: T0, pace: { startup: [1000], handoff: [0], source: 't' } });
    expect(waveNodes(plan)).toEqual([[ns[0]], [ns[1]]]);
    expect(plan.waves[1].steps[0].stall).toMatch(/image pulls fail/);
    expect(plan.stalls).toEqual([{ nodeName: ns[1], kind: 'stall', reason: expect.stringMatching(/image-pull-error/) }]);
    expect(plan.notReached).toEqual([ns[2], ns[3]]);
    expect(plan.forecast!.completes).toBe(false);
    expect(plan.forecast!.p50).toBe(1000);
  });

  it('with maxUnavailable 2 a stalled node leaves one slot: later waves are one node each', () => {
    const ns = names(5);
    const nodes = ns.map((n, i) => node(n, i === 0 ? { ready: 'False' } : {}));
    const plan = planRollout({ ds: ds({ maxUnavailable: 2 }), nodes, pods: ns.map((n) => pod(n)), now: T0 });
    expect(plan.stalls[0]).toMatchObject({ nodeName: ns[0], kind: 'stall', reason: expect.stringMatching(/NotReady/) });
    expect(waveNodes(plan)).toEqual([ns.slice(0, 2), [ns[2]], [ns[3]], [ns[4]]]);
    expect(plan.waves.slice(1).map((w) => w.held)).toEqual([1, 1, 1]);
  });

  it('replaces a not-available old pod at once, beyond the budget, and says readiness fails now', () => {
    const ns = names(4);
    const pods = ns.map((n, i) => pod(n, 'old', i !== 3));
    const plan = planRollout({ ds: ds({ maxUnavailable: 1 }), nodes: ns.map((n) => node(n)), pods, now: T0 });
    expect(plan.waves[0].steps.map((s) => [s.nodeName, !!s.beyondBudget])).toEqual([[ns[3], true]]);
    // The unavailable node uses the budget in wave 1, so n-01 waits for wave 2.
    expect(waveNodes(plan)).toEqual([[ns[3]], [ns[0]], [ns[1]], [ns[2]]]);
    expect(plan.stalls).toEqual([{ nodeName: ns[3], kind: 'risk', reason: expect.stringMatching(/readiness failing now/) }]);
  });

  it('continues a running rollout: updated nodes are done, progressing ones in flight', () => {
    const ns = names(6);
    const pods = [pod(ns[0], 'new'), pod(ns[1], 'new', false), ...ns.slice(2).map((n) => pod(n))];
    const plan = planRollout({ ds: ds({ maxUnavailable: 2 }), nodes: ns.map((n) => node(n)), pods, isNew: (p) => p.metadata?.labels?.['controller-revision-hash'] === 'new', now: T0, pace: { startup: [1000], handoff: [0], source: 't' } });
    expect(plan.done).toEqual([ns[0]]);
    expect(waveNodes(plan)).toEqual([[ns[2]], ns.slice(3, 5), [ns[5]]]);
    // n-02 is in flight (1 s), n-03 beside it; then two, then one: 3 s.
    expect(plan.forecast!.p50).toBe(3000);
  });

  it('continues a running rollout whose budget is all in flight: the next node waits for the one in flight', () => {
    const ns = names(3);
    const pods = [pod(ns[0], 'new', false), ...ns.slice(1).map((n) => pod(n))];
    const plan = planRollout({ ds: ds({ maxUnavailable: 1 }), nodes: ns.map((n) => node(n)), pods, isNew: (p) => p.metadata?.labels?.['controller-revision-hash'] === 'new', now: T0, pace: { startup: [1000], handoff: [0], source: 't' } });
    expect(waveNodes(plan)).toEqual([[ns[1]], [ns[2]]]);
    expect(plan.notReached).toEqual([]);
    expect(plan.forecast).toMatchObject({ completes: true, p50: 3000 });
  });

  it('forecasts the pipeline: a slot freed is taken at once, so uneven nodes do not wait for their wave', () => {
    const ns = names(4);
    const plan = planRollout({ ds: ds({ maxUnavailable: 2 }), nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0, pace: { startup: [1000, 3000], handoff: [500], source: 't' }, runs: 400 });
    const f = plan.forecast!;
    expect(f.completes).toBe(true);
    expect(f.p10).toBeGreaterThanOrEqual(3000);
    // Two nodes a slot, each at most 3.5 s, and the status written one reaction (a hand-off) later.
    expect(f.p90).toBeLessThanOrEqual(7500);
    expect(f.p10).toBeLessThan(f.p90);
    // The same seed draws the same forecast.
    expect(planRollout({ ds: ds({ maxUnavailable: 2 }), nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0, pace: { startup: [1000, 3000], handoff: [500], source: 't' }, runs: 400 }).forecast).toEqual(f);
  });

  it('plans no waves under OnDelete and says which nodes change only as pods are deleted', () => {
    const ns = names(2);
    const d = { ...ds({}), spec: { ...ds({}).spec, updateStrategy: { type: 'OnDelete' } } };
    const plan = planRollout({ ds: d, nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0 });
    expect(plan.waves).toEqual([]);
    expect(plan.manual).toEqual(ns);
  });

  it('says every node stalls when surge meets a host port', () => {
    const ns = names(2);
    const plan = planRollout({ ds: ds({ maxSurge: 1, maxUnavailable: 0 }, { containers: [{ name: 'c', image: 'x:2', ports: [{ containerPort: 80, hostPort: 80 }] }] }), nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0 });
    expect(plan.stalls.map((s) => s.kind)).toEqual(['stall', 'stall']);
    expect(waveNodes(plan)).toEqual([[ns[0]]]);
    expect(plan.notReached).toEqual([ns[1]]);
  });
});

describe('observePace', () => {
  it('measures pod starts and the hand-off from the slot that freed up (the rollout start for the first wave)', () => {
    const revision = { metadata: { name: 'ds-new', creationTimestamp: iso(T0), labels: { 'controller-revision-hash': 'new' } }, revision: 2 };
    // maxUnavailable 1: a created at +1 s, ready at +4 s; b created at +5 s, ready at +8 s.
    const pods = [pod('a', 'new', true, T0 + 1000, T0 + 4000), pod('b', 'new', true, T0 + 5000, T0 + 8000), pod('c', 'old')];
    const p = observePace({ pods, revision, rolling: true });
    expect(p.startup.sort()).toEqual([3000, 3000]);
    expect(p.handoff.sort()).toEqual([1000, 1000]);
    expect(p.finishedAt).toBe(T0 + 8000);
    expect(observePace({ pods, revision, rolling: false }).handoff).toEqual([]);
  });

  it('counts only the slots the budget had: a rollout begun while the last was under way replaced its starting pods beyond it, and their finishes freed none', () => {
    const revision = { metadata: { name: 'ds-new', creationTimestamp: iso(T0), labels: { 'controller-revision-hash': 'new' } }, revision: 3 };
    // maxUnavailable 1: a-d (the last rollout's pods, still starting) replaced at once and ready at +3 s; then e, f, g one at a time, each 1 s after the one before it was ready.
    const pods = [...['a', 'b', 'c', 'd'].map((n) => pod(n, 'new', true, T0, T0 + 3000)), pod('e', 'new', true, T0 + 4000, T0 + 7000), pod('f', 'new', true, T0 + 8000, T0 + 11_000), pod('g', 'new', true, T0 + 12_000, T0 + 15_000)];
    expect(observePace({ pods, revision, rolling: true, budget: 1 }).handoff).toEqual([0, 0, 0, 0, 1000, 1000, 1000]);
    // Each finish taken for a slot, the hand-offs grew by a pod's start each.
    expect(observePace({ pods, revision, rolling: true }).handoff).toEqual([0, 0, 0, 0, 1000, 5000, 9000]);
  });

  it("takes no hand-off from a pod made for a node that joined during the rollout, nor from a rollback's first wave, whose start is not known", () => {
    const revision = { metadata: { name: 'ds-new', creationTimestamp: iso(T0), labels: { 'controller-revision-hash': 'new' } }, revision: 2 };
    const pods = [pod('a', 'new', true, T0 + 1000, T0 + 4000), pod('b', 'new', true, T0 + 5000, T0 + 8000), pod('late', 'new', true, T0 + 60_000, T0 + 63_000)];
    const joined = new Map([['a', T0 - 3_600_000], ['b', T0 - 3_600_000], ['late', T0 + 59_000]]);
    expect(observePace({ pods, revision, rolling: true, joined }).handoff).toEqual([1000, 1000]);
    expect(observePace({ pods, revision, rolling: true }).handoff).toEqual([1000, 1000, 52_000]);
    // Revision 2 made current again after revision 3 (made at +0.5 s): a's hand-off from the rollout's start is unknown, b's from a's finish is not.
    expect(observePace({ pods, revision, rolling: true, joined, notBefore: T0 + 500 }).handoff).toEqual([1000]);
  });

  it("leaves out the start of a pod a fault held up (its node could not pull the image until fixed), and still counts the slot it took", () => {
    const revision = { metadata: { name: 'ds-new', creationTimestamp: iso(T0), labels: { 'controller-revision-hash': 'new' } }, revision: 2 };
    // maxUnavailable 1: a starts in 3 s; b waits 40 s on a pull failure; c takes b's slot 1 s after it frees.
    const pods = [pod('a', 'new', true, T0 + 1000, T0 + 4000), pod('b', 'new', true, T0 + 5000, T0 + 45_000), pod('c', 'new', true, T0 + 46_000, T0 + 49_000)];
    const warned = [{ ...ev('Failed', 'ds-b-new', 'b', T0 + 6000), type: 'Warning' }, { ...ev('Unhealthy', 'ds-c-new', 'c', T0 + 47_000), type: 'Warning' }];
    const p = observePace({ pods, revision, rolling: true, faults: faultsOf(warned) });
    // c's failed readiness probe on its way up is a slow start, kept.
    expect(p.startup).toEqual([3000, 3000]);
    expect(p.handoff).toEqual([1000, 1000, 1000]);
    // A fault after the pod was Ready (it crashed later) does not unmake its start.
    expect(observePace({ pods, revision, rolling: true, faults: faultsOf([{ ...ev('Failed', 'ds-a-new', 'a', T0 + 50_000), type: 'Warning' }]) }).startup).toEqual([3000, 40_000, 3000]);
  });

  it('prefers this DaemonSet, then the cluster, then the default', () => {
    expect(choosePace({ startup: [1, 2, 3], handoff: [1, 1, 1] }, undefined).source).toMatch(/this DaemonSet/);
    expect(choosePace({ startup: [1], handoff: [] }, { startup: [4, 5, 6], handoff: [7, 8, 9] })).toMatchObject({ startup: [4, 5, 6], handoff: [7, 8, 9] });
    expect(choosePace({ startup: [1, 2, 3], handoff: [] }, undefined).source).toMatch(/hand-offs from assumed/);
    expect(choosePace(undefined, undefined).source).toMatch(/assumed/);
  });
});

describe("the cluster's pace: which other DaemonSets' pods a plan reads", () => {
  const owned = (uid: string, p: PlanPodLike) => ({ ...p, metadata: { ...p.metadata, ownerReferences: [{ uid, controller: true }] } });
  const revision = (owner: string, n: number, at: number) => ({
    metadata: { name: `${owner}-r${n}`, creationTimestamp: iso(at), labels: { 'controller-revision-hash': `r${n}` }, ownerReferences: [{ uid: owner, controller: true }] },
    revision: n,
  });
  const daemonSet = (uid: string, desired: number) => ({ metadata: { name: uid, uid }, status: { desiredNumberScheduled: desired } });
  const view = {
    revisions: [revision('mine', 1, T0), revision('a', 1, T0), revision('a', 2, T0 + 100_000), revision('b', 1, T0 + 200_000), revision('c', 2, T0 + 50_000), revision('d', 2, T0 + 10_000)],
    daemonSets: [daemonSet('mine', 4), daemonSet('a', 3), daemonSet('b', 2), daemonSet('c', 9000), daemonSet('d', 5)],
  };

  it('takes the latest rollouts that replaced pods first, then first rollouts, as far as the pods allowed, at least one', () => {
    const uids = (ds: { metadata?: { uid?: string } }[]) => ds.map((d) => d.metadata?.uid);
    expect(uids(paceDonors(view.daemonSets[0], view, 20_000))).toEqual(['a', 'c', 'd', 'b']);
    // c's 9000 pods are past 10: the ones after it are not read either (older rollouts than c's).
    expect(uids(paceDonors(view.daemonSets[0], view, 10))).toEqual(['a']);
    expect(uids(paceDonors(view.daemonSets[1], view, 1))).toEqual(['c']);
    // A DaemonSet not created yet has no uid of its own to leave out.
    expect(uids(paceDonors(undefined, view, 10))).toEqual(['a']);
  });

  it('is needed while a DaemonSet has no rollout that replaced three pods of its own', () => {
    const mine = { metadata: { name: 'mine', uid: 'mine' }, spec: {} };
    const first = [pod('x', 'r1', true, T0 + 1000, T0 + 3000), pod('y', 'r1', true, T0 + 1000, T0 + 4000), pod('z', 'r1', true, T0 + 1000, T0 + 5000)].map((p) => owned('mine', p));
    expect(needsClusterPace(ownPace(mine, { pods: [], revisions: view.revisions }))).toBe(true);
    // Its first rollout: starts, no hand-offs.
    expect(needsClusterPace(ownPace(mine, { pods: first, revisions: view.revisions }))).toBe(true);
    const second = [pod('x', 'r2', true, T0 + 61_000, T0 + 63_000), pod('y', 'r2', true, T0 + 64_000, T0 + 66_000), pod('z', 'r2', true, T0 + 67_000, T0 + 69_000)].map((p) => owned('mine', p));
    expect(needsClusterPace(ownPace(mine, { pods: second, revisions: [...view.revisions, revision('mine', 2, T0 + 60_000)] }))).toBe(false);
  });
});

// An event as the recorder names it: `<object>.<hex nanoseconds>`.
const ev = (reason: 'Killing' | 'Started' | 'Pulling' | 'Failed' | 'Unhealthy', podName: string, host: string, at: number, uid?: string) => ({
  metadata: { name: `${podName}.${(BigInt(at) * 1_000_000n).toString(16)}` },
  reason,
  involvedObject: { kind: 'Pod', name: podName, ...(uid ? { uid } : {}) },
  source: { component: 'kubelet', host },
  firstTimestamp: iso(at),
});

describe('the old pods\' stop, from the kubelets\' events', () => {
  it('reads the event time off its name, finer than its whole-second timestamp', () => {
    expect(eventRecordedAt(ev('Killing', 'ds-abcde', 'a', T0 + 1234))).toBe(T0 + 1234);
    expect(eventRecordedAt({ metadata: { name: 'x.zz' }, firstTimestamp: iso(T0 + 1234) })).toBe(T0 + 1000);
  });

  it('measures Killing → the next pod Started, less the pod start to Started, and skips surge clean-ups', () => {
    // A pod still there gives the start to Started: created T0+10 s (whole seconds: half a second early on average), Started at +10.7 s.
    const current = { ...pod('a', 'new', true, T0 + 10_000, T0 + 12_000), metadata: { ...pod('a', 'new').metadata, name: 'ds-new01', uid: 'u-new01', creationTimestamp: iso(T0 + 10_000) } };
    const events = [
      // Node a, no surge: old killed at +1 s, the next pod Started at +3.2 s.
      ev('Started', 'ds-old01', 'a', T0 - 60_000),
      ev('Killing', 'ds-old01', 'a', T0 + 1000),
      ev('Started', 'ds-mid01', 'a', T0 + 3200),
      // The surge rollout after it: the new pod Started first, the old one killed after.
      ev('Started', 'ds-new01', 'a', T0 + 10_700, 'u-new01'),
      ev('Killing', 'ds-mid01', 'a', T0 + 13_000),
      // Another DaemonSet's pods are not this one's.
      ev('Killing', 'other-aaaaa', 'a', T0 + 2000),
      ev('Started', 'other-bbbbb', 'a', T0 + 2500),
    ];
    const o = observeStops({ events, isDaemonPod: (n) => daemonPodNamePattern('ds').test(n), pods: [current] });
    expect(o.startToStarted).toBe(200);
    expect(o.stop).toEqual([3200 - 1000 - 200]);
  });

  it("skips a node whose next pod started only after a fault (a pull failure until someone fixed the node): that gap is the fault's", () => {
    // Node a: a stop of 1 s and a start to Started of 1.2 s. Nodes b and c: the next pod failed to pull for half a minute.
    const events = [
      ev('Killing', 'ds-old01', 'a', T0 + 1000),
      ev('Started', 'ds-new01', 'a', T0 + 3200, 'u-a'),
      ...['b', 'c'].flatMap((n) => [ev('Killing', `ds-old0${n}`, n, T0 + 1000), { ...ev('Failed', `ds-new0${n}`, n, T0 + 1500), type: 'Warning' }, ev('Started', `ds-new0${n}`, n, T0 + 30_000, `u-${n}`)]),
    ];
    // The pods still there, created at +2 s (whole seconds: half a second early on average).
    const pods = ['a', 'b', 'c'].map((n) => ({ ...pod(n, 'new'), metadata: { ...pod(n, 'new').metadata, name: `ds-new0${n === 'a' ? 1 : n}`, uid: `u-${n}`, creationTimestamp: iso(T0 + 2000) } }));
    const o = observeStops({ events, isDaemonPod: (n) => daemonPodNamePattern('ds').test(n), pods });
    expect(o.startToStarted).toBe(3200 - 2000 - 500);
    expect(o.stop).toEqual([3200 - 1000 - 700]);
  });
});

describe('how much the pace moves between rollouts', () => {
  it('compares the per-rollout means of what the events time on each node, rollouts told apart by their revisions', () => {
    const events = ['a', 'b', 'c'].flatMap((n) => [
      // Rollout 1 (revision at T0): Killing → Started 2 s on each node; rollout 2 (revision at T0 + 60 s): 3 s.
      ev('Started', `ds-${n}old1`, n, T0 - 5000),
      ev('Killing', `ds-${n}old1`, n, T0 + 1000),
      ev('Started', `ds-${n}mid1`, n, T0 + 3000),
      ev('Killing', `ds-${n}mid1`, n, T0 + 61_000),
      ev('Started', `ds-${n}new1`, n, T0 + 64_000),
    ]);
    const o = observeStops({ events, isDaemonPod: (n) => daemonPodNamePattern('ds').test(n), pods: [], rolloutStarts: [T0, T0 + 60_000] });
    expect(o.between).toBeCloseTo(Math.log(1.5) / Math.SQRT2, 6);
    expect(observeStops({ events, isDaemonPod: (n) => daemonPodNamePattern('ds').test(n), pods: [], rolloutStarts: [T0] }).between).toBeUndefined();
  });
});

describe('the forecast', () => {
  const ns = names(40);
  const plain = (rollingUpdate: any, pace: any, runs = 400) => planRollout({ ds: ds(rollingUpdate), nodes: ns.map((n) => node(n)), pods: ns.map((n) => pod(n)), now: T0, pace, runs }).forecast!;

  it('takes the whole-second rounding out of the samples: a steady 3.3 s start, seen as 3 s or 4 s, is not planned at 4 s', () => {
    // 70% of the pods seen at 3 s, 30% at 4 s: the mean is 3.3 s. All 40 nodes at once: the slowest sets the time.
    const startup = Array.from({ length: 100 }, (_, i) => (i % 10 < 7 ? 3000 : 4000));
    const f = plain({ maxUnavailable: '100%' }, { startup, handoff: [0], source: 't', resolutionMs: 1000 });
    expect(f.p50).toBeLessThan(3800);
    expect(f.p50).toBeGreaterThan(3300);
  });

  it('adds the old pods\' stop to each hand-off when a pace seen with surge plans a rollout without, and takes it off the other way', () => {
    const pace = { startup: [3000], handoff: [200], source: 't', stop: [1000, 1000, 1000] };
    const without = plain({ maxUnavailable: 4 }, { ...pace, observedSurge: true });
    // Ten nodes a slot, then the status one reaction (the hand-off seen with surge) later.
    expect(without.p50).toBe(10 * (3000 + 200 + 1000) + 200);
    expect(without.pace.source).toMatch(/gains the old pod's stop \(3 stops observed/);
    expect(plain({ maxUnavailable: 4 }, { ...pace, observedSurge: false }).p50).toBe(10 * 3200);
    // With surge the last old pods' stop comes before the DaemonSet's status counts their nodes updated.
    expect(plain({ maxUnavailable: 0, maxSurge: 4 }, { ...pace, handoff: [1200], observedSurge: false }).p50).toBe(10 * 3200 + 1000 + 200);
  });

  it('widens the spread for what was not observed: an estimated stop, and the pace\'s drift', () => {
    const pace = { startup: [3000], handoff: [200], source: 't', observedSurge: true };
    const observed = plain({ maxUnavailable: 4 }, { ...pace, stop: [1000, 1000, 1000] });
    expect(observed.p90 - observed.p10).toBe(0);
    const estimated = plain({ maxUnavailable: 4 }, { ...pace, stopEstimate: { low: 0, high: 2000, why: 't' } });
    expect(estimated.p10).toBeLessThan(observed.p50);
    expect(estimated.p90).toBeGreaterThan(observed.p50);
    // Stops seen in two past rollouts, 0.5 s in one and 1.5 s in the other: each run takes one rollout's, not their blend.
    const twoRollouts = plain({ maxUnavailable: 4 }, { ...pace, stop: [500, 500, 500, 1500, 1500, 1500], stopByRollout: [[500, 500, 500], [1500, 1500, 1500]] });
    expect(twoRollouts.p10).toBeLessThan(observed.p50 - 3000);
    expect(twoRollouts.p90).toBeGreaterThan(observed.p50 + 3000);
    // Times learned from whole-second timestamps: the start and the end each a rounding off.
    const rounded = plain({ maxUnavailable: 4 }, { ...pace, stop: [1000, 1000, 1000], resolutionMs: 1000 });
    expect(rounded.p10).toBeLessThan(observed.p50 - 300);
    expect(rounded.p90).toBeGreaterThan(observed.p50 + 300);
    const drifting = plain({ maxUnavailable: 4 }, { ...pace, stop: [1000, 1000, 1000], drift: 0.1 });
    expect(drifting.p10).toBeLessThan(observed.p50 * 0.95);
    expect(drifting.p90).toBeGreaterThan(observed.p50 * 1.05);
  });
});
