// Finite probes for questions over all ports and all addresses. Every matrix
// is constant between the boundaries the policies draw: a port entry matches
// a whole range, a named port resolves to the numbers pods declare, an ipBlock
// matches a whole prefix. So checking one port per region of port space (and
// one address per region of an address block) answers for every port (every
// address) exactly, not by sampling.
import { cidrContainsIP, formatIP, networkOf, parseCIDRSloppy, type CIDR, type IPAddress } from '../cidr.ts';
import { normalizeProtocol } from './model.ts';
import { PROTOCOLS, type NetworkPolicyLike, type PodLike, type Protocol } from './types.ts';

export interface PortSpec {
  port: number;
  protocol: Protocol;
}

/** An inclusive range of ports of one protocol. */
export interface PortRange {
  protocol: Protocol;
  from: number;
  to: number;
}

export const MAX_PORT = 65535;
export const ALL_PORTS: readonly PortRange[] = PROTOCOLS.map((protocol) => ({ protocol, from: 1, to: MAX_PORT }));

/** Per protocol, the first port of each region the policies' port entries (and the named ports they use) cut 1..65535 into. */
function boundaries(policies: readonly NetworkPolicyLike[], pods: readonly PodLike[]): Map<Protocol, Set<number>> {
  const out = new Map<Protocol, Set<number>>(PROTOCOLS.map((p) => [p, new Set([1])]));
  const add = (protocol: Protocol, n: number) => {
    if (Number.isInteger(n) && n >= 1 && n <= MAX_PORT) out.get(protocol)!.add(n);
  };
  const names = new Set<string>();
  for (const np of policies) {
    for (const rule of [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])]) {
      for (const e of rule?.ports ?? []) {
        if (!e) continue;
        const protocol = normalizeProtocol(e.protocol);
        if (typeof e.port === 'number') {
          add(protocol, e.port);
          add(protocol, (typeof e.endPort === 'number' ? e.endPort : e.port) + 1);
        } else if (typeof e.port === 'string') names.add(e.port);
      }
    }
  }
  if (names.size) {
    for (const p of pods) {
      for (const c of [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]) {
        for (const cp of c?.ports ?? []) {
          if (cp?.name && names.has(cp.name)) {
            add(normalizeProtocol(cp.protocol), cp.containerPort);
            add(normalizeProtocol(cp.protocol), cp.containerPort + 1);
          }
        }
      }
    }
  }
  return out;
}

/**
 * The ports to check so that `within` is covered exactly under every one of
 * the policy sets given: the start of each range plus every boundary inside it.
 */
export function probePorts(policySets: readonly (readonly NetworkPolicyLike[])[], pods: readonly PodLike[], within: readonly PortRange[] = ALL_PORTS): PortSpec[] {
  const b = boundaries(policySets.flat(), pods);
  const out = new Map<string, PortSpec>();
  for (const r of within) {
    out.set(`${r.protocol}/${r.from}`, { protocol: r.protocol, port: r.from });
    for (const n of b.get(r.protocol)!) if (n > r.from && n <= r.to) out.set(`${r.protocol}/${n}`, { protocol: r.protocol, port: n });
  }
  return [...out.values()].sort((x, y) => (x.protocol === y.protocol ? x.port - y.port : PROTOCOLS.indexOf(x.protocol) - PROTOCOLS.indexOf(y.protocol)));
}

const bytesAfterEnd = (c: CIDR): Uint8Array | undefined => {
  const n = networkOf(c).ip.slice();
  for (let i = c.prefix; i < n.length * 8; i++) n[i >>> 3] |= 0x80 >>> (i & 7);
  for (let i = n.length - 1; i >= 0; i--) {
    if (n[i] === 255) n[i] = 0;
    else {
      n[i]++;
      return n;
    }
  }
  return undefined; // the block ends at the last address
};

/**
 * One address per region that the given CIDRs cut the block into (inside
 * `cidr`, outside its `except`s), leaving out `skip` (pod and node addresses:
 * those are pods or nodes, not outside peers). The regions of prefixes nest,
 * so each region begins at a prefix's first address or just after a prefix ends.
 */
export function probeAddresses(block: { cidr: string; except?: string[] }, cuts: readonly string[], skip: ReadonlySet<string> = new Set()): string[] {
  const c = parseCIDRSloppy(block.cidr);
  if (!c) return [];
  const except = (block.except ?? []).map((e) => parseCIDRSloppy(e)).filter((x): x is CIDR => !!x);
  const all = [c, ...except, ...cuts.map((x) => parseCIDRSloppy(x)).filter((x): x is CIDR => !!x && x.family === c.family)];
  const out = new Set<string>();
  const consider = (bytes: Uint8Array | undefined) => {
    if (!bytes) return;
    const ip: IPAddress = { family: c.family, bytes };
    if (!cidrContainsIP(c, ip) || except.some((e) => cidrContainsIP(e, ip))) return;
    const text = formatIP(ip);
    if (!skip.has(text)) out.add(text);
  };
  for (const x of all) {
    consider(networkOf(x).ip);
    consider(bytesAfterEnd(x));
  }
  return [...out];
}
