// Fix search: every proposal achieves the wanted verdict and changes exactly
// the cells each test states, checked here with matrices computed
// independently of the proposal's own effect, at every port region.
import { describe, expect, it } from 'vitest';
import { analyzeReachability, evaluateIntents, probePorts, proposeIntentFix, proposePairFix, type FixProposal, type Intent, type NetworkPolicyLike, type ReachabilityInput } from './index.ts';
import { allowedPairs, pod, policy, ref, rng, upstreamModel } from './test-helpers.ts';

const cluster = (policies: NetworkPolicyLike[] = []): ReachabilityInput => ({ ...upstreamModel(), policies });

/** The policies after applying a proposal's changes. */
function applied(input: ReachabilityInput, fix: FixProposal): ReachabilityInput {
  const key = (p: NetworkPolicyLike) => `${p.metadata.namespace}/${p.metadata.name}`;
  const byKey = new Map(input.policies.map((p) => [key(p), p]));
  for (const c of fix.changes) byKey.set(key(c.policy), c.policy);
  return { ...input, policies: [...byKey.values()] };
}

/** Every cell that differs between the two clusters, as "from->to@PROTO/port" at each probe port. */
function changedCells(before: ReachabilityInput, after: ReachabilityInput): { allowed: string[]; denied: string[] } {
  const a0 = analyzeReachability(before);
  const a1 = analyzeReachability(after);
  const out = { allowed: [] as string[], denied: [] as string[] };
  for (const p of probePorts([before.policies, after.policies], before.pods)) {
    const b = allowedPairs(a0.matrix(p.port, p.protocol));
    const a = allowedPairs(a1.matrix(p.port, p.protocol));
    for (const x of a) if (!b.has(x)) out.allowed.push(`${x}@${p.protocol}/${p.port}`);
    for (const x of b) if (!a.has(x)) out.denied.push(`${x}@${p.protocol}/${p.port}`);
  }
  return out;
}

function check(input: ReachabilityInput, fix: FixProposal, expected: { allowed?: string[]; denied?: string[] }) {
  expect(fix.achieved).toBe(true);
  const cells = changedCells(input, applied(input, fix));
  expect(cells.allowed.sort()).toEqual([...(expected.allowed ?? [])].sort());
  expect(cells.denied.sort()).toEqual([...(expected.denied ?? [])].sort());
  // The proposal's own effect says the same.
  expect(fix.effect.totalAllowed).toBe(cells.allowed.length);
  expect(fix.effect.totalDenied).toBe(cells.denied.length);
}

const denyAllIngressX = policy('x', 'deny-all', { podSelector: {}, ingress: [] });

describe('allowing a pair', () => {
  it('adds a rule to the policy isolating only the destination', () => {
    const onlyB = policy('x', 'b-from-a', { podSelector: { matchLabels: { pod: 'b' } }, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'a' } } }], ports: [{ port: 80 }] }] });
    const input = cluster([onlyB]);
    const fix = proposePairFix(input, ref('x/c'), ref('x/b'), 80, 'TCP', 'allowed');
    check(input, fix, { allowed: ['x/c->x/b@TCP/80'] });
    expect(fix.changes).toHaveLength(1);
    expect(fix.changes[0].action).toBe('update');
    expect(fix.changes[0].policy.spec!.ingress![1]).toEqual({ from: [{ podSelector: { matchLabels: { pod: 'c' } } }], ports: [{ protocol: 'TCP', port: 80 }] });
  });

  it('creates a narrow policy when the isolating one selects the whole namespace (a rule there would open more)', () => {
    const input = cluster([denyAllIngressX]);
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 80, 'TCP', 'allowed');
    check(input, fix, { allowed: ['y/a->x/b@TCP/80'] });
    expect(fix.changes.map((c) => c.action)).toEqual(['create']);
    expect(fix.changes[0].policy.spec).toEqual({
      podSelector: { matchLabels: { pod: 'b' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } }, podSelector: { matchLabels: { pod: 'a' } } }], ports: [{ protocol: 'TCP', port: 80 }] }],
    });
  });

  it('opens both directions when egress and ingress both deny', () => {
    const egressY = policy('y', 'no-egress', { podSelector: {}, policyTypes: ['Egress'] });
    const input = cluster([denyAllIngressX, egressY]);
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 443, 'TCP', 'allowed');
    check(input, fix, { allowed: ['y/a->x/b@TCP/443'] });
    expect(fix.changes).toHaveLength(2);
  });
});

describe('denying a pair', () => {
  it('narrows the rule that lets it through, keeping every other source', () => {
    const open80 = policy('x', 'b-from-all', { podSelector: { matchLabels: { pod: 'b' } }, ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ port: 80 }] }] });
    const input = cluster([open80]);
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 80, 'TCP', 'denied');
    check(input, fix, { denied: ['y/a->x/b@TCP/80'] });
    expect(fix.changes[0].action).toBe('update');
  });

  it('without isolation: a new policy isolates the destination and admits everything but the pair on that port', () => {
    const input = cluster();
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 80, 'TCP', 'denied');
    check(input, fix, { denied: ['y/a->x/b@TCP/80'] });
    expect(fix.changes.map((c) => c.action)).toEqual(['create']);
    // Outside addresses lose access to the isolated pod: said, since no matrix cell shows it.
    expect(fix.notes.join()).toContain('addresses outside the cluster');
  });

  it('a pod with a superset of the source labels cannot be told apart and is denied too (and the effect says so)', () => {
    const base = upstreamModel();
    const twin = pod('y', 'a2', { pod: 'a', extra: 'yes' }, { ip: '10.0.0.99', node: 'node-1' });
    const input: ReachabilityInput = { ...base, pods: [...base.pods, twin], policies: [] };
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 80, 'TCP', 'denied');
    check(input, fix, { denied: ['y/a->x/b@TCP/80', 'y/a2->x/b@TCP/80'] });
    expect(fix.effect.newlyDenied.map((p) => p.from.name).sort()).toEqual(['a', 'a2']);
  });

  it('splits a rule covering more ports so the pair keeps the others', () => {
    const allPorts = policy('x', 'b-from-y', { podSelector: { matchLabels: { pod: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }] }] });
    const input = cluster([allPorts]);
    const fix = proposePairFix(input, ref('y/a'), ref('x/b'), 80, 'TCP', 'denied');
    check(input, fix, { denied: ['y/a->x/b@TCP/80'] });
  });
});

describe('fixing intents', () => {
  it('a violated allowed intent gets one rule with the intent\'s own selectors and is met', () => {
    const intent: Intent = { name: 'y-to-xa', expect: 'allowed', from: { namespace: 'y' }, to: { namespace: 'x', podSelector: { matchLabels: { pod: 'a' } } }, ports: [{ port: 80 }] };
    const input = cluster([denyAllIngressX]);
    expect(evaluateIntents(input, [intent])[0].status).toBe('violated');
    const fix = proposeIntentFix(input, intent);
    check(input, fix, { allowed: ['y/a->x/a@TCP/80', 'y/b->x/a@TCP/80', 'y/c->x/a@TCP/80'] });
    expect(evaluateIntents(applied(input, fix), [intent])[0].status).toBe('met');
  });

  it('a violated denied intent over every port is met and nothing else changes', () => {
    const intent: Intent = { name: 'z-not-to-x', expect: 'denied', from: { namespace: 'z' }, to: { namespace: 'x' } };
    const input = cluster();
    const fix = proposeIntentFix(input, intent);
    expect(evaluateIntents(applied(input, fix), [intent])[0].status).toBe('met');
    const cells = changedCells(input, applied(input, fix));
    expect(cells.allowed).toEqual([]);
    expect(new Set(cells.denied.map((c) => c.split('@')[0]))).toEqual(new Set(['z/a', 'z/b', 'z/c'].flatMap((f) => ['x/a', 'x/b', 'x/c'].map((t) => `${f}->${t}`))));
  });
});

describe('on random policies', () => {
  it('every proposed pair fix achieves its cell, and its stated effect is the real difference', () => {
    const r = rng(16);
    const labels = ['a', 'b', 'c'];
    for (let round = 0; round < 25; round++) {
      const policies: NetworkPolicyLike[] = [];
      for (let k = 0; k < 1 + r.int(3); k++) {
        const ns = r.pick(['x', 'y', 'z']);
        const peer = () => (r.chance(0.5) ? { podSelector: { matchLabels: { pod: r.pick(labels) } } } : { namespaceSelector: { matchLabels: { ns: r.pick(['x', 'y', 'z']) } } });
        const rule = () => ({ ...(r.chance(0.8) ? { from: [peer()] } : {}), ...(r.chance(0.6) ? { ports: [{ port: r.pick([80, 81]) }] } : {}) });
        const egress = () => ({ ...(r.chance(0.8) ? { to: [peer()] } : {}), ...(r.chance(0.6) ? { ports: [{ port: r.pick([80, 81]) }] } : {}) });
        policies.push(
          policy(ns, `p${k}`, {
            podSelector: r.chance(0.5) ? {} : { matchLabels: { pod: r.pick(labels) } },
            policyTypes: r.chance(0.3) ? ['Ingress', 'Egress'] : ['Ingress'],
            ingress: Array.from({ length: r.int(3) }, rule),
            egress: Array.from({ length: r.int(2) }, egress),
          }),
        );
      }
      const input = cluster(policies);
      const from = ref(`${r.pick(['x', 'y', 'z'])}/${r.pick(labels)}`);
      const to = ref(`${r.pick(['x', 'y', 'z'])}/${r.pick(labels)}`);
      const port = r.pick([80, 81, 443]);
      const now = analyzeReachability(input).allowed(from, to, port, 'TCP');
      const fix = proposePairFix(input, from, to, port, 'TCP', now ? 'denied' : 'allowed');
      expect(fix.achieved, JSON.stringify({ round, from, to, port, policies })).toBe(true);
      const after = applied(input, fix);
      expect(analyzeReachability(after).allowed(from, to, port, 'TCP')).toBe(!now);
      const cells = changedCells(input, after);
      expect(fix.effect.totalAllowed).toBe(cells.allowed.length);
      expect(fix.effect.totalDenied).toBe(cells.denied.length);
      // Allowing never denies anything, denying never allows anything.
      if (now) expect(cells.allowed).toEqual([]);
      else expect(cells.denied).toEqual([]);
    }
  });
});
