// The cluster as the engine sees it: pods with their namespace's labels, IPs,
// named container ports and their node's host IPs, read once from the API
// objects. Shared by the fast engine and the naive evaluator so that both
// start from the same facts and differ only in how they decide.
import { formatIP, parseIPSloppy, type IPAddress } from '../cidr.ts';
import { effectivePolicyTypes, type NetworkPolicyLike as DescribedPolicy } from '../netpol-describe.ts';
import type { Direction, NetworkPolicyLike, PodLike, PodRef, Protocol, ReachabilityInput } from './types.ts';

export interface NamedPort {
  name: string;
  port: number;
  protocol: Protocol;
}

/** A pod in one analysis: what the pod object says, and where it stands in the cluster. */
export interface PodInfo extends PodFacts {
  /** The facts themselves (kept by an AnalysisMemo between analyses). */
  facts: PodFacts;
  /** Position in `ClusterModel.pods` (sorted by namespace, then name). */
  index: number;
  namespaceLabels: Record<string, string>;
  /** Addresses of the pod's node (canonical text): traffic from there is always let in. */
  hostIPs: string[];
}

export interface ClusterModel {
  pods: PodInfo[];
  readonly podByKey: Map<string, PodInfo>;
  /** Canonical IP text to pod (host-network pods left out: their IP is their node's, shared). */
  readonly podByIP: Map<string, PodInfo>;
  /** Every node address (canonical text). */
  hostIPs: Set<string>;
  namespaceLabels: Map<string, Record<string, string>>;
  policies: NetworkPolicyLike[];
}

export const podKey = (r: PodRef) => `${r.namespace}/${r.name}`;
export const policyNamespace = (np: NetworkPolicyLike) => np.metadata.namespace ?? 'default';

export function normalizeProtocol(p: string | undefined): Protocol {
  return p === 'UDP' || p === 'SCTP' ? p : 'TCP';
}

/** policyTypes with upstream's defaulting: Ingress always, Egress only when there are egress rules. */
export function policyTypesOf(np: NetworkPolicyLike): Direction[] {
  const out: Direction[] = [];
  for (const t of effectivePolicyTypes(np as DescribedPolicy)) {
    if (t === 'Ingress' && !out.includes('ingress')) out.push('ingress');
    else if (t === 'Egress' && !out.includes('egress')) out.push('egress');
  }
  return out; // unknown values (rejected by the API) count for nothing

}

export const canonicalIP = (text: string): string | undefined => {
  const ip = parseIPSloppy(text.trim());
  return ip ? formatIP(ip) : undefined;
};

/**
 * A namespace the API did not list still has the label the API server puts
 * on every namespace, so `kubernetes.io/metadata.name` selectors work.
 */
const defaultNamespaceLabels = (name: string) => ({ 'kubernetes.io/metadata.name': name });

/** What one pod object says, read once: its name, labels, addresses and named ports, whatever the rest of the cluster. */
export interface PodFacts {
  ref: PodRef;
  /** Namespace and name, for the model's order. */
  order: string;
  labels: Record<string, string>;
  ips: IPAddress[];
  /** Canonical text of `ips`. */
  ipTexts: string[];
  namedPorts: NamedPort[];
  nodeName?: string;
  /**
   * A host-network pod shares its node's network namespace: no policy
   * selects it, no pod or namespace selector matches it, and as a peer it is
   * only its IP (the node's), which ipBlocks may match.
   */
  hostNetwork: boolean;
}

/**
 * What analyses of a changing cluster may keep between them, by object: the live page's worker
 * analyses 60,000 pods again for each handful that changed, and reading each pod again (its
 * addresses parsed, its ports and class worked out) was most of it. Objects given to analyses
 * that share a memo must not be changed afterwards (the worker's are parsed afresh for each change).
 */
export class AnalysisMemo {
  readonly facts = new WeakMap<PodLike, PodFacts>();
  /**
   * A pod's class signature (engine.ts) under the policies' context it was made for, the newest
   * first, and the one before: `[context, signature, context, signature]`. Two, so that analysing
   * a policy edit (another context) beside the live policies does not make every pod's again.
   */
  readonly signatures = new WeakMap<PodFacts, string[]>();
}

function readPodFacts(p: PodLike): PodFacts {
  const ns = p.metadata.namespace ?? 'default';
  const name = p.metadata.name!;
  const ipTexts = new Set<string>();
  if (p.status?.podIP) ipTexts.add(p.status.podIP);
  for (const x of p.status?.podIPs ?? []) if (x?.ip) ipTexts.add(x.ip);
  const ips: IPAddress[] = [];
  const seen = new Set<string>();
  for (const t of ipTexts) {
    const ip = typeof t === 'string' ? parseIPSloppy(t.trim()) : null;
    if (ip && !seen.has(formatIP(ip))) {
      seen.add(formatIP(ip));
      ips.push(ip);
    }
  }
  const namedPorts: NamedPort[] = [];
  for (const c of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
    if (!Array.isArray(c?.ports)) continue;
    for (const port of c?.ports ?? []) {
      if (port?.name && typeof port.containerPort === 'number') namedPorts.push({ name: port.name, port: port.containerPort, protocol: normalizeProtocol(port.protocol) });
    }
  }
  return {
    ref: { namespace: ns, name },
    order: `${ns}\u0000${name}`,
    labels: p.metadata.labels ?? {},
    ips,
    ipTexts: [...seen],
    namedPorts,
    nodeName: p.spec?.nodeName || undefined,
    hostNetwork: p.spec?.hostNetwork === true,
  };
}

export function buildModel(input: ReachabilityInput, memo?: AnalysisMemo): ClusterModel {
  const namespaceLabels = new Map<string, Record<string, string>>();
  for (const ns of input.namespaces) {
    const name = ns.metadata.name;
    if (name) namespaceLabels.set(name, { ...defaultNamespaceLabels(name), ...ns.metadata.labels });
  }
  const hostIPsByNode = new Map<string, string[]>();
  for (const node of input.nodes) {
    // InternalIP and ExternalIP (Hostname and InternalDNS do not parse as IPs).
    const ips = (node.status?.addresses ?? []).map((a) => (typeof a?.address === 'string' ? canonicalIP(a.address) : undefined));
    hostIPsByNode.set(node.metadata.name ?? '', [...new Set(ips.filter((x): x is string => !!x))]);
  }
  const allHostIPs = new Set([...hostIPsByNode.values()].flat());
  const factsOf = (p: PodLike): PodFacts => {
    if (!memo) return readPodFacts(p);
    let f = memo.facts.get(p);
    if (!f) memo.facts.set(p, (f = readPodFacts(p)));
    return f;
  };
  const sorted = input.pods
    .filter((p) => p?.metadata?.name)
    .map(factsOf)
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  const pods: PodInfo[] = [];
  for (const f of sorted) {
    // Written out, not spread: a spread of the facts made each analysis of 60,000 pods three times slower.
    const { ref, order, labels, ips, ipTexts, namedPorts, nodeName, hostNetwork } = f;
    pods.push({
      ref,
      order,
      labels,
      ips,
      ipTexts,
      namedPorts,
      nodeName,
      hostNetwork,
      facts: f,
      index: pods.length,
      namespaceLabels: namespaceLabels.get(ref.namespace) ?? defaultNamespaceLabels(ref.namespace),
      hostIPs: (nodeName && hostIPsByNode.get(nodeName)) || [],
    });
  }
  // The lookups by name and by address are made when first asked for (the matrices never do).
  let podByKey: Map<string, PodInfo> | undefined;
  let podByIP: Map<string, PodInfo> | undefined;
  return {
    pods,
    get podByKey() {
      return (podByKey ??= new Map(pods.map((p) => [podKey(p.ref), p])));
    },
    get podByIP() {
      if (!podByIP) {
        podByIP = new Map();
        for (const p of pods) if (!p.hostNetwork) for (const ip of p.ipTexts) if (!podByIP.has(ip)) podByIP.set(ip, p);
      }
      return podByIP;
    },
    hostIPs: allHostIPs,
    namespaceLabels,
    policies: input.policies.filter((np) => np?.metadata),
  };
}

/** The source is the destination's node: one of its addresses is a host IP of the node the destination runs on (host-network pods, the kubelet, node processes). */
export function isFromOwnNode(sourceIPs: readonly string[], destination: PodInfo): boolean {
  return destination.hostIPs.length > 0 && sourceIPs.some((ip) => destination.hostIPs.includes(ip));
}
