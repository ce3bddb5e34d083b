// Who may do what, computed in the browser from the roles and bindings the
// user can list, the way the RBAC authorizer decides (K/pkg/apis/rbac/v1/
// evaluation_helpers.go, K/plugin/pkg/auth/authorizer/rbac/subject_locator.go):
// a request is allowed when a rule of a role bound to the subject matches it;
// ClusterRoleBindings apply everywhere, RoleBindings in their namespace only.
// Aggregated ClusterRoles count the rules of the roles their selectors pick
// (what the aggregation controller writes into them), and members of
// system:masters may do everything whatever the bindings say.
import type { KubeObject } from '../../../kinds/kind.ts';
import { aggregationSources, ruleAllows as ruleAllowsRequest, subjectMatches as subjectNamesUser, type PolicyRuleType, type SubjectType } from '../../../kinds/rbac.ts';

export type Rule = PolicyRuleType;
export type Subject = SubjectType;

export const SYSTEM_MASTERS = 'system:masters';
export const SYSTEM_AUTHENTICATED = 'system:authenticated';

/** The RBAC objects the app could read; a kind it may not list is `undefined`. */
export interface Policy {
  clusterRoles?: KubeObject[];
  roles?: KubeObject[];
  clusterRoleBindings?: KubeObject[];
  roleBindings?: KubeObject[];
}

/** One request on a resource; `namespace` undefined means cluster-scoped, or every namespace. */
export interface ResourceRequest {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** Whether the resource lives in namespaces (RoleBindings can grant it). */
  namespaced: boolean;
}

export interface RoleRef {
  kind: 'Role' | 'ClusterRole';
  name: string;
}

export interface BindingRef {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  namespace?: string;
}

/** One way a subject holds a rule: the binding, its role, and where it applies. */
export interface Grant {
  subject: Subject;
  binding: BindingRef;
  role: RoleRef;
  /** `undefined` for cluster-wide, else the one namespace the grant holds in. */
  namespace?: string;
  rule: Rule;
  /** The ClusterRoles whose rules an aggregated role took this rule from. */
  aggregatedFrom?: string;
}

// ---- rules -------------------------------------------------------------------

/** RuleAllows for a resource request (the authorizer's own rule matching, from src/kinds/rbac.ts). */
export const ruleAllows = (req: ResourceRequest, r: Rule): boolean => ruleAllowsRequest(req, r);

/** A rule limited to some names, for a request over all names (a list), allows only those names: said, not counted. */
export const ruleLimitedToNames = (req: ResourceRequest, r: Rule) => !req.name && !!r.resourceNames?.length && ruleAllows({ ...req, name: r.resourceNames[0] }, r);

export interface RoleRules {
  /** Each rule, with the aggregated ClusterRole it came from when not the role's own. */
  rules: { rule: Rule; from?: string }[];
  /** The role is not among those read (missing, or not readable). */
  missing: boolean;
}

/**
 * The rules a role grants. An aggregated ClusterRole grants the rules of
 * every ClusterRole its selectors pick (recursively), whether or not the
 * aggregation controller has written them into it yet.
 */
export function roleRules(policy: Policy, ref: RoleRef, namespace?: string): RoleRules {
  if (ref.kind === 'Role') {
    const role = policy.roles?.find((r) => r.metadata.name === ref.name && r.metadata.namespace === namespace);
    return { rules: ((role?.rules as Rule[] | undefined) ?? []).map((rule) => ({ rule })), missing: !role };
  }
  const byName = new Map((policy.clusterRoles ?? []).map((r) => [r.metadata.name!, r]));
  const root = byName.get(ref.name);
  if (!root) return { rules: [], missing: true };
  const out: { rule: Rule; from?: string }[] = [];
  const seen = new Set<string>();
  const seenRules = new Set<string>();
  const add = (rule: Rule, from?: string) => {
    const key = JSON.stringify(rule);
    if (seenRules.has(key)) return;
    seenRules.add(key);
    out.push({ rule, from });
  };
  const visit = (role: KubeObject, from?: string) => {
    if (seen.has(role.metadata.name!)) return;
    seen.add(role.metadata.name!);
    // The picked roles first: an aggregated role's own rules are the controller's copy of theirs.
    for (const other of aggregationSources(role, byName.values())) visit(other, other.metadata.name);
    for (const rule of (role.rules as Rule[] | undefined) ?? []) add(rule, from);
  };
  visit(root);
  return { rules: out, missing: false };
}

// ---- subjects ------------------------------------------------------------------

/** Who a request is made as: a user name and groups (service accounts as their user names). */
export interface Identity {
  user?: string;
  groups: string[];
}

/** The identity of a subject picked in the app: service accounts carry their implicit groups. */
export function identityOf(s: { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string; groups?: string[] }): Identity {
  if (s.kind === 'Group') return { groups: [s.name] };
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace ?? 'default';
    return { user: `system:serviceaccount:${ns}:${s.name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, SYSTEM_AUTHENTICATED] };
  }
  return { user: s.name, groups: [...new Set([...(s.groups ?? []), SYSTEM_AUTHENTICATED])] };
}

/** appliesToUser: does a binding's subject name this identity? */
export const subjectMatches = (id: Identity, s: Subject, bindingNamespace?: string): boolean => subjectNamesUser({ name: id.user, groups: id.groups }, s, bindingNamespace);

/** A subject with its namespace filled in, as the binding means it. */
const normalise = (s: Subject, bindingNamespace?: string): Subject => (s.kind === 'ServiceAccount' ? { ...s, namespace: s.namespace || bindingNamespace } : s);

export const subjectKey = (s: Subject) => `${s.kind}/${s.kind === 'ServiceAccount' ? `${s.namespace}/` : ''}${s.name}`;

export const subjectLabel = (s: Subject) => (s.kind === 'ServiceAccount' ? `${s.namespace}/${s.name}` : (s.name ?? ''));

// ---- bindings --------------------------------------------------------------------

interface BindingView {
  ref: BindingRef;
  role: RoleRef;
  subjects: Subject[];
  /** Where it applies: undefined everywhere. */
  namespace?: string;
}

function bindings(policy: Policy, namespace: string | undefined, namespaced: boolean): BindingView[] {
  const out: BindingView[] = [];
  for (const b of policy.clusterRoleBindings ?? []) {
    const ref = b.roleRef as { kind?: string; name?: string } | undefined;
    if (ref?.kind !== 'ClusterRole') continue;
    out.push({ ref: { kind: 'ClusterRoleBinding', name: b.metadata.name! }, role: { kind: 'ClusterRole', name: ref.name ?? '' }, subjects: (b.subjects as Subject[]) ?? [] });
  }
  if (!namespaced) return out;
  for (const b of policy.roleBindings ?? []) {
    const ns = b.metadata.namespace!;
    if (namespace !== undefined && ns !== namespace) continue;
    const ref = b.roleRef as { kind?: string; name?: string } | undefined;
    if (ref?.kind !== 'Role' && ref?.kind !== 'ClusterRole') continue;
    out.push({ ref: { kind: 'RoleBinding', name: b.metadata.name!, namespace: ns }, role: { kind: ref.kind, name: ref.name ?? '' }, subjects: (b.subjects as Subject[]) ?? [], namespace: ns });
  }
  return out;
}

export interface WhoCan {
  /** Every subject that may, with each grant that lets them; sorted by subject. */
  subjects: { subject: Subject; grants: Grant[] }[];
  /** Bindings to names only, which allow the request on those objects alone. */
  limited: Grant[];
  /** Roles referred to but not read: their grants are unknown. */
  unknownRoles: string[];
}

/** Which users, groups and service accounts may make the request (kubectl auth who-can, as the subject locator answers it). */
export function whoCan(policy: Policy, req: ResourceRequest): WhoCan {
  const bySubject = new Map<string, { subject: Subject; grants: Grant[] }>();
  const limited: Grant[] = [];
  const unknown = new Set<string>();
  const rulesCache = new Map<string, RoleRules>();
  for (const b of bindings(policy, req.namespace, req.namespaced)) {
    const key = `${b.role.kind}/${b.namespace ?? ''}/${b.role.name}`;
    let rules = rulesCache.get(key);
    if (!rules) rulesCache.set(key, (rules = roleRules(policy, b.role, b.namespace)));
    if (rules.missing) unknown.add(b.role.kind === 'Role' ? `Role ${b.namespace}/${b.role.name}` : `ClusterRole ${b.role.name}`);
    const allowing = rules.rules.find((r) => ruleAllows(req, r.rule));
    const partial = !allowing && rules.rules.find((r) => ruleLimitedToNames(req, r.rule));
    for (const raw of b.subjects) {
      const subject = normalise(raw, b.namespace);
      if (allowing) {
        const grant: Grant = { subject, binding: b.ref, role: b.role, namespace: b.namespace, rule: allowing.rule, aggregatedFrom: allowing.from };
        const k = subjectKey(subject);
        const entry = bySubject.get(k) ?? { subject, grants: [] };
        entry.grants.push(grant);
        bySubject.set(k, entry);
      } else if (partial) {
        limited.push({ subject, binding: b.ref, role: b.role, namespace: b.namespace, rule: partial.rule, aggregatedFrom: partial.from });
      }
    }
  }
  const order = { Group: 0, User: 1, ServiceAccount: 2 } as Record<string, number>;
  const subjects = [...bySubject.values()].sort((a, b) => (order[a.subject.kind!] ?? 3) - (order[b.subject.kind!] ?? 3) || subjectKey(a.subject).localeCompare(subjectKey(b.subject)));
  return { subjects, limited, unknownRoles: [...unknown].sort() };
}

export interface SubjectRules {
  /** Every rule the identity holds, with the binding and role it comes through. */
  grants: Grant[];
  /** The identity is in system:masters: everything is allowed, whatever the grants. */
  superuser: boolean;
  unknownRoles: string[];
}

/**
 * What an identity may do: the rules of every binding that names it (the
 * user, one of its groups, or its service account), cluster-wide and in the
 * namespace (every namespace when undefined).
 */
export function rulesOf(policy: Policy, id: Identity, namespace?: string): SubjectRules {
  const grants: Grant[] = [];
  const unknown = new Set<string>();
  for (const b of bindings(policy, namespace, true)) {
    const subject = b.subjects.find((s) => subjectMatches(id, s, b.namespace));
    if (!subject) continue;
    const rules = roleRules(policy, b.role, b.namespace);
    if (rules.missing) unknown.add(b.role.kind === 'Role' ? `Role ${b.namespace}/${b.role.name}` : `ClusterRole ${b.role.name}`);
    for (const r of rules.rules) grants.push({ subject: normalise(subject, b.namespace), binding: b.ref, role: b.role, namespace: b.namespace, rule: r.rule, aggregatedFrom: r.from });
  }
  return { grants, superuser: id.groups.includes(SYSTEM_MASTERS), unknownRoles: [...unknown].sort() };
}

/** `daemonsets.apps/status`: a rule's resource as kubectl names it. */
export function qualifiedResource(resource: string, group: string): string {
  if (!group) return resource;
  const slash = resource.indexOf('/');
  return slash < 0 ? `${resource}.${group}` : `${resource.slice(0, slash)}.${group}${resource.slice(slash)}`;
}

/** `get, list, watch` / `*`: a rule's parts for a table cell. */
export const listOrAll = (xs: string[] | undefined, empty = '—') => (!xs?.length ? empty : xs.map((x) => (x === '' ? '"" (core)' : x)).join(', '));
