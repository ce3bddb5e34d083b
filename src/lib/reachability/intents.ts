// Connectivity intents: what should be true, checked against the engine.
//
// Stored in the cluster as ConfigMaps labelled `kube-workbench.io/intents:
// "true"`, whose `intents.yaml` key holds:
//
//   intents:
//     - name: web-reaches-api            # unique in the ConfigMap
//       description: The shop front calls the API   # optional
//       expect: allowed                  # or: denied
//       from:                            # pods, like a NetworkPolicy peer, or an ipBlock
//         namespace: shop                #   one namespace by name, or
//         namespaceSelector: {matchLabels: {team: shop}}   #   absent both: every namespace
//         podSelector: {matchLabels: {app: web}}           #   absent: every pod
//       to:
//         podSelector: {matchLabels: {app: api}}
//       ports:                           # absent: every port of every protocol
//         - {port: 8080, protocol: TCP}  # protocol defaults to TCP; endPort for a range
//
// `from: {ipBlock: {cidr: 0.0.0.0/0, except: [...]}}` stands for addresses
// outside the cluster's pods (one side must select pods). An intent is met
// when every pod pair (every address region for an ipBlock) on every port it
// names has the expected verdict; the check is exact over all ports (see
// probes.ts), and host-network pods, being their node, are never matched by
// an intent's selectors, as NetworkPolicy selectors never match them.
import { z } from 'zod';
import { labelSelectorAsRequirements, matchesLabelSelector, type LabelSelector } from '../labels.ts';
import { parseCIDRSloppy } from '../cidr.ts';
import { parseYaml } from '../yaml.ts';
import { analyzeReachability, type ReachabilityAnalysis } from './index.ts';
import { canonicalIP } from './model.ts';
import { ALL_PORTS, MAX_PORT, probeAddresses, probePorts, type PortRange, type PortSpec } from './probes.ts';
import { type Endpoint, type PolicyRef, type Protocol, type ReachabilityInput, type ReachabilityMatrix } from './types.ts';

export const INTENTS_LABEL = 'kube-workbench.io/intents';
export const INTENTS_KEY = 'intents.yaml';

const selectorSchema = z
  .object({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: z
      .array(z.object({ key: z.string().min(1), operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: z.array(z.string()).optional() }).strict())
      .optional(),
  })
  .strict()
  .superRefine((sel, ctx) => {
    try {
      labelSelectorAsRequirements(sel);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
    }
  });

const cidrSchema = z.string().refine((s) => !!parseCIDRSloppy(s), { message: 'must be a CIDR, e.g. 10.0.0.0/8 or 2001:db8::/32' });

const podsSchema = z
  .object({
    namespace: z.string().min(1).optional(),
    namespaceSelector: selectorSchema.optional(),
    podSelector: selectorSchema.optional(),
  })
  .strict()
  .refine((p) => !(p.namespace && p.namespaceSelector), { message: 'give namespace or namespaceSelector, not both' });

const ipBlockSchema = z.object({ ipBlock: z.object({ cidr: cidrSchema, except: z.array(cidrSchema).optional() }).strict() }).strict();

const endpointSchema = z.union([ipBlockSchema, podsSchema]);

const portSchema = z
  .object({
    port: z.number().int().min(1).max(MAX_PORT),
    endPort: z.number().int().min(1).max(MAX_PORT).optional(),
    protocol: z.enum(['TCP', 'UDP', 'SCTP']).optional(),
  })
  .strict()
  .refine((p) => p.endPort === undefined || p.endPort >= p.port, { message: 'endPort must not be below port' });

export const intentSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be lower case letters, digits, "-" and "."').max(253),
    description: z.string().optional(),
    expect: z.enum(['allowed', 'denied']),
    from: endpointSchema,
    to: endpointSchema,
    ports: z.array(portSchema).min(1).optional(),
  })
  .strict()
  .refine((i) => !('ipBlock' in i.from && 'ipBlock' in i.to), { message: 'one side must select pods: traffic between two outside networks is not governed by NetworkPolicy' });

export const intentsDocumentSchema = z
  .object({ intents: z.array(intentSchema) })
  .strict()
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    d.intents.forEach((i, k) => {
      if (seen.has(i.name)) ctx.addIssue({ code: 'custom', path: ['intents', k, 'name'], message: `duplicate intent name "${i.name}"` });
      seen.add(i.name);
    });
  });

export type Intent = z.infer<typeof intentSchema>;
export type IntentEndpoint = Intent['from'];
export type PodsEndpoint = z.infer<typeof podsSchema>;
export type IPBlockEndpoint = z.infer<typeof ipBlockSchema>;

export const isIPBlock = (e: IntentEndpoint): e is IPBlockEndpoint => 'ipBlock' in e;

export interface IntentsParse {
  intents: Intent[];
  /** Problems with their place ("intents.0.ports.0.port: ..."). */
  errors: string[];
}

/** The intents of an `intents.yaml` text (empty text: none). */
export function parseIntents(text: string): IntentsParse {
  if (!text.trim()) return { intents: [], errors: [] };
  const parsed = parseYaml(text);
  if (parsed.error) return { intents: [], errors: [`line ${parsed.error.line ?? '?'}: ${parsed.error.message}`] };
  const r = intentsDocumentSchema.safeParse(parsed.value ?? {});
  if (r.success) return { intents: r.data.intents, errors: [] };
  return { intents: [], errors: r.error.issues.map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`) };
}

/** The port ranges an intent is about. */
export function intentRanges(intent: Pick<Intent, 'ports'>): PortRange[] {
  if (!intent.ports) return [...ALL_PORTS];
  return intent.ports.map((p) => ({ protocol: (p.protocol ?? 'TCP') as Protocol, from: p.port, to: p.endPort ?? p.port }));
}

export const rangeText = (r: PortRange) => (r.from === 1 && r.to === MAX_PORT ? `${r.protocol} any port` : r.from === r.to ? `${r.protocol} ${r.from}` : `${r.protocol} ${r.from}-${r.to}`);

/** The namespace selector an endpoint means: `namespace` as the label every namespace carries; none = every namespace. */
export function namespaceSelectorOf(e: PodsEndpoint): LabelSelector {
  if (e.namespace) return { matchLabels: { 'kubernetes.io/metadata.name': e.namespace } };
  return e.namespaceSelector ?? {};
}

/** Pods (as analysis indexes) an endpoint selects. Host-network pods are their node and never selected. */
export function selectPods(input: ReachabilityInput, analysis: ReachabilityAnalysis, e: PodsEndpoint): number[] {
  const nsLabels = new Map(input.namespaces.map((n) => [n.metadata.name ?? '', n.metadata.labels ?? {}]));
  const nsSel = namespaceSelectorOf(e);
  const podSel = e.podSelector ?? {};
  const out: number[] = [];
  for (const p of input.pods) {
    if (!p?.metadata?.name || p.spec?.hostNetwork) continue;
    const ns = p.metadata.namespace ?? 'default';
    if (!matchesLabelSelector(nsSel, { 'kubernetes.io/metadata.name': ns, ...nsLabels.get(ns) })) continue;
    if (!matchesLabelSelector(podSel, p.metadata.labels ?? {})) continue;
    const i = analysis.indexOf({ namespace: ns, name: p.metadata.name });
    if (i >= 0) out.push(i);
  }
  return out.sort((a, b) => a - b);
}

/** One pair (at one port) that does not have the expected verdict. */
export interface IntentViolation {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol: Protocol;
}

export interface IntentResult {
  name: string;
  expect: Intent['expect'];
  status: 'met' | 'violated';
  /** Pairs x probed ports checked (an ipBlock side counts one per address region). */
  checked: number;
  /** How many of them have the wrong verdict. */
  violationCount: number;
  /** The first violations, in pod order. */
  violations: IntentViolation[];
  /**
   * For a violated `allowed` intent: the policies isolating the pods that
   * deny; for a violated `denied` intent: the policies whose rules let the
   * traffic through (none when no policy isolates: nothing is in the way).
   */
  policies: PolicyRef[];
  /** Sentences: an endpoint matching no pods, a side nothing isolates. */
  warnings: string[];
}

export interface EvaluateOptions {
  /** Violations listed per intent (all are counted). */
  limit?: number;
  /** Violations explained to find the responsible policies. */
  explainLimit?: number;
}

const refKey = (r: PolicyRef) => `${r.namespace}/${r.name}`;

/** A cache of matrices for one analysis (every intent probes the same ports). */
export class MatrixCache {
  private readonly cache = new Map<string, ReachabilityMatrix>();
  constructor(readonly analysis: ReachabilityAnalysis) {}
  get(p: PortSpec): ReachabilityMatrix {
    const k = `${p.protocol}/${p.port}`;
    let m = this.cache.get(k);
    if (!m) this.cache.set(k, (m = this.analysis.matrix(p.port, p.protocol)));
    return m;
  }
}

const bit = (m: ReachabilityMatrix, i: number, j: number) => ((m.bits[i * m.rowWords + (j >>> 5)] >>> (j & 31)) & 1) === 1;

/** Every pod and node address: an ipBlock side of an intent is about the other addresses. */
function clusterAddresses(input: ReachabilityInput): Set<string> {
  const out = new Set<string>();
  for (const p of input.pods) for (const ip of [p.status?.podIP, ...(p.status?.podIPs ?? []).map((x) => x?.ip)]) if (ip) out.add(canonicalIP(ip) ?? ip);
  for (const n of input.nodes) for (const a of n.status?.addresses ?? []) if (a?.address) out.add(canonicalIP(a.address) ?? a.address);
  return out;
}

function policyCIDRs(input: ReachabilityInput): string[] {
  const out: string[] = [];
  for (const np of input.policies) {
    for (const rule of [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])]) {
      for (const peer of [...(rule?.from ?? []), ...(rule?.to ?? [])]) {
        if (peer?.ipBlock?.cidr) out.push(peer.ipBlock.cidr, ...(peer.ipBlock.except ?? []));
      }
    }
  }
  return out;
}

/**
 * Every (source, destination, port) an intent is about, with its verdict,
 * handed to `visit` until it returns false. Pod pairs are read from the
 * matrices; ipBlock sides from one address per region the policies' blocks
 * draw inside the intent's block.
 */
export function forEachIntentCase(
  input: ReachabilityInput,
  analysis: ReachabilityAnalysis,
  matrices: MatrixCache,
  spec: { from: IntentEndpoint; to: IntentEndpoint; ranges: readonly PortRange[] },
  visit: (from: Endpoint, to: Endpoint, port: PortSpec, allowed: boolean) => boolean,
): { fromCount: number; toCount: number } {
  const ports = probePorts([input.policies], input.pods, spec.ranges);
  const side = (e: IntentEndpoint): { pods?: number[]; ips?: string[] } =>
    isIPBlock(e) ? { ips: probeAddresses(e.ipBlock, policyCIDRs(input), clusterAddresses(input)) } : { pods: selectPods(input, analysis, e) };
  const from = side(spec.from);
  const to = side(spec.to);
  const pods = analysis.pods;
  outer: for (const p of ports) {
    if (from.pods && to.pods) {
      const m = matrices.get(p);
      for (const i of from.pods) for (const j of to.pods) if (!visit(pods[i], pods[j], p, bit(m, i, j))) break outer;
    } else if (from.pods) {
      for (const i of from.pods) for (const ip of to.ips!) if (!visit(pods[i], { ip }, p, analysis.allowed(pods[i], { ip }, p.port, p.protocol))) break outer;
    } else {
      for (const ip of from.ips!) for (const j of to.pods!) if (!visit({ ip }, pods[j], p, analysis.allowed({ ip }, pods[j], p.port, p.protocol))) break outer;
    }
  }
  return { fromCount: (from.pods ?? from.ips!).length, toCount: (to.pods ?? to.ips!).length };
}

export function evaluateIntent(input: ReachabilityInput, analysis: ReachabilityAnalysis, matrices: MatrixCache, intent: Intent, opts: EvaluateOptions = {}): IntentResult {
  const limit = opts.limit ?? 100;
  const explainLimit = opts.explainLimit ?? 25;
  const want = intent.expect === 'allowed';
  const violations: IntentViolation[] = [];
  let checked = 0;
  let violationCount = 0;
  const { fromCount, toCount } = forEachIntentCase(input, analysis, matrices, { from: intent.from, to: intent.to, ranges: intentRanges(intent) }, (from, to, p, allowed) => {
    checked++;
    if (allowed !== want) {
      violationCount++;
      if (violations.length < limit) violations.push({ from, to, port: p.port, protocol: p.protocol });
    }
    return true;
  });
  const warnings: string[] = [];
  if (!fromCount) warnings.push(isIPBlock(intent.from) ? 'The source block holds no address outside the pods and nodes.' : 'The source matches no pods.');
  if (!toCount) warnings.push(isIPBlock(intent.to) ? 'The destination block holds no address outside the pods and nodes.' : 'The destination matches no pods.');
  const policies = new Map<string, PolicyRef>();
  let unisolated = false;
  for (const v of violations.slice(0, explainLimit)) {
    const x = analysis.explain(v.from, v.to, v.port, v.protocol);
    for (const d of [x.egress, x.ingress]) {
      if (want && !d.allowed) for (const p of d.isolatedBy) policies.set(refKey(p), { namespace: p.namespace, name: p.name });
      if (!want) {
        for (const r of d.allowedBy) policies.set(refKey(r), { namespace: r.namespace, name: r.name });
        if (!d.isolatedBy.length && d.pod) unisolated = true;
      }
    }
  }
  if (unisolated) warnings.push('Some of the traffic is let through because no policy isolates the pods (in that direction).');
  return {
    name: intent.name,
    expect: intent.expect,
    status: violationCount ? 'violated' : 'met',
    checked,
    violationCount,
    violations,
    policies: [...policies.values()].sort((a, b) => (refKey(a) < refKey(b) ? -1 : 1)),
    warnings,
  };
}

/** Every intent against one cluster (one analysis, matrices shared). */
export function evaluateIntents(input: ReachabilityInput, intents: readonly Intent[], opts: EvaluateOptions & { analysis?: ReachabilityAnalysis } = {}): IntentResult[] {
  const analysis = opts.analysis ?? analyzeReachability(input);
  const matrices = new MatrixCache(analysis);
  return intents.map((i) => evaluateIntent(input, analysis, matrices, i, opts));
}

/** A short sentence for an intent ("pods app=web in namespace shop → pods app=api, TCP 8080: allowed"). */
export function describeIntent(intent: Intent): string {
  const sel = (s: LabelSelector | undefined) =>
    [...Object.entries(s?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`), ...(s?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator}${e.values?.length ? ` (${e.values.join(',')})` : ''}`)].join(',');
  const side = (e: IntentEndpoint) => {
    if (isIPBlock(e)) return `${e.ipBlock.cidr}${e.ipBlock.except?.length ? ` except ${e.ipBlock.except.join(',')}` : ''}`;
    const pods = e.podSelector && sel(e.podSelector) ? `pods ${sel(e.podSelector)}` : 'all pods';
    const where = e.namespace ? `in ${e.namespace}` : e.namespaceSelector ? (sel(e.namespaceSelector) ? `in namespaces ${sel(e.namespaceSelector)}` : 'in every namespace') : 'in every namespace';
    return `${pods} ${where}`;
  };
  return `${side(intent.from)} → ${side(intent.to)}, ${intentRanges(intent).map(rangeText).join(', ')}: ${intent.expect}`;
}

export const endpointText = (e: Endpoint) => ('ip' in e ? e.ip : `${e.namespace}/${e.name}`);
