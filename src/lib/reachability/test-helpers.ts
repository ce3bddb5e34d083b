// Builders for the reachability tests: API objects in the shape the server returns.
import type { LabelSelector } from '../labels.ts';
import { matrixAllowed, type ContainerPortLike, type NamespaceLike, type NetworkPolicyLike, type NetworkPolicyRuleLike, type NodeLike, type PodLike, type ReachabilityMatrix } from './types.ts';
import { seededRandom } from '../random.ts';

export function ns(name: string, labels: Record<string, string> = {}): NamespaceLike {
  return { metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } };
}

export function pod(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  opts: { ip?: string | string[]; node?: string; ports?: ContainerPortLike[]; hostNetwork?: boolean } = {},
): PodLike {
  const ips = opts.ip === undefined ? [] : Array.isArray(opts.ip) ? opts.ip : [opts.ip];
  return {
    metadata: { namespace, name, labels },
    spec: { nodeName: opts.node, hostNetwork: opts.hostNetwork, containers: [{ ports: opts.ports ?? [] }] },
    status: ips.length ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {},
  };
}

export function node(name: string, ...ips: string[]): NodeLike {
  return { metadata: { name }, status: { addresses: [{ type: 'Hostname', address: name }, ...ips.map((address) => ({ type: 'InternalIP', address }))] } };
}

export function policy(
  namespace: string,
  name: string,
  spec: { podSelector?: LabelSelector; policyTypes?: string[]; ingress?: NetworkPolicyRuleLike[]; egress?: NetworkPolicyRuleLike[] },
): NetworkPolicyLike {
  return { metadata: { namespace, name }, spec: { podSelector: {}, ...spec } };
}

/**
 * Upstream's e2e model: namespaces x, y, z, each with pods a, b, c labelled
 * pod=<name>, every pod serving TCP/UDP/SCTP 80 and 81 under the names
 * serve-80-tcp, serve-81-udp..., all on one node whose address is 192.168.0.1.
 */
export function upstreamModel() {
  const namespaces = ['x', 'y', 'z'].map((n) => ns(n, { ns: n }));
  const pods: PodLike[] = [];
  let k = 1;
  for (const n of ['x', 'y', 'z']) {
    for (const p of ['a', 'b', 'c']) {
      const ports: ContainerPortLike[] = [];
      for (const port of [80, 81]) for (const protocol of ['TCP', 'UDP', 'SCTP']) ports.push({ name: `serve-${port}-${protocol.toLowerCase()}`, containerPort: port, protocol });
      pods.push(pod(n, p, { pod: p }, { ip: `10.0.0.${k++}`, node: 'node-1', ports }));
    }
  }
  return { namespaces, pods, nodes: [node('node-1', '192.168.0.1')] };
}

export const allPods = ['x/a', 'x/b', 'x/c', 'y/a', 'y/b', 'y/c', 'z/a', 'z/b', 'z/c'];
export const ref = (s: string) => ({ namespace: s.split('/')[0], name: s.split('/')[1] });

/** The matrix as a truth table: the set of "from->to" pairs allowed, over the pods given. */
export function allowedPairs(m: ReachabilityMatrix): Set<string> {
  const out = new Set<string>();
  const names = m.pods.map((p) => `${p.namespace}/${p.name}`);
  for (let i = 0; i < names.length; i++) for (let j = 0; j < names.length; j++) if (matrixAllowed(m, i, j)) out.add(`${names[i]}->${names[j]}`);
  return out;
}

/** Every pair allowed except those listed (a truth table written as its exceptions). */
export function allExcept(denied: (from: string, to: string) => boolean, pods = allPods): Set<string> {
  const out = new Set<string>();
  for (const f of pods) for (const t of pods) if (!denied(f, t)) out.add(`${f}->${t}`);
  return out;
}

/** A seeded random source with helpers, so generated clusters repeat run to run. */
export function rng(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T,>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
