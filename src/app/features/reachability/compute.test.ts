import { describe, expect, it } from 'vitest';
import { analyzeReachability, type NetworkPolicyLike, type PodLike, type ReachabilityInput } from '../../../lib/reachability/index.ts';
import { sampleAddress, Session } from './compute.ts';
import { randomCluster } from '../../../lib/reachability/random-cluster.ts';

const pod = (ns: string, name: string, labels: Record<string, string>, ip: string, ports: { name: string; containerPort: number }[] = []): PodLike => ({
  metadata: { name, namespace: ns, labels },
  spec: { nodeName: 'n1', containers: [{ ports }] },
  status: { podIP: ip },
});

const denyX: NetworkPolicyLike = { metadata: { name: 'deny', namespace: 'x' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
const allowB: NetworkPolicyLike = {
  metadata: { name: 'allow-b', namespace: 'x' },
  spec: {
    podSelector: { matchLabels: { app: 'b' } },
    ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }, { podSelector: { matchLabels: { app: 'nobody' } } }, { ipBlock: { cidr: '192.168.0.0/16', except: ['192.168.0.0/24'] } }], ports: [{ port: 'http' }] }],
  },
};

const input = (policies: NetworkPolicyLike[]): ReachabilityInput => ({
  namespaces: [{ metadata: { name: 'x', labels: { team: 'a' } } }, { metadata: { name: 'y' } }],
  pods: [
    pod('x', 'a1', { app: 'a' }, '10.1.0.1'),
    pod('x', 'a2', { app: 'a' }, '10.1.0.2'),
    pod('x', 'b', { app: 'b' }, '10.1.0.3', [{ name: 'http', containerPort: 8080 }]),
    pod('y', 'c', { app: 'c' }, '10.1.0.4'),
  ],
  policies,
  nodes: [{ metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.10' }] } }],
});

describe('reachability view computations', () => {
  it('a session given a changed cluster answers as a new one: pods it saw before kept, changed ones read again', () => {
    const s = new Session();
    const first = input([denyX, allowB]);
    s.setInput(first, 1);
    // The same objects but one pod relabelled (a new object, as the worker parses it) and one gone.
    const changed: ReachabilityInput = { ...first, pods: [first.pods[0], { ...first.pods[1], metadata: { ...first.pods[1].metadata, labels: { app: 'b' } } }, first.pods[2]] };
    const fresh = new Session();
    expect(s.setInput(changed, 2)).toEqual(fresh.setInput(changed, 2));
    expect(s.getSummary().groups.map((g) => g.podNames)).toEqual([['a1'], ['a2', 'b']]);
    expect({ ...s.matrixView(8080, 'TCP'), ms: 0 }).toEqual({ ...fresh.matrixView(8080, 'TCP'), ms: 0 });
  });

  it('groups pods of a namespace with the same labels, in namespace order', () => {
    const s = new Session();
    const sum = s.setInput(input([]), 1);
    expect(sum.groups.map((g) => [g.namespace, g.podNames])).toEqual([
      ['x', ['a1', 'a2']],
      ['x', ['b']],
      ['y', ['c']],
    ]);
  });

  it("sends a large group's count, first names and common name prefix, not every pod", () => {
    const many = Array.from({ length: 30 }, (_, i) => pod('x', `web-5f6d8b-${String(i).padStart(2, '0')}`, { app: 'web' }, `10.2.0.${i + 1}`));
    const sum = new Session().setInput({ ...input([]), pods: many }, 1);
    expect(sum.groups).toHaveLength(1);
    const [g] = sum.groups;
    expect([g.podCount, g.podNames.length, g.podNames[0], g.name]).toEqual([30, 12, 'web-5f6d8b-00', 'web-5f6d8b-* ×30']);
    expect('pods' in g).toBe(false);
  });

  it("names groups of one namespace that would be named alike by the labels that tell them apart (a DaemonSet's old and new pods)", () => {
    const ds = (name: string, hash: string, generation: string, i: number) => pod('x', name, { app: 'agent', 'controller-revision-hash': hash, 'pod-template-generation': generation }, `10.3.0.${i}`);
    const pods = [ds('agent-a1b2c', 'h1', '1', 1), ds('agent-d3e4f', 'h1', '1', 2), ds('agent-g5h6i', 'h2', '2', 3), ds('agent-j7k8l', 'h2', '2', 4), ds('agent-m9n0p', 'h2', '2', 5)];
    const sum = new Session().setInput({ ...input([]), pods: [...pods, pod('x', 'web-1', { app: 'web' }, '10.3.1.1'), pod('x', 'web-2', { app: 'web' }, '10.3.1.2')] }, 1);
    expect(sum.groups.map((g) => g.name).sort()).toEqual(['agent-* ×2 · rev h1', 'agent-* ×3 · rev h2', 'web-* ×2']);
  });

  it('counts allowed pod pairs per group pair exactly as the pod matrix says, own-node traffic included', () => {
    const s = new Session();
    // A host-network daemon on n1 (the node's address): its traffic passes the ingress policies of n1's pods.
    const daemon: PodLike = { metadata: { name: 'agent', namespace: 'y', labels: { app: 'agent' } }, spec: { nodeName: 'n1', hostNetwork: true, containers: [] }, status: { podIP: '10.0.0.10' } };
    const base = input([denyX, allowB]);
    const inp = { ...base, pods: [...base.pods, daemon] };
    const sum = s.setInput(inp, 1);
    const view = s.matrixView(8080, 'TCP');
    const m = analyzeReachability(inp).matrix(8080, 'TCP');
    expect(m.ownNode.length).toBeGreaterThan(0);
    const G = sum.groups.length;
    const groupOf = (name: string) => sum.groups.findIndex((g) => g.podNames.includes(name));
    const expected = new Uint32Array(G * G);
    // From the pod matrix itself, pair by pair.
    const bit = (i: number, j: number) => ((m.bits[i * m.rowWords + (j >>> 5)] >>> (j & 31)) & 1) === 1;
    m.pods.forEach((from, i) => m.pods.forEach((to, j) => bit(i, j) && expected[groupOf(from.name) * G + groupOf(to.name)]++));
    expect([...view.counts]).toEqual([...expected]);
    expect(view.allowedPairs).toBe(expected.reduce((a, b) => a + b, 0));
  });

  it('counts pod pairs per group pair as the pod matrix says on random clusters, at the group and the namespace level', () => {
    let pairs = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const inp = randomCluster(seed);
      const s = new Session();
      const sum = s.setInput(inp, 1);
      const m = analyzeReachability(inp).matrix(80, 'TCP');
      const raw = new Map(inp.pods.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
      const same = (a: Record<string, string>, b: Record<string, string> = {}) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
      const groupOf = m.pods.map((ref) => {
        const p = raw.get(`${ref.namespace}/${ref.name}`)!;
        return sum.groups.findIndex((g) => g.namespace === ref.namespace && g.hostNetwork === (p.spec?.hostNetwork === true) && same(g.labels, p.metadata.labels));
      });
      const G = sum.groups.length;
      const expected = new Uint32Array(G * G);
      const bit = (i: number, j: number) => ((m.bits[i * m.rowWords + (j >>> 5)] >>> (j & 31)) & 1) === 1;
      m.pods.forEach((_, i) => m.pods.forEach((__, j) => bit(i, j) && expected[groupOf[i] * G + groupOf[j]]++));
      expect({ seed, counts: [...s.matrixView(80, 'TCP').counts] }).toEqual({ seed, counts: [...expected] });
      pairs += expected.reduce((a, b) => a + b, 0);
    }
    expect(pairs).toBeGreaterThan(1000);
  });

  it('reports what a policy selects and admits, and warns about peers that match nothing', () => {
    const s = new Session();
    const sum = s.setInput(input([denyX, allowB]), 1);
    const p = sum.policies.find((x) => x.name === 'allow-b')!;
    expect(p.selectedPods).toBe(1);
    expect(p.admitsFrom.map((g) => sum.groups[g].podNames[0])).toEqual(['a1']);
    expect(p.cidrsFrom).toEqual(['192.168.0.0/16']);
    expect(p.warnings).toEqual([expect.stringContaining('Ingress rule 1, peer 2')]);
    const none = s.setInput(input([{ metadata: { name: 'ghost', namespace: 'x' }, spec: { podSelector: { matchLabels: { app: 'zzz' } } } }]), 2);
    expect(none.policies[0].warnings[0]).toMatch(/Selects no pod/);
    expect(sum.suggestedPorts).toEqual([{ port: 8080, protocol: 'TCP' }]);
  });

  it('explains a cell with one denied and one allowed pair when its pods disagree', () => {
    const s = new Session();
    // b1 declares the named port the rule uses, b2 does not: same labels, different answers.
    const inp = input([denyX, allowB]);
    inp.pods = [...inp.pods.filter((p) => p.metadata.name !== 'b'), pod('x', 'b1', { app: 'b' }, '10.1.0.5', [{ name: 'http', containerPort: 8080 }]), pod('x', 'b2', { app: 'b' }, '10.1.0.6')];
    const sum = s.setInput(inp, 1);
    const a = sum.groups.find((g) => g.labels.app === 'a')!;
    const b = sum.groups.find((g) => g.labels.app === 'b')!;
    const cell = s.explainCell(a.key, b.key, 8080, 'TCP');
    expect(cell.explanations.map((e) => [e.allowed, 'name' in e.to && e.to.name])).toEqual([
      [false, 'b2'],
      [true, 'b1'],
    ]);
    expect(cell.explanations[1].ingress.allowedBy[0]).toMatchObject({ name: 'allow-b', rule: 0, peer: 0 });
  });

  it('what-if lists the pairs an edit would newly allow or deny', () => {
    const s = new Session();
    s.setInput(input([denyX]), 1);
    const opened = s.whatIf({ ...denyX, spec: { ...denyX.spec, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }] }] } }, denyX, [{ port: 80, protocol: 'TCP' }]);
    expect(opened.newlyDenied).toEqual([]);
    expect(opened.newlyAllowed.map((p) => `${p.from.name}>${p.to.name}`).sort()).toEqual(['a1>a1', 'a1>a2', 'a1>b', 'a2>a1', 'a2>a2', 'a2>b']);
    const removed = s.whatIf({ metadata: { name: 'new', namespace: 'y' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } }, undefined, [{ port: 80, protocol: 'TCP' }]);
    expect(removed.newlyDenied.map((p) => `${p.from.name}>${p.to.name}`).sort()).toEqual(['a1>c', 'a2>c', 'b>c', 'c>c']);
  });

  it('draws external networks with an address outside their exceptions', () => {
    expect(sampleAddress('192.168.0.0/16', ['192.168.0.0/24'])).toBe('192.168.1.0');
    expect(sampleAddress('10.0.0.0/8')).toBe('10.0.0.1');
    expect(sampleAddress('2001:db8::/64')).toBe('2001:db8::1');
    expect(sampleAddress('not a cidr')).toBeUndefined();
    const s = new Session();
    s.setInput(input([denyX, allowB]), 1);
    const g = s.graphView();
    const sum = s.getSummary();
    const ext = sum.groups.length; // the first external network
    const b = sum.groups.findIndex((x) => x.podNames[0] === 'b');
    expect(g.edges.find((e) => e.from === ext && e.to === b)?.ports).toEqual(['TCP 8080']);
    // Folded to namespaces x (0) and y (1): x reaches y on any port, y reaches x only where a pod allows it.
    const ns = s.graphView('namespaces');
    expect(ns.edges.find((e) => e.from === 0 && e.to === 1)).toMatchObject({ open: true, ports: ['any'] });
    expect(ns.edges.find((e) => e.from === 1 && e.to === 0)).toBeUndefined();
    expect(ns.edges.find((e) => e.from === 2 && e.to === 0)).toMatchObject({ ports: ['TCP 8080'], partial: true });
  });
});

describe('intents and fixes in the worker session', () => {
  const intent = { source: 'default/reachability-intents', intent: { name: 'c-reaches-b', expect: 'allowed' as const, from: { namespace: 'y' }, to: { namespace: 'x', podSelector: { matchLabels: { app: 'b' } } }, ports: [{ port: 8080 }] } };

  it('checks intents against the live input and names the responsible policies', () => {
    const s = new Session();
    s.setInput(input([denyX]), 1);
    const [r] = s.intentsView([intent]).results;
    expect(r).toMatchObject({ source: 'default/reachability-intents', name: 'c-reaches-b', status: 'violated', violationCount: 1, policies: [{ namespace: 'x', name: 'deny' }] });
  });

  it('the what-if lists the intents an edit breaks or satisfies', () => {
    const s = new Session();
    s.setInput(input([]), 1);
    expect(s.whatIf(denyX, undefined, [], [intent]).intents).toEqual([{ source: intent.source, name: 'c-reaches-b', before: 'met', after: 'violated' }]);
    s.setInput(input([denyX]), 2);
    const opened: NetworkPolicyLike = { metadata: { name: 'deny', namespace: 'x' }, spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: {} }] }] } };
    expect(s.whatIf(opened, denyX, [], [intent]).intents).toEqual([{ source: intent.source, name: 'c-reaches-b', before: 'violated', after: 'met' }]);
  });

  it('fixes a cell (the first pair without the verdict) and an intent', () => {
    const s = new Session();
    const sum = s.setInput(input([denyX]), 1);
    const c = sum.groups.find((g) => g.namespace === 'y')!;
    const b = sum.groups.find((g) => g.labels.app === 'b')!;
    const cell = s.fixCell(c.key, b.key, 8080, 'TCP', 'allowed');
    expect(cell.subject).toBe('y/c → x/b on TCP 8080');
    expect(cell.proposal).toMatchObject({ achieved: true, effect: { totalAllowed: 1, totalDenied: 0 } });
    expect(s.fixCell(c.key, b.key, 8080, 'TCP', 'denied').already).toBe(true);
    const fix = s.fixIntent(intent);
    expect(fix.proposal?.achieved).toBe(true);
  });
});
