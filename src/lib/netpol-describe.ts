// NetworkPolicy in plain sentences: "Allows ingress on TCP 8000-8080 from pods
// with role in (fe) in namespaces with team=a". Used by the detail page and
// the per-policy view of the reachability feature.
import { formatLabelSelector, type LabelSelector } from './labels.ts';

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr?: string; except?: string[] };
}
interface Port {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: Port[];
}
export interface NetworkPolicyLike {
  metadata: { namespace?: string };
  spec?: { podSelector?: LabelSelector; policyTypes?: string[]; ingress?: Rule[]; egress?: Rule[] };
}

const isEmpty = (s?: LabelSelector) => !s || (!Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length);

export function describeSelector(s: LabelSelector | undefined, what: string): string {
  return isEmpty(s) ? `all ${what}` : `${what} with ${formatLabelSelector(s)}`;
}

export function describePeer(p: Peer, policyNamespace: string): string {
  if (p.ipBlock) {
    const except = p.ipBlock.except?.length ? ` except ${p.ipBlock.except.join(', ')}` : '';
    return `${p.ipBlock.cidr}${except}`;
  }
  const pods = describeSelector(p.podSelector, 'pods');
  if (!p.namespaceSelector) return `${pods} in namespace ${policyNamespace}`;
  const namespaces = isEmpty(p.namespaceSelector) ? 'all namespaces' : `namespaces with ${formatLabelSelector(p.namespaceSelector)}`;
  return `${pods} in ${namespaces}`;
}

export function describePort(p: Port): string {
  const protocol = p.protocol ?? 'TCP';
  if (p.port === undefined) return `all ${protocol} ports`;
  if (typeof p.port === 'string') return `${protocol} port "${p.port}"`;
  return p.endPort ? `${protocol} ${p.port}-${p.endPort}` : `${protocol} ${p.port}`;
}

const list = (xs: string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);

export function describeRule(rule: Rule, direction: 'ingress' | 'egress', policyNamespace: string): string {
  const peers = (direction === 'ingress' ? rule.from : rule.to) ?? [];
  const where = peers.length ? list(peers.map((p) => describePeer(p, policyNamespace))) : 'anywhere';
  const ports = rule.ports?.length ? `on ${list(rule.ports.map(describePort))}` : 'on all ports';
  return `Allows ${direction} ${ports} ${direction === 'ingress' ? 'from' : 'to'} ${where}.`;
}

/** Policy types in force, with upstream's defaulting when the field is absent. */
export function effectivePolicyTypes(np: NetworkPolicyLike): string[] {
  const types = np.spec?.policyTypes;
  if (types?.length) return types;
  return np.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

export interface PolicySentences {
  selects: string;
  ingress?: string[];
  egress?: string[];
}

export function describePolicy(np: NetworkPolicyLike): PolicySentences {
  const ns = np.metadata.namespace ?? 'default';
  const types = effectivePolicyTypes(np);
  const out: PolicySentences = { selects: `Selects ${describeSelector(np.spec?.podSelector, 'pods')} in namespace ${ns}.` };
  if (types.includes('Ingress')) {
    const rules = np.spec?.ingress ?? [];
    out.ingress = rules.length ? rules.map((r) => describeRule(r, 'ingress', ns)) : ['Denies all ingress to the selected pods.'];
  }
  if (types.includes('Egress')) {
    const rules = np.spec?.egress ?? [];
    out.egress = rules.length ? rules.map((r) => describeRule(r, 'egress', ns)) : ['Denies all egress from the selected pods.'];
  }
  return out;
}
