// What the reachability views ask of the engine, computed off the UI thread
// (this module runs inside reachability.worker.ts; it is plain TypeScript so
// Node tests can call it too). The views never see pod-by-pod matrices:
// pods of one namespace with the same labels are one group, and a matrix
// answer is a count of allowed pod pairs per group pair.
import { AnalysisMemo, analyzeReachability, diffMatrices, matrixAllowed, diffPairs, evaluateIntents, proposeIntentFix, proposePairFix, type Endpoint, type FixProposal, type Intent, type IntentResult, type Explanation, type NetworkPolicyLike, type NetworkPolicyPeerLike, type PodRef, type Protocol, type ReachabilityAnalysis, type ReachabilityInput, type ReachabilityMatrix } from '../../../lib/reachability/index.ts';
import { matchesLabelSelector } from '../../../lib/labels.ts';
import { cidrContainsIP, formatIP, networkOf, parseCIDRSloppy, type CIDR } from '../../../lib/cidr.ts';
import { describePeer, effectivePolicyTypes } from '../../../lib/netpol-describe.ts';

export interface PortSpec {
  port: number;
  protocol: Protocol;
}

/**
 * Pods of one namespace with the same labels, as the page is sent them: their count and a few
 * names, not every pod (a summary of 60,000 pod refs took the page ~90 ms to receive, each time
 * a rollout changed a few pods).
 */
export interface PodGroup {
  /** namespace + labels (+ host network): stable across recomputations. */
  key: string;
  namespace: string;
  labels: Record<string, string>;
  hostNetwork: boolean;
  podCount: number;
  /** The first pods' names (GROUP_NAMES at most). */
  podNames: string[];
  /**
   * What the group is called: the pod's name when it is alone, else the pods' common name prefix,
   * else its telling labels; with its size, and the labels that tell it from a group of the same
   * name in its namespace (a DaemonSet's old and new pods through a rollout).
   */
  name: string;
  /** Isolated by some policy for each direction. */
  ingressIsolated: boolean;
  egressIsolated: boolean;
}

/** How many of a group's pod names the page is sent. */
const GROUP_NAMES = 12;

/** A group as the worker keeps it: every pod. */
interface LiveGroup extends Omit<PodGroup, 'podCount' | 'podNames' | 'name'> {
  pods: PodRef[];
}

// Labels that tell pods of one workload apart by revision, not by role.
const NOISY = /(^|\/)(pod-template-hash|controller-revision-hash|pod-template-generation|pod-name|pod-index)$/;
/** The revision labels' short words in a group's name (its title lists every label). */
const REVISION_LABELS: Record<string, string> = { 'controller-revision-hash': 'rev', 'pod-template-hash': 'rev', 'pod-template-generation': 'gen' };

function commonPrefix(pods: readonly PodRef[]): string {
  let prefix = pods[0]?.name ?? '';
  for (const p of pods) {
    let i = 0;
    while (i < prefix.length && i < p.name.length && prefix[i] === p.name[i]) i++;
    if (i < prefix.length) prefix = prefix.slice(0, i);
  }
  return prefix;
}

function nameOf(g: LiveGroup): string {
  if (g.pods.length === 1) return g.pods[0].name;
  const prefix = commonPrefix(g.pods);
  const cut = prefix.lastIndexOf('-');
  if (cut >= 3) return `${prefix.slice(0, cut + 1)}* ×${g.pods.length}`;
  const labels = Object.entries(g.labels)
    .filter(([k]) => !NOISY.test(k))
    .map(([k, v]) => `${k}=${v}`);
  return `${labels.length ? labels.join(',') : '(no labels)'} ×${g.pods.length}`;
}

/** The groups as the page is sent them, named; groups of one namespace named alike get the labels that tell them apart. */
function groupViews(groups: readonly LiveGroup[]): PodGroup[] {
  const views = groups.map((g): PodGroup => {
    const { pods, ...rest } = g;
    return { ...rest, podCount: pods.length, podNames: pods.slice(0, GROUP_NAMES).map((p) => p.name), name: nameOf(g) };
  });
  const alike = new Map<string, PodGroup[]>();
  for (const v of views) {
    const key = `${v.namespace}\u0000${v.name.replace(/ ×\d+$/, '')}`;
    alike.get(key)?.push(v) ?? alike.set(key, [v]);
  }
  for (const same of alike.values()) {
    if (same.length < 2) continue;
    // The labels whose values differ among them, as few as tell them all apart.
    const differing = [...new Set(same.flatMap((v) => Object.keys(v.labels)))].filter((k) => same.some((v) => v.labels[k] !== same[0].labels[k])).sort();
    const keys: string[] = [];
    for (const k of differing) {
      keys.push(k);
      if (new Set(same.map((v) => keys.map((key) => v.labels[key]).join('\u0000'))).size === same.length) break;
    }
    const shown = (v: PodGroup, k: string) => (!(k in v.labels) ? `no ${k}` : k in REVISION_LABELS ? `${REVISION_LABELS[k]} ${v.labels[k]}` : `${k}=${v.labels[k]}`);
    for (const v of same) if (keys.length) v.name += ` · ${keys.map((k) => shown(v, k)).join(', ')}`;
  }
  return views;
}

export interface PolicyInfo {
  namespace: string;
  name: string;
  types: string[];
  /** Groups whose pods the policy selects (some of them at least). */
  selects: number[];
  selectedPods: number;
  /** Groups its ingress rules admit as sources, and its egress rules as destinations; `all` when a rule has no peers. */
  admitsFrom: number[];
  admitsFromAll: boolean;
  admitsTo: number[];
  admitsToAll: boolean;
  /** ipBlock CIDRs named in from / to. */
  cidrsFrom: string[];
  cidrsTo: string[];
  warnings: string[];
}

export interface ClusterSummary {
  version: number;
  groups: PodGroup[];
  policies: PolicyInfo[];
  podCount: number;
  classCount: number;
  /** Ports worth looking at: those the policies name and the pods declare. */
  suggestedPorts: PortSpec[];
  /** External networks named by ipBlocks. */
  cidrs: { cidr: string; except: string[] }[];
}

export interface MatrixView {
  version: number;
  port: number;
  protocol: Protocol;
  /** Allowed pod pairs for each (source group, destination group), row-major over groups. */
  counts: Uint32Array;
  allowedPairs: number;
  totalPairs: number;
  ms: number;
}

export interface CellExplanation {
  version: number;
  /** A denied pair first, then an allowed one; one entry when every pair of the cell agrees. */
  explanations: Explanation[];
}

export interface GraphEdge {
  /** Group index, or groups.length + cidr index for an external network. */
  from: number;
  to: number;
  ports: string[];
  /** Neither end isolated: every port passes. */
  open: boolean;
  /** Only some pod pairs of the two groups (at some port). */
  partial: boolean;
}

export type GraphLevel = 'groups' | 'namespaces';

export interface GraphView {
  version: number;
  level: GraphLevel;
  ports: PortSpec[];
  /** The first this many of the summary's external networks are drawn. */
  cidrCount: number;
  edges: GraphEdge[];
  ms: number;
}

export interface WhatIfPort extends PortSpec {
  newlyAllowed: number;
  newlyDenied: number;
}

export interface WhatIfPair {
  from: PodRef;
  to: PodRef;
  ports: string[];
}

/** An intent as the app knows it: where it is stored, and the intent itself. */
export interface LiveIntent {
  /** "namespace/configmap-name" */
  source: string;
  intent: Intent;
}

export interface IntentAnswer extends IntentResult {
  source: string;
}

export interface IntentsView {
  version: number;
  results: IntentAnswer[];
  ms: number;
}

/** An intent whose result an edit changes. */
export interface IntentChange {
  source: string;
  name: string;
  before: IntentResult['status'];
  after: IntentResult['status'];
}

export interface FixView {
  version: number;
  /** The pair the fix was searched for (a cell's first pod pair with the other verdict), or the intent. */
  subject: string;
  proposal?: FixProposal;
  /** Nothing to do: the cell (or intent) already has the verdict. */
  already?: boolean;
  ms: number;
}

export interface WhatIfResult {
  version: number;
  /** Intents the edit would break (met → violated) or satisfy (violated → met). */
  intents: IntentChange[];
  ports: WhatIfPort[];
  newlyAllowed: WhatIfPair[];
  newlyDenied: WhatIfPair[];
  /** Pairs changed, over all ports, counting a pair once per port. */
  totalAllowed: number;
  totalDenied: number;
  error?: string;
  ms: number;
}

const MAX_GRAPH_CIDRS = 16;
const portText = (p: PortSpec) => `${p.protocol} ${p.port}`;
const sortedLabels = (l: Record<string, string> | undefined) => Object.fromEntries(Object.entries(l ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const policyKey = (np: { metadata: { namespace?: string; name?: string } }) => `${np.metadata.namespace ?? 'default'}/${np.metadata.name ?? ''}`;

/** An address inside the block and outside its exceptions, to ask the engine about the block as a whole. */
export function sampleAddress(cidr: string, except: string[] = []): string | undefined {
  const c = parseCIDRSloppy(cidr);
  if (!c) return undefined;
  const net = networkOf(c);
  const ex = except.map((e) => parseCIDRSloppy(e)).filter((x): x is CIDR => !!x);
  const bump = (bytes: Uint8Array) => {
    const b = bytes.slice();
    for (let i = b.length - 1; i >= 0; i--) {
      if (b[i] === 255) b[i] = 0;
      else {
        b[i]++;
        break;
      }
    }
    return b;
  };
  const broadcastAfter = (x: CIDR) => {
    const n = networkOf(x).ip.slice();
    const bits = n.length * 8;
    for (let i = x.prefix; i < bits; i++) n[i >>> 3] |= 0x80 >>> (i & 7);
    return bump(n);
  };
  const candidates = [bump(net.ip), net.ip, ...ex.map(broadcastAfter)];
  for (const bytes of candidates) {
    const ip = { family: c.family, bytes };
    if (cidrContainsIP(net, ip) && !ex.some((e) => cidrContainsIP(e, ip))) return formatIP(ip);
  }
  return undefined;
}

/**
 * Allowed pod pairs per bucket pair, buckets given per pod (groups, or
 * namespaces): from the class matrix, each class's pods counted per bucket,
 * and the own-node pairs; the work follows classes x buckets, not pods².
 */
function bucketCounts(m: ReachabilityMatrix, bucketOf: Int32Array, B: number): { counts: Uint32Array; allowed: number } {
  const n = m.pods.length;
  const C = m.classCount;
  const cw = m.classRowWords;
  // Each class's pods per bucket, kept sparse (a class lies within one namespace, mostly within
  // one group): its buckets are bucket[start[c]..start[c + 1]), with their pod counts. As a dense
  // class x bucket table, adding a reached class's row cost a pass over every bucket: 280 ms a
  // matrix at 2,226 classes and 2,000 groups.
  const entry = new Map<number, number>();
  const size = new Float64Array(C);
  for (let i = 0; i < n; i++) {
    const key = m.podClass[i] * B + bucketOf[i];
    entry.set(key, (entry.get(key) ?? 0) + 1);
    size[m.podClass[i]]++;
  }
  const start = new Int32Array(C + 1);
  for (const key of entry.keys()) start[Math.floor(key / B) + 1]++;
  for (let c = 0; c < C; c++) start[c + 1] += start[c];
  const bucket = new Int32Array(entry.size);
  const count = new Float64Array(entry.size);
  const fill = start.slice(0, C);
  for (const [key, k] of entry) {
    const c = Math.floor(key / B);
    bucket[fill[c]] = key - c * B;
    count[fill[c]++] = k;
  }
  const counts = new Uint32Array(B * B);
  const reached = new Float64Array(B);
  let allowed = 0;
  for (let s = 0; s < C; s++) {
    // The pods a pod of class s reaches, per bucket.
    reached.fill(0);
    let reachedAll = 0;
    for (let w = 0; w < cw; w++) {
      let x = m.classBits[s * cw + w];
      while (x !== 0) {
        const low = x & -x;
        const d = (w << 5) + 31 - Math.clz32(low);
        for (let j = start[d]; j < start[d + 1]; j++) reached[bucket[j]] += count[j];
        reachedAll += size[d];
        x ^= low;
      }
    }
    if (reachedAll === 0) continue;
    for (let j = start[s]; j < start[s + 1]; j++) {
      const a = bucket[j];
      const from = count[j];
      for (let b = 0; b < B; b++) counts[a * B + b] += from * reached[b];
      allowed += from * reachedAll;
    }
  }
  for (const k of m.ownNode) {
    const i = Math.floor(k / n);
    counts[bucketOf[i] * B + bucketOf[k - i * n]]++;
    allowed++;
  }
  return { counts, allowed };
}

/** One computation context: the live cluster and its analysis. */
export class Session {
  version = 0;
  private input: ReachabilityInput = { namespaces: [], pods: [], policies: [], nodes: [] };
  private analysis: ReachabilityAnalysis = analyzeReachability(this.input);
  private groups: LiveGroup[] = [];
  /** Group of each pod of the analysis (by analysis index). */
  private podGroup = new Int32Array(0);
  private summary?: ClusterSummary;
  private matrices = new Map<string, ReachabilityMatrix>();
  /** What analyses of the live cluster keep of each pod between inputs (a rollout changes a few hundred of 60,000 at a time). */
  private readonly memo = new AnalysisMemo();
  /** A pod's group key and labels, by the analysis's pod ref (the same object while the pod object is). */
  private readonly groupOf = new WeakMap<PodRef, { key: string; labels: Record<string, string>; hostNetwork: boolean }>();

  setInput(input: ReachabilityInput, version: number): ClusterSummary {
    this.input = input;
    this.version = version;
    this.analysis = analyzeReachability(input, this.memo);
    this.matrices.clear();
    this.summary = undefined;
    this.buildGroups();
    return this.getSummary();
  }

  private matrix(port: number, protocol: Protocol): ReachabilityMatrix {
    const key = `${protocol}/${port}`;
    let m = this.matrices.get(key);
    if (!m) {
      m = this.analysis.matrix(port, protocol);
      if (this.matrices.size >= 12) this.matrices.delete(this.matrices.keys().next().value!);
      this.matrices.set(key, m);
    }
    return m;
  }

  private namespaceLabels(ns: string): Record<string, string> {
    const o = this.input.namespaces.find((n) => n.metadata.name === ns);
    return { 'kubernetes.io/metadata.name': ns, ...o?.metadata.labels };
  }

  private buildGroups() {
    const pods = this.analysis.pods;
    const byKey = new Map<string, number>();
    const groups: LiveGroup[] = [];
    const tmp = new Int32Array(pods.length);
    pods.forEach((ref, i) => {
      let of = this.groupOf.get(ref);
      if (!of) {
        const p = this.analysis.pod(i);
        const labels = sortedLabels(p.labels);
        of = { key: `${ref.namespace}\u0000${JSON.stringify(labels)}${p.hostNetwork ? '\u0000host' : ''}`, labels, hostNetwork: p.hostNetwork };
        this.groupOf.set(ref, of);
      }
      const { key, labels, hostNetwork } = of;
      let g = byKey.get(key);
      if (g === undefined) {
        g = groups.length;
        byKey.set(key, g);
        groups.push({ key, namespace: ref.namespace, labels, hostNetwork, pods: [], ingressIsolated: false, egressIsolated: false });
      }
      groups[g].pods.push(ref);
      tmp[i] = g;
    });
    // Namespace, then label text, so that one namespace's groups sit together.
    const order = groups.map((_, i) => i);
    const text = groups.map((g) => JSON.stringify(g.labels));
    order.sort((a, b) => (groups[a].namespace < groups[b].namespace ? -1 : groups[a].namespace > groups[b].namespace ? 1 : text[a] < text[b] ? -1 : text[a] > text[b] ? 1 : 0));
    const rank = new Int32Array(groups.length);
    order.forEach((g, r) => (rank[g] = r));
    this.groups = order.map((g) => groups[g]);
    this.podGroup = tmp.map((g) => rank[g]);
  }

  /** Which groups a pod/namespace selector peer of a policy in `ns` matches. */
  private peerGroups(peer: NetworkPolicyPeerLike, ns: string): number[] {
    if (peer.ipBlock || (!peer.podSelector && !peer.namespaceSelector)) return [];
    const nsMatch = new Map<string, boolean>();
    const out: number[] = [];
    this.groups.forEach((g, i) => {
      if (g.hostNetwork) return;
      let okNs = nsMatch.get(g.namespace);
      if (okNs === undefined) {
        okNs = peer.namespaceSelector ? matchesLabelSelector(peer.namespaceSelector, this.namespaceLabels(g.namespace)) : g.namespace === ns;
        nsMatch.set(g.namespace, okNs);
      }
      if (okNs && (!peer.podSelector || matchesLabelSelector(peer.podSelector, g.labels))) out.push(i);
    });
    return out;
  }

  private policyInfo(np: NetworkPolicyLike): PolicyInfo {
    const ns = np.metadata.namespace ?? 'default';
    const types = effectivePolicyTypes(np as Parameters<typeof effectivePolicyTypes>[0]);
    const podSelector = np.spec?.podSelector ?? {};
    const selects: number[] = [];
    let selectedPods = 0;
    this.groups.forEach((g, i) => {
      if (g.namespace === ns && !g.hostNetwork && matchesLabelSelector(podSelector, g.labels)) {
        selects.push(i);
        selectedPods += g.pods.length;
      }
    });
    const warnings: string[] = [];
    if (!selects.length) warnings.push(`Selects no pod: its pod selector matches nothing in namespace ${ns}.`);
    const side = (dir: 'ingress' | 'egress') => {
      const groups = new Set<number>();
      const cidrs: string[] = [];
      let all = false;
      if (!types.includes(dir === 'ingress' ? 'Ingress' : 'Egress')) return { groups: [], cidrs, all };
      (np.spec?.[dir] ?? []).forEach((rule, ri) => {
        const peers = (dir === 'ingress' ? rule?.from : rule?.to) ?? [];
        if (!peers.length) all = true;
        peers.forEach((peer, pi) => {
          if (!peer) return;
          const where = `${dir === 'ingress' ? 'Ingress' : 'Egress'} rule ${ri + 1}, peer ${pi + 1}`;
          if (peer.ipBlock) {
            const c = peer.ipBlock.cidr ?? '';
            if (!parseCIDRSloppy(c)) warnings.push(`${where}: "${c}" is not a CIDR, so it matches nothing.`);
            else cidrs.push(c);
            return;
          }
          const matched = this.peerGroups(peer, ns);
          matched.forEach((g) => groups.add(g));
          if (!matched.length) warnings.push(`${where} (${describePeer(peer as Parameters<typeof describePeer>[0], ns)}) matches no pod.`);
        });
      });
      return { groups: [...groups].sort((a, b) => a - b), cidrs, all };
    };
    const ing = side('ingress');
    const eg = side('egress');
    return {
      namespace: ns,
      name: np.metadata.name ?? '',
      types,
      selects,
      selectedPods,
      admitsFrom: ing.groups,
      admitsFromAll: ing.all,
      admitsTo: eg.groups,
      admitsToAll: eg.all,
      cidrsFrom: ing.cidrs,
      cidrsTo: eg.cidrs,
      warnings,
    };
  }

  getSummary(): ClusterSummary {
    if (this.summary) return this.summary;
    const policies = [...this.input.policies].sort((a, b) => (policyKey(a) < policyKey(b) ? -1 : 1)).map((np) => this.policyInfo(np));
    for (const p of policies) {
      if (p.types.includes('Ingress')) for (const g of p.selects) this.groups[g].ingressIsolated = true;
      if (p.types.includes('Egress')) for (const g of p.selects) this.groups[g].egressIsolated = true;
    }
    const cidrs = new Map<string, { cidr: string; except: string[] }>();
    for (const np of this.input.policies) {
      for (const rule of [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])]) {
        for (const peer of [...(rule?.from ?? []), ...(rule?.to ?? [])]) {
          const b = peer?.ipBlock;
          if (b?.cidr && parseCIDRSloppy(b.cidr)) cidrs.set(`${b.cidr} ${(b.except ?? []).join(',')}`, { cidr: b.cidr, except: b.except ?? [] });
        }
      }
    }
    this.summary = {
      version: this.version,
      groups: groupViews(this.groups),
      policies,
      podCount: this.analysis.pods.length,
      classCount: this.analysis.classCount,
      suggestedPorts: this.suggestedPorts(this.input.policies),
      cidrs: [...cidrs.values()],
    };
    return this.summary;
  }

  /** Ports named by these policies (numbers, range ends, named ports resolved on the pods), then ports the pods declare. */
  suggestedPorts(policies: readonly NetworkPolicyLike[], withContainerPorts = true, limit = 12): PortSpec[] {
    const out = new Map<string, PortSpec>();
    const add = (port: number, protocol: Protocol) => {
      if (Number.isInteger(port) && port > 0 && port < 65536) out.set(`${protocol}/${port}`, { port, protocol });
    };
    const proto = (p?: string): Protocol => (p === 'UDP' || p === 'SCTP' ? p : 'TCP');
    const named = new Map<string, PortSpec[]>();
    for (const p of this.input.pods) {
      for (const c of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
        for (const cp of c?.ports ?? []) {
          if (!cp?.name) continue;
          const list = named.get(cp.name) ?? [];
          list.push({ port: cp.containerPort, protocol: proto(cp.protocol) });
          named.set(cp.name, list);
        }
      }
    }
    for (const np of policies) {
      for (const rule of [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])]) {
        for (const e of rule?.ports ?? []) {
          if (!e) continue;
          const protocol = proto(e.protocol);
          if (typeof e.port === 'number') {
            add(e.port, protocol);
            if (typeof e.endPort === 'number') add(e.endPort, protocol);
          } else if (typeof e.port === 'string') for (const x of named.get(e.port) ?? []) if (x.protocol === protocol) add(x.port, protocol);
        }
      }
    }
    if (withContainerPorts) {
      for (const p of this.input.pods) for (const c of p.spec?.containers ?? []) for (const cp of c?.ports ?? []) if (cp && out.size < limit) add(cp.containerPort, proto(cp.protocol));
    }
    return [...out.values()].slice(0, limit).sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));
  }

  /** Allowed pod pairs per group pair. */
  private groupCounts(m: ReachabilityMatrix): { counts: Uint32Array; allowed: number } {
    return bucketCounts(m, this.podGroup, this.groups.length);
  }

  matrixView(port: number, protocol: Protocol): MatrixView {
    const t0 = performance.now();
    const { counts, allowed } = this.groupCounts(this.matrix(port, protocol));
    const n = this.analysis.pods.length;
    return { version: this.version, port, protocol, counts, allowedPairs: allowed, totalPairs: n * n, ms: performance.now() - t0 };
  }

  explain(from: Endpoint, to: Endpoint, port: number, protocol: Protocol): Explanation {
    return this.analysis.explain(from, to, port, protocol);
  }

  /**
   * A matrix cell explained: for two groups, the first allowed and the first
   * denied pod pair (one of them when the cell is uniform), each explained.
   */
  explainCell(fromKey: string, toKey: string, port: number, protocol: Protocol): CellExplanation {
    const a = this.groups.find((g) => g.key === fromKey);
    const b = this.groups.find((g) => g.key === toKey);
    if (!a || !b) return { version: this.version, explanations: [] };
    const m = this.matrix(port, protocol);
    let allowed: [PodRef, PodRef] | undefined;
    let denied: [PodRef, PodRef] | undefined;
    outer: for (const from of a.pods) {
      const i = this.analysis.indexOf(from);
      for (const to of b.pods) {
        const j = this.analysis.indexOf(to);
        const ok = matrixAllowed(m, i, j);
        if (ok) allowed ??= [from, to];
        else denied ??= [from, to];
        if (allowed && denied) break outer;
      }
    }
    const explanations = [denied, allowed].filter((x): x is [PodRef, PodRef] => !!x).map(([f, t]) => this.analysis.explain(f, t, port, protocol));
    return { version: this.version, explanations };
  }

  /**
   * Edges of the graph over the ports worth checking: between pod groups, or
   * (for big clusters) between namespaces, whose node order is the order in
   * which namespaces first appear among the groups; external networks follow.
   */
  graphView(level: GraphLevel = 'groups', maxPorts = 8): GraphView {
    const t0 = performance.now();
    const summary = this.getSummary();
    const G = this.groups.length;
    const bucketOfGroup = new Int32Array(G);
    let B = G;
    if (level === 'groups') bucketOfGroup.forEach((_, g) => (bucketOfGroup[g] = g));
    else {
      B = 0;
      this.groups.forEach((g, i) => {
        if (i > 0 && this.groups[i - 1].namespace !== g.namespace) B++;
        bucketOfGroup[i] = B;
      });
      B = G ? B + 1 : 0;
    }
    const podBucket = this.podGroup.map((g) => bucketOfGroup[g]);
    const pods = new Float64Array(B);
    const groupsIn = new Int32Array(B);
    const egressOpen = new Uint8Array(B).fill(1);
    const ingressOpen = new Uint8Array(B).fill(1);
    this.groups.forEach((g, i) => {
      const b = bucketOfGroup[i];
      pods[b] += g.pods.length;
      groupsIn[b]++;
      if (g.egressIsolated) egressOpen[b] = 0;
      if (g.ingressIsolated) ingressOpen[b] = 0;
    });
    let ports = summary.suggestedPorts.slice(0, maxPorts);
    if (!ports.length) ports = [{ port: 80, protocol: 'TCP' }];
    // Each external network costs a decision per isolated group and port; past a few they are left out (and said so).
    const cidrs = summary.cidrs.slice(0, MAX_GRAPH_CIDRS);
    const N = B + cidrs.length;
    const edgeMap = new Map<number, GraphEdge>();
    const edge = (a: number, b: number) => {
      const k = a * N + b;
      let e = edgeMap.get(k);
      if (!e) edgeMap.set(k, (e = { from: a, to: b, ports: [], open: false, partial: false }));
      return e;
    };
    for (const p of ports) {
      const { counts } = bucketCounts(this.matrix(p.port, p.protocol), podBucket, B);
      for (let a = 0; a < B; a++) {
        for (let b = 0; b < B; b++) {
          const c = counts[a * B + b];
          if (!c) continue;
          const e = edge(a, b);
          e.ports.push(portText(p));
          if (c < pods[a] * pods[b]) e.partial = true;
        }
      }
    }
    // External networks: one address of each block stands for it. Only pods
    // isolated in that direction get an edge (the others reach everything).
    cidrs.forEach((block, k) => {
      const ip = sampleAddress(block.cidr, block.except);
      if (!ip) return;
      const node = B + k;
      for (const p of ports) {
        const out = new Int32Array(B);
        const outTried = new Int32Array(B);
        const inn = new Int32Array(B);
        const innTried = new Int32Array(B);
        this.groups.forEach((g, gi) => {
          const b = bucketOfGroup[gi];
          const pod = g.pods[0];
          if (g.egressIsolated) {
            outTried[b]++;
            if (this.analysis.allowed(pod, { ip }, p.port, p.protocol)) out[b]++;
          }
          if (g.ingressIsolated) {
            innTried[b]++;
            if (this.analysis.allowed({ ip }, pod, p.port, p.protocol)) inn[b]++;
          }
        });
        for (let b = 0; b < B; b++) {
          if (out[b]) {
            const e = edge(b, node);
            e.ports.push(portText(p));
            if (out[b] < outTried[b]) e.partial = true;
          }
          if (inn[b]) {
            const e = edge(node, b);
            e.ports.push(portText(p));
            if (inn[b] < innTried[b]) e.partial = true;
          }
        }
      }
    });
    const edges: GraphEdge[] = [];
    for (const e of edgeMap.values()) {
      if (!e.ports.length) continue;
      e.open = e.from < B && e.to < B && egressOpen[e.from] === 1 && ingressOpen[e.to] === 1;
      if (e.open) e.ports = ['any'];
      edges.push(e);
    }
    return { version: this.version, level, ports, edges, cidrCount: cidrs.length, ms: performance.now() - t0 };
  }

  /** The change a policy edit would make: live policies with `original` replaced by `draft` (or `draft` added). */
  whatIf(draft: NetworkPolicyLike, original: NetworkPolicyLike | undefined, extra: PortSpec[] = [], intents: LiveIntent[] = [], pairLimit = 200): WhatIfResult {
    const t0 = performance.now();
    const empty: WhatIfResult = { version: this.version, intents: [], ports: [], newlyAllowed: [], newlyDenied: [], totalAllowed: 0, totalDenied: 0, ms: 0 };
    const drop = new Set([policyKey(draft), ...(original ? [policyKey(original)] : [])]);
    const policies = [...this.input.policies.filter((np) => !drop.has(policyKey(np))), draft];
    let after: ReachabilityAnalysis;
    try {
      after = analyzeReachability({ ...this.input, policies }, this.memo);
    } catch (e) {
      return { ...empty, error: e instanceof Error ? e.message : String(e), ms: performance.now() - t0 };
    }
    // The ports the two versions name; when a rule of either covers every port (or neither names
    // one), also the ports the other policies and the pods name.
    const versions = [draft, ...(original ? [original] : [])];
    let ports = this.suggestedPorts(versions, false, 16);
    const allPorts = versions.some((np) => [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])].some((r) => !r?.ports?.length));
    const add = (list: PortSpec[]) => {
      for (const p of list) if (!ports.some((q) => q.port === p.port && q.protocol === p.protocol)) ports.push(p);
    };
    add(extra);
    if (allPorts || !ports.length) add(this.suggestedPorts(this.input.policies, true, 12));
    if (!ports.length) ports = [{ port: 80, protocol: 'TCP' }];
    ports.sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));
    const result: WhatIfResult = { ...empty, ports: [] };
    const allowedPairs = new Map<string, WhatIfPair>();
    const deniedPairs = new Map<string, WhatIfPair>();
    const collect = (into: Map<string, WhatIfPair>, pairs: { from: PodRef; to: PodRef }[], p: PortSpec) => {
      for (const pr of pairs) {
        const k = `${pr.from.namespace}/${pr.from.name}>${pr.to.namespace}/${pr.to.name}`;
        const cur = into.get(k);
        if (cur) cur.ports.push(portText(p));
        else if (into.size < pairLimit) into.set(k, { ...pr, ports: [portText(p)] });
      }
    };
    for (const p of ports) {
      let d: ReturnType<typeof diffMatrices>;
      try {
        d = diffMatrices(this.matrix(p.port, p.protocol), after.matrix(p.port, p.protocol));
      } catch (e) {
        // A half-typed draft the engine cannot read: say so rather than fail.
        return { ...empty, error: e instanceof Error ? e.message : String(e), ms: performance.now() - t0 };
      }
      result.ports.push({ ...p, newlyAllowed: d.newlyAllowedCount, newlyDenied: d.newlyDeniedCount });
      result.totalAllowed += d.newlyAllowedCount;
      result.totalDenied += d.newlyDeniedCount;
      if (d.newlyAllowedCount) collect(allowedPairs, diffPairs(d, 'newlyAllowed', pairLimit), p);
      if (d.newlyDeniedCount) collect(deniedPairs, diffPairs(d, 'newlyDenied', pairLimit), p);
    }
    result.newlyAllowed = [...allowedPairs.values()];
    result.newlyDenied = [...deniedPairs.values()];
    if (intents.length) {
      const before = this.intentsView(intents).results;
      const afterResults = evaluateIntents({ ...this.input, policies }, intents.map((i) => i.intent), { analysis: after, limit: 0, explainLimit: 0 });
      result.intents = before.flatMap((b, k) => (b.status !== afterResults[k].status ? [{ source: b.source, name: b.name, before: b.status, after: afterResults[k].status }] : []));
    }
    result.ms = performance.now() - t0;
    return result;
  }

  // ---- intents and fixes ------------------------------------------------------

  /** The last intents evaluated, by their text, for the current input (the page and the what-if ask for the same ones). */
  private intentResults?: { key: string; view: IntentsView };

  intentsView(intents: LiveIntent[]): IntentsView {
    const key = JSON.stringify(intents);
    if (this.intentResults?.view.version === this.version && this.intentResults.key === key) return this.intentResults.view;
    const t0 = performance.now();
    const results = evaluateIntents(this.input, intents.map((i) => i.intent), { analysis: this.analysis }).map((r, k) => ({ ...r, source: intents[k].source }));
    const view = { version: this.version, results, ms: performance.now() - t0 };
    this.intentResults = { key, view };
    return view;
  }

  /** A fix giving the cell (two groups) the other verdict: searched for its first pod pair that does not have it yet. */
  fixCell(fromKey: string, toKey: string, port: number, protocol: Protocol, expect: 'allowed' | 'denied'): FixView {
    const t0 = performance.now();
    const a = this.groups.find((g) => g.key === fromKey);
    const b = this.groups.find((g) => g.key === toKey);
    if (!a || !b) return { version: this.version, subject: '', already: true, ms: 0 };
    for (const from of a.pods) {
      for (const to of b.pods) {
        if (this.analysis.allowed(from, to, port, protocol) === (expect === 'allowed')) continue;
        const proposal = proposePairFix(this.input, from, to, port, protocol, expect);
        return { version: this.version, subject: `${from.namespace}/${from.name} → ${to.namespace}/${to.name} on ${protocol} ${port}`, proposal, ms: performance.now() - t0 };
      }
    }
    return { version: this.version, subject: `${groupKeyText(a)} → ${groupKeyText(b)}`, already: true, ms: performance.now() - t0 };
  }

  fixIntent(live: LiveIntent): FixView {
    const t0 = performance.now();
    const proposal = proposeIntentFix(this.input, live.intent);
    return { version: this.version, subject: `intent ${live.intent.name}`, proposal, already: proposal.achieved && proposal.changes.length === 0, ms: performance.now() - t0 };
  }
}

const groupKeyText = (g: LiveGroup) => `${g.namespace}/${g.pods[0]?.name ?? ''}`;
