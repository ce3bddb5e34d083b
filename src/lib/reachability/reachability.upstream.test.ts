// Scenarios of upstream's NetworkPolicy e2e suite, on its model: namespaces
// x, y, z (labelled ns=<name>) with pods a, b, c (labelled pod=<name>), each
// serving 80 and 81 on TCP, UDP and SCTP. Each case states the expected truth
// table as its denied pairs. Upstream treats a pod reaching itself as always
// allowed (loopback), so the diagonal is left out here; the engine decides it
// like any other pair (see reachability.test.ts).
import { describe, expect, it } from 'vitest';
import { analyzeReachability } from './index.ts';
import { naiveContext, naiveMatrix } from './naive.ts';
import { allExcept, allowedPairs, policy, ref, upstreamModel } from './test-helpers.ts';
import type { NetworkPolicyLike, NetworkPolicyPeerLike, Protocol } from './types.ts';

const inNs = (p: string, n: string) => p.startsWith(`${n}/`);
const offDiagonal = (s: Set<string>) => new Set([...s].filter((pair) => pair.split('->')[0] !== pair.split('->')[1]));

function expectTable(policies: NetworkPolicyLike[], port: number, protocol: Protocol, denied: (from: string, to: string) => boolean) {
  const input = { ...upstreamModel(), policies };
  const m = analyzeReachability(input).matrix(port, protocol);
  expect(offDiagonal(allowedPairs(m))).toEqual(offDiagonal(allExcept(denied)));
  // The oracle agrees, diagonal included.
  expect(allowedPairs(m)).toEqual(allowedPairs(naiveMatrix(naiveContext(input), port, protocol)));
}

const podA = { matchLabels: { pod: 'a' } };
const nsY: NetworkPolicyPeerLike = { namespaceSelector: { matchLabels: { ns: 'y' } } };
const dnsEgress = { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] };

describe('upstream e2e model', () => {
  it('with no policies everything is allowed', () => {
    for (const proto of ['TCP', 'UDP', 'SCTP'] as const) expectTable([], 80, proto, () => false);
  });

  it("default-deny-ingress: nothing reaches x's pods", () => {
    const p = policy('x', 'deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] });
    expectTable([p], 80, 'TCP', (_, to) => inNs(to, 'x'));
    expectTable([p], 81, 'UDP', (_, to) => inNs(to, 'x'));
  });

  it("default-deny-all: x's pods neither send nor receive", () => {
    const p = policy('x', 'deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    expectTable([p], 80, 'TCP', (from, to) => inNs(to, 'x') || inNs(from, 'x'));
  });

  it('allow from pods within the namespace by podSelector', () => {
    const p = policy('x', 'x-a-from-x-b', { podSelector: podA, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] });
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && from !== 'x/b');
  });

  it('allow from same namespace (podSelector {} peer)', () => {
    const p = policy('x', 'allow-same-ns', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] });
    expectTable([p], 80, 'TCP', (from, to) => inNs(to, 'x') && !inNs(from, 'x'));
  });

  it('allow only from another namespace by namespaceSelector (matchLabels, matchExpressions, default name label)', () => {
    const denied = (from: string, to: string) => to === 'x/a' && !inNs(from, 'y');
    expectTable([policy('x', 'p', { podSelector: podA, ingress: [{ from: [nsY] }] })], 80, 'TCP', denied);
    expectTable([policy('x', 'p', { podSelector: podA, ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'ns', operator: 'In', values: ['y'] }] } }] }] })], 80, 'TCP', denied);
    expectTable([policy('x', 'p', { podSelector: podA, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }] })], 80, 'TCP', denied);
  });

  it('podSelector with matchExpressions', () => {
    const p = policy('x', 'p', { podSelector: podA, ingress: [{ from: [{ podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['b'] }] } }] }] });
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && from !== 'x/b');
  });

  it('podSelector OR namespaceSelector (two peers)', () => {
    const p = policy('x', 'p', {
      podSelector: podA,
      ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'ns', operator: 'NotIn', values: ['x'] }] } }, { podSelector: { matchLabels: { pod: 'b' } } }] }],
    });
    // Allowed into x/a: every pod of y and z, and x/b.
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && inNs(from, 'x') && from !== 'x/b');
  });

  it('podSelector AND namespaceSelector (one peer)', () => {
    const p = policy('x', 'p', {
      podSelector: podA,
      ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'ns', operator: 'NotIn', values: ['x'] }] }, podSelector: { matchLabels: { pod: 'b' } } }] }],
    });
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && from !== 'y/b' && from !== 'z/b');
  });

  it('several pod and namespace values in one peer', () => {
    const p = policy('x', 'p', {
      podSelector: podA,
      ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'ns', operator: 'NotIn', values: ['x'] }] }, podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['b', 'c'] }] } }] }],
    });
    const ok = new Set(['y/b', 'y/c', 'z/b', 'z/c']);
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && !ok.has(from));
  });

  it('a pod of one namespace only: ns=y AND pod=a', () => {
    const p = policy('x', 'p', { podSelector: podA, ingress: [{ from: [{ ...nsY, podSelector: podA }] }] });
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && from !== 'y/a');
  });

  it('by port: only 81 from y', () => {
    const p = policy('x', 'p', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ port: 81, protocol: 'TCP' }] }] });
    expectTable([p], 80, 'TCP', (_, to) => to === 'x/a');
    expectTable([p], 81, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
  });

  it('stacked policies with overlapping podSelectors add up', () => {
    const p80 = policy('x', 'p80', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ port: 80 }] }] });
    const p81 = policy('x', 'p81', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ port: 81 }] }] });
    expectTable([p80], 81, 'TCP', (_, to) => to === 'x/a');
    expectTable([p80, p81], 81, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
    expectTable([p80, p81], 80, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
  });

  it('allow-all ingress ({} rule) and allow-all taking precedence over a narrower policy', () => {
    const allowAll = policy('x', 'allow-all', { podSelector: {}, ingress: [{}] });
    const narrow = policy('x', 'narrow', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ port: 80 }] }] });
    expectTable([allowAll], 80, 'TCP', () => false);
    expectTable([narrow], 81, 'TCP', (_, to) => to === 'x/a');
    expectTable([narrow, allowAll], 81, 'TCP', () => false);
  });

  it('egress allow-all taking precedence over a narrower egress policy', () => {
    const narrow = policy('x', 'narrow', { podSelector: podA, policyTypes: ['Egress'], egress: [{ to: [nsY], ports: [{ port: 80 }] }] });
    const allowAll = policy('x', 'allow-all-egress', { podSelector: {}, policyTypes: ['Egress'], egress: [{}] });
    expectTable([narrow], 80, 'TCP', (from, to) => from === 'x/a' && !inNs(to, 'y'));
    expectTable([narrow, allowAll], 81, 'TCP', () => false);
  });

  it('ingress on one named port, from everywhere or from a namespace', () => {
    const named = policy('x', 'p', { podSelector: {}, ingress: [{ ports: [{ port: 'serve-81-tcp' }] }] });
    expectTable([named], 81, 'TCP', () => false);
    expectTable([named], 80, 'TCP', (_, to) => inNs(to, 'x'));
    const fromY = policy('x', 'p', { podSelector: {}, ingress: [{ from: [nsY], ports: [{ port: 'serve-80-tcp' }] }] });
    expectTable([fromY], 80, 'TCP', (from, to) => inNs(to, 'x') && !inNs(from, 'y'));
    expectTable([fromY], 81, 'TCP', (_, to) => inNs(to, 'x'));
  });

  it('egress on one named port (with the DNS exception)', () => {
    const p = policy('x', 'p', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-tcp' }] }, dnsEgress] });
    expectTable([p], 80, 'TCP', () => false);
    expectTable([p], 81, 'TCP', (from) => inNs(from, 'x'));
    expectTable([p], 53, 'UDP', () => false);
  });

  it("deny ingress from other namespaces", () => {
    const p = policy('x', 'p', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] });
    expectTable([p], 80, 'TCP', (from, to) => inNs(to, 'x') && !inNs(from, 'x'));
  });

  it('deny egress of one pod, and of a whole namespace', () => {
    expectTable([policy('x', 'p', { podSelector: podA, policyTypes: ['Egress'] })], 80, 'TCP', (from) => from === 'x/a');
    expectTable([policy('x', 'p', { podSelector: {}, policyTypes: ['Egress'] })], 80, 'TCP', (from) => inNs(from, 'x'));
  });

  it('deny-all egress with DNS exceptions lets only DNS through', () => {
    const p = policy('x', 'p', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: {} }], ...dnsEgress }] });
    expectTable([p], 53, 'UDP', () => false);
    expectTable([p], 53, 'TCP', () => false);
    expectTable([p], 80, 'TCP', (from) => inNs(from, 'x'));
    expectTable([p], 53, 'SCTP', (from) => inNs(from, 'x'));
  });

  it('ingress and egress specified together', () => {
    const p = policy('x', 'p', {
      podSelector: podA,
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }],
      egress: [{ to: [nsY], ports: [{ port: 80 }] }, dnsEgress],
    });
    expectTable([p], 80, 'TCP', (from, to) => (to === 'x/a' && from !== 'x/b') || (from === 'x/a' && !inNs(to, 'y')));
    expectTable([p], 81, 'TCP', (from, to) => (to === 'x/a' && from !== 'x/b') || from === 'x/a');
  });

  it("the client's egress denies even when the server's ingress allows", () => {
    const client = policy('x', 'client', { podSelector: podA, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: { matchLabels: { ns: 'y' } }, podSelector: podA }] }] });
    const server = policy('y', 'server', { podSelector: { matchLabels: { pod: 'b' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'x' } }, podSelector: podA }] }] });
    // x/a may only reach y/a; y/b only admits x/a (which may not send to it).
    expectTable([client, server], 80, 'TCP', (from, to) => (from === 'x/a' && to !== 'y/a') || (to === 'y/b' && from !== 'x/a'));
  });

  it('egress to a server in another namespace by podSelector AND namespaceSelector', () => {
    const p = policy('x', 'p', { podSelector: podA, policyTypes: ['Egress'], egress: [{ to: [{ ...nsY, podSelector: { matchLabels: { pod: 'b' } } }], ports: [{ port: 80 }] }, dnsEgress] });
    expectTable([p], 80, 'TCP', (from, to) => from === 'x/a' && to !== 'y/b');
  });

  it('any port on one protocol', () => {
    const p = policy('x', 'p', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ protocol: 'TCP' }] }] });
    expectTable([p], 81, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
    expectTable([p], 80, 'UDP', (_, to) => to === 'x/a');
  });

  it('SCTP is not TCP, and UDP-only denies TCP', () => {
    const sctp = policy('x', 'p', { podSelector: podA, ingress: [{ ports: [{ protocol: 'SCTP', port: 80 }] }] });
    expectTable([sctp], 80, 'SCTP', () => false);
    expectTable([sctp], 80, 'TCP', (_, to) => to === 'x/a');
    const udp = policy('x', 'p', { podSelector: podA, ingress: [{ ports: [{ protocol: 'UDP', port: 81 }] }] });
    expectTable([udp], 81, 'UDP', () => false);
    expectTable([udp], 81, 'TCP', (_, to) => to === 'x/a');
  });

  it('ingress and egress policies controlled independently by podSelector', () => {
    const egressB = policy('x', 'deny-egress-b', { podSelector: { matchLabels: { pod: 'b' } }, policyTypes: ['Egress'] });
    const ingressA = policy('x', 'deny-ingress-a', { podSelector: podA, policyTypes: ['Ingress'] });
    expectTable([egressB, ingressA], 80, 'TCP', (from, to) => from === 'x/b' || to === 'x/a');
  });

  it('egress to a CIDR, with except, and an address in a cidr and in another policy except is allowed', () => {
    // Pod IPs: x/a .1, x/b .2, x/c .3, y/a .4, y/b .5, y/c .6, z/a .7, z/b .8, z/c .9
    const toYB = policy('x', 'to-y-b', { podSelector: podA, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.5/32' } }] }, dnsEgress] });
    expectTable([toYB], 80, 'TCP', (from, to) => from === 'x/a' && to !== 'y/b');
    const except = policy('x', 'except', { podSelector: podA, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/24', except: ['10.0.0.5/32'] } }] }] });
    expectTable([except], 80, 'TCP', (from, to) => from === 'x/a' && to === 'y/b');
    expectTable([except, toYB], 80, 'TCP', () => false);
  });

  it('endPort: a range of ports', () => {
    const p = policy('x', 'p', { podSelector: podA, ingress: [{ from: [nsY], ports: [{ port: 80, endPort: 81 }] }] });
    expectTable([p], 80, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
    expectTable([p], 81, 'TCP', (from, to) => to === 'x/a' && !inNs(from, 'y'));
    expectTable([p], 82, 'TCP', (_, to) => to === 'x/a');
  });

  it('allowed() and explain() on the model name the policy and rule', () => {
    const input = { ...upstreamModel(), policies: [policy('x', 'allow-y', { podSelector: podA, ingress: [{ from: [{ podSelector: {} }] }, { from: [nsY], ports: [{ port: 80 }] }] })] };
    const r = analyzeReachability(input);
    expect(r.allowed(ref('y/b'), ref('x/a'), 80)).toBe(true);
    expect(r.allowed(ref('y/b'), ref('x/a'), 81)).toBe(false);
    const e = r.explain(ref('y/b'), ref('x/a'), 80);
    expect(e.ingress.allowedBy).toEqual([{ namespace: 'x', name: 'allow-y', direction: 'ingress', rule: 1, peer: 0, port: 0 }]);
    expect(e.ingress.isolatedBy).toEqual([{ namespace: 'x', name: 'allow-y' }]);
    expect(e.egress.isolatedBy).toEqual([]);
  });
});
