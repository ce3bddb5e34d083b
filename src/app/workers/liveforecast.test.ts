import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../kinds/kind.ts';
import { paceFor, planRollout } from '../../lib/rolloutplan.ts';
import { IndexedItems } from '../api/watch.ts';
import { FEED_MS, FEED_SLICE, ForecastFeed, ForecastMirror, ForecastSender, runsFor } from './liveforecast.ts';

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
