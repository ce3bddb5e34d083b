// The fast engine against the naive pairwise evaluator on random clusters:
// every pod pair, several ports and protocols, plus single pairs with
// addresses outside the pods.
import { describe, expect, it } from 'vitest';
import { AnalysisMemo, analyzeReachability, diffMatrices, diffPairs } from './index.ts';
import { naiveAllowed, naiveContext, naiveMatrix, peerMatches, selects } from './naive.ts';
import { rng } from './test-helpers.ts';
import { randomCluster } from './random-cluster.ts';
import { matrixAllowed, type Endpoint, type PodLike } from './types.ts';

describe('fast engine equals the naive evaluator', () => {
  it('on 200 random clusters, every pair, several ports and protocols', () => {
    let pairs = 0;
    let allowedPairs = 0;
    let ownNodePairs = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const input = randomCluster(seed);
      const engine = analyzeReachability(input);
      const ctx = naiveContext(input);
      for (const [p, proto] of [
        [80, 'TCP'],
        [53, 'UDP'],
        [8080, 'TCP'],
        [81, 'SCTP'],
        [300, 'TCP'],
      ] as const) {
        const fast = engine.matrix(p, proto);
        const slow = naiveMatrix(ctx, p, proto);
        expect(fast.pods).toEqual(slow.pods);
        if (!fast.bits.every((w, i) => w === slow.bits[i])) {
          const n = fast.pods.length;
          for (let i = 0; i < n; i++)
            for (let j = 0; j < n; j++) {
              const a = (fast.bits[i * fast.rowWords + (j >>> 5)] >>> (j & 31)) & 1;
              const b = (slow.bits[i * slow.rowWords + (j >>> 5)] >>> (j & 31)) & 1;
              expect({ seed, port: p, proto, from: fast.pods[i], to: fast.pods[j], fast: a }).toEqual({ seed, port: p, proto, from: fast.pods[i], to: fast.pods[j], fast: b });
            }
        }
        pairs += fast.pods.length ** 2;
        for (const w of fast.bits) allowedPairs += w.toString(2).split('1').length - 1;
        // Read through the classes and the own-node pairs (as the app reads a big cluster), the same answer.
        const n = fast.pods.length;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (matrixAllowed(fast, i, j) !== (((slow.bits[i * slow.rowWords + (j >>> 5)] >>> (j & 31)) & 1) === 1)) expect({ seed, i, j }).toBe('agreeing');
        ownNodePairs += fast.ownNode.length;
      }
    }
    // The generator must produce both outcomes in quantity, or the test proves little.
    expect(allowedPairs).toBeGreaterThan(pairs * 0.2);
    expect(allowedPairs).toBeLessThan(pairs * 0.9);
    expect(ownNodePairs).toBeGreaterThan(0);
  });

  it('diffs of 120 random edits list the pairs the pod matrices say changed, own-node pairs included', () => {
    let changed = 0;
    let ownNode = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const input = randomCluster(seed);
      // The edit: the cluster's policies against every other one of them dropped and another cluster's added.
      const edited = { ...input, policies: [...input.policies.filter((_, i) => i % 2 === 0), ...randomCluster(seed + 1000).policies] };
      for (const [port, protocol] of [[80, 'TCP'], [53, 'UDP']] as const) {
        const before = analyzeReachability(input).matrix(port, protocol);
        const after = analyzeReachability(edited).matrix(port, protocol);
        const d = diffMatrices(before, after);
        const n = d.pods.length;
        const bit = (m: typeof before, i: number, j: number) => ((m.bits[i * m.rowWords + (j >>> 5)] >>> (j & 31)) & 1) === 1;
        const expected = { newlyAllowed: [] as string[], newlyDenied: [] as string[] };
        // The pods are the same, in the same order, before and after.
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) {
            if (bit(before, i, j) === bit(after, i, j)) continue;
            expected[bit(after, i, j) ? 'newlyAllowed' : 'newlyDenied'].push(`${d.pods[i].name}->${d.pods[j].name}`);
          }
        const listed = (which: 'newlyAllowed' | 'newlyDenied') => diffPairs(d, which, Infinity).map((p) => `${p.from.name}->${p.to.name}`);
        expect({ seed, port, allowed: listed('newlyAllowed'), denied: listed('newlyDenied') }).toEqual({ seed, port, allowed: expected.newlyAllowed, denied: expected.newlyDenied });
        expect([d.newlyAllowedCount, d.newlyDeniedCount]).toEqual([expected.newlyAllowed.length, expected.newlyDenied.length]);
        changed += expected.newlyAllowed.length + expected.newlyDenied.length;
        ownNode += d.ownBefore.size + d.ownAfter.size;
      }
    }
    // The generator must make edits that change pairs, own-node ones among them, or the test proves little.
    expect(changed).toBeGreaterThan(1000);
    expect(ownNode).toBeGreaterThan(0);
  });

  it('single pairs, addresses outside the pods included', () => {
    const outside = ['203.0.113.7', '192.168.0.1', '192.168.0.2', '10.0.0.200', '8.8.8.8', 'fd00::ff:1', '2001:db8::1', 'fd00::1'];
    for (let seed = 1000; seed < 1100; seed++) {
      const input = randomCluster(seed);
      const engine = analyzeReachability(input);
      const ctx = naiveContext(input);
      const r = rng(seed);
      const endpoints: Endpoint[] = [...engine.pods, ...outside.map((ip) => ({ ip })), ...input.pods.filter((p) => p.status?.podIP).map((p) => ({ ip: p.status!.podIP! }))];
      for (let k = 0; k < 60; k++) {
        const from = r.pick(endpoints);
        const to = r.pick(endpoints);
        const [p, proto] = r.pick([
          [80, 'TCP'],
          [53, 'UDP'],
          [443, 'SCTP'],
        ] as const);
        expect({ seed, from, to, p, proto, allowed: engine.allowed(from, to, p, proto) }).toEqual({ seed, from, to, p, proto, allowed: naiveAllowed(ctx, from, to, p, proto) });
        expect(engine.explain(from, to, p, proto).allowed).toBe(naiveAllowed(ctx, from, to, p, proto));
      }
    }
  });

  it('policy summaries: selected pods and pods per peer', () => {
    for (let seed = 2000; seed < 2100; seed++) {
      const input = randomCluster(seed);
      const summaries = analyzeReachability(input).policies();
      const ctx = naiveContext(input);
      const pods = ctx.model.pods;
      expect(summaries.length).toBe(ctx.policies.length);
      summaries.forEach((s, pi) => {
        const np = ctx.policies[pi];
        expect(s.selects).toEqual(pods.filter((p) => selects(np, p)).map((p) => p.index));
        for (const [direction, rules] of [['ingress', np.ingress], ['egress', np.egress]] as const) {
          const got = s[direction];
          if (!np.types.includes(direction)) {
            expect(got).toBeUndefined();
            continue;
          }
          rules.forEach((r, ri) => {
            if (r.peers === null) expect(got![ri].peers).toBeNull();
            else
              r.peers.forEach((peer, k) => {
                const want = pods.filter((p) => peerMatches(peer, np.ref.namespace, { pod: p, ips: p.ips, text: '' })).map((p) => p.index);
                expect({ seed, pi, direction, ri, k, pods: got![ri].peers![k].pods }).toEqual({ seed, pi, direction, ri, k, pods: want });
              });
          });
        }
      });
    }
  });
});

describe('analyses sharing a memo (the live page changes a few pods at a time)', () => {
  it('answer as a fresh analysis through runs of changes to pods, namespaces and policies, with edits analysed in between', () => {
    const ports = [[80, 'TCP'], [53, 'UDP'], [8080, 'TCP']] as const;
    const same = (a: ReturnType<typeof analyzeReachability>, b: ReturnType<typeof analyzeReachability>, where: object) => {
      expect({ ...where, pods: a.pods, classes: a.classCount }).toEqual({ ...where, pods: b.pods, classes: b.classCount });
      for (const [p, proto] of ports) {
        const x = a.matrix(p, proto);
        const y = b.matrix(p, proto);
        expect({ ...where, p, bits: [...x.bits], own: [...x.ownNode] }).toEqual({ ...where, p, bits: [...y.bits], own: [...y.ownNode] });
      }
    };
    let kept = 0;
    let remade = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const r = rng(seed + 5000);
      const memo = new AnalysisMemo();
      let input = randomCluster(seed);
      for (let step = 0; step < 8; step++) {
        same(analyzeReachability(input, memo), analyzeReachability(input), { seed, step });
        // An edit of the policies analysed beside the live ones (another context for the memo).
        const edited = { ...input, policies: [...input.policies.slice(1), ...randomCluster(seed * 100 + step).policies.slice(0, 2)] };
        same(analyzeReachability(edited, memo), analyzeReachability(edited), { seed, step, edited: true });
        // What a watch brings: some pods replaced by new objects (new addresses, labels or ports), some gone, the rest the same objects.
        const other = randomCluster(seed * 1000 + step).pods;
        const pods = input.pods.flatMap((p, i): PodLike[] => {
          if (r.chance(0.1)) return [];
          if (!r.chance(0.25)) return [p];
          remade++;
          const o = other[i % other.length];
          return [{ ...o, metadata: { ...o.metadata, namespace: p.metadata.namespace, name: p.metadata.name } }];
        });
        kept += pods.filter((p) => input.pods.includes(p)).length;
        input = {
          ...input,
          pods: r.chance(0.3) ? [...pods, ...other.slice(0, 2).map((o, k) => ({ ...o, metadata: { ...o.metadata, name: `new-${step}-${k}` } }))] : pods,
          namespaces: r.chance(0.2) ? randomCluster(seed * 7 + step).namespaces : input.namespaces,
          policies: r.chance(0.3) ? randomCluster(seed * 13 + step).policies : input.policies,
        };
      }
    }
    // Both kinds of pod, or the test proves little.
    expect(kept).toBeGreaterThan(1000);
    expect(remade).toBeGreaterThan(300);
  });
});
