// NetworkPolicy semantics, corner by corner. Each case checks the public
// entry (allowed, matrix, explain) and, through `check`, that the fast matrix
// equals the naive evaluator's on the same cluster.
import { describe, expect, it } from 'vitest';
import { analyzeReachability, matrixAllowed, type Endpoint, type NetworkPolicyLike, type PodLike, type Protocol, type ReachabilityInput } from './index.ts';
import { naiveContext, naiveMatrix } from './naive.ts';
import { node, ns, pod, policy } from './test-helpers.ts';

const r = (s: string): Endpoint => (s.includes('/') ? { namespace: s.split('/')[0], name: s.split('/')[1] } : { ip: s });

function cluster(pods: PodLike[], policies: NetworkPolicyLike[], extra: Partial<ReachabilityInput> = {}): ReachabilityInput {
  const names = [...new Set(pods.map((p) => p.metadata.namespace!))];
  return { namespaces: names.map((n) => ns(n, { team: n })), pods, policies, nodes: [node('n1', '192.168.0.1'), node('n2', '192.168.0.2', 'fd00::ff:2')], ...extra };
}

/** An analysis whose matrices are checked against the naive evaluator whenever `allows` asks a pod pair. */
function check(input: ReachabilityInput) {
  const a = analyzeReachability(input);
  const ctx = naiveContext(input);
  const matrices = new Map<string, [ReturnType<typeof a.matrix>, ReturnType<typeof naiveMatrix>]>();
  return {
    a,
    allows(from: string, to: string, port = 80, protocol: Protocol = 'TCP'): boolean {
      const answer = a.allowed(r(from), r(to), port, protocol);
      expect(a.explain(r(from), r(to), port, protocol).allowed).toBe(answer);
      if (from.includes('/') && to.includes('/')) {
        const key = `${protocol}/${port}`;
        if (!matrices.has(key)) {
          const m = a.matrix(port, protocol);
          const slow = naiveMatrix(ctx, port, protocol);
          expect(Array.from(m.bits)).toEqual(Array.from(slow.bits));
          matrices.set(key, [m, slow]);
        }
        const m = matrices.get(key)![0];
        expect(matrixAllowed(m, a.indexOf(r(from) as never), a.indexOf(r(to) as never))).toBe(answer);
      }
      return answer;
    },
  };
}

const web = (n: string, name = 'web', ip = '10.0.0.10', extra: Parameters<typeof pod>[3] = {}) => pod(n, name, { app: 'web' }, { ip, node: 'n1', ...extra });
const db = (n: string, name = 'db', ip = '10.0.0.20', extra: Parameters<typeof pod>[3] = {}) => pod(n, name, { app: 'db' }, { ip, node: 'n1', ...extra });

describe('which pods a policy selects', () => {
  it("selects by podSelector in its own namespace only; empty or absent selects every pod there", () => {
    const pods = [web('a'), db('a'), web('b', 'web', '10.0.1.10'), db('b', 'db', '10.0.1.20')];
    const denyWebInA = policy('a', 'deny-web', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] });
    let c = check(cluster(pods, [denyWebInA]));
    expect(c.allows('b/db', 'a/web')).toBe(false);
    expect(c.allows('b/db', 'a/db')).toBe(true);
    expect(c.allows('a/db', 'b/web')).toBe(true); // same labels, other namespace: not selected
    const absent: NetworkPolicyLike = { metadata: { namespace: 'a', name: 'all' }, spec: { policyTypes: ['Ingress'] } };
    c = check(cluster(pods, [absent]));
    expect(c.allows('b/db', 'a/web')).toBe(false);
    expect(c.allows('b/db', 'a/db')).toBe(false);
    expect(c.allows('a/db', 'b/web')).toBe(true);
  });

  it('matchExpressions In, NotIn, Exists, DoesNotExist', () => {
    const pods = [
      pod('a', 'p1', { tier: 'fe' }, { ip: '10.0.0.1' }),
      pod('a', 'p2', { tier: 'be' }, { ip: '10.0.0.2' }),
      pod('a', 'p3', {}, { ip: '10.0.0.3' }),
      pod('a', 'client', { role: 'client' }, { ip: '10.0.0.4' }),
    ];
    const deny = (operator: string, values?: string[]) =>
      check(cluster(pods, [policy('a', 'p', { podSelector: { matchExpressions: [{ key: 'tier', operator, ...(values ? { values } : {}) }] }, policyTypes: ['Ingress'] })]));
    const isolated = (c: ReturnType<typeof check>) => ['a/p1', 'a/p2', 'a/p3'].filter((p) => !c.allows('a/client', p));
    expect(isolated(deny('In', ['fe']))).toEqual(['a/p1']);
    expect(isolated(deny('NotIn', ['fe']))).toEqual(['a/p2', 'a/p3']); // a missing key is "not in"
    expect(isolated(deny('Exists'))).toEqual(['a/p1', 'a/p2']);
    expect(isolated(deny('DoesNotExist'))).toEqual(['a/p3']);
    // And in peers: only pods without a tier label may reach p1.
    const c = check(cluster(pods, [policy('a', 'p', { podSelector: { matchLabels: { tier: 'fe' } }, ingress: [{ from: [{ podSelector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] } }] }] })]));
    expect(c.allows('a/client', 'a/p1')).toBe(true);
    expect(c.allows('a/p3', 'a/p1')).toBe(true);
    expect(c.allows('a/p2', 'a/p1')).toBe(false);
  });

  it('an invalid selector selects nothing and an invalid CIDR matches nothing', () => {
    const pods = [web('a'), db('a')];
    const bad = policy('a', 'bad', { podSelector: { matchExpressions: [{ key: 'app', operator: 'Near' }] }, policyTypes: ['Ingress'] });
    expect(check(cluster(pods, [bad])).allows('a/db', 'a/web')).toBe(true);
    const badCidr = policy('a', 'p', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ ipBlock: { cidr: 'not-a-cidr' } }] }] });
    expect(check(cluster(pods, [badCidr])).allows('a/db', 'a/web')).toBe(false);
  });
});

describe('policyTypes defaulting', () => {
  const pods = [web('a'), db('a')];
  const toDb = [{ to: [{ podSelector: { matchLabels: { app: 'db' } } }] }];
  it('egress rules without policyTypes isolate both directions', () => {
    const c = check(cluster(pods, [policy('a', 'p', { podSelector: { matchLabels: { app: 'web' } }, egress: toDb })]));
    expect(c.allows('a/web', 'a/db')).toBe(true);
    expect(c.allows('a/db', 'a/web')).toBe(false); // Ingress is always a type, here with no rules
    expect(c.allows('a/web', '8.8.8.8')).toBe(false);
  });
  it('ingress rules alone leave egress alone', () => {
    const c = check(cluster(pods, [policy('a', 'p', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: {} }] }] })]));
    expect(c.allows('a/web', '8.8.8.8')).toBe(true);
    expect(c.allows('8.8.8.8', 'a/web')).toBe(false);
    expect(c.allows('a/db', 'a/web')).toBe(true);
  });
  it('listed policyTypes win over the rules present', () => {
    const egressOnly = policy('a', 'p', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'], ingress: [], egress: toDb });
    let c = check(cluster(pods, [egressOnly]));
    expect(c.allows('a/db', 'a/web')).toBe(true); // ingress rules (none) ignored: not isolated for ingress
    expect(c.allows('a/web', 'a/db')).toBe(true);
    expect(c.allows('a/web', '1.1.1.1')).toBe(false);
    const ingressOnly = policy('a', 'p', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{}], egress: [] });
    c = check(cluster(pods, [ingressOnly]));
    expect(c.allows('a/web', '1.1.1.1')).toBe(true);
  });
});

describe('deny-all, allow-all, rules adding up', () => {
  const pods = [web('a'), db('a'), pod('b', 'client', { app: 'client' }, { ip: '10.0.1.5', node: 'n2' })];
  it('deny-all ingress and egress, allow-all by {} rules', () => {
    let c = check(cluster(pods, [policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] })]));
    expect(c.allows('b/client', 'a/web')).toBe(false);
    expect(c.allows('a/web', 'b/client')).toBe(false);
    expect(c.allows('a/web', 'a/db')).toBe(false);
    c = check(cluster(pods, [policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }), policy('a', 'allow', { podSelector: {}, ingress: [{}], egress: [{}] })]));
    expect(c.allows('b/client', 'a/web', 12345, 'SCTP')).toBe(true);
    expect(c.allows('a/web', '8.8.8.8', 53, 'UDP')).toBe(true);
  });
  it('empty from with ports = from anywhere on those ports; empty ports = every port and protocol', () => {
    let c = check(cluster(pods, [policy('a', 'p', { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] })]));
    expect(c.allows('b/client', 'a/web', 80)).toBe(true);
    expect(c.allows('203.0.113.1', 'a/web', 80)).toBe(true);
    expect(c.allows('b/client', 'a/web', 81)).toBe(false);
    c = check(cluster(pods, [policy('a', 'p', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }] }] })]));
    for (const [p, proto] of [[1, 'TCP'], [65535, 'UDP'], [9, 'SCTP']] as const) expect(c.allows('b/client', 'a/web', p, proto)).toBe(true);
    expect(c.allows('a/db', 'a/web')).toBe(false);
  });
  it('rules and policies add up (union), never subtract', () => {
    const fromClient = policy('a', 'from-client', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }], ports: [{ port: 5432 }] }] });
    const fromWeb = policy('a', 'from-web', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] });
    const denyAll = policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress'] });
    const c = check(cluster(pods, [fromClient, fromWeb, denyAll]));
    expect(c.allows('b/client', 'a/db', 5432)).toBe(true);
    expect(c.allows('b/client', 'a/db', 80)).toBe(false);
    expect(c.allows('a/web', 'a/db', 80)).toBe(true);
    expect(c.allows('a/db', 'a/web')).toBe(false);
    const e = c.a.explain(r('a/web'), r('a/db'), 5432);
    expect(e.ingress.isolatedBy.map((p) => p.name)).toEqual(['from-client', 'from-web', 'deny']);
    expect(e.ingress.allowedBy).toEqual([{ namespace: 'a', name: 'from-web', direction: 'ingress', rule: 0, peer: 0 }]);
  });
  it('needs both the source egress and the destination ingress', () => {
    const egress = policy('b', 'client-egress', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'web' } } }] }] });
    const ingress = policy('a', 'db-ingress', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ namespaceSelector: {} }] }] });
    const c = check(cluster(pods, [egress, ingress]));
    expect(c.allows('b/client', 'a/web')).toBe(true);
    expect(c.allows('b/client', 'a/db')).toBe(false); // db admits it, the client may not send
    const e = c.a.explain(r('b/client'), r('a/db'), 80);
    expect(e.egress.allowed).toBe(false);
    expect(e.ingress.allowed).toBe(true);
    expect(e.summary).toMatch(/egress denies it/);
  });
});

describe('peers', () => {
  const pods = [web('a'), db('a'), pod('b', 'web', { app: 'web' }, { ip: '10.0.1.10' }), pod('c', 'web', { app: 'web' }, { ip: '10.0.2.10' })];
  const into = (peer: object) => check(cluster(pods, [policy('a', 'p', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [peer] }] })]));
  it('podSelector alone = the policy namespace; namespaceSelector {} = every namespace; both = AND', () => {
    let c = into({ podSelector: { matchLabels: { app: 'web' } } });
    expect([c.allows('a/web', 'a/db'), c.allows('b/web', 'a/db')]).toEqual([true, false]);
    c = into({ namespaceSelector: {} });
    expect([c.allows('a/web', 'a/db'), c.allows('b/web', 'a/db'), c.allows('10.9.9.9', 'a/db')]).toEqual([true, true, false]);
    c = into({ namespaceSelector: { matchLabels: { team: 'b' } }, podSelector: { matchLabels: { app: 'web' } } });
    expect([c.allows('a/web', 'a/db'), c.allows('b/web', 'a/db'), c.allows('c/web', 'a/db')]).toEqual([false, true, false]);
  });
  it('a namespace the API did not list still has its name label', () => {
    const c = check({ ...cluster(pods, [policy('a', 'p', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'c' } } }] }] })]), namespaces: [] });
    expect([c.allows('c/web', 'a/db'), c.allows('b/web', 'a/db')]).toEqual([true, false]);
  });
  it('an IP endpoint that is a pod IP is that pod', () => {
    const c = into({ namespaceSelector: { matchLabels: { team: 'b' } } });
    expect(c.allows('10.0.1.10', 'a/db')).toBe(true);
    expect(c.allows('10.0.2.10', 'a/db')).toBe(false);
    expect(c.a.explain(r('10.0.1.10'), r('10.0.0.20'), 80).ingress.pod).toEqual({ namespace: 'a', name: 'db' });
  });
});

describe('ipBlock', () => {
  const pods = [web('a'), db('a'), pod('b', 'x', { app: 'x' }, { ip: '10.0.1.200' })];
  it('IPv4 cidr with except, for outside addresses and pod IPs, ingress and egress', () => {
    const p = policy('a', 'p', {
      podSelector: { matchLabels: { app: 'db' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ ipBlock: { cidr: '203.0.113.0/24', except: ['203.0.113.128/25'] } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.128/25'] } }] }],
      egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }] }],
    });
    const c = check(cluster(pods, [p]));
    expect(c.allows('203.0.113.5', 'a/db')).toBe(true);
    expect(c.allows('203.0.113.200', 'a/db')).toBe(false);
    expect(c.allows('198.51.100.1', 'a/db')).toBe(false);
    expect(c.allows('a/web', 'a/db')).toBe(true); // 10.0.0.10
    expect(c.allows('b/x', 'a/db')).toBe(false); // 10.0.1.200 is excepted
    expect(c.allows('a/db', '8.8.8.8')).toBe(true);
    expect(c.allows('a/db', '10.1.2.3')).toBe(false);
    expect(c.allows('a/db', 'a/web')).toBe(false);
    const e = c.a.explain(r('203.0.113.5'), r('a/db'), 80);
    expect(e.egress.reason).toMatch(/not a pod/);
    expect(e.ingress.allowedBy).toEqual([{ namespace: 'a', name: 'p', direction: 'ingress', rule: 0, peer: 0 }]);
  });
  it('IPv6 cidr with except; an IPv4 address never falls in an IPv6 block; dual-stack pods match by either IP', () => {
    const v6pods = [pod('a', 'srv', { app: 'srv' }, { ip: 'fd00::10', node: 'n1' }), pod('a', 'in', { app: 'c' }, { ip: 'fd00::1:5' }), pod('a', 'out', { app: 'c' }, { ip: 'fd00::2:5' }), pod('a', 'dual', { app: 'd' }, { ip: ['10.0.0.9', 'fd00::1:9'] })];
    const p = policy('a', 'p', { podSelector: { matchLabels: { app: 'srv' } }, ingress: [{ from: [{ ipBlock: { cidr: 'fd00::/64', except: ['fd00::2:0/112'] } }, { ipBlock: { cidr: '2001:db8::/32' } }] }] });
    const c = check(cluster(v6pods, [p]));
    expect(c.allows('a/in', 'a/srv')).toBe(true);
    expect(c.allows('a/out', 'a/srv')).toBe(false);
    expect(c.allows('a/dual', 'a/srv')).toBe(true);
    expect(c.allows('2001:db8::1', 'a/srv')).toBe(true);
    expect(c.allows('2001:0db8:0000::0001', 'a/srv')).toBe(true); // any spelling
    expect(c.allows('2001:db9::1', 'a/srv')).toBe(false);
    expect(c.allows('10.0.0.1', 'a/srv')).toBe(false);
    expect(c.allows('fd00::1:5', 'a/srv')).toBe(true);
    const v4 = policy('a', 'p', { podSelector: { matchLabels: { app: 'srv' } }, ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }] });
    const c4 = check(cluster(v6pods, [v4]));
    expect([c4.allows('a/in', 'a/srv'), c4.allows('a/dual', 'a/srv'), c4.allows('8.8.8.8', 'a/srv')]).toEqual([false, true, true]);
  });
  it('a pod without an IP is never in an ipBlock, but selectors still see it', () => {
    const pending = pod('a', 'pending', { app: 'web' }, {});
    const c = check(
      cluster([web('a'), db('a'), pending], [policy('a', 'p', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }] }), policy('a', 'deny-web', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] })]),
    );
    expect(c.allows('a/pending', 'a/db')).toBe(false);
    expect(c.allows('a/web', 'a/db')).toBe(true);
    expect(c.allows('a/db', 'a/pending')).toBe(false); // selected by deny-web by its labels
  });
});

describe('ports', () => {
  const srv = pod('a', 'srv', { app: 'srv' }, { ip: '10.0.0.1', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'sctp', containerPort: 9000, protocol: 'SCTP' }] });
  const other = pod('a', 'other', { app: 'srv' }, { ip: '10.0.0.2', ports: [{ name: 'http', containerPort: 9090 }] });
  const client = pod('a', 'client', { app: 'client' }, { ip: '10.0.0.3', ports: [{ name: 'http', containerPort: 7000 }] });
  it('named ports resolve against the destination for ingress, by name, number and protocol', () => {
    const c = check(cluster([srv, other, client], [policy('a', 'p', { podSelector: { matchLabels: { app: 'srv' } }, ingress: [{ ports: [{ port: 'http' }, { port: 'dns', protocol: 'UDP' }, { port: 'sctp' }] }] })]));
    expect(c.allows('a/client', 'a/srv', 8080)).toBe(true);
    expect(c.allows('a/client', 'a/srv', 9090)).toBe(false);
    expect(c.allows('a/client', 'a/other', 9090)).toBe(true);
    expect(c.allows('a/client', 'a/other', 8080)).toBe(false);
    expect(c.allows('a/client', 'a/srv', 8080, 'UDP')).toBe(false);
    expect(c.allows('a/client', 'a/srv', 53, 'UDP')).toBe(true);
    expect(c.allows('a/client', 'a/srv', 53, 'TCP')).toBe(false);
    expect(c.allows('a/client', 'a/srv', 9000, 'SCTP')).toBe(false); // the policy port defaults to TCP, the container port is SCTP
  });
  it('named ports resolve against the destination for egress too, and never match an outside address', () => {
    const c = check(cluster([srv, other, client], [policy('a', 'p', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'http' }] }] })]));
    expect(c.allows('a/client', 'a/srv', 8080)).toBe(true);
    expect(c.allows('a/client', 'a/other', 9090)).toBe(true);
    expect(c.allows('a/client', 'a/srv', 7000)).toBe(false); // the client's own "http" does not count
    expect(c.allows('a/client', '8.8.8.8', 8080)).toBe(false);
    expect(c.a.explain(r('a/client'), r('a/srv'), 8080).egress.allowedBy).toEqual([{ namespace: 'a', name: 'p', direction: 'egress', rule: 0, port: 0 }]);
  });
  it('endPort ranges are inclusive; protocol defaults to TCP; UDP and SCTP are distinct', () => {
    const p = policy('a', 'p', { podSelector: { matchLabels: { app: 'srv' } }, ingress: [{ ports: [{ port: 8000, endPort: 8080 }, { port: 53, protocol: 'UDP' }, { protocol: 'SCTP' }] }] });
    const c = check(cluster([srv, client], [p]));
    expect([7999, 8000, 8040, 8080, 8081].map((n) => c.allows('a/client', 'a/srv', n))).toEqual([false, true, true, true, false]);
    expect(c.allows('a/client', 'a/srv', 8000, 'UDP')).toBe(false);
    expect(c.allows('a/client', 'a/srv', 53, 'UDP')).toBe(true);
    expect(c.allows('a/client', 'a/srv', 53, 'TCP')).toBe(false);
    expect(c.allows('a/client', 'a/srv', 1234, 'SCTP')).toBe(true);
    expect(c.a.explain(r('a/client'), r('a/srv'), 1234, 'SCTP').ingress.allowedBy[0].port).toBe(2);
  });
});

describe('node-local traffic and host-network pods', () => {
  const pods = [
    pod('a', 'srv', { app: 'srv' }, { ip: '10.0.0.1', node: 'n1' }),
    pod('a', 'srv2', { app: 'srv' }, { ip: 'fd00::1', node: 'n2' }),
    pod('kube-system', 'agent-n1', { app: 'agent' }, { ip: '192.168.0.1', node: 'n1', hostNetwork: true }),
    pod('kube-system', 'agent-n2', { app: 'agent' }, { ip: '192.168.0.2', node: 'n2', hostNetwork: true }),
    pod('a', 'client', { app: 'client' }, { ip: '10.0.0.9', node: 'n1' }),
  ];
  const denyAll = policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  it("traffic from the destination's own node always passes its ingress", () => {
    const c = check(cluster(pods, [denyAll]));
    expect(c.allows('192.168.0.1', 'a/srv')).toBe(true);
    expect(c.allows('192.168.0.2', 'a/srv')).toBe(false);
    expect(c.allows('192.168.0.2', 'a/srv2')).toBe(true);
    expect(c.allows('fd00::ff:2', 'a/srv2')).toBe(true); // any of the node's addresses
    expect(c.allows('kube-system/agent-n1', 'a/srv')).toBe(true);
    expect(c.allows('kube-system/agent-n2', 'a/srv')).toBe(false);
    expect(c.allows('a/client', 'a/srv')).toBe(false); // same node, but a pod-network pod
    const e = c.a.explain(r('kube-system/agent-n1'), r('a/srv'), 80);
    expect(e.ingress.fromOwnNode).toBe(true);
    expect(e.ingress.isolatedBy).toEqual([{ namespace: 'a', name: 'deny' }]);
    expect(e.ingress.reason).toMatch(/own node/);
    // The matrix keeps it out of the class bits but in the pod bits.
    const m = c.a.matrix(80);
    expect(matrixAllowed(m, c.a.indexOf({ namespace: 'kube-system', name: 'agent-n1' }), c.a.indexOf({ namespace: 'a', name: 'srv' }))).toBe(true);
  });
  it('host-network pods are not selected by policies nor matched by selectors; ipBlocks see their node IP', () => {
    const hostPolicy = policy('kube-system', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const bySelector = policy('a', 'from-agents', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }] }] });
    let c = check(cluster(pods, [hostPolicy, bySelector]));
    expect(c.allows('a/client', 'kube-system/agent-n2')).toBe(true);
    expect(c.allows('kube-system/agent-n2', 'a/srv')).toBe(false);
    expect(c.allows('a/client', 'a/srv')).toBe(true);
    expect(c.a.explain(r('a/client'), r('kube-system/agent-n2'), 80).ingress.reason).toMatch(/host network/);
    const byIP = policy('a', 'from-nodes', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.168.0.0/24' } }] }] });
    c = check(cluster(pods, [byIP]));
    expect(c.allows('kube-system/agent-n2', 'a/srv')).toBe(true);
    expect(c.allows('a/client', 'a/srv')).toBe(false);
  });
});

describe('the entry point', () => {
  // The webs differ only in labels and ports no policy reads: one class.
  const pods = [
    pod('a', 'web-1', { app: 'web', 'pod-template-hash': '1' }, { ip: '10.0.0.1', ports: [{ name: 'metrics', containerPort: 9090 }] }),
    pod('a', 'web-2', { app: 'web', 'pod-template-hash': '2' }, { ip: '10.0.0.2' }),
    web('a', 'web-0', '10.0.0.3'),
    db('a', 'db', '10.0.0.4'),
    db('b', 'db', '10.0.0.5'),
  ];
  const p = policy('a', 'db-from-web', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] }] });
  it('matrix: pods ordered by namespace then name, a compact bitset, one class per indistinguishable group', () => {
    const a = analyzeReachability(cluster(pods, [p]));
    const m = a.matrix(5432);
    expect(m.pods.map((x) => `${x.namespace}/${x.name}`)).toEqual(['a/db', 'a/web-0', 'a/web-1', 'a/web-2', 'b/db']);
    expect(a.pods).toEqual(m.pods);
    expect(m.bits).toBeInstanceOf(Uint32Array);
    expect(m.bits.length).toBe(5 * m.rowWords);
    expect(m.classCount).toBe(3); // a/db, the three webs, b/db
    expect(new Set(m.podClass.slice(1, 4))).toEqual(new Set([m.podClass[1]]));
    expect(matrixAllowed(m, 1, 0)).toBe(true);
    expect(matrixAllowed(m, 4, 0)).toBe(false);
    expect(matrixAllowed(a.matrix(80), 1, 0)).toBe(false);
    expect(a.indexOf({ namespace: 'b', name: 'db' })).toBe(4);
    expect(a.indexOf({ namespace: 'b', name: 'nope' })).toBe(-1);
    // Class bits agree with pod bits (no node-local sources here).
    for (let i = 0; i < 5; i++)
      for (let j = 0; j < 5; j++) {
        const ci = m.podClass[i];
        const cj = m.podClass[j];
        expect(((m.classBits[ci * m.classRowWords + (cj >>> 5)] >>> (cj & 31)) & 1) === 1).toBe(matrixAllowed(m, i, j));
      }
    // Structured clone for a Web Worker.
    expect(structuredClone(m).bits).toEqual(m.bits);
  });
  it('explain is plain data with sentences, and names selecting, isolating and allowing policies', () => {
    const egressOnly = policy('a', 'egress-only', { podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Egress'], egress: [{}] });
    const a = analyzeReachability(cluster(pods, [p, egressOnly]));
    const denied = a.explain(r('b/db'), r('a/db'), 5432);
    expect(JSON.parse(JSON.stringify(denied))).toEqual(denied);
    expect(structuredClone(denied)).toEqual(denied);
    expect(denied.allowed).toBe(false);
    expect(denied.ingress.selectedBy.map((x) => x.name)).toEqual(['db-from-web', 'egress-only']);
    expect(denied.ingress.isolatedBy.map((x) => x.name)).toEqual(['db-from-web']);
    expect(denied.ingress.allowedBy).toEqual([]);
    expect(denied.ingress.reason).toMatch(/isolated for ingress by a\/db-from-web/);
    expect(denied.summary).toMatch(/may not connect/);
    const ok = a.explain(r('a/web-1'), r('a/db'), 5432, 'TCP');
    expect(ok.allowed).toBe(true);
    expect(ok.ingress.reason).toMatch(/a\/db-from-web spec.ingress\[0\]/);
    expect(ok.egress.reason).toMatch(/No policy isolates/);
  });
  it('a pod reaching itself is decided by the policies like any pair', () => {
    const c = check(cluster(pods, [policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })]));
    expect(c.allows('a/db', 'a/db')).toBe(false);
    expect(c.allows('b/db', 'b/db')).toBe(true);
  });
  it('unknown pods and bad addresses are errors; empty input is an empty analysis', () => {
    const a = analyzeReachability(cluster(pods, [p]));
    expect(() => a.allowed(r('a/nope'), r('a/db'), 80)).toThrow(/not found/);
    expect(() => a.explain({ ip: 'nope' }, r('a/db'), 80)).toThrow(/not an IP/);
    const empty = analyzeReachability({ namespaces: [], pods: [], policies: [], nodes: [] });
    expect(empty.matrix(80).pods).toEqual([]);
    expect(empty.allowed({ ip: '1.2.3.4' }, { ip: '5.6.7.8' }, 80)).toBe(true);
  });
});

describe('policy summaries', () => {
  it('name the selected pods, the pods each peer matches, and warn about what matches nothing', () => {
    const pods = [web('a'), db('a', 'db', '10.0.0.20', { ports: [{ name: 'pg', containerPort: 5432 }] }), pod('b', 'client', { app: 'client' }, { ip: '10.0.1.5' })];
    const good = policy('a', 'db', {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }, { namespaceSelector: {} }, { ipBlock: { cidr: '10.0.1.0/24', except: ['10.0.1.128/25'] } }], ports: [{ port: 'pg' }] }, {}],
    });
    const bad = policy('a', 'bad', {
      podSelector: { matchLabels: { app: 'nothing' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ podSelector: { matchLabels: { app: 'ghost' } } }, { podSelector: { matchExpressions: [{ key: 'x', operator: 'Near' }] } }, { ipBlock: { cidr: 'nope' } }] }],
    });
    const portless = policy('a', 'ports', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 'pg' }, { port: 'http', protocol: 'UDP' }] }] });
    const a = analyzeReachability(cluster(pods, [good, bad, portless]));
    const [g, b, p] = a.policies();
    const at = (xs: number[]) => xs.map((i) => `${a.pods[i].namespace}/${a.pods[i].name}`);
    expect(g.policy).toEqual({ namespace: 'a', name: 'db' });
    expect(g.types).toEqual(['ingress']);
    expect(at(g.selects)).toEqual(['a/db']);
    expect(g.egress).toBeUndefined();
    expect(g.ingress![0].peers!.map((x) => at(x.pods))).toEqual([['a/web'], ['a/db', 'a/web', 'b/client'], ['b/client']]);
    expect(g.ingress![0].peers![2].ipBlock).toBe('10.0.1.0/24 except 10.0.1.128/25');
    expect(g.ingress![1]).toEqual({ rule: 1, peers: null });
    expect(g.warnings).toEqual([]);
    expect(b.types).toEqual(['egress']);
    expect(b.warnings).toEqual([
      'Selects no pods in namespace a.',
      'egress rule 0, peer 0 matches no pods.',
      'egress rule 0, peer 1 has an invalid selector, it matches nothing.',
      'egress rule 0, peer 2: the ipBlock CIDR is invalid, it matches nothing.',
    ]);
    expect(p.warnings).toEqual(['ingress rule 0, port 0: no selected pod has a TCP container port named "pg".', 'ingress rule 0, port 1: no selected pod has a UDP container port named "http".']);
    expect(structuredClone(a.policies())).toEqual(a.policies());
  });
});
