// diffMatrices: what a policy edit changes, for the what-if view.
import { describe, expect, it } from 'vitest';
import { analyzeReachability, diffMatrices, diffPairs } from './index.ts';
import { ns, node, pod, policy } from './test-helpers.ts';
import type { PodLike } from './types.ts';

const base = {
  namespaces: [ns('a'), ns('b')],
  nodes: [node('n1', '192.168.0.1')],
  pods: [pod('a', 'web', { app: 'web' }, { ip: '10.0.0.1' }), pod('a', 'db', { app: 'db' }, { ip: '10.0.0.2' }), pod('b', 'client', { app: 'client' }, { ip: '10.0.0.3' })],
};
const names = (pairs: { from: { namespace: string; name: string }; to: { namespace: string; name: string } }[]) => pairs.map((p) => `${p.from.namespace}/${p.from.name}->${p.to.namespace}/${p.to.name}`).sort();

describe('diffMatrices', () => {
  const dbFromWeb = policy('a', 'db', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] });

  it('lists newly denied and newly allowed pairs of an edit', () => {
    const before = analyzeReachability({ ...base, policies: [] }).matrix(80);
    const after = analyzeReachability({ ...base, policies: [dbFromWeb] }).matrix(80);
    const d = diffMatrices(before, after);
    expect(d.newlyAllowedCount).toBe(0);
    expect(d.newlyDeniedCount).toBe(2);
    expect(names(diffPairs(d, 'newlyDenied'))).toEqual(['a/db->a/db', 'b/client->a/db']);
    expect(diffPairs(d, 'newlyAllowed')).toEqual([]);
    // The reverse edit.
    const back = diffMatrices(after, before);
    expect(back.newlyDeniedCount).toBe(0);
    expect(names(diffPairs(back, 'newlyAllowed'))).toEqual(['a/db->a/db', 'b/client->a/db']);
    // Editing the policy to admit namespace b instead of web: both kinds at once.
    const edited = policy('a', 'db', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'b' } } }] }] });
    const d2 = diffMatrices(after, analyzeReachability({ ...base, policies: [edited] }).matrix(80));
    expect(names(diffPairs(d2, 'newlyAllowed'))).toEqual(['b/client->a/db']);
    expect(names(diffPairs(d2, 'newlyDenied'))).toEqual(['a/web->a/db']);
    expect(diffPairs(structuredClone(d2), 'newlyAllowed')).toEqual(diffPairs(d2, 'newlyAllowed'));
  });

  it('compares by pod name when the pod lists differ, and reports added and removed pods', () => {
    const before = analyzeReachability({ ...base, policies: [dbFromWeb] }).matrix(80);
    const pods = [...base.pods.filter((p) => p.metadata.name !== 'web'), pod('a', 'aaa', { app: 'web' }, { ip: '10.0.0.9' })];
    const after = analyzeReachability({ ...base, pods, policies: [] }).matrix(80);
    const d = diffMatrices(before, after);
    expect(d.pods.map((p) => p.name)).toEqual(['db', 'client']);
    expect(d.addedPods).toEqual([{ namespace: 'a', name: 'aaa' }]);
    expect(d.removedPods).toEqual([{ namespace: 'a', name: 'web' }]);
    expect(names(diffPairs(d, 'newlyAllowed'))).toEqual(['a/db->a/db', 'b/client->a/db']);
    expect(d.newlyDeniedCount).toBe(0);
  });

  it('refuses to compare different ports, and limits listed pairs', () => {
    const a = analyzeReachability({ ...base, policies: [] });
    expect(() => diffMatrices(a.matrix(80), a.matrix(81))).toThrow(/cannot compare/);
    expect(() => diffMatrices(a.matrix(80), a.matrix(80, 'UDP'))).toThrow(/cannot compare/);
    const d = diffMatrices(a.matrix(80), analyzeReachability({ ...base, policies: [policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })] }).matrix(80));
    expect(d.newlyDeniedCount).toBe(6);
    expect(diffPairs(d, 'newlyDenied', 4)).toHaveLength(4);
  });

  it('stays compact for a deny-all over 3000 pods: its size follows the classes, not the pairs', () => {
    const pods: PodLike[] = Array.from({ length: 3000 }, (_, i) => pod('a', `p${String(i).padStart(4, '0')}`, { app: `app${i % 40}` }, { ip: `10.1.${i >> 8}.${i & 255}` }));
    const input = { ...base, pods };
    const before = analyzeReachability({ ...input, policies: [] }).matrix(80);
    const after = analyzeReachability({ ...input, policies: [policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })] }).matrix(80);
    const t0 = performance.now();
    const d = diffMatrices(before, after);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(d.newlyDeniedCount).toBe(3000 * 3000);
    expect(d.members.length).toBe(1);
    expect(diffPairs(d, 'newlyDenied', 3)).toHaveLength(3);
  });
});
