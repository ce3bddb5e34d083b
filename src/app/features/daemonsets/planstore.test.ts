// @vitest-environment jsdom
// The plans kept in the browser's local storage (jsdom's holds 5,000,000
// characters per origin, as Chromium's ~5.2 million): one key per record, in
// a compact form, the oldest going when the storage is full, so that large
// DaemonSets' plans keep being kept.
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, findPlan, plansOf, saveOutcome, savePlan, type Outcome, type PlanRecord } from './planstore.ts';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const names = (n: number) => Array.from({ length: n }, (_, i) => `sim-node-${String(i + 1).padStart(5, '0')}`);

function record(uid: string, image: string, nodes: number, madeAt = T0): PlanRecord {
  const all = names(nodes);
  const waves = [];
  for (let i = 0; i < nodes; i += 500) waves.push({ nodes: all.slice(i, i + 500), endsAt: (i / 500 + 1) * 8123.4, stalls: i === 0 ? [all[0]] : [] });
  return {
    uid,
    namespace: 'default',
    name: uid,
    template: { spec: { containers: [{ name: 'c', image }] } },
    madeAt,
    source: 'review',
    budget: `maxUnavailable 500 of ${nodes}`,
    p10: 60_000,
    p50: 72_000,
    p90: 91_000,
    completes: true,
    paceSource: "this DaemonSet's last rollout",
    waves,
    nodeFinish: Object.fromEntries(all.map((n, i) => [n, 4000 + i * 13.37])),
  };
}

function outcome(nodes: number): Outcome {
  const start = T0 + 5000;
  // The last node's pod was created but is not available yet; the node after it has no pod.
  const all = names(nodes);
  return { start, nodes: Object.fromEntries(all.slice(0, -1).map((n, i) => [n, i === nodes - 2 ? { created: start + i * 9 } : { created: start + i * 9, available: start + i * 9 + 4000 }])), finishedAt: start + 80_000 };
}

/** What a page loaded afterwards reads: the module's copy dropped, as another tab's write does. */
const reload = () => window.dispatchEvent(new StorageEvent('storage', { key: null }));

beforeEach(() => {
  localStorage.clear();
  reload();
});

describe('the plans kept in local storage', () => {
  it('are stored compactly and read back as they were (finish times to the ms)', () => {
    const r = { ...record('ds-a', 'agent:2', 5000), outcome: outcome(5000) };
    const stored = JSON.stringify(encodeRecord(r));
    // One array of names, times as numbers: about a third of the record as it is in memory.
    expect(stored.length).toBeLessThan(JSON.stringify(r).length / 2.5);
    const back = decodeRecord(JSON.parse(stored));
    expect(back.outcome).toEqual(r.outcome);
    expect(back.waves).toEqual(r.waves);
    expect(Object.keys(back.nodeFinish)).toEqual(Object.keys(r.nodeFinish));
    for (const n of ['sim-node-00001', 'sim-node-02500', 'sim-node-05000']) expect(Math.abs(back.nodeFinish[n] - r.nodeFinish[n])).toBeLessThanOrEqual(0.5);
    expect({ ...back, nodeFinish: undefined, waves: undefined, outcome: undefined }).toEqual({ ...r, nodeFinish: undefined, waves: undefined, outcome: undefined });
  });

  it('keep the newest when the storage is full: the oldest records go', () => {
    // Twenty 10,000-node plans with their outcomes do not fit in 5,000,000 characters.
    for (let i = 0; i < 20; i++) {
      savePlan(record(`ds-${i}`, 'agent:2', 10_000, T0 + i));
      saveOutcome(`ds-${i}`, { spec: { containers: [{ name: 'c', image: 'agent:2' }] } }, outcome(10_000));
    }
    reload();
    const kept = Array.from({ length: 20 }, (_, i) => findPlan(`ds-${i}`, { spec: { containers: [{ name: 'c', image: 'agent:2' }] } }));
    expect(kept[19]?.outcome?.finishedAt).toBe(T0 + 5000 + 80_000);
    // The kept ones are the newest, in a row.
    const first = kept.findIndex(Boolean);
    expect(first).toBeGreaterThan(0);
    expect(kept.slice(first).every(Boolean)).toBe(true);
  });

  it('keep twenty at most, one per DaemonSet and template, newest first', () => {
    for (let i = 0; i < 22; i++) savePlan(record('ds-a', `agent:${i}`, 3, T0 + i));
    savePlan(record('ds-a', 'agent:21', 3, T0 + 100));
    reload();
    const plans = plansOf('ds-a');
    expect(plans.map((p) => (p.template as any).spec.containers[0].image)).toEqual(['agent:21', ...Array.from({ length: 19 }, (_, i) => `agent:${20 - i}`)]);
    expect(plans[0].madeAt).toBe(T0 + 100);
    // onlyIfAbsent leaves the one kept.
    savePlan(record('ds-a', 'agent:21', 3, T0 + 200), true);
    expect(findPlan('ds-a', { spec: { containers: [{ name: 'c', image: 'agent:21' }] } })?.madeAt).toBe(T0 + 100);
  });

  it('kept before as one array are moved to keys of their own', () => {
    const old = [record('ds-a', 'agent:1', 3, T0), { ...record('ds-b', 'agent:1', 3, T0 + 1), outcome: outcome(3) }];
    localStorage.setItem('kube-workbench.rollout-plans', JSON.stringify(old));
    reload();
    expect(findPlan('ds-b', old[1].template)).toEqual({ ...old[1], nodeFinish: { 'sim-node-00001': 4000, 'sim-node-00002': 4013, 'sim-node-00003': 4027 } });
    expect(localStorage.getItem('kube-workbench.rollout-plans')).toBeNull();
    reload();
    expect(plansOf('ds-a')).toHaveLength(1);
  });
});
