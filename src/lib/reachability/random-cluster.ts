// Random clusters for the engine's property tests: a few namespaces, pods with labels from a small
// alphabet (so selectors match some and not others), IPv4 and IPv6 addresses, host-network pods,
// named ports, and policies of every shape the API allows (ipBlocks with exceptions, port ranges,
// invalid selectors).
import { ns, node, pod, policy, rng } from './test-helpers.ts';
import type { ContainerPortLike, NetworkPolicyLike, NetworkPolicyPeerLike, NetworkPolicyPortLike, NetworkPolicyRuleLike, PodLike, Protocol, ReachabilityInput } from './types.ts';
import type { LabelSelector } from '../labels.ts';

type R = ReturnType<typeof rng>;

const KEYS = ['app', 'tier', 'team'];
const VALUES = ['a', 'b', 'c'];
const PORT_NAMES = ['http', 'dns', 'metrics'];
const PROTOCOLS: Protocol[] = ['TCP', 'UDP', 'SCTP'];
const PORTS = [53, 80, 81, 443, 8080];
const V4_CIDRS = ['10.0.0.0/16', '10.0.0.0/24', '10.0.1.0/24', '10.0.0.0/25', '10.0.0.128/25', '10.0.1.4/32', '0.0.0.0/0', '192.168.0.0/24', '203.0.113.0/24'];
const V6_CIDRS = ['fd00::/8', 'fd00::/64', 'fd00::/120', 'fd00::10/124', '::/0', '2001:db8::/32'];

function labels(r: R): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of KEYS) if (r.chance(0.5)) out[k] = r.pick(VALUES);
  return out;
}

function selector(r: R): LabelSelector {
  const sel: LabelSelector = {};
  if (r.chance(0.5)) sel.matchLabels = Object.fromEntries(Object.entries(labels(r)).slice(0, 1 + r.int(2)));
  if (r.chance(0.4)) {
    sel.matchExpressions = [];
    for (let i = 0; i <= r.int(2); i++) {
      const operator = r.pick(['In', 'NotIn', 'Exists', 'DoesNotExist']);
      const values = operator === 'In' || operator === 'NotIn' ? VALUES.filter(() => r.chance(0.5)).concat(r.pick(VALUES)) : undefined;
      sel.matchExpressions.push({ key: r.pick(KEYS), operator, ...(values ? { values } : {}) });
    }
  }
  if (r.chance(0.03)) return { matchExpressions: [{ key: 'app', operator: 'Bogus' }] }; // invalid: selects nothing
  return sel;
}

function ipBlock(r: R): NetworkPolicyPeerLike['ipBlock'] {
  const v6 = r.chance(0.3);
  const cidr = r.pick(v6 ? V6_CIDRS : V4_CIDRS);
  const except = (v6 ? V6_CIDRS : V4_CIDRS).filter(() => r.chance(0.15));
  return except.length ? { cidr, except } : { cidr };
}

function peer(r: R): NetworkPolicyPeerLike {
  const k = r.int(10);
  if (k < 3) return { podSelector: selector(r) };
  if (k < 5) return { namespaceSelector: selector(r) };
  if (k < 7) return { podSelector: selector(r), namespaceSelector: selector(r) };
  if (k < 9) return { ipBlock: ipBlock(r) };
  return r.chance(0.5) ? { namespaceSelector: {} } : { podSelector: {} };
}

function port(r: R): NetworkPolicyPortLike {
  const out: NetworkPolicyPortLike = {};
  if (r.chance(0.7)) out.protocol = r.pick(PROTOCOLS);
  const k = r.int(10);
  if (k < 4) out.port = r.pick(PORTS);
  else if (k < 6) {
    out.port = r.pick(PORTS);
    out.endPort = out.port + r.int(500);
  } else if (k < 9) out.port = r.pick(PORT_NAMES);
  return out;
}

function rule(r: R, key: 'from' | 'to'): NetworkPolicyRuleLike {
  const out: NetworkPolicyRuleLike = {};
  if (r.chance(0.8)) out[key] = Array.from({ length: r.int(3) }, () => peer(r));
  if (r.chance(0.7)) out.ports = Array.from({ length: r.int(3) }, () => port(r));
  return out;
}

export function randomCluster(seed: number): ReachabilityInput {
  const r = rng(seed);
  const nsNames = ['n1', 'n2', 'n3', 'n4'].slice(0, 2 + r.int(3));
  const namespaces = nsNames.filter(() => r.chance(0.9)).map((n) => ns(n, labels(r))); // an unlisted namespace keeps its name label
  const nodes = [node('node-1', '192.168.0.1', 'fd00::ff:1'), node('node-2', '192.168.0.2')];
  const pods: PodLike[] = [];
  const podCount = 4 + r.int(26);
  for (let i = 0; i < podCount; i++) {
    const nodeName = r.chance(0.9) ? r.pick(['node-1', 'node-2']) : undefined;
    const hostNetwork = nodeName !== undefined && r.chance(0.08);
    let ip: string[] = [];
    if (hostNetwork) ip = [nodeName === 'node-1' ? '192.168.0.1' : '192.168.0.2'];
    else if (r.chance(0.92)) {
      const v4 = `10.0.${r.int(2)}.${r.pick([r.int(128), 128 + r.int(128), 4])}`;
      const v6 = `fd00::${r.int(32).toString(16)}`;
      const k = r.int(10);
      ip = k < 6 ? [v4] : k < 8 ? [v6] : [v4, v6];
    }
    const ports: ContainerPortLike[] = [];
    for (let p = 0; p < r.int(3); p++) ports.push({ name: r.pick(PORT_NAMES), containerPort: r.pick(PORTS), ...(r.chance(0.5) ? { protocol: r.pick(PROTOCOLS) } : {}) });
    // Duplicate IPs happen (a pod's IP reused): the naive and fast engines must agree anyway.
    if (r.chance(0.3)) ports.push({ name: 'unused', containerPort: r.pick(PORTS) }); // no policy names it
    const podLabels = { ...labels(r), ...(r.chance(0.5) ? { hash: String(r.int(5)) } : {}) }; // no selector reads "hash"
    pods.push(pod(r.pick(nsNames), `p${i}`, podLabels, { ip, node: nodeName, ports, hostNetwork }));
  }
  const policies: NetworkPolicyLike[] = [];
  const policyCount = r.int(9);
  for (let i = 0; i < policyCount; i++) {
    const spec: Parameters<typeof policy>[2] = { podSelector: r.chance(0.3) ? {} : selector(r) };
    if (r.chance(0.4)) spec.policyTypes = r.pick([['Ingress'], ['Egress'], ['Ingress', 'Egress']]);
    if (r.chance(0.7)) spec.ingress = Array.from({ length: r.int(3) }, () => rule(r, 'from'));
    if (r.chance(0.6)) spec.egress = Array.from({ length: r.int(3) }, () => rule(r, 'to'));
    policies.push(policy(r.pick(nsNames), `np${i}`, spec));
  }
  return { namespaces, pods, policies, nodes };
}
