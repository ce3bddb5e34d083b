// Fix search: the smallest NetworkPolicy change that gives a pod pair (or an
// intent) the verdict wanted, with its full effect proven by comparing the
// matrices before and after at every port region (probes.ts), so the diff is
// exact for all ports, not only the one asked about.
//
// NetworkPolicy only ever allows: traffic passes when the source's egress and
// the destination's ingress both let it through, and a direction is open
// until some policy selecting the pod names that direction. So:
//  - to allow, for each direction that denies (the pod is isolated and no
//    rule matches), add one rule (the wanted peer on the wanted ports) to an
//    isolating policy, or create a policy selecting only the wanted pods when
//    that widens less (the candidates are compared by their measured effect);
//  - to deny, one direction must stop letting it through. Where that
//    direction is isolated, every rule admitting the traffic is narrowed: its
//    peers are intersected with the complement of the wanted peer (a union of
//    selectors, each negating one requirement: `app NotIn [web]`, or the
//    namespace's name NotIn), and when the rule covers more ports than
//    wanted, a second rule gives the wanted peer back the other ports. Where
//    the direction is open, a new policy isolates the pods and allows
//    everything except the wanted peer the same way. Pods carrying a superset
//    of the peer's labels cannot be told apart from it by any selector, so
//    they lose the same access: the effect lists them.
//  - what cannot be said with selectors is said in notes: a rule that
//    admitted every address admits pods only once narrowed (an ipBlock
//    for the outside would match the pods' own addresses again), and ipBlock
//    peers are narrowed with the pods' current IPs, which change when they
//    are recreated.
import type { LabelSelector } from '../labels.ts';
import { describePeer, describePort } from '../netpol-describe.ts';
import { matchesLabelSelector } from '../labels.ts';
import { cidrContainsCIDR, parseCIDRSloppy } from '../cidr.ts';
import { diffMatrices, diffPairs } from './diff.ts';
import { analyzeReachability, type ReachabilityAnalysis } from './index.ts';
import { forEachIntentCase, intentRanges, isIPBlock, MatrixCache, namespaceSelectorOf, type Intent, type IntentEndpoint, type PodsEndpoint } from './intents.ts';
import { policyNamespace } from './model.ts';
import { ALL_PORTS, MAX_PORT, probePorts, type PortRange, type PortSpec } from './probes.ts';
import { PROTOCOLS, type Endpoint, type NetworkPolicyLike, type NetworkPolicyPeerLike, type NetworkPolicyPortLike, type NetworkPolicyRuleLike, type PodRef, type Protocol, type ReachabilityInput } from './types.ts';

export type Verdict = 'allowed' | 'denied';

export interface PolicyChange {
  action: 'create' | 'update';
  /** The policy after the change (for an update: the stored one with its spec changed). */
  policy: NetworkPolicyLike;
  before?: NetworkPolicyLike;
  reasons: string[];
}

export interface EffectPair {
  from: PodRef;
  to: PodRef;
  /** Port regions ("TCP 80", "TCP 1-79", "UDP any port"). */
  ports: string[];
}

export interface FixEffect {
  /** Per port region that changed. */
  regions: { protocol: Protocol; from: number; to: number; newlyAllowed: number; newlyDenied: number }[];
  newlyAllowed: EffectPair[];
  newlyDenied: EffectPair[];
  /** Pod pairs changed, counted once per pair and region. */
  totalAllowed: number;
  totalDenied: number;
}

export interface FixProposal {
  /** The change gives every wanted case its verdict (checked on the result). */
  achieved: boolean;
  changes: PolicyChange[];
  effect: FixEffect;
  notes: string[];
}

export interface FixTarget {
  from: IntentEndpoint;
  to: IntentEndpoint;
  ranges: PortRange[];
  expect: Verdict;
  /** Base for names of new policies. */
  name: string;
}

// ---- selector algebra -------------------------------------------------------

interface Expr {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** A peer as requirements: `own` = the policy's namespace; pod null = any pod. */
interface Peer {
  ns: Expr[] | 'own';
  pod: Expr[] | null;
}

const exprsOf = (s: LabelSelector | undefined | null): Expr[] => [
  ...Object.entries(s?.matchLabels ?? {}).map(([key, v]): Expr => ({ key, operator: 'In', values: [v] })),
  ...(s?.matchExpressions ?? []).map((e) => ({ ...e }) as Expr),
];

const negate = (e: Expr): Expr =>
  e.operator === 'In' ? { key: e.key, operator: 'NotIn', values: e.values } : e.operator === 'NotIn' ? { key: e.key, operator: 'In', values: e.values } : { key: e.key, operator: e.operator === 'Exists' ? 'DoesNotExist' : 'Exists' };

/** No label set satisfies the requirements (checked per key). */
function contradictory(exprs: Expr[]): boolean {
  const keys = new Set(exprs.map((e) => e.key));
  for (const k of keys) {
    const es = exprs.filter((e) => e.key === k);
    const mustExist = es.some((e) => e.operator === 'Exists' || e.operator === 'In');
    if (mustExist && es.some((e) => e.operator === 'DoesNotExist')) return true;
    let allowed: Set<string> | undefined;
    for (const e of es) if (e.operator === 'In') allowed = new Set([...(e.values ?? [])].filter((v) => !allowed || allowed.has(v)));
    if (allowed) {
      for (const e of es) if (e.operator === 'NotIn') for (const v of e.values ?? []) allowed.delete(v);
      if (allowed.size === 0) return true;
    }
  }
  return false;
}

const dedupe = (exprs: Expr[]) => {
  const seen = new Set<string>();
  return exprs.filter((e) => {
    const k = JSON.stringify([e.key, e.operator, [...(e.values ?? [])].sort()]);
    return seen.has(k) ? false : (seen.add(k), true);
  });
};

function toSelector(exprs: Expr[]): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Expr[] = [];
  for (const e of dedupe(exprs)) {
    if (e.operator === 'In' && e.values?.length === 1 && !(e.key in matchLabels)) matchLabels[e.key] = e.values[0];
    else matchExpressions.push(e.operator === 'In' || e.operator === 'NotIn' ? { key: e.key, operator: e.operator, values: [...(e.values ?? [])] } : { key: e.key, operator: e.operator });
  }
  return { ...(Object.keys(matchLabels).length ? { matchLabels } : {}), ...(matchExpressions.length ? { matchExpressions } : {}) };
}

const peerOf = (p: NetworkPolicyPeerLike): Peer => ({ ns: p.namespaceSelector ? exprsOf(p.namespaceSelector) : 'own', pod: p.podSelector ? exprsOf(p.podSelector) : null });

function peerOut(p: Peer): NetworkPolicyPeerLike {
  if (p.ns === 'own') return { podSelector: toSelector(p.pod ?? []) };
  return { namespaceSelector: toSelector(p.ns), ...(p.pod ? { podSelector: toSelector(p.pod) } : {}) };
}

/** The pods side of an endpoint as requirements (namespace always explicit). */
const endpointPeer = (e: PodsEndpoint): { ns: Expr[]; pod: Expr[] } => ({ ns: exprsOf(namespaceSelectorOf(e)), pod: exprsOf(e.podSelector) });

/** Peers matching exactly the pods outside the endpoint (one negated requirement each). */
function complement(e: PodsEndpoint): Peer[] {
  const { ns, pod } = endpointPeer(e);
  return [...ns.map((r): Peer => ({ ns: [negate(r)], pod: null })), ...pod.map((r): Peer => ({ ns, pod: [negate(r)] }))];
}

/** The intersection of two peers, null when empty (as far as requirements show). */
function intersect(a: Peer, b: Peer, policyNsLabels: Record<string, string>): Peer | null {
  let ns: Expr[] | 'own';
  if (a.ns === 'own' || b.ns === 'own') {
    const other = a.ns === 'own' ? b.ns : a.ns;
    if (other !== 'own' && !matchesLabelSelector(toSelectorLoose(other), policyNsLabels)) return null;
    ns = 'own';
  } else ns = dedupe([...a.ns, ...b.ns]);
  const pod = a.pod === null ? b.pod : b.pod === null ? a.pod : dedupe([...a.pod, ...b.pod]);
  if ((ns !== 'own' && contradictory(ns)) || (pod && contradictory(pod))) return null;
  return { ns, pod };
}

/** Every requirement as a matchExpression (a key may appear twice, which matchLabels cannot say). */
const toSelectorLoose = (exprs: Expr[]): LabelSelector => ({ matchExpressions: exprs.map((e) => ({ ...e })) });

// ---- ports ------------------------------------------------------------------

const rangesEqual = (a: readonly PortRange[], b: readonly PortRange[]) => a.length === b.length && a.every((r, i) => r.protocol === b[i].protocol && r.from === b[i].from && r.to === b[i].to);

function portsFor(ranges: PortRange[]): NetworkPolicyPortLike[] | undefined {
  if (rangesEqual(ranges, ALL_PORTS)) return undefined;
  return ranges.map((r) => (r.from === 1 && r.to === MAX_PORT ? { protocol: r.protocol } : { protocol: r.protocol, port: r.from, ...(r.to > r.from ? { endPort: r.to } : {}) }));
}

/** The rule's port entries minus the wanted ranges (named ports kept: they cannot be split). */
function subtractPorts(ports: NetworkPolicyPortLike[] | null | undefined, minus: PortRange[]): NetworkPolicyPortLike[] {
  const entries: NetworkPolicyPortLike[] = ports?.length ? ports : PROTOCOLS.map((protocol) => ({ protocol }));
  const out: NetworkPolicyPortLike[] = [];
  for (const e of entries) {
    const protocol = (e.protocol === 'UDP' || e.protocol === 'SCTP' ? e.protocol : 'TCP') as Protocol;
    if (typeof e.port === 'string') {
      out.push(e);
      continue;
    }
    let pieces: [number, number][] = [e.port === undefined || e.port === null ? [1, MAX_PORT] : [e.port, e.endPort ?? e.port]];
    for (const m of minus) {
      if (m.protocol !== protocol) continue;
      pieces = pieces.flatMap(([a, b]): [number, number][] => {
        if (m.to < a || m.from > b) return [[a, b]];
        return [...(a < m.from ? [[a, m.from - 1] as [number, number]] : []), ...(m.to < b ? [[m.to + 1, b] as [number, number]] : [])];
      });
    }
    for (const [a, b] of pieces) out.push(a === 1 && b === MAX_PORT ? { protocol } : { protocol, port: a, ...(b > a ? { endPort: b } : {}) });
  }
  return out;
}

// ---- effect -------------------------------------------------------------------

const regionText = (r: { protocol: Protocol; from: number; to: number }) => (r.from === 1 && r.to === MAX_PORT ? `${r.protocol} any port` : r.from === r.to ? `${r.protocol} ${r.from}` : `${r.protocol} ${r.from}-${r.to}`);

/** What replacing `before`'s policies by `after`'s changes, at every port region (exact), pairs listed up to `limit`. */
export function reachabilityEffect(before: ReachabilityInput, after: ReachabilityInput, limit = 200, analyses?: { before?: ReachabilityAnalysis; after?: ReachabilityAnalysis }): FixEffect {
  const a0 = analyses?.before ?? analyzeReachability(before);
  const a1 = analyses?.after ?? analyzeReachability(after);
  const probes = probePorts([before.policies, after.policies], before.pods);
  const effect: FixEffect = { regions: [], newlyAllowed: [], newlyDenied: [], totalAllowed: 0, totalDenied: 0 };
  // Per pair, its ranges: adjacent regions with the same change read as one ("TCP 1-8079").
  const lists = { newlyAllowed: new Map<string, { from: PodRef; to: PodRef; ranges: PortRange[] }>(), newlyDenied: new Map<string, { from: PodRef; to: PodRef; ranges: PortRange[] }>() };
  probes.forEach((p, i) => {
    const next = probes[i + 1];
    const region = { protocol: p.protocol, from: p.port, to: next && next.protocol === p.protocol ? next.port - 1 : MAX_PORT };
    const d = diffMatrices(a0.matrix(p.port, p.protocol), a1.matrix(p.port, p.protocol));
    if (!d.newlyAllowedCount && !d.newlyDeniedCount) return;
    effect.regions.push({ ...region, newlyAllowed: d.newlyAllowedCount, newlyDenied: d.newlyDeniedCount });
    effect.totalAllowed += d.newlyAllowedCount;
    effect.totalDenied += d.newlyDeniedCount;
    for (const which of ['newlyAllowed', 'newlyDenied'] as const) {
      const into = lists[which];
      for (const pr of diffPairs(d, which, limit)) {
        const k = `${pr.from.namespace}/${pr.from.name}>${pr.to.namespace}/${pr.to.name}`;
        const cur = into.get(k);
        const last = cur?.ranges[cur.ranges.length - 1];
        if (last && last.protocol === region.protocol && last.to + 1 === region.from) last.to = region.to;
        else if (cur) cur.ranges.push({ ...region });
        else if (into.size < limit) into.set(k, { ...pr, ranges: [{ ...region }] });
      }
    }
  });
  const pairs = (m: Map<string, { from: PodRef; to: PodRef; ranges: PortRange[] }>) => [...m.values()].map((p) => ({ from: p.from, to: p.to, ports: p.ranges.map(regionText) }));
  effect.newlyAllowed = pairs(lists.newlyAllowed);
  effect.newlyDenied = pairs(lists.newlyDenied);
  return effect;
}

// ---- search -------------------------------------------------------------------

const key = (np: NetworkPolicyLike) => `${policyNamespace(np)}/${np.metadata.name ?? ''}`;
const clone = <T>(x: T): T => structuredClone(x);

interface Work {
  input: ReachabilityInput;
  analysis: ReachabilityAnalysis;
  matrices: MatrixCache;
}

const work = (input: ReachabilityInput): Work => {
  const analysis = analyzeReachability(input);
  return { input, analysis, matrices: new MatrixCache(analysis) };
};

interface Case {
  from: Endpoint;
  to: Endpoint;
  port: PortSpec;
}

function firstViolation(w: Work, target: FixTarget, only?: { from: PodRef; to: PodRef }): Case | undefined {
  const wantAllowed = target.expect === 'allowed';
  if (only) {
    for (const p of probePorts([w.input.policies], w.input.pods, target.ranges)) {
      if (w.analysis.allowed(only.from, only.to, p.port, p.protocol) !== wantAllowed) return { from: only.from, to: only.to, port: p };
    }
    return undefined;
  }
  let found: Case | undefined;
  forEachIntentCase(w.input, w.analysis, w.matrices, target, (from, to, port, allowed) => {
    if (allowed === wantAllowed) return true;
    found = { from, to, port };
    return false;
  });
  return found;
}

const dnsName = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/g, '') || 'fix';

function freshName(policies: readonly NetworkPolicyLike[], ns: string, base: string): string {
  const taken = new Set(policies.filter((p) => policyNamespace(p) === ns).map((p) => p.metadata.name));
  let name = dnsName(base);
  for (let i = 2; taken.has(name); i++) name = dnsName(`${base.slice(0, 58)}-${i}`);
  return name;
}

/** The peer that stands for an endpoint in a rule of a policy in `policyNs`. */
function peerFor(e: IntentEndpoint, policyNs: string): NetworkPolicyPeerLike {
  if (isIPBlock(e)) return { ipBlock: clone(e.ipBlock) };
  if (e.namespace === policyNs) return { podSelector: clone(e.podSelector ?? {}) };
  return { namespaceSelector: namespaceSelectorOf(e), ...(e.podSelector ? { podSelector: clone(e.podSelector) } : {}) };
}

const nsLabelsOf = (input: ReachabilityInput, ns: string): Record<string, string> => ({
  'kubernetes.io/metadata.name': ns,
  ...(input.namespaces.find((n) => n.metadata.name === ns)?.metadata.labels ?? {}),
});

/** IPs of the pods an endpoint names (for narrowing ipBlocks). */
function endpointIPs(w: Work, e: PodsEndpoint): string[] {
  const pods = new Set(forEachPod(w, e).map((r) => `${r.namespace}/${r.name}`));
  const out: string[] = [];
  for (const p of w.input.pods) {
    if (!pods.has(`${p.metadata.namespace ?? 'default'}/${p.metadata.name}`)) continue;
    for (const ip of new Set([p.status?.podIP, ...(p.status?.podIPs ?? []).map((x) => x?.ip)])) if (ip) out.push(ip);
  }
  return out;
}

function forEachPod(w: Work, e: PodsEndpoint): PodRef[] {
  const nsSel = namespaceSelectorOf(e);
  return w.input.pods
    .filter((p) => p.metadata.name && !p.spec?.hostNetwork && matchesLabelSelector(nsSel, nsLabelsOf(w.input, p.metadata.namespace ?? 'default')) && matchesLabelSelector(e.podSelector ?? {}, p.metadata.labels ?? {}))
    .map((p) => ({ namespace: p.metadata.namespace ?? 'default', name: p.metadata.name! }));
}

/** A peer of a rule narrowed so it no longer matches `other`. */
function narrowPeer(w: Work, p: NetworkPolicyPeerLike, other: IntentEndpoint, policyNs: string, notes: Set<string>): NetworkPolicyPeerLike[] {
  if (p.ipBlock) {
    const cidr = p.ipBlock.cidr ? parseCIDRSloppy(p.ipBlock.cidr) : null;
    if (!cidr) return [p];
    const outs: string[] = [];
    if (isIPBlock(other)) {
      const o = parseCIDRSloppy(other.ipBlock.cidr);
      if (!o || o.family !== cidr.family) return [p];
      if (cidrContainsCIDR(o, cidr)) return [];
      if (cidrContainsCIDR(cidr, o)) outs.push(other.ipBlock.cidr);
    } else {
      for (const ip of endpointIPs(w, other)) {
        const host = parseCIDRSloppy(`${ip}/${ip.includes(':') ? 128 : 32}`);
        if (host && cidrContainsCIDR(cidr, host) && host.prefix > cidr.prefix) outs.push(`${ip}/${ip.includes(':') ? 128 : 32}`);
      }
      if (outs.length) notes.add('An ipBlock peer is narrowed with the pods\' current addresses; a recreated pod gets a new address, so prefer selectors for pods.');
    }
    if (!outs.length) return [p];
    return [{ ipBlock: { cidr: p.ipBlock.cidr, except: [...new Set([...(p.ipBlock.except ?? []), ...outs])] } }];
  }
  if (isIPBlock(other)) return [p];
  if (!p.podSelector && !p.namespaceSelector) return [p];
  const policyNsLabels = nsLabelsOf(w.input, policyNs);
  return complement(other)
    .map((c) => intersect(peerOf(p), c, policyNsLabels))
    .filter((x): x is Peer => !!x)
    .map(peerOut);
}

/** The part of a peer that matches `other` (for giving back the ports not wanted denied). */
function keepPeer(w: Work, p: NetworkPolicyPeerLike, other: IntentEndpoint, policyNs: string): NetworkPolicyPeerLike[] {
  if (p.ipBlock) return [p]; // adds nothing the rule did not have
  if (isIPBlock(other)) return [];
  if (!p.podSelector && !p.namespaceSelector) return [];
  const { ns, pod } = endpointPeer(other);
  const x = intersect(peerOf(p), { ns, pod }, nsLabelsOf(w.input, policyNs));
  return x ? [peerOut(x)] : [];
}

/** A rule without the traffic to/from `other` on the wanted ports: the narrowed rule, and one giving `other` back the rule's other ports. */
function narrowRule(w: Work, rule: NetworkPolicyRuleLike, dir: 'ingress' | 'egress', other: IntentEndpoint, ranges: PortRange[], policyNs: string, notes: Set<string>): NetworkPolicyRuleLike[] {
  const field = dir === 'ingress' ? 'from' : 'to';
  const listed = rule[field]?.length ? rule[field]! : null;
  let base: NetworkPolicyPeerLike[];
  if (listed) base = listed;
  else if (isIPBlock(other)) base = [{ namespaceSelector: {} }, { ipBlock: { cidr: '0.0.0.0/0' } }, { ipBlock: { cidr: '::/0' } }];
  else {
    base = [{ namespaceSelector: {} }];
    notes.add(`A rule that admitted every ${dir === 'ingress' ? 'source' : 'destination'} now lists pods only: addresses outside the cluster lose it. Add an ipBlock rule for the networks that need it (an ipBlock also matches the pods' own addresses).`);
  }
  const out: NetworkPolicyRuleLike[] = [];
  const narrowed = base.flatMap((p) => narrowPeer(w, p, other, policyNs, notes));
  const ports = rule.ports?.length ? rule.ports : undefined;
  if (narrowed.length) out.push({ [field]: narrowed, ...(ports ? { ports: clone(ports) } : {}) });
  const rest = subtractPorts(rule.ports, ranges);
  const back = base.flatMap((p) => keepPeer(w, p, other, policyNs));
  if (rest.length && back.length) out.push({ [field]: back, ports: rest });
  return out;
}

function specOf(np: NetworkPolicyLike) {
  return (np.spec ??= {});
}

/** Makes policyTypes explicit (as defaulted) before rules are edited, so adding an egress rule does not silently isolate egress. */
function pinTypes(np: NetworkPolicyLike) {
  const s = specOf(np);
  if (!s.policyTypes?.length) s.policyTypes = ['Ingress', ...(s.egress?.length ? ['Egress'] : [])];
}

interface Candidate {
  policies: NetworkPolicyLike[];
  reason: { key: string; text: string };
  prefer: number;
  notes?: Set<string>;
  direction: 'ingress' | 'egress';
}

const podLabels = (input: ReachabilityInput, r: PodRef) => input.pods.find((p) => (p.metadata.namespace ?? 'default') === r.namespace && p.metadata.name === r.name)?.metadata.labels ?? {};

function score(w: Work, c: Candidate): number {
  const e = reachabilityEffect(w.input, { ...w.input, policies: c.policies }, 0, { before: w.analysis });
  return e.totalDenied * 1_000_000 + e.totalAllowed * 4 + c.prefer;
}

function candidates(w: Work, target: FixTarget, v: Case, only: { from: PodRef; to: PodRef } | undefined, changed: Set<string>): Candidate[] {
  const x = w.analysis.explain(v.from, v.to, v.port.port, v.port.protocol);
  const policies = w.input.policies;
  const out: Candidate[] = [];
  const wantAllowed = target.expect === 'allowed';
  // The pods a new policy selects: those of the wanted side (exactly the pod's labels for a pair).
  const subjectSelector = (dir: 'ingress' | 'egress', pod: PodRef): LabelSelector => {
    const e = dir === 'ingress' ? target.to : target.from;
    if (only) return { matchLabels: { ...podLabels(w.input, pod) } };
    return clone((e as PodsEndpoint).podSelector ?? {});
  };
  for (const d of [x.ingress, x.egress]) {
    const dir = d.direction;
    const subject = d.pod;
    if (!subject || d.allowed === wantAllowed) continue;
    if (dir === 'ingress' && d.fromOwnNode) continue; // traffic from the pod's own node passes whatever the policies say
    const other = dir === 'ingress' ? target.from : target.to;
    const field = dir === 'ingress' ? 'from' : 'to';
    const type = dir === 'ingress' ? 'Ingress' : 'Egress';
    // To allow, each denying direction is opened in turn (ingress first); to deny, either direction will do.
    if (wantAllowed && out.length) break;
    if (wantAllowed) {
      const rule: NetworkPolicyRuleLike = { [field]: [peerFor(other, subject.namespace)], ...(portsFor(target.ranges) ? { ports: portsFor(target.ranges) } : {}) };
      for (const ref of d.isolatedBy) {
        const next = clone([...policies]);
        const np = next.find((p) => key(p) === `${ref.namespace}/${ref.name}`)!;
        pinTypes(np);
        (specOf(np)[dir] ??= []).push(clone(rule));
        out.push({ policies: next, reason: { key: key(np), text: `adds an ${dir} rule ${dir === 'ingress' ? 'from' : 'to'} ${describePeer(rule[field]![0] as Parameters<typeof describePeer>[0], policyNamespace(np))} on ${rule.ports ? rule.ports.map((p) => describePort(p as Parameters<typeof describePort>[0])).join(', ') : 'every port'}` }, prefer: changed.has(key(np)) ? 0 : 1, direction: dir });
      }
      const name = freshName(policies, subject.namespace, `allow-${target.name}`);
      const created: NetworkPolicyLike = { metadata: { namespace: subject.namespace, name }, spec: { podSelector: subjectSelector(dir, subject), policyTypes: [type], [dir]: [clone(rule)] } };
      out.push({ policies: [...clone([...policies]), created], reason: { key: `${subject.namespace}/${name}`, text: `a new policy selecting only the wanted pods, with one ${dir} rule` }, prefer: 2, direction: dir });
    } else if (d.isolatedBy.length) {
      // Narrow every rule that lets the traffic through in this direction.
      const notes = new Set<string>();
      const next = clone([...policies]);
      const touched: string[] = [];
      const byPolicy = new Map<string, Set<number>>();
      for (const r of d.allowedBy) {
        const k = `${r.namespace}/${r.name}`;
        (byPolicy.get(k) ?? byPolicy.set(k, new Set()).get(k)!).add(r.rule);
      }
      for (const [k, rules] of byPolicy) {
        const np = next.find((p) => key(p) === k)!;
        const list = specOf(np)[dir] ?? [];
        specOf(np)[dir] = list.flatMap((r, i) => (rules.has(i) ? narrowRule(w, r, dir, other, target.ranges, policyNamespace(np), notes) : [r]));
        touched.push(k);
      }
      out.push({ policies: next, reason: { key: touched.join(','), text: `narrows the ${dir} rules that let the traffic through` }, prefer: 0, notes, direction: dir });
    } else {
      const notes = new Set<string>();
      const name = freshName(policies, subject.namespace, `isolate-${target.name}`);
      const rules = narrowRule(w, {}, dir, other, target.ranges, subject.namespace, notes);
      const created: NetworkPolicyLike = { metadata: { namespace: subject.namespace, name }, spec: { podSelector: subjectSelector(dir, subject), policyTypes: [type], [dir]: rules } };
      out.push({
        policies: [...clone([...policies]), created],
        reason: { key: `${subject.namespace}/${name}`, text: `a new policy isolating the pods for ${dir} and allowing everything else` },
        prefer: dir === 'ingress' ? 1 : 2,
        notes,
        direction: dir,
      });
    }
  }
  return out;
}

function search(input: ReachabilityInput, target: FixTarget, only?: { from: PodRef; to: PodRef }): FixProposal {
  const start = work(input);
  let w = start;
  const reasons = new Map<string, string[]>();
  const changed = new Set<string>();
  const notes = new Set<string>();
  let achieved = false;
  for (let step = 0; step < 32; step++) {
    const v = firstViolation(w, target, only);
    if (!v) {
      achieved = true;
      break;
    }
    const cs = candidates(w, target, v, only, changed);
    if (!cs.length) {
      notes.add(`No policy change can ${target.expect === 'allowed' ? 'allow' : 'deny'} ${'ip' in v.from ? v.from.ip : `${v.from.namespace}/${v.from.name}`} → ${'ip' in v.to ? v.to.ip : `${v.to.namespace}/${v.to.name}`}: traffic from a pod's own node always passes.`);
      break;
    }
    let best = cs[0];
    let bestScore = Infinity;
    for (const c of cs) {
      const s = score(w, c);
      if (s < bestScore) [best, bestScore] = [c, s];
    }
    const next = work({ ...w.input, policies: best.policies });
    if (!directionChanged(w, next, v, best.direction)) {
      notes.add('The search stopped: a change did not alter the case it was made for.');
      break;
    }
    for (const n of best.notes ?? []) notes.add(n);
    for (const k of best.reason.key.split(',')) {
      changed.add(k);
      (reasons.get(k) ?? reasons.set(k, []).get(k)!).push(best.reason.text);
    }
    w = next;
  }
  const original = new Map(input.policies.map((p) => [key(p), p]));
  const changes: PolicyChange[] = [];
  for (const np of w.input.policies) {
    const before = original.get(key(np));
    if (before && JSON.stringify(before) === JSON.stringify(np)) continue;
    changes.push({ action: before ? 'update' : 'create', policy: np, ...(before ? { before } : {}), reasons: reasons.get(key(np)) ?? [] });
  }
  return { achieved, changes, effect: reachabilityEffect(input, w.input, 200, { before: start.analysis, after: w.analysis }), notes: [...notes] };
}

/** The direction a change was made for now decides the case the other way. */
function directionChanged(before: Work, after: Work, v: Case, dir: 'ingress' | 'egress'): boolean {
  const ask = (w: Work) => w.analysis.explain(v.from, v.to, v.port.port, v.port.protocol)[dir].allowed;
  return ask(before) !== ask(after);
}

/** The smallest change giving one pod pair the verdict at one port. */
export function proposePairFix(input: ReachabilityInput, from: PodRef, to: PodRef, port: number, protocol: Protocol, expect: Verdict): FixProposal {
  const endpoint = (r: PodRef): PodsEndpoint => ({ namespace: r.namespace, podSelector: { matchLabels: { ...podLabels(input, r) } } });
  return search(input, { from: endpoint(from), to: endpoint(to), ranges: [{ protocol, from: port, to: port }], expect, name: `${from.name}-to-${to.name}` }, { from, to });
}

/** The smallest change after which the intent is met. */
export function proposeIntentFix(input: ReachabilityInput, intent: Intent): FixProposal {
  return search(input, { from: intent.from, to: intent.to, ranges: intentRanges(intent), expect: intent.expect, name: intent.name });
}
