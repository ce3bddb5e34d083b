// The naive evaluator: NetworkPolicy semantics read off the spec one pair at
// a time, every policy checked for every pair. It is the reference the fast
// engine is tested against, the baseline of the bench, and (because it can
// say why) the source of `explain`.
import { cidrContainsIP, formatIP, parseCIDRSloppy, parseIPSloppy, type CIDR, type IPAddress } from '../cidr.ts';
import { labelSelectorAsRequirements, matchesRequirements, type LabelSelector, type Requirement } from '../labels.ts';
import { buildModel, isFromOwnNode, normalizeProtocol, policyNamespace, policyTypesOf, podKey, type ClusterModel, type PodInfo } from './model.ts';
import type {
  Direction,
  DirectionExplanation,
  Endpoint,
  Explanation,
  NetworkPolicyLike,
  NetworkPolicyPeerLike,
  NetworkPolicyPortLike,
  NetworkPolicyRuleLike,
  PolicyRef,
  Protocol,
  ReachabilityInput,
  ReachabilityMatrix,
  RuleRef,
} from './types.ts';

/** null: the selector selects nothing (absent where required, or invalid). */
function compileSelector(sel: LabelSelector | null | undefined): Requirement[] | null {
  if (sel === null || sel === undefined) return null;
  try {
    return labelSelectorAsRequirements(sel);
  } catch {
    return null;
  }
}

export interface NaivePeer {
  /** undefined: not set. */
  podSelector?: Requirement[] | null;
  namespaceSelector?: Requirement[] | null;
  ipBlock?: { cidr: CIDR | null; except: CIDR[] };
}
export interface NaiveRule {
  /** null: no peers listed, so every peer matches. */
  peers: NaivePeer[] | null;
  ports: NetworkPolicyPortLike[] | null;
}
export interface NaivePolicy {
  ref: PolicyRef;
  /** The spec's podSelector; upstream defaults an absent one to {} (every pod). */
  podSelector: Requirement[] | null;
  types: Direction[];
  ingress: NaiveRule[];
  egress: NaiveRule[];
}

function compilePeer(p: NetworkPolicyPeerLike): NaivePeer {
  if (p.ipBlock) {
    return {
      ipBlock: {
        cidr: p.ipBlock.cidr ? parseCIDRSloppy(p.ipBlock.cidr) : null,
        except: (p.ipBlock.except ?? []).map((e) => parseCIDRSloppy(e)).filter((c): c is CIDR => !!c),
      },
    };
  }
  const out: NaivePeer = {};
  if (p.podSelector) out.podSelector = compileSelector(p.podSelector);
  if (p.namespaceSelector) out.namespaceSelector = compileSelector(p.namespaceSelector);
  return out;
}

function compilePolicy(np: NetworkPolicyLike): NaivePolicy {
  const rules = (rs: NetworkPolicyRuleLike[] | null | undefined, peersKey: 'from' | 'to'): NaiveRule[] =>
    (rs ?? []).map((r) => {
      const peers = r?.[peersKey] ?? [];
      const ports = r?.ports ?? [];
      return { peers: peers.length ? peers.map(compilePeer) : null, ports: ports.length ? ports : null };
    });
  return {
    ref: { namespace: policyNamespace(np), name: np.metadata.name ?? '' },
    podSelector: compileSelector(np.spec?.podSelector ?? {}),
    types: policyTypesOf(np),
    ingress: rules(np.spec?.ingress, 'from'),
    egress: rules(np.spec?.egress, 'to'),
  };
}

/** A connection end: a pod, or an address that is no pod's. */
export type Party = { pod: PodInfo; ips: IPAddress[]; text: string } | { pod?: undefined; ips: IPAddress[]; text: string };

export interface NaiveContext {
  model: ClusterModel;
  policies: NaivePolicy[];
  /** Every pod as a connection end, made once. */
  parties?: Party[];
}

const podParties = (ctx: NaiveContext): Party[] => (ctx.parties ??= ctx.model.pods.map((pod) => ({ pod, ips: pod.ips, text: podKey(pod.ref) })));

export function naiveContext(input: ReachabilityInput | ClusterModel): NaiveContext {
  const model = 'podByKey' in input ? input : buildModel(input);
  return { model, policies: model.policies.map(compilePolicy) };
}

/** A pod by name; an IP that belongs to a pod is that pod (its labels then count), any other IP is outside the pod network. */
export function resolveEndpoint(model: ClusterModel, e: Endpoint): Party {
  if ('ip' in e) {
    const ip = parseIPSloppy(e.ip.trim());
    if (!ip) throw new Error(`${JSON.stringify(e.ip)} is not an IP address`);
    const pod = model.podByIP.get(formatIP(ip));
    return pod ? { pod, ips: pod.ips, text: podKey(pod.ref) } : { ips: [ip], text: formatIP(ip) };
  }
  const pod = model.podByKey.get(podKey(e));
  if (!pod) throw new Error(`pod ${podKey(e)} not found`);
  return { pod, ips: pod.ips, text: podKey(pod.ref) };
}

export function selects(p: NaivePolicy, pod: PodInfo): boolean {
  return !pod.hostNetwork && p.ref.namespace === pod.ref.namespace && p.podSelector !== null && matchesRequirements(p.podSelector, pod.labels);
}

/**
 * ipBlock is meant for addresses outside the cluster, and upstream leaves its
 * effect on pod IPs to the implementation; like Calico, Cilium and most
 * iptables-based CNIs we match it against pod IPs too (any of a pod's IPs).
 */
function ipBlockMatches(b: NonNullable<NaivePeer['ipBlock']>, ips: IPAddress[]): boolean {
  const cidr = b.cidr;
  if (!cidr) return false;
  return ips.some((ip) => cidrContainsIP(cidr, ip) && !b.except.some((e) => cidrContainsIP(e, ip)));
}

export function peerMatches(peer: NaivePeer, policyNs: string, other: Party): boolean {
  if (peer.ipBlock) return ipBlockMatches(peer.ipBlock, other.ips);
  if (peer.podSelector === undefined && peer.namespaceSelector === undefined) return false; // invalid: no peer at all
  const pod = other.pod;
  if (!pod || pod.hostNetwork) return false; // selectors only ever select pods on the pod network
  const nsOK =
    peer.namespaceSelector === undefined ? pod.ref.namespace === policyNs : peer.namespaceSelector !== null && matchesRequirements(peer.namespaceSelector, pod.namespaceLabels);
  const podOK = peer.podSelector === undefined || (peer.podSelector !== null && matchesRequirements(peer.podSelector, pod.labels));
  return nsOK && podOK;
}

/** Index of the first port entry matching, -1 when none; named ports resolve against the destination pod's container ports. */
function portEntryMatching(ports: NetworkPolicyPortLike[], port: number, protocol: Protocol, destination: PodInfo | undefined): number {
  return ports.findIndex((e) => {
    if (normalizeProtocol(e.protocol) !== protocol) return false;
    if (e.port === undefined || e.port === null) return true;
    if (typeof e.port === 'number') return e.endPort !== undefined && e.endPort !== null ? port >= e.port && port <= e.endPort : port === e.port;
    return !!destination?.namedPorts.some((np) => np.name === e.port && np.protocol === protocol && np.port === port);
  });
}

const refText = (r: PolicyRef) => `${r.namespace}/${r.name}`;

/** Rules of `subject`'s isolating policies that let traffic to/from `peer` through; stops at the first when `all` is false. */
function matchingRules(ctx: NaiveContext, direction: Direction, subject: PodInfo, peer: Party, destination: PodInfo | undefined, port: number, protocol: Protocol, all: boolean) {
  const selectedBy: PolicyRef[] = [];
  const isolatedBy: PolicyRef[] = [];
  const allowedBy: RuleRef[] = [];
  for (const p of ctx.policies) {
    if (!selects(p, subject)) continue;
    selectedBy.push(p.ref);
    if (!p.types.includes(direction)) continue;
    isolatedBy.push(p.ref);
    const rules = direction === 'ingress' ? p.ingress : p.egress;
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i];
      const peerIndex = r.peers === null ? undefined : r.peers.findIndex((x) => peerMatches(x, p.ref.namespace, peer));
      if (peerIndex === -1) continue;
      const portIndex = r.ports === null ? undefined : portEntryMatching(r.ports, port, protocol, destination);
      if (portIndex === -1) continue;
      const ref: RuleRef = { ...p.ref, direction, rule: i };
      if (peerIndex !== undefined) ref.peer = peerIndex;
      if (portIndex !== undefined) ref.port = portIndex;
      allowedBy.push(ref);
      if (!all) return { selectedBy, isolatedBy, allowedBy };
    }
  }
  return { selectedBy, isolatedBy, allowedBy };
}

function explainDirection(ctx: NaiveContext, direction: Direction, from: Party, to: Party, port: number, protocol: Protocol, all: boolean): DirectionExplanation {
  const subject = direction === 'egress' ? from.pod : to.pod;
  const what = `${protocol} ${port}`;
  if (!subject) {
    const who = direction === 'egress' ? from.text : to.text;
    return {
      direction,
      selectedBy: [],
      isolatedBy: [],
      allowedBy: [],
      allowed: true,
      reason: `${who} is not a pod, so no NetworkPolicy governs its ${direction}.`,
    };
  }
  if (subject.hostNetwork) {
    return {
      direction,
      pod: subject.ref,
      selectedBy: [],
      isolatedBy: [],
      allowedBy: [],
      allowed: true,
      reason: `${subject.ref.namespace}/${subject.ref.name} uses the host network, so no NetworkPolicy governs its ${direction}.`,
    };
  }
  if (direction === 'ingress' && isFromOwnNode(from.ips.map(formatIP), subject)) {
    const m = matchingRules(ctx, direction, subject, from, to.pod, port, protocol, all);
    return {
      direction,
      pod: subject.ref,
      ...m,
      fromOwnNode: true,
      allowed: true,
      reason: `${from.text} is a host IP of node ${subject.nodeName}, where ${to.text} runs; traffic from a pod's own node is always allowed.`,
    };
  }
  const m = matchingRules(ctx, direction, subject, direction === 'egress' ? to : from, to.pod, port, protocol, all);
  const allowed = m.isolatedBy.length === 0 || m.allowedBy.length > 0;
  let reason: string;
  if (m.isolatedBy.length === 0) reason = `No policy isolates ${subject.ref.namespace}/${subject.ref.name} for ${direction}, so all its ${direction} is allowed.`;
  else if (allowed) reason = `Allowed by ${m.allowedBy.map((r) => `${refText(r)} spec.${direction}[${r.rule}]`).join(', ')}.`;
  else
    reason = `${subject.ref.namespace}/${subject.ref.name} is isolated for ${direction} by ${m.isolatedBy.map(refText).join(', ')}, and no rule allows ${what} ${
      direction === 'egress' ? `to ${to.text}` : `from ${from.text}`
    }.`;
  return { direction, pod: subject.ref, ...m, allowed, reason };
}

export function naiveExplain(ctx: NaiveContext, from: Endpoint, to: Endpoint, port: number, protocol: Protocol = 'TCP'): Explanation {
  const src = resolveEndpoint(ctx.model, from);
  const dst = resolveEndpoint(ctx.model, to);
  const egress = explainDirection(ctx, 'egress', src, dst, port, protocol, true);
  const ingress = explainDirection(ctx, 'ingress', src, dst, port, protocol, true);
  const allowed = egress.allowed && ingress.allowed;
  const blocked = [egress, ingress].filter((d) => !d.allowed).map((d) => d.direction);
  const summary = allowed
    ? `${src.text} may connect to ${dst.text} on ${protocol} ${port}: both the source's egress and the destination's ingress allow it.`
    : `${src.text} may not connect to ${dst.text} on ${protocol} ${port}: ${blocked.join(' and ')} ${blocked.length > 1 ? 'deny' : 'denies'} it.`;
  return { from, to, port, protocol, allowed, egress, ingress, summary };
}

/** One direction, decided without building an explanation: the first allowing rule ends the search. */
function directionAllowed(ctx: NaiveContext, direction: Direction, from: Party, to: Party, port: number, protocol: Protocol): boolean {
  const subject = direction === 'egress' ? from.pod : to.pod;
  if (!subject || subject.hostNetwork) return true;
  if (direction === 'ingress' && isFromOwnNode(from.pod ? from.pod.ipTexts : from.ips.map(formatIP), subject)) return true;
  const m = matchingRules(ctx, direction, subject, direction === 'egress' ? to : from, to.pod, port, protocol, false);
  return m.isolatedBy.length === 0 || m.allowedBy.length > 0;
}

function pairAllowed(ctx: NaiveContext, src: Party, dst: Party, port: number, protocol: Protocol): boolean {
  return directionAllowed(ctx, 'egress', src, dst, port, protocol) && directionAllowed(ctx, 'ingress', src, dst, port, protocol);
}

export function naiveAllowed(ctx: NaiveContext, from: Endpoint, to: Endpoint, port: number, protocol: Protocol = 'TCP'): boolean {
  return pairAllowed(ctx, resolveEndpoint(ctx.model, from), resolveEndpoint(ctx.model, to), port, protocol);
}

/** One row of the matrix (pod `i` to every pod), pair by pair, into `bits` at row `i` (rowWords = ceil(pods / 32)). */
export function naiveRow(ctx: NaiveContext, i: number, port: number, protocol: Protocol, bits: Uint32Array): void {
  const parties = podParties(ctx);
  const rowWords = (parties.length + 31) >>> 5;
  const src = parties[i];
  for (let j = 0; j < parties.length; j++) {
    if (pairAllowed(ctx, src, parties[j], port, protocol)) bits[i * rowWords + (j >>> 5)] |= 1 << (j & 31);
  }
}

/** Every pair, one by one. `pairs` limits the work to a sample (for the bench), in row-major order from the first pair. */
export function naiveMatrix(ctx: NaiveContext, port: number, protocol: Protocol = 'TCP', pairs = Infinity): ReachabilityMatrix {
  const pods = ctx.model.pods;
  const n = pods.length;
  const rowWords = (n + 31) >>> 5;
  const bits = new Uint32Array(n * rowWords);
  const parties = podParties(ctx);
  let done = 0;
  outer: for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (done++ >= pairs) break outer;
      if (pairAllowed(ctx, parties[i], parties[j], port, protocol)) bits[i * rowWords + (j >>> 5)] |= 1 << (j & 31);
    }
  }
  return { port, protocol, pods: pods.map((p) => p.ref), rowWords, bits, podClass: Int32Array.from(pods, (_, i) => i), classCount: n, classRowWords: rowWords, classBits: bits, ownNode: new Float64Array(0) };
}
