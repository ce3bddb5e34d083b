import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../kinds/kind.ts';
import { identityOf, qualifiedResource, roleRules, rulesOf, ruleAllows, subjectKey, whoCan, type Policy, type ResourceRequest } from './policy.ts';

const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({ name, namespace, labels });
const clusterRole = (name: string, rules: object[], labels?: Record<string, string>, aggregate?: Record<string, string>): KubeObject => ({
  metadata: meta(name, undefined, labels),
  rules,
  ...(aggregate ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregate }] } } : {}),
});
const binding = (_kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, role: string, subjects: object[], namespace?: string): KubeObject => ({
  metadata: meta(name, namespace),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
  subjects,
});
const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
const group = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
const sa = (name: string, namespace?: string) => ({ kind: 'ServiceAccount', name, namespace });

// A small copy of the bootstrap policy: view is aggregated from a labelled
// role whose rules the controller has not written into it yet.
const policy: Policy = {
  clusterRoles: [
    clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
    clusterRole('view', [], undefined, { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }),
    clusterRole('edit', [{ verbs: ['create', 'update', 'delete'], apiGroups: ['apps'], resources: ['daemonsets'] }], undefined, { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }),
    clusterRole('system:aggregate-to-view', [{ verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['daemonsets'] }], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }),
    clusterRole('node-status', [{ verbs: ['update'], apiGroups: [''], resources: ['nodes/status'], resourceNames: ['n1'] }]),
  ],
  roles: [{ metadata: meta('ds-reader', 'shop'), rules: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['daemonsets'] }] }],
  clusterRoleBindings: [
    binding('ClusterRoleBinding', 'cluster-admin', 'ClusterRole', 'cluster-admin', [group('system:masters')]),
    binding('ClusterRoleBinding', 'viewers', 'ClusterRole', 'view', [group('viewers'), user('vera')]),
    binding('ClusterRoleBinding', 'n1-status', 'ClusterRole', 'node-status', [user('system:node:n1')]),
    binding('ClusterRoleBinding', 'gone', 'ClusterRole', 'no-such-role', [user('ghost')]),
  ],
  roleBindings: [
    binding('RoleBinding', 'editors', 'ClusterRole', 'edit', [user('eddie'), sa('deployer')], 'shop'),
    binding('RoleBinding', 'reader', 'Role', 'ds-reader', [user('rita')], 'shop'),
    binding('RoleBinding', 'data-editors', 'ClusterRole', 'edit', [user('dana')], 'data'),
  ],
};

const ds = (verb: string, namespace?: string): ResourceRequest => ({ verb, group: 'apps', resource: 'daemonsets', namespace, namespaced: true });
const names = (r: ReturnType<typeof whoCan>) => r.subjects.map((s) => subjectKey(s.subject));

describe('ruleAllows', () => {
  it('matches verbs, groups, resources, subresources and names as RBAC does', () => {
    const req: ResourceRequest = { verb: 'update', group: '', resource: 'nodes', subresource: 'status', name: 'n1', namespaced: false };
    expect(ruleAllows(req, { verbs: ['update'], apiGroups: [''], resources: ['nodes/status'] })).toBe(true);
    expect(ruleAllows(req, { verbs: ['update'], apiGroups: [''], resources: ['*/status'] })).toBe(true);
    expect(ruleAllows(req, { verbs: ['update'], apiGroups: [''], resources: ['nodes'] })).toBe(false);
    expect(ruleAllows(req, { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: ['n2'] })).toBe(false);
    expect(ruleAllows({ ...req, name: undefined }, { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: ['n1'] })).toBe(false);
  });
});

describe('roleRules', () => {
  it('an aggregated ClusterRole grants the rules of the roles its selectors pick, with where each came from', () => {
    const view = roleRules(policy, { kind: 'ClusterRole', name: 'view' });
    expect(view.rules).toEqual([{ rule: { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['daemonsets'] }, from: 'system:aggregate-to-view' }]);
    expect(roleRules(policy, { kind: 'ClusterRole', name: 'edit' }).rules.map((r) => r.from)).toEqual(['system:aggregate-to-view', undefined]);
    expect(roleRules(policy, { kind: 'Role', name: 'ds-reader' }, 'data').missing).toBe(true);
  });

  it('rules the controller has already copied into an aggregated role are credited to the role they came from', () => {
    const copied = { ...policy, clusterRoles: policy.clusterRoles!.map((r) => (r.metadata.name === 'view' ? { ...r, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['daemonsets'] }] } : r)) };
    expect(roleRules(copied, { kind: 'ClusterRole', name: 'view' }).rules.map((r) => r.from)).toEqual(['system:aggregate-to-view']);
  });
});

describe('whoCan', () => {
  it('lists cluster-wide grants, and namespace grants only in their namespace', () => {
    expect(names(whoCan(policy, ds('list', 'shop')))).toEqual(['Group/system:masters', 'Group/viewers', 'User/eddie', 'User/vera', 'ServiceAccount/shop/deployer']);
    expect(names(whoCan(policy, ds('get', 'shop')))).toContain('User/rita');
    expect(names(whoCan(policy, ds('get', 'data')))).not.toContain('User/rita');
    expect(names(whoCan(policy, ds('delete', 'shop')))).toEqual(['Group/system:masters', 'User/eddie', 'ServiceAccount/shop/deployer']);
  });

  it('over all namespaces, says in which namespace each RoleBinding grants', () => {
    const all = whoCan(policy, ds('delete'));
    const dana = all.subjects.find((s) => s.subject.name === 'dana')!;
    expect(dana.grants).toMatchObject([{ binding: { kind: 'RoleBinding', name: 'data-editors', namespace: 'data' }, role: { kind: 'ClusterRole', name: 'edit' }, namespace: 'data' }]);
    const vera = whoCan(policy, ds('list')).subjects.find((s) => s.subject.name === 'vera')!;
    expect(vera.grants[0]).toMatchObject({ namespace: undefined, aggregatedFrom: 'system:aggregate-to-view' });
  });

  it('RoleBindings grant nothing on cluster-scoped resources; a name-limited rule is reported apart', () => {
    const status: ResourceRequest = { verb: 'update', group: '', resource: 'nodes', subresource: 'status', namespaced: false };
    const r = whoCan(policy, status);
    expect(names(r)).toEqual(['Group/system:masters']);
    expect(r.limited.map((g) => g.subject.name)).toEqual(['system:node:n1']);
    expect(names(whoCan(policy, { ...status, name: 'n1' }))).toContain('User/system:node:n1');
  });

  it('names roles it could not read', () => {
    expect(whoCan(policy, ds('get')).unknownRoles).toEqual(['ClusterRole no-such-role']);
    expect(whoCan({ ...policy, clusterRoles: undefined }, ds('get')).subjects.map((s) => s.subject.name)).toEqual(['rita']);
  });
});

describe('rulesOf', () => {
  it('a user gets the rules of bindings to them and to their groups', () => {
    const vera = rulesOf(policy, identityOf({ kind: 'User', name: 'someone', groups: ['viewers'] }));
    expect(vera.grants.map((g) => g.binding.name)).toEqual(['viewers']);
    expect(vera.superuser).toBe(false);
    expect(rulesOf(policy, identityOf({ kind: 'User', name: 'eddie' }), 'data').grants).toEqual([]);
    expect(rulesOf(policy, identityOf({ kind: 'User', name: 'eddie' }), 'shop').grants.map((g) => g.aggregatedFrom)).toEqual(['system:aggregate-to-view', undefined]);
  });

  it('a service account is matched in its namespace; system:masters is everything', () => {
    expect(rulesOf(policy, identityOf({ kind: 'ServiceAccount', name: 'deployer', namespace: 'shop' })).grants.length).toBe(2);
    expect(rulesOf(policy, identityOf({ kind: 'ServiceAccount', name: 'deployer', namespace: 'data' })).grants).toEqual([]);
    expect(rulesOf(policy, identityOf({ kind: 'Group', name: 'system:masters' })).superuser).toBe(true);
  });
});

describe('qualifiedResource', () => {
  it('names resources as kubectl does, the group before a subresource', () => {
    expect(qualifiedResource('pods', '')).toBe('pods');
    expect(qualifiedResource('daemonsets', 'apps')).toBe('daemonsets.apps');
    expect(qualifiedResource('daemonsets/status', 'apps')).toBe('daemonsets.apps/status');
    expect(qualifiedResource('*', '*')).toBe('*.*');
  });
});
