// The shapes the reachability engine reads (API objects as the server returns
// them, only the fields that matter) and the shapes it answers with. Plain
// data only, so results cross a Web Worker boundary with structured clone.
import type { LabelSelector } from '../labels.ts';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
}

export interface ContainerPortLike {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface PodLike {
  metadata: ObjectMetaLike;
  spec?: {
    nodeName?: string;
    hostNetwork?: boolean;
    containers?: { ports?: ContainerPortLike[] }[];
    initContainers?: { ports?: ContainerPortLike[] }[];
  };
  status?: { podIP?: string; podIPs?: { ip: string }[] };
}

export interface NamespaceLike {
  metadata: ObjectMetaLike;
}

export interface NodeLike {
  metadata: ObjectMetaLike;
  status?: { addresses?: { type: string; address: string }[] };
}

export interface NetworkPolicyPeerLike {
  podSelector?: LabelSelector | null;
  namespaceSelector?: LabelSelector | null;
  ipBlock?: { cidr?: string; except?: string[] } | null;
}

export interface NetworkPolicyPortLike {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

export interface NetworkPolicyRuleLike {
  from?: NetworkPolicyPeerLike[] | null;
  to?: NetworkPolicyPeerLike[] | null;
  ports?: NetworkPolicyPortLike[] | null;
}

export interface NetworkPolicyLike {
  metadata: ObjectMetaLike;
  spec?: {
    podSelector?: LabelSelector | null;
    policyTypes?: string[] | null;
    ingress?: NetworkPolicyRuleLike[] | null;
    egress?: NetworkPolicyRuleLike[] | null;
  };
}

export interface ReachabilityInput {
  namespaces: readonly NamespaceLike[];
  pods: readonly PodLike[];
  policies: readonly NetworkPolicyLike[];
  nodes: readonly NodeLike[];
}

export interface PodRef {
  namespace: string;
  name: string;
}

/** One end of a connection: a pod by name, or an IP address (a pod's IP resolves to that pod). */
export type Endpoint = PodRef | { ip: string };

export type Direction = 'ingress' | 'egress';

export interface PolicyRef {
  namespace: string;
  name: string;
}

/** A rule of a policy that lets the connection through; peer and port are indexes in the rule (absent = the rule has none, so it matches all). */
export interface RuleRef extends PolicyRef {
  direction: Direction;
  rule: number;
  peer?: number;
  port?: number;
}

export interface DirectionExplanation {
  direction: Direction;
  /** The pod this direction is about: the source for egress, the destination for ingress; absent for an IP outside the cluster's pods. */
  pod?: PodRef;
  /** Every policy selecting that pod, whatever its types. */
  selectedBy: PolicyRef[];
  /** The selecting policies whose policyTypes include this direction: they isolate the pod. */
  isolatedBy: PolicyRef[];
  /** Rules (of isolating policies) that match both the peer and the port. */
  allowedBy: RuleRef[];
  /** Ingress only: the source is a host IP of the destination pod's node, always allowed. */
  fromOwnNode?: boolean;
  allowed: boolean;
  /** One sentence for people. */
  reason: string;
}

export interface Explanation {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol: Protocol;
  allowed: boolean;
  egress: DirectionExplanation;
  ingress: DirectionExplanation;
  /** One sentence for people, covering both directions. */
  summary: string;
}

/**
 * Every pod pair at one port: bit `i * rowWords * 32 + j` of `bits` is set
 * when pods[i] may open a connection to pods[j]. Pods are ordered by
 * namespace, then name.
 */
export interface ReachabilityMatrix {
  port: number;
  protocol: Protocol;
  pods: PodRef[];
  rowWords: number;
  /**
   * Bit `i * rowWords * 32 + j`: pod i may reach pod j. n² bits (450 MB at 60,000 pods): the
   * engine makes them when first read; what reads a cluster's worth of pairs reads them through
   * the classes (classBits, ownNode, matrixAllowed).
   */
  readonly bits: Uint32Array;
  /** The equivalence class of each pod (pods of one class are indistinguishable to every policy). */
  podClass: Int32Array;
  classCount: number;
  /**
   * The same answer per class pair: bit `a * classRowWords * 32 + b` is set
   * when pods of class a may reach pods of class b. It leaves out the one
   * pod-level exception (traffic from a destination's own node, i.e. from
   * host-network pods or pods holding a node's IP), which `ownNode` holds.
   */
  classRowWords: number;
  classBits: Uint32Array;
  /** The pairs allowed beyond classBits (from a destination's own node), as `i * pods.length + j`, ascending. */
  ownNode: Float64Array;
}

/**
 * What changed between two matrices of the same port and protocol, over the pods present in both:
 * by joint class (pods of one class before and one class after change alike), and the own-node pairs.
 */
export interface MatrixDiff {
  port: number;
  protocol: Protocol;
  /** The pods present before and after, ordered by namespace then name; the indexes below are into it. */
  pods: PodRef[];
  /** Each pod's joint class. */
  joint: Int32Array;
  /** Each joint class's pods, ascending. */
  members: number[][];
  /** Per joint class pair `x * members.length + y`: 1 denied before and allowed after, -1 the other way, 0 the same. */
  cells: Int8Array;
  /** The own-node pairs (ReachabilityMatrix.ownNode) before and after, as `i * pods.length + j`. */
  ownBefore: Set<number>;
  ownAfter: Set<number>;
  newlyAllowedCount: number;
  newlyDeniedCount: number;
  /** Pods only in `after` / only in `before` (their pairs are not compared). */
  addedPods: PodRef[];
  removedPods: PodRef[];
}

/** Whether pods of class `a` may reach pods of class `b` (own-node pairs aside). */
export const matrixClassAllowed = (m: ReachabilityMatrix, a: number, b: number) => ((m.classBits[a * m.classRowWords + (b >>> 5)] >>> (b & 31)) & 1) === 1;

/** Whether pod `from` may reach pod `to` (indexes into `pods`): read through the classes and the own-node pairs, not `bits`. */
export function matrixAllowed(m: ReachabilityMatrix, from: number, to: number): boolean {
  if (matrixClassAllowed(m, m.podClass[from], m.podClass[to])) return true;
  // The own-node pairs, by binary search.
  const key = from * m.pods.length + to;
  let lo = 0;
  let hi = m.ownNode.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (m.ownNode[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < m.ownNode.length && m.ownNode[lo] === key;
}

/** One peer of a rule and the pods it matches (indexes into the analysis's `pods`). */
export interface PeerSummary {
  peer: number;
  pods: number[];
  /** For ipBlock peers: "cidr" or "cidr except a,b"; they may also match addresses outside the pods. */
  ipBlock?: string;
}

export interface RuleSummary {
  rule: number;
  /** null: the rule lists no peers, so it matches every source (ingress) or destination (egress), inside the cluster or not. */
  peers: PeerSummary[] | null;
}

/** What a policy selects and what its peers match, for highlighting and warnings. */
export interface PolicySummary {
  policy: PolicyRef;
  /** The directions it isolates the selected pods for (policyTypes after defaulting). */
  types: Direction[];
  /** Indexes into `pods` of the pods it selects. */
  selects: number[];
  /** Present when `types` includes the direction. */
  ingress?: RuleSummary[];
  egress?: RuleSummary[];
  /** Sentences: a policy selecting nothing, peers matching no pods, named ports no selected pod declares, invalid selectors or CIDRs. */
  warnings: string[];
}

export interface Reachability {
  /** The pods the analysis covers, ordered by namespace then name (the order of every matrix). */
  readonly pods: readonly PodRef[];
  allowed(from: Endpoint, to: Endpoint, port: number, protocol?: Protocol): boolean;
  explain(from: Endpoint, to: Endpoint, port: number, protocol?: Protocol): Explanation;
  matrix(port: number, protocol?: Protocol): ReachabilityMatrix;
}
