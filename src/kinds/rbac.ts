// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and
// ClusterRoleBinding (K/pkg/apis/rbac, validation in
// K/pkg/apis/rbac/validation/validation.go, columns in
// K/pkg/printers/internalversion/printers.go). Who may do what is these
// objects; the server's RBAC authorizer reads them.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { age } from '../lib/duration.ts';
import { pathSegmentNameErrors, pathSegmentPrefixErrors } from '../lib/names.ts';
import type { KindDefinition, KubeObject, PrinterColumn } from './kind.ts';
import { matchesLabelSelector, type LabelSelector as LabelSelectorType } from '../lib/labels.ts';
import { STANDARD_VERBS } from './kind.ts';
import { AgeColumnDescription, metaSchemas, NameColumnDescription, objectSchema, validateLabelSelector, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

const rbacSchemas = once(() => {
  const { LabelSelector } = metaSchemas();
  const PolicyRule = z
    .object({
      verbs: z.array(z.string()).optional().describe('Verbs this rule allows (get, list, create, ...); `*` is every verb.'),
      apiGroups: z.array(z.string()).optional().describe('API groups of the resources; "" is the core group, `*` every group.'),
      resources: z.array(z.string()).optional().describe('Resources this rule applies to; `*` is all, `x/status` a subresource, `*/status` every status.'),
      resourceNames: z.array(z.string()).optional().describe('Optional allow-list of object names; empty means every object.'),
      nonResourceURLs: z.array(z.string()).optional().describe('Non-resource paths (/healthz, /api/*); ClusterRoles only, with verbs get, post, ...'),
    })
    .describe('A set of actions on resources or non-resource URLs.');

  const AggregationRule = z
    .object({
      clusterRoleSelectors: z.array(LabelSelector).optional().describe("ClusterRoles whose rules are aggregated into this one's rules by the controller."),
    })
    .describe('How a ClusterRole is built from other ClusterRoles.');

  const Subject = z
    .object({
      kind: z.string().optional().meta({ enum: ['User', 'Group', 'ServiceAccount'], description: 'User, Group or ServiceAccount.' }),
      apiGroup: z.string().optional().describe('rbac.authorization.k8s.io for User and Group, "" for ServiceAccount.'),
      name: z.string().optional().describe('Name of the user, group or service account.'),
      namespace: z.string().optional().describe('Namespace of a ServiceAccount subject.'),
    })
    .describe('Who a binding grants the role to.');

  const RoleRef = z
    .object({
      apiGroup: z.string().optional().describe('rbac.authorization.k8s.io.'),
      kind: z.string().optional().meta({ enum: ['Role', 'ClusterRole'], description: 'Role or ClusterRole.' }),
      name: z.string().optional().describe('Name of the role.'),
    })
    .describe('The role a binding grants; cannot be changed after creation.');
  const rules = z.array(PolicyRule).optional().describe('The permissions this role grants.');
  return { PolicyRule, AggregationRule, Subject, RoleRef, rules };
});

type Rbac = ReturnType<typeof rbacSchemas>;
export type PolicyRuleType = z.infer<Rbac['PolicyRule']>;
export type SubjectType = z.infer<Rbac['Subject']>;

// ---- evaluation (upstream's pkg/apis/rbac/v1/evaluation_helpers.go) -----------
// Beside the types as upstream keeps them: the server's authorizer and the
// app's who-can views judge rules and subjects by these same functions.

/** A request as a rule sees it: on a resource (`resource` set) or on a non-resource URL (`path`). */
export interface RuleRequest {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  path?: string;
}

const listAllows = (xs: readonly string[] | undefined, x: string) => (xs ?? []).some((v) => v === '*' || v === x);

function resourceAllows(r: PolicyRuleType, resource: string, subresource: string | undefined): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (r.resources ?? []).some((x) => x === '*' || x === combined || (!!subresource && x === `*/${subresource}`));
}

function urlAllows(r: PolicyRuleType, path: string): boolean {
  return (r.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** RuleAllows: does this one rule allow the request? */
export function ruleAllows(req: RuleRequest, r: PolicyRuleType): boolean {
  if (!listAllows(r.verbs, req.verb)) return false;
  if (!req.resource) return urlAllows(r, req.path ?? '');
  if (!listAllows(r.apiGroups, req.group ?? '') || !resourceAllows(r, req.resource, req.subresource)) return false;
  return !r.resourceNames?.length || (!!req.name && r.resourceNames.includes(req.name));
}

/**
 * The ClusterRoles an aggregated ClusterRole takes its rules from: those its
 * aggregationRule's selectors pick, itself aside, by name (the order in which
 * the aggregation controller gathers their rules).
 */
export function aggregationSources(role: KubeObject, all: Iterable<KubeObject>): KubeObject[] {
  const selectors = ((role.aggregationRule as { clusterRoleSelectors?: LabelSelectorType[] } | undefined)?.clusterRoleSelectors ?? []).filter(Boolean);
  if (!selectors.length) return [];
  return [...all]
    .filter((other) => other.metadata.name !== role.metadata.name && selectors.some((sel) => matchesLabelSelector(sel, other.metadata.labels)))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
}

/** appliesToUser: does a binding's subject name this user (by name, one of its groups, or its service account)? */
export function subjectMatches(who: { name?: string; groups: readonly string[] }, s: SubjectType, bindingNamespace: string | undefined): boolean {
  switch (s.kind) {
    case 'User':
      return !!who.name && who.name === s.name;
    case 'Group':
      return who.groups.includes(s.name ?? '');
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return !!ns && who.name === `system:serviceaccount:${ns}:${s.name}`;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Validation (ValidatePolicyRule, ValidateRoleBinding...)

function validatePolicyRule(rule: PolicyRuleType, namespaced: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!rule.verbs?.length) errs.push(fieldErrors.required(p.child('verbs'), 'verbs must contain at least one value'));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(fieldErrors.invalid(p.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length) {
      errs.push(fieldErrors.invalid(p.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(fieldErrors.required(p.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(fieldErrors.required(p.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

/** ValidateRBACName: any name that is a valid URL path segment (`system:masters` is one). */
const rbacName = (name: string, prefix: boolean) => (prefix ? pathSegmentPrefixErrors(name) : pathSegmentNameErrors(name));

function validateRole(obj: any, namespaced: boolean, old: any): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, { namespaced, nameFn: rbacName, old: old?.metadata });
  (obj.rules ?? []).forEach((r: PolicyRuleType, i: number) => errs.push(...validatePolicyRule(r, namespaced, new Path(['rules']).index(i))));
  if (obj.aggregationRule) {
    const p = new Path(['aggregationRule', 'clusterRoleSelectors']);
    const sels = obj.aggregationRule.clusterRoleSelectors ?? [];
    if (!sels.length) errs.push(fieldErrors.required(p, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    sels.forEach((s: any, i: number) => errs.push(...validateLabelSelector(s, p.index(i))));
  }
  return errs;
}

const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

function validateSubject(s: SubjectType, namespaced: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(fieldErrors.required(p.child('name'), ''));
  switch (s.kind) {
    case 'ServiceAccount':
      if (s.apiGroup) errs.push(fieldErrors.notSupported(p.child('apiGroup'), s.apiGroup, ['']));
      if (!s.namespace && !namespaced) errs.push(fieldErrors.required(p.child('namespace'), ''));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(p.child('apiGroup'), s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(p.child('kind'), s.kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

function validateBinding(obj: any, namespaced: boolean, old: any): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, { namespaced, nameFn: rbacName, old: old?.metadata });
  const ref = obj.roleRef ?? {};
  const p = new Path(['roleRef']);
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(p.child('apiGroup'), ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(fieldErrors.notSupported(p.child('kind'), ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldErrors.required(p.child('name'), ''));
  (obj.subjects ?? []).forEach((s: SubjectType, i: number) => errs.push(...validateSubject(s, namespaced, new Path(['subjects']).index(i))));
  if (old && JSON.stringify(old.roleRef ?? {}) !== JSON.stringify(obj.roleRef ?? {})) {
    errs.push(fieldErrors.invalid('roleRef', obj.roleRef, 'cannot change roleRef'));
  }
  return errs;
}

/** SetDefaults_RoleBinding / SetDefaults_Subject. */
function defaultBinding(obj: any) {
  if (obj.roleRef && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  for (const s of obj.subjects ?? []) {
    if (s.apiGroup === undefined || s.apiGroup === '') {
      if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
      else if (s.kind === 'ServiceAccount') s.apiGroup = '';
    }
  }
}

// ---------------------------------------------------------------------------
// Table columns

const createdAt: PrinterColumn = {
  name: 'Created At',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o) => o.metadata?.creationTimestamp ?? '',
};
const nameColumn: PrinterColumn = { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' };
const subjectsOf = (o: any, kind: string) => (o.subjects ?? []).filter((s: SubjectType) => s.kind === kind);
const bindingColumns: PrinterColumn[] = [
  nameColumn,
  { name: 'Role', type: 'string', description: 'RoleRef is the reference to the role the binding grants.', priority: 0, cell: (o) => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}` },
  { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  { name: 'Users', type: 'string', description: 'Users in the binding.', priority: 1, cell: (o) => subjectsOf(o, 'User').map((s: SubjectType) => s.name).join(', ') },
  { name: 'Groups', type: 'string', description: 'Groups in the binding.', priority: 1, cell: (o) => subjectsOf(o, 'Group').map((s: SubjectType) => s.name).join(', ') },
  {
    name: 'ServiceAccounts',
    type: 'string',
    description: 'ServiceAccounts in the binding.',
    priority: 1,
    cell: (o) => subjectsOf(o, 'ServiceAccount').map((s: SubjectType) => `${s.namespace ?? ''}/${s.name}`).join(', '),
  },
];

const strategy: KindDefinition['strategy'] = {
  mainResetsFields: [],
  statusResetsFields: [],
  statusResetsMetadata: [],
  statusOnCreate: 'keep',
  generation: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};

const fieldSelector = (namespaced: boolean): KindDefinition['fieldSelector'] => ({
  fields: namespaced
    ? { 'metadata.name': (o) => o.metadata?.name ?? '', 'metadata.namespace': (o) => o.metadata?.namespace ?? '' }
    : { 'metadata.name': (o) => o.metadata?.name ?? '' },
  unsupported: 'field-label',
});


function makeRoleKind(namespaced: boolean): KindDefinition {
  const kind = namespaced ? 'Role' : 'ClusterRole';
  const description = namespaced
    ? 'A namespaced set of permissions (PolicyRules), granted by RoleBindings.'
    : 'A cluster-wide set of permissions, granted by ClusterRoleBindings or, within a namespace, by RoleBindings.';
  const schema = once(() => {
    const { rules, AggregationRule } = rbacSchemas();
    const extra: Record<string, z.ZodType> = { rules };
    if (!namespaced) extra.aggregationRule = AggregationRule.optional().describe('Build this role from the rules of other ClusterRoles; the controller owns `rules` then.');
    return objectSchema(undefined, undefined, extra, description);
  });
  return {
    group: RBAC_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description,
    get schema() {
      return schema();
    },
    subresources: {},
    verbs: STANDARD_VERBS,
    defaults() {},
    validate: (obj, { old }) => validateRole(obj, namespaced, old),
    strategy,
    printerColumns: [nameColumn, createdAt],
    fieldSelector: fieldSelector(namespaced),
  };
}

function makeBindingKind(namespaced: boolean): KindDefinition {
  const kind = namespaced ? 'RoleBinding' : 'ClusterRoleBinding';
  const description = namespaced
    ? 'Grants the permissions of a Role or ClusterRole to subjects within one namespace.'
    : 'Grants the permissions of a ClusterRole to subjects across the whole cluster.';
  const schema = once(() => {
    const { Subject, RoleRef } = rbacSchemas();
    return objectSchema(undefined, undefined, { subjects: z.array(Subject).optional().describe('Who is granted the role.'), roleRef: RoleRef.optional() }, description);
  });
  return {
    group: RBAC_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description,
    get schema() {
      return schema();
    },
    subresources: {},
    verbs: STANDARD_VERBS,
    defaults: defaultBinding,
    validate: (obj, { old }) => validateBinding(obj, namespaced, old),
    strategy,
    printerColumns: bindingColumns,
    fieldSelector: fieldSelector(namespaced),
  };
}

export const roleKind = makeRoleKind(true);
export const clusterRoleKind = makeRoleKind(false);
export const roleBindingKind = makeBindingKind(true);
export const clusterRoleBindingKind = makeBindingKind(false);
