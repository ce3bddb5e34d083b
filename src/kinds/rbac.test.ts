// Upstream's RBAC validation (K/pkg/apis/rbac/validation/validation_test.go) and defaulting.
import { describe, expect, it } from 'vitest';
import { renderFieldError, type FieldError } from '../lib/field.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from './rbac.ts';

const lines = (errs: FieldError[]) => errs.map(renderFieldError);

describe('Role and ClusterRole', () => {
  it('accepts RBAC names with colons and requires verbs, groups and resources', () => {
    const role = { metadata: { name: 'system:reader', namespace: 'default' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    expect(roleKind.validate(role, {})).toEqual([]);
    expect(lines(roleKind.validate({ metadata: { name: 'r', namespace: 'default' }, rules: [{ apiGroups: [''] }] }, {}))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
    expect(lines(roleKind.validate({ metadata: { name: 'a/b', namespace: 'default' } }, {}))[0]).toMatch(/^metadata\.name: Invalid value: "a\/b": may not contain '\/'/);
  });

  it('allows non-resource URLs in ClusterRoles only, and never mixed with resources', () => {
    const urls = { verbs: ['get'], nonResourceURLs: ['/healthz'] };
    expect(clusterRoleKind.validate({ metadata: { name: 'c' }, rules: [urls] }, {})).toEqual([]);
    expect(lines(roleKind.validate({ metadata: { name: 'r', namespace: 'default' }, rules: [urls] }, {}))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    expect(lines(clusterRoleKind.validate({ metadata: { name: 'c' }, rules: [{ ...urls, resources: ['pods'] }] }, {}))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it('needs a selector in an aggregationRule', () => {
    expect(lines(clusterRoleKind.validate({ metadata: { name: 'c' }, aggregationRule: {} }, {}))).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
  });
});

describe('RoleBinding and ClusterRoleBinding', () => {
  const binding = (roleRef: object, subjects: object[]) => ({ metadata: { name: 'b', namespace: 'default' }, roleRef, subjects });

  it('defaults the apiGroups of roleRef and subjects', () => {
    const b: any = binding({ kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 'sa' }]);
    roleBindingKind.defaults(b);
    expect(b.roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
    expect(b.subjects.map((s: any) => s.apiGroup)).toEqual(['rbac.authorization.k8s.io', '']);
    expect(roleBindingKind.validate(b, {})).toEqual([]);
  });

  it('checks roleRef kinds and subjects as upstream', () => {
    const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' };
    expect(lines(clusterRoleBindingKind.validate({ metadata: { name: 'b' }, roleRef: ref, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, {}))).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
    ]);
    expect(lines(roleBindingKind.validate(binding(ref, [{ kind: 'Robot', name: 'x' }, { kind: 'Group', apiGroup: 'x', name: 'g' }]), {}))).toEqual([
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[1].apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
    ]);
  });

  it('keeps roleRef immutable', () => {
    const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    const old = { ...binding(ref, []), metadata: { name: 'b', namespace: 'default', resourceVersion: '1' } };
    const changed = { ...old, roleRef: { ...ref, name: 'edit' } };
    expect(lines(roleBindingKind.validate(changed, { old }))).toEqual([
      'roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}: cannot change roleRef',
    ]);
  });
});
