// The fast engine. Pods that no policy can tell apart are one class: same
// namespace (hence namespace labels), same values for the label keys some
// selector reads, same container ports under the names some policy uses,
// same membership in every ipBlock of every policy, same host-network flag. Each rule's peers become a bitset over classes (computed once, port
// independent); a class's egress row is the union of the rule bitsets of the
// policies isolating it, its ingress row likewise. The pod matrix is then the
// class matrix copied out, plus the one pod-level exception: traffic from a
// destination's own node. Cost follows classes x rules, not pods² x policies.
import type { IPAddress } from '../cidr.ts';
import { compileIPBlock, ipBlockContainsAny, ipv4Ints, type CompiledIPBlock } from './ipblock.ts';
import { normalizeProtocol, policyNamespace, policyTypesOf, type AnalysisMemo, type ClusterModel, type NamedPort, type PodInfo } from './model.ts';
import { labelSetKey, SELECTS_NOTHING, SelectorMatcher } from './selectors.ts';
import type { Direction, NetworkPolicyLike, NetworkPolicyPeerLike, NetworkPolicyRuleLike, PeerSummary, PodRef, PolicySummary, Protocol, ReachabilityMatrix, RuleSummary } from './types.ts';

type Peer =
  /** pod/namespace selector ids; undefined = field not set. */
  | { kind: 'selector'; pod: number | undefined; ns: number | undefined }
  | { kind: 'ipBlock'; block: number }
  /** Neither field set (invalid): matches nothing. */
  | { kind: 'none' };

interface Port {
  protocol: Protocol;
  /** All ports of the protocol. */
  any: boolean;
  from: number;
  to: number;
  name?: string;
}

interface Rule {
  /** null: no peers listed, every peer matches. */
  peers: Peer[] | null;
  /** null: no ports listed, every port matches. */
  ports: Port[] | null;
  policyNs: string;
  /** Position in Engine.rules. */
  index: number;
  /** Classes matched by the peers (lazy). */
  peerBits?: Uint32Array;
}

interface Policy {
  ns: string;
  podSelector: number;
  ingress: Rule[] | null; // null: the policy does not isolate for this direction
  egress: Rule[] | null;
}

export interface PodClass {
  ns: string;
  labelSet: number;
  nsLabelSet: number;
  namedPorts: NamedPort[];
  /** Indexes of the ipBlocks some address of the class's pods lies in. */
  blocks: Set<number>;
  hostNetwork: boolean;
  /** Policy indexes selecting the class, isolating for each direction. */
  ingressPolicies: number[];
  egressPolicies: number[];
  pods: number[];
}

/** Answers for one port and protocol, filled in on demand. */
interface PortState {
  port: number;
  protocol: Protocol;
  /** Per rule: 1 when a port entry matches whatever the destination, 2 when only named entries might, 0 when none can. */
  ruleStatic: Uint8Array;
  /** Per rule with named entries in play: the classes whose named ports match. */
  ruleNamed: (Uint32Array | undefined)[];
  egressRows: (Uint32Array | undefined)[];
  ingressRows: (Uint32Array | undefined)[];
  egressMemo: Map<string, Uint32Array>;
  ingressMemo: Map<string, Uint32Array>;
}

const words = (n: number) => (n + 31) >>> 5;
const testBit = (b: Uint32Array, i: number) => ((b[i >>> 5] >>> (i & 31)) & 1) === 1;

function allOnes(n: number): Uint32Array {
  const b = new Uint32Array(words(n)).fill(0xffffffff);
  if (n & 31) b[b.length - 1] = (1 << (n & 31)) - 1;
  return b;
}

export class Engine {
  readonly model: ClusterModel;
  readonly classes: PodClass[] = [];
  /** Class of each pod, by pod index. */
  readonly podClass: Int32Array;
  private readonly matcher = new SelectorMatcher();
  private readonly blocks: CompiledIPBlock[] = [];
  private readonly policies: Policy[] = [];
  private readonly rules: Rule[] = [];
  private readonly peerMemo = new Map<string, Uint32Array>();
  private readonly portStates = new Map<string, PortState>();
  /** Pods holding some node's address: their rows carry the own-node exception. */
  private readonly nodeSources: number[] = [];
  /** The pods and their classes as every matrix of this engine gives them (one copy for all ports, so a diff of several ports aligns them once). */
  private shared?: { pods: PodRef[]; podClass: Int32Array };
  /** The pods on each node, by the node's addresses (for the own-node pairs; the same for every port). */
  private onNodeByIP?: Map<string, number[]>;

  constructor(model: ClusterModel, memo?: AnalysisMemo) {
    this.model = model;
    const blockIds = new Map<string, number>();
    const compilePeer = (p: NetworkPolicyPeerLike | null | undefined): Peer => {
      if (p?.ipBlock) {
        const b = compileIPBlock(p.ipBlock);
        let id = blockIds.get(b.key);
        if (id === undefined) {
          id = this.blocks.length;
          this.blocks.push(b);
          blockIds.set(b.key, id);
        }
        return { kind: 'ipBlock', block: id };
      }
      if (!p?.podSelector && !p?.namespaceSelector) return { kind: 'none' };
      return {
        kind: 'selector',
        pod: p.podSelector ? this.matcher.selector(p.podSelector) : undefined,
        ns: p.namespaceSelector ? this.matcher.selector(p.namespaceSelector) : undefined,
      };
    };
    const compileRules = (rs: NetworkPolicyRuleLike[] | null | undefined, key: 'from' | 'to', policyNs: string): Rule[] =>
      (rs ?? []).map((r) => {
        const peers = r?.[key] ?? [];
        const ports = r?.ports ?? [];
        const rule: Rule = {
          peers: peers.length ? peers.map(compilePeer) : null,
          ports: ports.length
            ? ports.map((e): Port => {
                const protocol = normalizeProtocol(e?.protocol);
                const p = e?.port;
                if (p === undefined || p === null) return { protocol, any: true, from: 0, to: 0 };
                if (typeof p === 'string') return { protocol, any: false, from: 0, to: -1, name: p };
                const end = e.endPort !== undefined && e.endPort !== null ? e.endPort : p;
                return { protocol, any: false, from: p, to: end };
              })
            : null,
          policyNs,
          index: this.rules.length,
        };
        this.rules.push(rule);
        return rule;
      });
    for (const np of model.policies as NetworkPolicyLike[]) {
      const ns = policyNamespace(np);
      const types = policyTypesOf(np);
      this.policies.push({
        ns,
        podSelector: this.matcher.selector(np.spec?.podSelector ?? {}),
        ingress: types.includes('ingress') ? compileRules(np.spec?.ingress, 'from', ns) : null,
        egress: types.includes('egress') ? compileRules(np.spec?.egress, 'to', ns) : null,
      });
    }
    const policiesByNs = new Map<string, number[]>();
    this.policies.forEach((p, i) => {
      const list = policiesByNs.get(p.ns);
      if (list) list.push(i);
      else policiesByNs.set(p.ns, [i]);
    });

    // Classes. Only the label keys some selector reads can tell pods apart
    // (pod-template-hash and the like would otherwise split every deployment).
    const keys = this.matcher.keys();
    const relevant = (labels: Record<string, string>) => {
      const out: Record<string, string> = {};
      for (const k in labels) if (keys.has(k)) out[k] = labels[k];
      return out;
    };
    // Likewise only the port names some policy uses.
    const portNames = new Set(this.rules.flatMap((r) => (r.ports ?? []).flatMap((p) => (p.name === undefined ? [] : [p.name]))));
    // A pod's class signature: what of it the policies can see. It depends on the pod and on the
    // policies' label keys, port names and ipBlocks alone (the context), so a memo keeps it by pod
    // while those stay the same.
    const context = JSON.stringify([[...keys].sort(), [...portNames].sort(), this.blocks.map((b) => b.key)]);
    const blocksOf = (pod: PodInfo): number[] => {
      const blocks: number[] = [];
      if (pod.ips.length) {
        const v4 = ipv4Ints(pod.ips);
        for (let b = 0; b < this.blocks.length; b++) if (ipBlockContainsAny(this.blocks[b], pod.ips, v4)) blocks.push(b);
      }
      return blocks;
    };
    const signatureOf = (pod: PodInfo): string => {
      const kept = memo?.signatures.get(pod.facts);
      if (kept?.[0] === context) return kept[1];
      if (kept?.[2] === context) return kept[3];
      const labels = labelSetKey(relevant(pod.labels));
      const ports = pod.namedPorts.filter((p) => portNames.has(p.name)).map((p) => `${p.name}/${p.protocol}/${p.port}`).sort();
      const signature = `${pod.ref.namespace}\u0000${labels}\u0000${ports.join(',')}\u0000${blocksOf(pod).join(',')}\u0000${pod.hostNetwork ? 1 : 0}`;
      memo?.signatures.set(pod.facts, kept ? [context, signature, kept[0], kept[1]] : [context, signature]);
      return signature;
    };
    const classIds = new Map<string, number>();
    const nsLabelSets = new Map<string, number>();
    this.podClass = new Int32Array(model.pods.length);
    for (const pod of model.pods) {
      const key = signatureOf(pod);
      let id = classIds.get(key);
      if (id === undefined) {
        id = this.classes.length;
        classIds.set(key, id);
        const labelSet = this.matcher.labelSet(relevant(pod.labels));
        let nsLabelSet = nsLabelSets.get(pod.ref.namespace);
        if (nsLabelSet === undefined) nsLabelSets.set(pod.ref.namespace, (nsLabelSet = this.matcher.labelSet(pod.namespaceLabels)));
        const ingressPolicies: number[] = [];
        const egressPolicies: number[] = [];
        if (!pod.hostNetwork) {
          for (const pi of policiesByNs.get(pod.ref.namespace) ?? []) {
            const p = this.policies[pi];
            if (!this.matcher.matches(p.podSelector, labelSet)) continue;
            if (p.ingress) ingressPolicies.push(pi);
            if (p.egress) egressPolicies.push(pi);
          }
        }
        this.classes.push({ ns: pod.ref.namespace, labelSet, nsLabelSet, namedPorts: pod.namedPorts, blocks: new Set(blocksOf(pod)), hostNetwork: pod.hostNetwork, ingressPolicies, egressPolicies, pods: [] });
      }
      this.classes[id].pods.push(pod.index);
      this.podClass[pod.index] = id;
      if (pod.ipTexts.some((ip) => model.hostIPs.has(ip))) this.nodeSources.push(pod.index);
    }
  }

  get classCount() {
    return this.classes.length;
  }

  private peerMatchesClass(peer: Peer, policyNs: string, c: PodClass): boolean {
    switch (peer.kind) {
      case 'ipBlock':
        return c.blocks.has(peer.block);
      case 'none':
        return false;
      case 'selector':
        if (c.hostNetwork) return false;
        if (peer.ns === undefined ? c.ns !== policyNs : !this.matcher.matches(peer.ns, c.nsLabelSet)) return false;
        return peer.pod === undefined || this.matcher.matches(peer.pod, c.labelSet);
    }
  }

  /** Classes one peer matches (memoised across rules). */
  private peerClassBits(peer: Peer, policyNs: string): Uint32Array {
    const C = this.classes.length;
    const key = peer.kind === 'ipBlock' ? `b${peer.block}` : peer.kind === 'none' ? 'none' : `s${peer.ns === undefined ? `=${policyNs}` : peer.ns}/${peer.pod ?? '*'}`;
    let bits = this.peerMemo.get(key);
    if (!bits) {
      bits = new Uint32Array(words(C));
      for (let c = 0; c < C; c++) if (this.peerMatchesClass(peer, policyNs, this.classes[c])) bits[c >>> 5] |= 1 << (c & 31);
      this.peerMemo.set(key, bits);
    }
    return bits;
  }

  private peerBits(rule: Rule): Uint32Array {
    if (rule.peerBits) return rule.peerBits;
    const C = this.classes.length;
    if (rule.peers === null) return (rule.peerBits = allOnes(C));
    const out = new Uint32Array(words(C));
    for (const peer of rule.peers) {
      const bits = this.peerClassBits(peer, rule.policyNs);
      for (let w = 0; w < out.length; w++) out[w] |= bits[w];
    }
    return (rule.peerBits = out);
  }

  private podsOf(classBits: Uint32Array): number[] {
    const out: number[] = [];
    for (let c = 0; c < this.classes.length; c++) if (testBit(classBits, c)) for (const i of this.classes[c].pods) out.push(i);
    return out.sort((a, b) => a - b);
  }

  /** What each policy selects and what each of its peers matches, with warnings, in the order of the input's policies. */
  policySummaries(): PolicySummary[] {
    return this.policies.map((p, pi) => {
      const np = this.model.policies[pi];
      const ref = { namespace: p.ns, name: np.metadata.name ?? '' };
      const selected = new Uint32Array(words(this.classes.length));
      this.classes.forEach((c, ci) => {
        if (!c.hostNetwork && c.ns === p.ns && this.matcher.matches(p.podSelector, c.labelSet)) selected[ci >>> 5] |= 1 << (ci & 31);
      });
      const selects = this.podsOf(selected);
      const warnings: string[] = [];
      if (p.podSelector === SELECTS_NOTHING) warnings.push('The podSelector is invalid, so the policy selects nothing.');
      else if (!selects.length) warnings.push(`Selects no pods in namespace ${p.ns}.`);
      const rules = (direction: Direction, rs: Rule[] | null): RuleSummary[] | undefined =>
        rs?.map((r, ri) => {
          const where = `${direction} rule ${ri}`;
          const peers =
            r.peers?.map((peer, k): PeerSummary => {
              const pods = this.podsOf(this.peerClassBits(peer, p.ns));
              const out: PeerSummary = { peer: k, pods };
              if (peer.kind === 'ipBlock') {
                const b = this.blocks[peer.block];
                out.ipBlock = b.key.replace(/ except $/, '');
                if (!b.cidr) warnings.push(`${where}, peer ${k}: the ipBlock CIDR is invalid, it matches nothing.`);
              } else if (peer.kind === 'none') warnings.push(`${where}, peer ${k} sets no selector, it matches nothing.`);
              else if (peer.pod === SELECTS_NOTHING || peer.ns === SELECTS_NOTHING) warnings.push(`${where}, peer ${k} has an invalid selector, it matches nothing.`);
              else if (!pods.length) warnings.push(`${where}, peer ${k} matches no pods.`);
              return out;
            }) ?? null;
          // Named ports resolve against the destination: the selected pods for ingress.
          if (direction === 'ingress' && selects.length) {
            r.ports?.forEach((e, k) => {
              if (e.name === undefined) return;
              const found = [...this.classes].some((c, ci) => testBit(selected, ci) && c.namedPorts.some((np) => np.name === e.name && np.protocol === e.protocol));
              if (!found) warnings.push(`${where}, port ${k}: no selected pod has a ${e.protocol} container port named "${e.name}".`);
            });
          }
          return { rule: ri, peers };
        });
      return { policy: ref, types: [...(p.ingress ? ['ingress' as const] : []), ...(p.egress ? ['egress' as const] : [])], selects, ingress: rules('ingress', p.ingress), egress: rules('egress', p.egress), warnings };
    });
  }

  private portState(port: number, protocol: Protocol): PortState {
    const key = `${protocol}/${port}`;
    let st = this.portStates.get(key);
    if (st) return st;
    const ruleStatic = new Uint8Array(this.rules.length);
    const ruleNamed: (Uint32Array | undefined)[] = new Array(this.rules.length);
    this.rules.forEach((r, i) => {
      if (r.ports === null) {
        ruleStatic[i] = 1;
        return;
      }
      let named: Set<string> | undefined;
      for (const e of r.ports) {
        if (e.protocol !== protocol) continue;
        if (e.name !== undefined) (named ??= new Set()).add(e.name);
        else if (e.any || (port >= e.from && port <= e.to)) {
          ruleStatic[i] = 1;
          return;
        }
      }
      if (!named) return;
      const bits = new Uint32Array(words(this.classes.length));
      let any = false;
      this.classes.forEach((c, ci) => {
        if (c.namedPorts.some((np) => np.protocol === protocol && np.port === port && named!.has(np.name))) {
          bits[ci >>> 5] |= 1 << (ci & 31);
          any = true;
        }
      });
      if (any) {
        ruleStatic[i] = 2;
        ruleNamed[i] = bits;
      }
    });
    if (this.portStates.size >= 16) this.portStates.delete(this.portStates.keys().next().value!);
    st = { port, protocol, ruleStatic, ruleNamed, egressRows: [], ingressRows: [], egressMemo: new Map(), ingressMemo: new Map() };
    this.portStates.set(key, st);
    return st;
  }

  /** Destinations (classes) the class may send to, its own isolation considered. */
  egressRow(st: PortState, c: number): Uint32Array {
    const cached = st.egressRows[c];
    if (cached) return cached;
    const cls = this.classes[c];
    const C = this.classes.length;
    let row: Uint32Array;
    if (cls.egressPolicies.length === 0) row = allOnes(C);
    else {
      const key = cls.egressPolicies.join(',');
      const memo = st.egressMemo.get(key);
      if (memo) row = memo;
      else {
        row = new Uint32Array(words(C));
        for (const pi of cls.egressPolicies) {
          for (const r of this.policies[pi].egress!) {
            const ri = r.index;
            const s = st.ruleStatic[ri];
            if (s === 0) continue;
            const peers = this.peerBits(r);
            if (s === 1) for (let w = 0; w < row.length; w++) row[w] |= peers[w];
            else {
              const named = st.ruleNamed[ri]!;
              for (let w = 0; w < row.length; w++) row[w] |= peers[w] & named[w];
            }
          }
        }
        st.egressMemo.set(key, row);
      }
    }
    return (st.egressRows[c] = row);
  }

  /** Sources (classes) the class accepts, its own isolation considered (own-node traffic aside). */
  ingressRow(st: PortState, c: number): Uint32Array {
    const cached = st.ingressRows[c];
    if (cached) return cached;
    const cls = this.classes[c];
    const C = this.classes.length;
    let row: Uint32Array;
    if (cls.ingressPolicies.length === 0) row = allOnes(C);
    else {
      // Which rules' ports admit this destination depends on its named ports.
      const usable: Rule[] = [];
      for (const pi of cls.ingressPolicies) {
        for (const r of this.policies[pi].ingress!) {
          const ri = r.index;
          const s = st.ruleStatic[ri];
          if (s === 1 || (s === 2 && testBit(st.ruleNamed[ri]!, c))) usable.push(r);
        }
      }
      const key = usable.map((r) => r.index).join(',');
      const memo = st.ingressMemo.get(key);
      if (memo) row = memo;
      else {
        row = new Uint32Array(words(C));
        for (const r of usable) {
          const peers = this.peerBits(r);
          for (let w = 0; w < row.length; w++) row[w] |= peers[w];
        }
        st.ingressMemo.set(key, row);
      }
    }
    return (st.ingressRows[c] = row);
  }

  /** Class-level decision, without the own-node exception. */
  classAllowed(port: number, protocol: Protocol, from: number, to: number): { egress: boolean; ingress: boolean } {
    const st = this.portState(port, protocol);
    return { egress: testBit(this.egressRow(st, from), to), ingress: testBit(this.ingressRow(st, to), from) };
  }

  /**
   * A pod and an address that is no pod's: `outbound` when the pod is the
   * source (its egress decides), otherwise the address is the source (the
   * pod's ingress decides, and its own node's addresses always pass).
   * Selector peers never match an address, named ports never match one as
   * destination; only rules without peers or with a matching ipBlock count.
   */
  externalAllowed(pod: PodInfo, ip: IPAddress, ipText: string, outbound: boolean, port: number, protocol: Protocol): boolean {
    const st = this.portState(port, protocol);
    const c = this.podClass[pod.index];
    const cls = this.classes[c];
    const v4 = ipv4Ints([ip]);
    const ips = [ip];
    const peerMatches = (r: Rule) => r.peers === null || r.peers.some((p) => p.kind === 'ipBlock' && ipBlockContainsAny(this.blocks[p.block], ips, v4));
    if (outbound) {
      if (!cls.egressPolicies.length) return true;
      for (const pi of cls.egressPolicies) for (const r of this.policies[pi].egress!) if (st.ruleStatic[r.index] === 1 && peerMatches(r)) return true;
      return false;
    }
    if (!cls.ingressPolicies.length || pod.hostIPs.includes(ipText)) return true;
    for (const pi of cls.ingressPolicies) {
      for (const r of this.policies[pi].ingress!) {
        const s = st.ruleStatic[r.index];
        if ((s === 1 || (s === 2 && testBit(st.ruleNamed[r.index]!, c))) && peerMatches(r)) return true;
      }
    }
    return false;
  }

  /** Whether traffic from pod `src` comes from the node pod `dst` runs on. */
  static fromOwnNode(src: PodInfo, dst: PodInfo): boolean {
    if (!dst.hostIPs.length) return false;
    for (const ip of src.ipTexts) if (dst.hostIPs.includes(ip)) return true;
    return false;
  }

  private podsOnNodes(): Map<string, number[]> {
    if (this.onNodeByIP) return this.onNodeByIP;
    const onNode = new Map<string, number[]>();
    for (const p of this.model.pods) for (const ip of p.hostIPs) onNode.get(ip)?.push(p.index) ?? onNode.set(ip, [p.index]);
    return (this.onNodeByIP = onNode);
  }

  matrix(port: number, protocol: Protocol): ReachabilityMatrix {
    const st = this.portState(port, protocol);
    const C = this.classes.length;
    const cw = words(C);
    // Class matrix: egress of the source and ingress of the destination.
    const classBits = new Uint32Array(C * cw);
    const ingress: Uint32Array[] = new Array(C);
    for (let d = 0; d < C; d++) ingress[d] = this.ingressRow(st, d);
    for (let s = 0; s < C; s++) {
      const e = this.egressRow(st, s);
      const base = s * cw;
      const sw = s >>> 5;
      const sb = 1 << (s & 31);
      for (let w = 0; w < cw; w++) {
        let ew = e[w];
        if (ew === 0) continue;
        let out = 0;
        while (ew !== 0) {
          const low = ew & -ew;
          const d = (w << 5) + 31 - Math.clz32(low);
          if (ingress[d][sw] & sb) out |= low;
          ew ^= low;
        }
        classBits[base + w] = out;
      }
    }
    // Traffic from a destination's own node passes its ingress: pairs of a pod holding a node's
    // address and the pods on that node, found through the nodes' addresses (testing every pod
    // against each such pod was 9 s of a 60,000-pod cluster with 5000 host-network daemons).
    const pods = this.model.pods;
    const n = pods.length;
    const cls = this.podClass;
    const onNode = this.podsOnNodes();
    const keys: number[] = [];
    for (const i of this.nodeSources) {
      const e = this.egressRow(st, cls[i]);
      const byClass = classBits.subarray(cls[i] * cw, (cls[i] + 1) * cw);
      const found = new Set<number>();
      // Those the class matrix does not allow already.
      for (const ip of pods[i].ipTexts) for (const j of onNode.get(ip) ?? []) if (testBit(e, cls[j]) && !testBit(byClass, cls[j])) found.add(j);
      for (const j of [...found].sort((a, b) => a - b)) keys.push(i * n + j);
    }
    const classes = this.classes;
    const shared = (this.shared ??= { pods: pods.map((p) => p.ref), podClass: cls.slice() });
    const ownNode = Float64Array.from(keys);
    let bits: Uint32Array | undefined;
    return {
      port,
      protocol,
      pods: shared.pods,
      rowWords: words(n),
      // The pod matrix (n² bits: 450 MB at 60,000 pods) only for a reader that asks for it.
      get bits() {
        return (bits ??= podMatrix(classes, classBits, cw, ownNode, n));
      },
      podClass: shared.podClass,
      classCount: C,
      classRowWords: cw,
      classBits,
      ownNode,
    };
  }
}

/** The pod matrix: each class's row copied to each of its pods, and the own-node pairs. */
function podMatrix(classes: PodClass[], classBits: Uint32Array, cw: number, ownNode: Float64Array, n: number): Uint32Array {
  const rw = words(n);
  const bits = new Uint32Array(n * rw);
  const row = new Uint32Array(rw);
  for (let s = 0; s < classes.length; s++) {
    const base = s * cw;
    row.fill(0);
    // Set the members of each allowed destination class: the work is the allowed pairs of one row.
    for (let w = 0; w < cw; w++) {
      let x = classBits[base + w];
      while (x !== 0) {
        const low = x & -x;
        for (const j of classes[(w << 5) + 31 - Math.clz32(low)].pods) row[j >>> 5] |= 1 << (j & 31);
        x ^= low;
      }
    }
    for (const i of classes[s].pods) bits.set(row, i * rw);
  }
  for (const k of ownNode) {
    const i = Math.floor(k / n);
    const j = k - i * n;
    bits[i * rw + (j >>> 5)] |= 1 << (j & 31);
  }
  return bits;
}
