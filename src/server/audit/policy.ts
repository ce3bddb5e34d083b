// The audit policy (audit.k8s.io/v1 Policy), as kube-apiserver's policy
// checker reads it: the first rule that matches a request gives its level
// (None, Metadata, Request, RequestResponse) and the stages left out; a
// request no rule matches is not audited.
import { parse as parseYAML } from 'yaml';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** Whether `level` records at least as much as `atLeast`. */
export const levelAtLeast = (level: Level, atLeast: Level) => LEVELS.indexOf(level) >= LEVELS.indexOf(atLeast);

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
}

/** What the policy is asked about one request. */
export interface RequestAttributes {
  user: { name: string; groups: string[] };
  verb: string;
  /** Set for resource requests. */
  resource?: { group: string; resource: string; subresource?: string; namespace?: string; name?: string };
  /** The path, for non-resource requests. */
  path: string;
}

/** Parses a Policy document (YAML or JSON); throws a message naming what is wrong. */
export function parsePolicy(text: string): Policy {
  const doc = parseYAML(text) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object') throw new Error('audit policy: not a document');
  if (doc.kind !== 'Policy' || (doc.apiVersion !== 'audit.k8s.io/v1' && doc.apiVersion !== 'audit.k8s.io/v1beta1')) {
    throw new Error(`audit policy: expected kind Policy of audit.k8s.io/v1, got ${String(doc.kind)} of ${String(doc.apiVersion)}`);
  }
  const stages = (v: unknown, where: string): Stage[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((s) => !STAGES.includes(s))) throw new Error(`audit policy: ${where}.omitStages: each must be one of ${STAGES.join(', ')}`);
    return v as Stage[];
  };
  const strings = (v: unknown, where: string): string[] | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error(`audit policy: ${where} must be a list of strings`);
    return v as string[];
  };
  if (!Array.isArray(doc.rules)) throw new Error('audit policy: rules must be a list');
  const rules = doc.rules.map((r: Record<string, unknown>, i: number): PolicyRule => {
    const where = `rules[${i}]`;
    if (!r || typeof r !== 'object' || !LEVELS.includes(r.level as Level)) throw new Error(`audit policy: ${where}.level must be one of ${LEVELS.join(', ')}`);
    const rule: PolicyRule = { level: r.level as Level };
    rule.users = strings(r.users, `${where}.users`);
    rule.userGroups = strings(r.userGroups, `${where}.userGroups`);
    rule.verbs = strings(r.verbs, `${where}.verbs`);
    rule.namespaces = strings(r.namespaces, `${where}.namespaces`);
    rule.nonResourceURLs = strings(r.nonResourceURLs, `${where}.nonResourceURLs`);
    rule.omitStages = stages(r.omitStages, where);
    if (r.resources !== undefined) {
      if (!Array.isArray(r.resources)) throw new Error(`audit policy: ${where}.resources must be a list`);
      rule.resources = r.resources.map((g: Record<string, unknown>, j: number) => ({
        group: typeof g?.group === 'string' ? g.group : undefined,
        resources: strings(g?.resources, `${where}.resources[${j}].resources`),
        resourceNames: strings(g?.resourceNames, `${where}.resources[${j}].resourceNames`),
      }));
    }
    if ((rule.resources || rule.namespaces) && rule.nonResourceURLs) throw new Error(`audit policy: ${where}: rules cannot apply to both regular resources and non-resource URLs`);
    return rule;
  });
  return { rules, omitStages: stages(doc.omitStages, 'policy') };
}

const matchesResource = (rules: GroupResources[], r: NonNullable<RequestAttributes['resource']>) =>
  rules.some((gr) => {
    if ((gr.group ?? '') !== r.group) return false;
    if (gr.resources?.length) {
      const full = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
      const ok = gr.resources.some((p) => p === '*' || p === full || (p.startsWith('*/') && r.subresource === p.slice(2)) || (p.endsWith('/*') && r.subresource !== undefined && r.resource === p.slice(0, -2)));
      if (!ok) return false;
    }
    if (gr.resourceNames?.length && !gr.resourceNames.includes(r.name ?? '')) return false;
    return true;
  });

const matchesPath = (patterns: string[], path: string) => patterns.some((p) => p === '*' || p === path || (p.endsWith('*') && path.startsWith(p.slice(0, -1))));

function ruleMatches(rule: PolicyRule, a: RequestAttributes): boolean {
  if (rule.users?.length && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups?.length && !rule.userGroups.some((g) => a.user.groups.includes(g))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  if (rule.resources?.length || rule.namespaces?.length) {
    if (!a.resource) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(a.resource.namespace ?? '')) return false;
    if (rule.resources?.length && !matchesResource(rule.resources, a.resource)) return false;
  }
  if (rule.nonResourceURLs?.length) {
    if (a.resource) return false;
    if (!matchesPath(rule.nonResourceURLs, a.path)) return false;
  }
  return true;
}

/** The level and omitted stages for a request. */
export function evaluatePolicy(policy: Policy, a: RequestAttributes): { level: Level; omitStages: Set<Stage> } {
  for (const rule of policy.rules) {
    if (ruleMatches(rule, a)) return { level: rule.level, omitStages: new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]) };
  }
  return { level: 'None', omitStages: new Set() };
}
