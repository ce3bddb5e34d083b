import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../kinds/kind.ts';
import { IndexedItems, uidOf } from '../../api/watch.ts';
import { ListChanges } from '../../api/listchanges.ts';
import { buildRollout, RolloutIndex, type RolloutModel } from './rollout.ts';
import { outcomeOf } from './outcome.ts';

const now = Date.parse('2026-11-23T12:00:00Z');
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const template = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'v2' }], nodeSelector: { os: 'linux' } } };
const ds = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'd', namespace: 'ns', uid: 'ds-uid', generation: 2, annotations: { 'deprecated.daemonset.template.generation': '2' } },
  spec: { selector: { matchLabels: { app: 'd' } }, template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } },
  status: { desiredNumberScheduled: 4, observedGeneration: 2 },
} as unknown as KubeObject;
const owner = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'ds-uid', controller: true }];
const revision = (name: string, n: number, image: string) =>
  ({
    metadata: { name, namespace: 'ns', ownerReferences: owner, labels: { 'controller-revision-hash': name.slice(2) } },
    revision: n,
    data: { spec: { template: { ...template, spec: { ...template.spec, containers: [{ name: 'c', image }] }, $patch: 'replace' } } },
  }) as unknown as KubeObject;
const node = (name: string, labels: Record<string, string> = { os: 'linux', zone: 'a' }, taints: object[] = []) =>
  ({ metadata: { name, labels }, spec: { taints }, status: {} }) as unknown as KubeObject;
const pod = (name: string, nodeName: string, hash: string, ready: boolean, createdSecondsAgo: number, extra: object = {}) =>
  ({
    metadata: { name, namespace: 'ns', uid: name, ownerReferences: owner, labels: { 'controller-revision-hash': hash }, creationTimestamp: ago(createdSecondsAgo) },
    spec: { nodeName },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ago(createdSecondsAgo - 1), message: ready ? undefined : 'readiness probe failed' }],
    },
    ...extra,
  }) as unknown as KubeObject;

describe('the rollout view model', () => {
  const build = (pods: KubeObject[], nodes: KubeObject[]) =>
    buildRollout({ ds, pods, nodes, revisions: [revision('d-old111', 1, 'v1'), revision('d-new222', 2, 'v2')], now, stallAfterMs: 60_000, groupBy: 'zone' });

  it('tells new from old by the revision holding the current template, and flags a stalled node', () => {
    const m = build(
      [pod('p1', 'n1', 'new222', true, 300), pod('p2', 'n2', 'new222', false, 120), pod('p3', 'n3', 'old111', true, 900), pod('p4', 'n4', 'new222', false, 10)],
      [node('n1'), node('n2'), node('n3'), node('n4')],
    );
    expect(m.currentHash).toBe('new222');
    expect(Object.fromEntries(m.rows.map((r) => [r.nodeName, r.state]))).toEqual({ n1: 'updated', n2: 'stalled', n3: 'old', n4: 'progressing' });
    const stalled = m.rows.find((r) => r.nodeName === 'n2')!;
    expect(stalled.stalledMessage).toBe('readiness probe failed');
    expect(m.counts).toMatchObject({ desired: 4, updated: 3, available: 2, updatedAvailable: 1, stalled: 1 });
    expect(m.budget).toMatchObject({ mode: 'unavailable', maxUnavailable: 1, inUse: 2, remaining: 0 });
  });

  it('lists nodes left out with the reason, and pods on them as misscheduled', () => {
    const m = build([pod('p1', 'win', 'new222', true, 300)], [node('n1'), node('win', { os: 'windows' }), node('gpu', { os: 'linux' }, [{ key: 'gpu', effect: 'NoSchedule' }])]);
    expect(m.rows.map((r) => r.nodeName)).toEqual(['n1']);
    expect(m.rows[0].state).toBe('missing');
    expect(m.excluded).toEqual([
      expect.objectContaining({ nodeName: 'win', misscheduled: true, reason: 'node selector os=linux does not match (node has os=windows)' }),
      expect.objectContaining({ nodeName: 'gpu', misscheduled: false, reason: 'taint gpu:NoSchedule is not tolerated' }),
    ]);
  });

  it('keeps pods whose node is gone apart, and ignores pods of other owners', () => {
    const stranger = pod('x', 'n1', 'new222', true, 10, { metadata: { name: 'x', uid: 'x', ownerReferences: [{ uid: 'other', controller: true }], labels: {} } });
    const m = build([pod('p1', 'gone', 'old111', true, 300), stranger], [node('n1')]);
    expect(m.orphans.map((p) => p.name)).toEqual(['p1']);
    expect(m.rows[0].pods).toEqual([]);
  });

  it('flags a surge node whose new pod waits in ImagePullBackOff beside its available old pod', () => {
    const surge = { ...ds, spec: { ...(ds.spec as any), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } } as KubeObject;
    const pulling = pod('p2', 'n2', 'new222', false, 108, {
      status: {
        phase: 'Pending',
        conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [c]' }],
        containerStatuses: [{ name: 'c', ready: false, state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "v2"' } } }],
      },
    });
    const m = buildRollout({
      ds: surge,
      pods: [pod('p1', 'n1', 'new222', true, 300), pod('o2', 'n2', 'old111', true, 900), pulling],
      nodes: [node('n1'), node('n2')],
      revisions: [revision('d-old111', 1, 'v1'), revision('d-new222', 2, 'v2')],
      now,
      stallAfterMs: 60_000,
      groupBy: '',
    });
    const row = m.rows.find((r) => r.nodeName === 'n2')!;
    expect(row.state).toBe('stalled');
    expect(row.stalledMessage).toBe('c: ImagePullBackOff: Back-off pulling image "v2"');
    expect(m.counts.stalled).toBe(1);
  });

  it('places a pod the scheduler has not bound yet on the node its affinity names, and says why it waits', () => {
    const ports = { hostNetwork: true, containers: [{ name: 'c', image: 'v2', ports: [{ containerPort: 9100, hostPort: 9100 }] }] };
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } };
    const old = pod('old', 'n1', 'old111', true, 900, { spec: { nodeName: 'n1', ...ports } });
    const waiting = pod('new', 'n1', 'new222', false, 120, {
      spec: { affinity, ...ports },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports." }],
      },
    });
    const m = build([old, waiting], [node('n1')]);
    expect(m.orphans).toEqual([]);
    expect(m.rows[0]).toMatchObject({
      state: 'stalled',
      stalledMessage: 'new pod cannot start: host port 9100/TCP is held by the old pod old; maxSurge with hostPort cannot progress — use maxUnavailable',
    });
  });
});

describe('the rollout index, kept up to date as the watches move', () => {
  const revisions = [revision('d-old111', 1, 'v1'), revision('d-new222', 2, 'v2')];
  const nodes = Array.from({ length: 30 }, (_, i) => node(`n${String(i).padStart(2, '0')}`, { os: 'linux', zone: 'abc'[i % 3] }));
  const input = (pods: KubeObject[], ns: KubeObject[], at = now) => ({ ds, pods, nodes: ns, revisions, now: at, stallAfterMs: 60_000, groupBy: 'zone' });
  const withRv = (p: KubeObject, rv: string) => ({ ...p, metadata: { ...p.metadata, resourceVersion: rv } }) as KubeObject;

  it('derives again only the nodes whose pods changed, and ends where a build from scratch does', () => {
    let pods = nodes.map((n, i) => withRv(pod(`p${i}`, n.metadata.name!, 'old111', true, 900), String(100 + i)));
    const index = new RolloutIndex();
    index.update(input(pods, nodes));
    const before = index.model();
    // One old pod deleted and its new pod made on n05; nothing else changes.
    pods = [...pods.filter((p) => p.metadata.name !== 'p5'), withRv(pod('q5', 'n05', 'new222', false, 5), '200')];
    expect(index.update(input(pods, nodes))).toBe(true);
    const after = index.model();
    expect(after.rows.filter((r, i) => r !== before.rows[i]).map((r) => r.nodeName)).toEqual(['n05']);
    expect(after.rows[5]).toMatchObject({ state: 'progressing', resourceVersion: '200' });
    expect(after.groups.map((g) => [g.group, g.total, g.states.progressing])).toEqual([
      ['a', 10, 0],
      ['b', 10, 0],
      ['c', 10, 1],
    ]);
    expect(after.budget).toMatchObject({ inUse: 1, remaining: 0 });
    // The same lists again: nothing to do, the same model.
    expect(index.update(input(pods, nodes))).toBe(false);
    expect(index.model()).toBe(after);
    // A node gone (its pod is then an orphan) and a new pod ready elsewhere.
    const fewer = nodes.filter((n) => n.metadata.name !== 'n07');
    pods = pods.map((p) => (p.metadata.name === 'p9' ? withRv(pod('p9', 'n09', 'new222', true, 300), '300') : p));
    index.update(input(pods, fewer));
    const fresh = buildRollout(input(pods, fewer));
    expect({ ...index.model(), version: 0 }).toEqual({ ...fresh, version: 0 });
    expect(index.model().orphans.map((p) => p.name)).toEqual(['p7']);
  });

  it("derives again only the nodes a new revision or strategy changes: a rollout's start is not every node twice", () => {
    const pods = nodes.map((n, i) => withRv(pod(`p${i}`, n.metadata.name!, 'old111', true, 900), String(100 + i)));
    pods[5] = withRv(pod('q5', 'n05', 'new222', false, 5), '200');
    // The page has the new template before the revision holding it: the new pod is not known as new yet.
    const index = new RolloutIndex();
    index.update({ ...input(pods, nodes), revisions: [revisions[0]] });
    const before = index.model();
    expect(before.currentHash).toBeUndefined();
    expect(before.rows[5].state).toBe('old');
    // The revision arrives: only n05's pod turns new.
    expect(index.update(input(pods, nodes))).toBe(true);
    const after = index.model();
    expect(after.rows.filter((r, i) => r !== before.rows[i]).map((r) => r.nodeName)).toEqual(['n05']);
    expect(after.rows[5].state).toBe('progressing');
    expect({ ...after, version: 0 }).toEqual({ ...buildRollout(input(pods, nodes)), version: 0 });
    // Another maxUnavailable: the budget moves, no row is derived again.
    const wider = { ...ds, spec: { ...(ds.spec as object), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3, maxSurge: 0 } } } } as KubeObject;
    expect(index.update({ ...input(pods, nodes), ds: wider })).toBe(true);
    const widened = index.model();
    expect(widened.rows.every((r, i) => r === after.rows[i])).toBe(true);
    expect(widened.budget).toMatchObject({ maxUnavailable: 3, inUse: 1, remaining: 2 });
    expect({ ...widened, version: 0 }).toEqual({ ...buildRollout({ ...input(pods, nodes), ds: wider }), version: 0 });
  });

  it("a new node selector re-derives every node, those without pods too; a new image keeps each node's placement", () => {
    const win = node('win', { os: 'windows', zone: 'a' });
    const pods = [pod('p0', 'n00', 'old111', true, 900)];
    const index = new RolloutIndex();
    index.update(input(pods, [nodes[0], win]));
    expect(index.model().excluded.map((e) => e.nodeName)).toEqual(['win']);
    // The selector goes: the Windows node, with no pod and no change of its own, should now run the daemon.
    const anyOs = { ...ds, spec: { ...(ds.spec as any), template: { ...template, spec: { ...template.spec, nodeSelector: undefined } } } } as KubeObject;
    index.update({ ...input(pods, [nodes[0], win]), ds: anyOs });
    const m = index.model();
    expect(m.rows.map((r) => [r.nodeName, r.state])).toEqual([
      ['n00', 'old'],
      ['win', 'missing'],
    ]);
    expect({ ...m, version: 0 }).toEqual({ ...buildRollout({ ...input(pods, [nodes[0], win]), ds: anyOs }), version: 0 });
    // Another image only: the same placement (the Windows node stays a row), every node derived again.
    const v3 = { ...anyOs, spec: { ...(anyOs.spec as any), template: { ...(anyOs.spec as any).template, spec: { ...(anyOs.spec as any).template.spec, containers: [{ name: 'c', image: 'v3' }] } } } } as KubeObject;
    index.update({ ...input(pods, [nodes[0], win]), ds: v3 });
    expect({ ...index.model(), version: 0 }).toEqual({ ...buildRollout({ ...input(pods, [nodes[0], win]), ds: v3 }), version: 0 });
  });

  it('moves a node on as time passes alone: stalled once stallAfterMs is over', () => {
    const pods = [pod('p0', 'n02', 'new222', false, 30), pod('p1', 'n01', 'new222', true, 30), pod('p2', 'n00', 'new222', false, 20)];
    const index = new RolloutIndex();
    index.update(input(pods, nodes.slice(0, 3)));
    expect(index.model().rows[2].state).toBe('progressing');
    expect(index.model().stalled).toEqual([]);
    expect(index.update(input(pods, nodes.slice(0, 3), now + 10_000))).toBe(false);
    expect(index.update(input(pods, nodes.slice(0, 3), now + 31_000))).toBe(true);
    expect(index.model().rows[2]).toMatchObject({ state: 'stalled', stalledMessage: 'readiness probe failed' });
    expect(index.model().counts.stalled).toBe(1);
    expect(index.update(input(pods, nodes.slice(0, 3), now + 41_000))).toBe(true);
    // The stalled rows in the rows' order, whichever stalled first.
    expect(index.model().stalled.map((r) => r.nodeName)).toEqual(['n00', 'n02']);
    expect(index.model().stalled).toEqual(index.model().rows.filter((r) => r.state === 'stalled'));
  });
});

describe('the rollout index, fed what the watch changed', () => {
  const revisions = [revision('d-old111', 1, 'v1'), revision('d-new222', 2, 'v2')];
  const stranger = (i: number) => ({ metadata: { name: `x${i}`, namespace: 'ns', uid: `x${i}`, labels: {} }, spec: { nodeName: 'n00' }, status: { phase: 'Running' } }) as unknown as KubeObject;

  it('ends every round where a build from scratch does: rows, counts, groups, budget, pods per revision', () => {
    // A seeded walk: pods replaced (old → new, ready or not), deleted, made on missing nodes; nodes relabelled, gone, back.
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const podItems = new IndexedItems();
    const nodeItems = new IndexedItems();
    const allNodes = Array.from({ length: 24 }, (_, i) => node(`n${String(i).padStart(2, '0')}`, { os: i % 7 === 6 ? 'windows' : 'linux', zone: 'abc'[i % 3] }));
    podItems.reset([...allNodes.map((n, i) => pod(`p${i}`, n.metadata.name!, 'old111', true, 900)), stranger(0)]);
    nodeItems.reset(allNodes);
    const index = new RolloutIndex();
    const at = (round: number) => now + round * 7_000;
    const podChanges = new ListChanges();
    const nodeChanges = new ListChanges();
    podChanges.record({ items: podItems.items, resourceVersion: '1' });
    nodeChanges.record({ items: nodeItems.items, resourceVersion: '1' });
    const input = (round: number, withChanges = true) => ({
      ds,
      pods: podItems.items,
      nodes: nodeItems.items,
      revisions,
      now: at(round),
      stallAfterMs: 60_000,
      groupBy: 'zone',
      podChanges: withChanges ? podChanges : undefined,
      nodeChanges: withChanges ? nodeChanges : undefined,
    });
    index.update(input(0));
    const canonical = (m: RolloutModel) => ({
      ...m,
      version: 0,
      rows: [...m.rows].sort((a, b) => a.nodeName.localeCompare(b.nodeName)),
      excluded: [...m.excluded].sort((a, b) => a.nodeName.localeCompare(b.nodeName)),
      orphans: [...m.orphans].sort((a, b) => a.name.localeCompare(b.name)),
      stalled: [...m.stalled].sort((a, b) => a.nodeName.localeCompare(b.nodeName)),
    });
    let made = 0;
    for (let round = 1; round <= 60; round++) {
      const podUpdates = new Map<string, KubeObject | undefined>();
      for (let k = 0; k < 1 + rand(4); k++) {
        const n = `n${String(rand(26)).padStart(2, '0')}`; // n24, n25: no such node (orphans)
        const on = podItems.items.filter((p) => (p.spec as any).nodeName === n);
        if (on.length && rand(3) === 0) podUpdates.set(uidOf(on[0]), undefined);
        else podUpdates.set(`q${++made}`, pod(`q${made}`, n, 'new222', rand(2) === 0, 5 + rand(120)));
      }
      if (rand(5) === 0) podUpdates.set('x0', { ...stranger(0), metadata: { ...stranger(0).metadata, labels: { round: String(round) } } } as KubeObject);
      const nodeUpdates = new Map<string, KubeObject | undefined>();
      if (rand(4) === 0) {
        const n = allNodes[rand(allNodes.length)];
        const name = n.metadata.name!;
        nodeUpdates.set(uidOf(n), nodeItems.has(uidOf(n)) && rand(2) === 0 ? undefined : node(name, { os: 'linux', zone: 'abcd'[rand(4)] }));
      }
      const podChange = podItems.apply(podUpdates);
      const nodeChange = nodeItems.apply(nodeUpdates);
      if (podChange) podChanges.record({ items: podItems.items, resourceVersion: String(round), change: podChange });
      if (nodeChange) nodeChanges.record({ items: nodeItems.items, resourceVersion: String(round), change: nodeChange });
      // Some rounds are not seen by the index (the view rendered less often than the watch flushed).
      if (rand(3) === 0) continue;
      index.update(input(round));
      const m = index.model();
      expect(canonical(m)).toEqual(canonical(buildRollout(input(round, false))));
      expect(m.stalled).toEqual(m.rows.filter((r) => r.state === 'stalled'));
    }
    expect(index.model().podsPerHash.get('new222')).toBeGreaterThan(0);
  });

  it('counts the pods per revision, those on nodes left out and orphans too, and not other owners', () => {
    const m = buildRollout({
      ds,
      pods: [pod('p1', 'n1', 'new222', true, 300), pod('p2', 'win', 'old111', true, 300), pod('p3', 'gone', 'old111', true, 300), stranger(1)],
      nodes: [node('n1'), node('win', { os: 'windows' })],
      revisions,
      now,
      stallAfterMs: 60_000,
      groupBy: '',
    });
    expect(Object.fromEntries(m.podsPerHash)).toEqual({ new222: 1, old111: 2 });
  });
});

describe('what a rollout did (outcomeOf)', () => {
  it("takes each node's pod of the revision as the watch has it now, and not other owners' or deleted ones", () => {
    const start = now - 60_000;
    const ready = pod('p1', 'n1', 'new222', true, 30);
    const other = pod('p4', 'n4', 'new222', true, 10);
    const pods = [
      ready,
      pod('p2', 'n2', 'new222', false, 20),
      pod('p3', 'n3', 'old111', true, 100),
      { ...other, metadata: { ...other.metadata, ownerReferences: [{ ...owner[0], uid: 'another' }] } } as KubeObject,
      pod('p5', 'n5', 'new222', true, 10, { metadata: { name: 'p5', uid: 'p5', ownerReferences: owner, labels: { 'controller-revision-hash': 'new222' }, deletionTimestamp: ago(1) } }),
    ];
    const first = outcomeOf(ds, pods, 'new222', start);
    expect(first).toEqual({ start, nodes: { n1: { created: now - 30_000, available: now - 29_000 }, n2: { created: now - 20_000, available: undefined } }, finishedAt: now - 29_000 });
    // p2 replaced by the watch once Ready (a new object): read anew; p1, the same object, as before.
    const later = outcomeOf(ds, [ready, pod('p2', 'n2', 'new222', true, 20)], 'new222', start);
    expect(later.nodes).toEqual({ n1: { created: now - 30_000, available: now - 29_000 }, n2: { created: now - 20_000, available: now - 19_000 } });
    expect(later.finishedAt).toBe(now - 19_000);
    // The same objects under another minReadySeconds: available that much later.
    const slower = outcomeOf({ ...ds, spec: { ...(ds.spec as object), minReadySeconds: 5 } } as KubeObject, [ready], 'new222', start);
    expect(slower.nodes.n1.available).toBe(now - 24_000);
  });
});
