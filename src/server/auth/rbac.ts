// The RBAC authorizer (K/plugin/pkg/auth/authorizer/rbac/rbac.go and
// K/pkg/registry/rbac/validation/rule.go): a request is allowed when some
// rule of a role bound to the user (or one of their groups, or their
// service account) matches it. Cluster-wide bindings apply everywhere;
// RoleBindings only in their namespace. Roles and bindings are read from the
// watch cache, so a change takes effect with the next request.
import type { KubeObject } from '../../kinds/kind.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind, RBAC_GROUP, ruleAllows, subjectMatches, type PolicyRuleType, type SubjectType } from '../../kinds/rbac.ts';
import type { WatchCache } from '../watch/cache.ts';
import type { Store } from '../registry/store.ts';
import type { KindDefinition } from '../../kinds/kind.ts';
import type { UserInfo } from './authn.ts';
import { makeAuthorizer, type Authorizer, type Decision, type NonResourceRule, type ResourceRule, type Rules } from './authz.ts';

export const SYSTEM_MASTERS = 'system:masters';

export { ruleAllows };

const describeSubject = (s: SubjectType) => (s.kind === 'ServiceAccount' ? `ServiceAccount "${s.name}/${s.namespace ?? ''}"` : `${s.kind} "${s.name}"`);

/** One binding's contribution: its rules, where they came from, or why they could not be read. */
interface Visit {
  source: string;
  rules: PolicyRuleType[];
  error?: string;
}

/** Reads the RBAC objects for the authorizer and the escalation checks. */
export class RbacResolver {
  constructor(
    private readonly cache: WatchCache,
    private readonly stores: Map<KindDefinition, Store>,
  ) {}

  private objects(kind: KindDefinition, namespace?: string): KubeObject[] {
    return this.cache.list(this.stores.get(kind)!.prefixFor(namespace)).map((c) => c.object);
  }

  private one(kind: KindDefinition, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.cache.get(this.stores.get(kind)!.keyFor(namespace, name))?.object;
  }

  /** GetRoleReferenceRules: the rules a roleRef grants in `namespace`, or the NotFound text. */
  roleRefRules(ref: { kind?: string; name?: string }, namespace: string | undefined): { rules: PolicyRuleType[]; error?: string } {
    const kind = ref.kind === 'Role' ? roleKind : clusterRoleKind;
    const role = this.one(kind, ref.kind === 'Role' ? namespace : undefined, ref.name ?? '');
    if (!role) return { rules: [], error: `${kind.singular}.${RBAC_GROUP} "${ref.name}" not found` };
    return { rules: (role.rules as PolicyRuleType[] | undefined) ?? [] };
  }

  /** VisitRulesFor: every binding that applies to the user, cluster bindings first. Stops when `visit` returns false. */
  visitRulesFor(user: UserInfo, namespace: string | undefined, visit: (v: Visit) => boolean | void) {
    for (const b of this.objects(clusterRoleBindingKind)) {
      const subject = ((b.subjects as SubjectType[] | undefined) ?? []).find((s) => subjectMatches(user, s, undefined));
      if (!subject) continue;
      const ref = b.roleRef as { kind?: string; name?: string };
      const { rules, error } = this.roleRefRules(ref, undefined);
      const source = `ClusterRoleBinding "${b.metadata.name}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject)}`;
      if (visit({ source, rules, error }) === false) return;
    }
    if (!namespace) return;
    for (const b of this.objects(roleBindingKind, namespace)) {
      const subject = ((b.subjects as SubjectType[] | undefined) ?? []).find((s) => subjectMatches(user, s, namespace));
      if (!subject) continue;
      const ref = b.roleRef as { kind?: string; name?: string };
      const { rules, error } = this.roleRefRules(ref, namespace);
      const source = `RoleBinding "${b.metadata.name}/${namespace}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject)}`;
      if (visit({ source, rules, error }) === false) return;
    }
  }

  /** RulesFor: every rule the user holds in the namespace ("" = cluster-wide only), and the errors met. */
  rulesFor(user: UserInfo, namespace: string | undefined): { rules: PolicyRuleType[]; errors: string[] } {
    const rules: PolicyRuleType[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (v) => {
      rules.push(...v.rules);
      if (v.error) errors.push(v.error);
    });
    return { rules, errors };
  }
}

/** The RBAC authorizer: allowed with the binding that allowed it, or no opinion. */
export function rbacAuthorizer(resolver: RbacResolver): Authorizer {
  return makeAuthorizer({
    decide(user, attrs): Decision {
      let allowedBy: string | undefined;
      const errors: string[] = [];
      resolver.visitRulesFor(user, attrs.namespace, (v) => {
        if (v.error) errors.push(v.error);
        if (v.rules.some((r) => ruleAllows(attrs, r))) {
          allowedBy = v.source;
          return false;
        }
      });
      if (allowedBy) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
      return { allowed: false, reason: errors.length ? `RBAC: ${errorList(errors)}` : '' };
    },
    rulesFor(user, namespace): Rules {
      const { rules, errors } = resolver.rulesFor(user, namespace);
      return { ...toReviewRules(rules), incomplete: errors.length > 0, evaluationError: errors.length ? errorList(errors) : undefined };
    },
  });
}

/** utilerrors.NewAggregate's text. */
const errorList = (errors: string[]) => (errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);

/** Splits policy rules into the review's resource and non-resource rules. */
export function toReviewRules(rules: PolicyRuleType[]): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rules) {
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs });
    if (r.resources?.length) resourceRules.push({ verbs: r.verbs ?? [], apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames });
  }
  return { resourceRules, nonResourceRules };
}

/** Members of system:masters may do anything, whatever the roles say (the apiserver's privileged group). */
export const privilegedGroupAuthorizer: Authorizer = makeAuthorizer({
  decide: (user) => (user.groups.includes(SYSTEM_MASTERS) ? { allowed: true, reason: '' } : { allowed: false, reason: '' }),
  rulesFor: (user) =>
    user.groups.includes(SYSTEM_MASTERS)
      ? { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }
      : { resourceRules: [], nonResourceRules: [], incomplete: false },
});

/**
 * The union of authorizers (`--authorization-mode=Node,RBAC`): the first that
 * allows decides; otherwise the reasons of all are joined. Rules are the union.
 */
export function unionAuthorizer(...authorizers: Authorizer[]): Authorizer {
  return makeAuthorizer({
    decide(user, attrs) {
      const reasons: string[] = [];
      for (const a of authorizers) {
        const d = a.decide(user, attrs);
        if (d.allowed) return d;
        if (d.reason) reasons.push(d.reason);
      }
      return { allowed: false, reason: reasons.join(', ') };
    },
    rulesFor(user, namespace) {
      const out: Rules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const a of authorizers) {
        const r = a.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      if (errors.length) out.evaluationError = errors.join(', ');
      return out;
    },
  });
}

// ---- escalation checks (pkg/registry/rbac/validation/policy_comparator.go) ----

/** One verb on one resource (and name) or one URL: the unit the comparator checks. */
function breakdown(r: PolicyRuleType): PolicyRuleType[] {
  const out: PolicyRuleType[] = [];
  for (const group of r.apiGroups ?? []) {
    for (const resource of r.resources ?? []) {
      for (const verb of r.verbs ?? []) {
        if (r.resourceNames?.length) for (const name of r.resourceNames) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of r.nonResourceURLs ?? []) for (const verb of r.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: string[] | undefined, x: string) => (set ?? []).includes(x);

function resourcesCovered(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  if (has(owner, '*')) return true;
  return (wanted ?? []).every((w) => has(owner, w) || (w.includes('/') && has(owner, `*/${w.split('/').slice(1).join('/')}`)));
}

function urlsCovered(owner: string[] | undefined, wanted: string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owner ?? []).some((o) => o === '*' || o === w || (o.endsWith('*') && w.startsWith(o.slice(0, -1)))));
}

/** ruleCovers: does the owner's rule include everything in `wanted` (one broken-down rule)? */
function ruleCovers(owner: PolicyRuleType, wanted: PolicyRuleType): boolean {
  const verbs = has(owner.verbs, '*') || (wanted.verbs ?? []).every((v) => has(owner.verbs, v));
  const groups = has(owner.apiGroups, '*') || (wanted.apiGroups ?? []).every((g) => has(owner.apiGroups, g));
  const resources = resourcesCovered(owner.resources, wanted.resources);
  const urls = urlsCovered(owner.nonResourceURLs, wanted.nonResourceURLs);
  const names = !owner.resourceNames?.length || (!!wanted.resourceNames?.length && wanted.resourceNames.every((n) => has(owner.resourceNames, n)));
  return verbs && groups && resources && urls && names;
}

/** Covers: the rules in `wanted` not held by `owner` (empty when covered). */
export function uncoveredRules(owner: PolicyRuleType[], wanted: PolicyRuleType[]): PolicyRuleType[] {
  return wanted.flatMap(breakdown).filter((w) => !owner.some((o) => ruleCovers(o, w)));
}

/** CompactString: `{APIGroups:["apps"], Resources:["daemonsets"], Verbs:["create"]}`. */
export function compactRule(r: PolicyRuleType): string {
  const q = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** CompactRules: broken-down rules that differ only in their verb are merged back. */
function compactRules(rules: PolicyRuleType[]): PolicyRuleType[] {
  const byKey = new Map<string, PolicyRuleType>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs]);
    const prev = byKey.get(key);
    if (prev) prev.verbs = [...(prev.verbs ?? []), ...(r.verbs ?? [])];
    else byKey.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
  }
  return [...byKey.values()];
}

/** ConfirmNoEscalation's refusal text, or undefined when the user holds every rule. */
export function escalationError(user: UserInfo, owner: { rules: PolicyRuleType[]; errors: string[] }, wanted: PolicyRuleType[]): string | undefined {
  const missing = uncoveredRules(owner.rules, wanted);
  if (!missing.length) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactRule))].sort();
  const groups = `[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
  let msg = `user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (owner.errors.length) msg += `; resolution errors: [${owner.errors.join(' ')}]`;
  return msg;
}
