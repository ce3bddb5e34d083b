import { describe, expect, it } from 'vitest';
import {
  compareDaemonPods,
  hostPortBlock,
  isPodAvailable,
  nodeStall,
  podNotAvailableReason,
  rolloutEstimate,
  isPodUpdated,
  findUpdatedPodsOnNode,
  planRollingUpdate,
  RollingUpdateTally,
  rollingUpdateNode,
  rollingUpdateLimits,
  rolloutBudget,
  budgetFromUse,
  nodeBudgetUse,
  isPodAvailable as available_,
  rolloutStatus,
  surgeCount,
  unavailableCount,
  type DaemonSetLike,
  type NodePods,
  type PodLike,
} from './rollout.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const HASH = 'newhash';

const ds = (rollingUpdate: { maxSurge?: number | string; maxUnavailable?: number | string } | undefined, extra: Partial<DaemonSetLike['spec']> = {}): DaemonSetLike => ({
  metadata: { name: 'fluentd', generation: 2, annotations: { 'deprecated.daemonset.template.generation': '2' } },
  spec: { updateStrategy: rollingUpdate ? { type: 'RollingUpdate', rollingUpdate } : { type: 'OnDelete' }, ...extra },
});

let seq = 0;
/** A pod; `ready` gives the Ready condition, `readySince` its transition time (default long ago). */
function pod(updated: boolean, opts: { ready?: boolean; readySince?: string; terminating?: boolean; created?: string; name?: string } = {}): PodLike {
  const ready = opts.ready ?? true;
  return {
    metadata: {
      name: opts.name ?? `p${++seq}`,
      creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
      deletionTimestamp: opts.terminating ? '2026-01-01T00:10:30Z' : undefined,
      labels: { 'controller-revision-hash': updated ? HASH : 'oldhash', 'pod-template-generation': updated ? '2' : '1' },
    },
    spec: { nodeName: 'n' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: opts.readySince ?? '2026-01-01T00:00:00Z' }] },
  };
}

const node = (nodeName: string, pods: PodLike[], shouldRun = true): NodePods => ({ nodeName, pods, shouldRun });
const oldNodes = (n: number) => Array.from({ length: n }, (_, i) => node(`n${i}`, [pod(false, { name: `old-${i}` })]));

describe('budgets', () => {
  it('round percentages up for both limits, as upstream does for DaemonSets', () => {
    expect(unavailableCount(ds({ maxUnavailable: '30%' }), 7)).toBe(3); // 2.1 -> 3
    expect(unavailableCount(ds({ maxUnavailable: '15%' }), 10)).toBe(2); // 1.5 -> 2
    expect(unavailableCount(ds({ maxUnavailable: '10%' }), 1000)).toBe(100);
    expect(unavailableCount(ds({ maxUnavailable: '1%' }), 3)).toBe(1);
    expect(surgeCount(ds({ maxSurge: '10%', maxUnavailable: 0 }), 15)).toBe(2);
    expect(surgeCount(ds({ maxSurge: '1%', maxUnavailable: 0 }), 1)).toBe(1);
    expect(unavailableCount(ds({ maxUnavailable: 4 }), 2)).toBe(4);
    expect(surgeCount(ds({ maxUnavailable: 1 }), 10)).toBe(0);
  });

  it('are 0 for OnDelete and default to maxUnavailable 1 when both are 0', () => {
    expect(rollingUpdateLimits(ds(undefined), 5)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(unavailableCount(ds(undefined), 5)).toBe(0);
    expect(rollingUpdateLimits(ds({ maxUnavailable: '0%', maxSurge: 0 }), 5)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(rollingUpdateLimits(ds({ maxUnavailable: '0%', maxSurge: 0 }), 0)).toEqual({ maxSurge: 0, maxUnavailable: 0 });
    expect(rollingUpdateLimits(ds({ maxUnavailable: 0, maxSurge: '50%' }), 5)).toEqual({ maxSurge: 3, maxUnavailable: 0 });
  });
});

describe('pods', () => {
  it('are available after minReadySeconds of readiness (transition + min ≤ now)', () => {
    const p = pod(true, { readySince: '2026-01-01T00:09:50Z' });
    expect(isPodAvailable(p, 0, NOW)).toBe(true);
    expect(isPodAvailable(p, 10, NOW)).toBe(true);
    expect(isPodAvailable(p, 11, NOW)).toBe(false);
    expect(isPodAvailable(pod(true, { ready: false }), 0, NOW)).toBe(false);
  });

  it('are updated by hash or by template generation', () => {
    expect(isPodUpdated(pod(true), HASH, undefined)).toBe(true);
    expect(isPodUpdated(pod(true), undefined, 2)).toBe(true);
    expect(isPodUpdated(pod(false), HASH, 2)).toBe(false);
    expect(isPodUpdated(pod(false), 'oldhash', 2)).toBe(true); // a rollback back to that hash
  });

  it('sort bound pods first, then oldest, then by name', () => {
    const a = { ...pod(false, { name: 'b', created: '2026-01-01T00:00:01Z' }) };
    const b = { ...pod(false, { name: 'a', created: '2026-01-01T00:00:01Z' }) };
    const c = { ...pod(false, { name: 'c', created: '2026-01-01T00:00:00Z' }) };
    const unbound = { ...pod(false, { name: '0', created: '2025-01-01T00:00:00Z' }), spec: {} };
    expect([a, unbound, b, c].sort(compareDaemonPods).map((p) => p.metadata!.name)).toEqual(['c', 'a', 'b', '0']);
  });
});

describe('rolling update without surge', () => {
  it('deletes old pods up to maxUnavailable', () => {
    const plan = planRollingUpdate({ ds: ds({ maxUnavailable: 2 }), nodes: oldNodes(5), hash: HASH, now: NOW });
    expect(plan.podsToDelete).toEqual(['old-0', 'old-1']);
    expect(plan.nodesToCreate).toEqual([]);
  });

  it('counts nodes without a pod, with two pods or with an unavailable new pod against the budget', () => {
    const nodes = [
      node('a', []), // no pod: manage creates one
      node('b', [pod(true, { ready: false })]),
      node('c', [pod(false), pod(true)]),
      ...oldNodes(3),
    ];
    expect(planRollingUpdate({ ds: ds({ maxUnavailable: 3 }), nodes, hash: HASH, now: NOW }).podsToDelete).toEqual([]);
    const plan = planRollingUpdate({ ds: ds({ maxUnavailable: 4 }), nodes, hash: HASH, now: NOW });
    expect(plan.numUnavailable).toBe(3);
    expect(plan.podsToDelete).toEqual(['old-0']);
  });

  it('replaces unavailable old pods at once, beyond the budget', () => {
    const nodes = [node('x', [pod(false, { ready: false, name: 'broken-1' })]), node('y', [pod(false, { ready: false, name: 'broken-2' })]), ...oldNodes(3)];
    const plan = planRollingUpdate({ ds: ds({ maxUnavailable: 1 }), nodes, hash: HASH, now: NOW });
    expect(plan.podsToDelete).toEqual(['broken-1', 'broken-2']);
  });

  it('ignores terminating pods: a node whose only pod is terminating is unavailable', () => {
    const nodes = [node('a', [pod(false, { terminating: true })]), ...oldNodes(2)];
    expect(planRollingUpdate({ ds: ds({ maxUnavailable: 1 }), nodes, hash: HASH, now: NOW }).podsToDelete).toEqual([]);
  });

  it('waits minReadySeconds before a new pod counts as available', () => {
    const nodes = [node('a', [pod(true, { readySince: '2026-01-01T00:09:58Z' })]), ...oldNodes(2)];
    const d = ds({ maxUnavailable: 1 }, { minReadySeconds: 5 });
    expect(planRollingUpdate({ ds: d, nodes, hash: HASH, now: NOW }).podsToDelete).toEqual([]);
    expect(planRollingUpdate({ ds: d, nodes, hash: HASH, now: NOW + 3000 }).podsToDelete).toEqual(['old-0']);
  });
});

describe('rolling update with surge', () => {
  const surge = (maxSurge: number | string) => ds({ maxSurge, maxUnavailable: 0 });

  it('creates new pods beside available old ones on at most maxSurge nodes', () => {
    const plan = planRollingUpdate({ ds: surge(2), nodes: oldNodes(5), hash: HASH, now: NOW });
    expect(plan.nodesToCreate).toEqual(['n0', 'n1']);
    expect(plan.podsToDelete).toEqual([]);
  });

  it('counts surging nodes and deletes the old pod once the new one is available', () => {
    const nodes = [
      node('a', [pod(false, { name: 'old-a' }), pod(true, { ready: false })]),
      node('b', [pod(false, { name: 'old-b' }), pod(true)]),
      ...oldNodes(3),
    ];
    const plan = planRollingUpdate({ ds: surge(2), nodes, hash: HASH, now: NOW });
    expect(plan.numSurge).toBe(1);
    expect(plan.podsToDelete).toEqual(['old-b']);
    expect(plan.nodesToCreate).toEqual(['n0']);
  });

  it('replaces an unavailable old pod at once, ignoring the surge limit', () => {
    const nodes = [
      node('a', [pod(false), pod(true, { ready: false })]),
      node('b', [pod(false, { ready: false })]),
      ...oldNodes(2),
    ];
    const plan = planRollingUpdate({ ds: surge(1), nodes, hash: HASH, now: NOW });
    expect(plan.nodesToCreate).toEqual(['b']);
  });

  it('removes old pods from nodes that left the desired set only while more are available than desired', () => {
    const gone = node('gone', [pod(false, { name: 'old-gone' })], false);
    const updated = [node('a', [pod(true)]), node('b', [pod(true)])];
    expect(planRollingUpdate({ ds: surge(1), nodes: [gone, ...updated], hash: HASH, now: NOW }).podsToDelete).toEqual(['old-gone']);
    const notYet = [node('a', [pod(true)]), node('b', [pod(true, { ready: false })])];
    expect(planRollingUpdate({ ds: surge(1), nodes: [gone, ...notYet], hash: HASH, now: NOW }).podsToDelete).toEqual([]);
  });

  it('reports the budget for views', () => {
    const nodes = [node('a', [pod(false), pod(true, { ready: false })]), ...oldNodes(3)];
    expect(rolloutBudget({ ds: surge(2), nodes, hash: HASH, now: NOW })).toEqual({
      desiredNumberScheduled: 4,
      maxSurge: 2,
      maxUnavailable: 0,
      inUse: 1,
      remaining: 1,
      mode: 'surge',
    });
    expect(rolloutBudget({ ds: ds({ maxUnavailable: '50%' }), nodes, hash: HASH, now: NOW })).toMatchObject({ maxUnavailable: 2, inUse: 1, remaining: 1, mode: 'unavailable' });
    expect(rolloutBudget({ ds: ds(undefined), nodes, hash: HASH, now: NOW })).toMatchObject({ mode: 'none', remaining: 0 });
  });
});

describe('the budget kept per node', () => {
  it('sums to the plan of every node at once, for every mix of pods, with and without surge', () => {
    const kinds: PodLike[][] = [
      [],
      [pod(false)],
      [pod(false, { ready: false })],
      [pod(true)],
      [pod(true, { ready: false })],
      [pod(false), pod(true, { ready: false })],
      [pod(false), pod(true)],
      [pod(false, { ready: false }), pod(true, { ready: false })],
      [pod(true), pod(true)],
      [pod(false, { terminating: true }), pod(true, { ready: false })],
    ];
    for (const strategy of [ds({ maxUnavailable: 2 }), ds({ maxSurge: 3, maxUnavailable: 0 }), ds({ maxUnavailable: '50%' }), ds(undefined)]) {
      for (let shift = 0; shift < kinds.length; shift++) {
        const nodes = kinds.map((pods, i) => node(`n${i}`, kinds[(i + shift) % kinds.length], (i + shift) % 4 !== 3 || pods.length === 0));
        const use = { unavailable: 0, surge: 0 };
        for (const n of nodes) {
          const u = nodeBudgetUse(n.pods, (p) => p.metadata?.labels?.['controller-revision-hash'] === HASH, (p) => available_(p, 0, NOW));
          use.unavailable += u.unavailable;
          use.surge += u.surge;
        }
        const desired = nodes.filter((n) => n.shouldRun).length;
        expect(budgetFromUse(strategy, desired, use)).toEqual(rolloutBudget({ ds: strategy, nodes, hash: HASH, now: NOW }));
      }
    }
  });
});

describe('kubectl rollout status', () => {
  const withStatus = (generation: number, status: DaemonSetLike['status']): DaemonSetLike => ({ ...ds({ maxUnavailable: 1 }), metadata: { name: 'fluentd', generation }, status });

  it('waits for the spec update to be observed', () => {
    expect(rolloutStatus(withStatus(3, { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }))).toEqual({
      done: false,
      message: 'Waiting for daemon set spec update to be observed...\n',
    });
  });

  it('waits for updated pods, then available pods, then succeeds', () => {
    expect(rolloutStatus(withStatus(2, { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 1, numberAvailable: 3 })).message).toBe(
      'Waiting for daemon set "fluentd" rollout to finish: 1 out of 3 new pods have been updated...\n',
    );
    expect(rolloutStatus(withStatus(2, { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2 })).message).toBe(
      'Waiting for daemon set "fluentd" rollout to finish: 2 of 3 updated pods are available...\n',
    );
    expect(rolloutStatus(withStatus(2, { observedGeneration: 3, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }))).toEqual({
      done: true,
      message: 'daemon set "fluentd" successfully rolled out\n',
    });
  });

  it('refuses OnDelete', () => {
    expect(rolloutStatus(ds(undefined))).toEqual({ done: true, message: '', error: 'rollout status is only available for RollingUpdate strategy type' });
  });
});

describe('stalls', () => {
  const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
  const opts = { minReadySeconds: 0, now: NOW, stallAfterMs: 60_000 };
  /** A new pod created `secondsAgo`, with the given status. */
  const fresh = (secondsAgo: number, status: PodLike['status'], spec: PodLike['spec'] = { nodeName: 'n' }): PodLike => ({
    metadata: { name: 'new-pod', creationTimestamp: at(secondsAgo), labels: { 'controller-revision-hash': HASH } },
    spec,
    status,
  });
  const pullBackOff: PodLike['status'] = {
    phase: 'Pending',
    conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [exporter]' }],
    containerStatuses: [{ name: 'exporter', ready: false, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "exporter:v2"' } } }],
  };
  const oldAvailable = pod(false, { name: 'old-pod' });

  it('flags a surge node whose new pod waits in ImagePullBackOff while the old pod still serves', () => {
    // The old rule looked only at nodes whose old pod was not available, so this was never a stall.
    expect(nodeStall(fresh(108, pullBackOff), [oldAvailable], opts)).toEqual({ since: NOW - 108_000, reason: 'exporter: ImagePullBackOff: Back-off pulling image "exporter:v2"' });
    expect(nodeStall(fresh(30, pullBackOff), [oldAvailable], opts)).toBeUndefined(); // within the threshold
    expect(nodeStall(fresh(108, pullBackOff), [], opts)?.reason).toContain('ImagePullBackOff');
    expect(nodeStall(undefined, [oldAvailable], opts)).toBeUndefined();
    expect(nodeStall({ ...pod(true, { created: at(300) }) }, [], opts)).toBeUndefined(); // available
  });

  it('gives the reason in full: crash loops, failing readiness, minReadySeconds, the scheduler', () => {
    const crash = fresh(120, {
      phase: 'Running',
      containerStatuses: [{ name: 'c', ready: false, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=c pod=p_ns(uid)' } } }],
    });
    expect(podNotAvailableReason(crash, 0, NOW)).toBe('c: CrashLoopBackOff: back-off 40s restarting failed container=c pod=p_ns(uid)');
    const unready = fresh(120, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [c]' }],
      containerStatuses: [{ name: 'c', ready: false, state: { running: {} } }],
    });
    expect(nodeStall(unready, [oldAvailable], opts)?.reason).toBe('readiness failing: c running but not ready (containers with unready status: [c])');
    const readyNotAvailable = fresh(120, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(5) }] });
    expect(nodeStall(readyNotAvailable, [], { ...opts, minReadySeconds: 30 })?.reason).toBe('ready, available after minReadySeconds (30s)');
    const message = "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 2 node is filtered out by the prefilter result.";
    const unscheduled = fresh(120, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }] }, {});
    expect(podNotAvailableReason(unscheduled, 0, NOW)).toBe(`not scheduled: Unschedulable: ${message}`);
  });

  it('explains a surge pod kept off its node by the host port the old pod holds', () => {
    const ports = { hostNetwork: true, containers: [{ name: 'exporter', ports: [{ containerPort: 9100 }] }] };
    const waiting = fresh(120, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available' }] }, ports);
    const old: PodLike = { ...oldAvailable, metadata: { ...oldAvailable.metadata, name: 'exporter-old' }, spec: { nodeName: 'n', ...ports } };
    const why = 'new pod cannot start: host port 9100/TCP is held by the old pod exporter-old; maxSurge with hostPort cannot progress — use maxUnavailable';
    expect(hostPortBlock(waiting, [waiting, old])).toBe(why);
    expect(nodeStall(waiting, [waiting, old], opts)?.reason).toBe(why);
    // Another port, or a bound pod, is not that.
    expect(hostPortBlock(waiting, [{ ...old, spec: { nodeName: 'n', containers: [{ ports: [{ containerPort: 80, hostPort: 9101 }] }] } }])).toBeUndefined();
    expect(hostPortBlock({ ...waiting, spec: { ...ports, nodeName: 'n' } }, [old])).toBeUndefined();
  });
});

describe('the time-left estimate', () => {
  const samples = [
    { at: NOW - 20_000, done: 0 },
    { at: NOW - 10_000, done: 2 },
    { at: NOW, done: 4 },
  ];
  it('extrapolates the observed pace', () => {
    expect(rolloutEstimate(samples, 6, 0)).toEqual({ pace: 0.2, eta: 10_000, stalled: 0 });
    expect(rolloutEstimate(samples.slice(0, 1), 6, 0)).toEqual({ stalled: 0 });
  });
  it('promises no finish time while a node is stalled', () => {
    expect(rolloutEstimate(samples, 6, 1)).toEqual({ pace: 0.2, stalled: 1 });
  });
});

/** upstream's rollingUpdate loop written out node by node (update.go), as reference for the kept tally. */
function upstreamRollingUpdate(d: DaemonSetLike, nodes: NodePods[]) {
  const updated = (p: PodLike) => isPodUpdated(p, HASH, 2);
  const available = (p: PodLike) => available_(p, 0, NOW);
  const desired = nodes.filter((n) => n.shouldRun).length;
  const { maxSurge, maxUnavailable } = rollingUpdateLimits(d, desired);
  const plan = { desiredNumberScheduled: desired, maxSurge, maxUnavailable, numUnavailable: 0, numSurge: 0, podsToDelete: [] as string[], nodesToCreate: [] as string[] };
  if (maxSurge === 0) {
    const replacements: string[] = [];
    const candidates: string[] = [];
    for (const n of nodes) {
      const { newPod, oldPod, ok } = findUpdatedPodsOnNode(n.pods, updated);
      if (!ok) plan.numUnavailable++;
      else if ((!oldPod && !newPod) || (oldPod && newPod)) plan.numUnavailable++;
      else if (newPod) {
        if (!available(newPod)) plan.numUnavailable++;
      } else if (!available(oldPod!)) {
        replacements.push(oldPod!.metadata!.name!);
        plan.numUnavailable++;
      } else if (plan.numUnavailable < maxUnavailable) candidates.push(oldPod!.metadata!.name!);
    }
    plan.podsToDelete = [...replacements, ...candidates.slice(0, Math.min(candidates.length, Math.max(0, maxUnavailable - plan.numUnavailable)))];
    return plan;
  }
  const allowed: string[] = [];
  const candidates: string[] = [];
  const shouldNotRun: string[] = [];
  let numAvailable = 0;
  for (const n of nodes) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(n.pods, updated);
    if (!ok) {
      plan.numSurge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!n.shouldRun) plan.podsToDelete.push(oldPod.metadata!.name!);
        else allowed.push(n.nodeName);
      } else if (!n.shouldRun) shouldNotRun.push(oldPod.metadata!.name!);
      else if (plan.numSurge < maxSurge) candidates.push(n.nodeName);
      continue;
    }
    if (!available(newPod)) plan.numSurge++;
    else plan.podsToDelete.push(oldPod.metadata!.name!);
  }
  plan.podsToDelete.push(...shouldNotRun.slice(0, Math.max(0, Math.min(numAvailable - desired, shouldNotRun.length))));
  plan.nodesToCreate = [...allowed, ...candidates.slice(0, Math.min(candidates.length, Math.max(0, maxSurge - plan.numSurge)))];
  return plan;
}

describe('the rolling update kept per node (RollingUpdateTally)', () => {
  it('plans as planRollingUpdate over every node, as nodes change one at a time, with and without surge', () => {
    // A small deterministic generator, so a failure can be replayed.
    let s = 42;
    const rand = (n: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) % n);
    const podsOf = (name: string, k: number): PodLike[] => {
      const kinds: (() => PodLike[])[] = [
        () => [],
        () => [pod(false, { name: `${name}-old` })],
        () => [pod(false, { name: `${name}-old`, ready: false })],
        () => [pod(true)],
        () => [pod(true, { ready: false })],
        () => [pod(false, { name: `${name}-old` }), pod(true, { ready: false })],
        () => [pod(false, { name: `${name}-old` }), pod(true)],
        () => [pod(false, { name: `${name}-old`, ready: false }), pod(true, { ready: false })],
        () => [pod(true), pod(true)],
        () => [pod(false, { name: `${name}-a` }), pod(false, { name: `${name}-b` })],
        () => [pod(false, { name: `${name}-old`, terminating: true }), pod(true, { ready: false })],
      ];
      return kinds[k]();
    };
    const strategies = [ds({ maxUnavailable: 2 }), ds({ maxUnavailable: '30%' }), ds({ maxSurge: 2, maxUnavailable: 0 }), ds({ maxSurge: '20%', maxUnavailable: 0 }), ds({ maxSurge: 1, maxUnavailable: 1 })];
    const updated = (p: PodLike) => isPodUpdated(p, HASH, 2);
    const available = (p: PodLike) => available_(p, 0, NOW);
    for (const strategy of strategies) {
      const tally = new RollingUpdateTally();
      const nodes = new Map<string, NodePods>();
      const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`);
      for (let step = 0; step < 200; step++) {
        const name = names[rand(names.length)];
        const pods = podsOf(name, rand(11));
        const shouldRun = rand(5) !== 0;
        if (!shouldRun && !pods.length) {
          nodes.delete(name);
          tally.set(name, undefined);
        } else {
          const n = node(name, pods, shouldRun);
          nodes.set(name, n);
          tally.set(name, rollingUpdateNode(n, updated, available));
        }
        const order = [...nodes.keys()].sort();
        const reference = upstreamRollingUpdate(strategy, order.map((k) => nodes.get(k)!));
        expect(tally.plan(strategy, order)).toEqual(reference);
        expect(planRollingUpdate({ ds: strategy, nodes: order.map((k) => nodes.get(k)!), hash: HASH, now: NOW })).toEqual(reference);
      }
    }
  });

  it('visits nodes in the order given and takes the first candidates within the budget', () => {
    const tally = new RollingUpdateTally();
    const nodes = oldNodes(5);
    for (const n of nodes) tally.set(n.nodeName, rollingUpdateNode(n, (p) => isPodUpdated(p, HASH, 2), (p) => available_(p, 0, NOW)));
    expect(tally.plan(ds({ maxUnavailable: 2 }), ['n4', 'n3', 'n2', 'n1', 'n0']).podsToDelete).toEqual(['old-4', 'old-3']);
    expect(tally.plan(ds({ maxSurge: 1, maxUnavailable: 0 }), ['n2', 'n0', 'n1', 'n3', 'n4']).nodesToCreate).toEqual(['n2']);
  });
});
