// Privilege-escalation prevention for RBAC writes
// (K/pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go):
// a user may create or update a role only with rules they already hold in
// that scope, or with verb `escalate` on it; a binding only to a role whose
// rules they hold, or with verb `bind` on it. Members of system:masters may.
import type { KubeObject } from '../../kinds/kind.ts';
import { clusterRoleBindingKind, clusterRoleKind, RBAC_GROUP, roleBindingKind, roleKind, type PolicyRuleType } from '../../kinds/rbac.ts';
import { deepEqual } from '../../lib/json.ts';
import { ApiError, errors } from '../http/status.ts';
import type { Authorizer } from './authz.ts';
import type { Admission } from '../registry/store.ts';
import { escalationError, SYSTEM_MASTERS, type RbacResolver } from './rbac.ts';

/** IsOnlyMutatingGCFields: writes that only touch ownerReferences or finalizers are never escalations. */
function onlyGCFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, ownerReferences: undefined, finalizers: undefined, resourceVersion: undefined, managedFields: undefined } });
  return deepEqual(JSON.parse(JSON.stringify(strip(obj))), JSON.parse(JSON.stringify(strip(old))));
}

export function rbacEscalationAdmission(resolver: RbacResolver, authorizer: Authorizer): Admission {
  return (req) => {
    const { kind, user, object } = req;
    const isRole = kind === roleKind || kind === clusterRoleKind;
    const isBinding = kind === roleBindingKind || kind === clusterRoleBindingKind;
    if ((!isRole && !isBinding) || req.operation === 'DELETE' || !object) return;
    if (user.groups.includes(SYSTEM_MASTERS) || onlyGCFields(object, req.old)) return;
    const namespace = kind.scope === 'Namespaced' ? req.namespace : undefined;
    let rules: PolicyRuleType[];
    if (isRole) {
      // An aggregated ClusterRole's rules are the controller's to fill.
      if ((object.aggregationRule as any)?.clusterRoleSelectors?.length) return;
      const escalate = authorizer.decide(user, { verb: 'escalate', group: RBAC_GROUP, resource: kind.plural, namespace, name: req.name });
      if (escalate.allowed) return;
      rules = (object.rules as PolicyRuleType[] | undefined) ?? [];
    } else {
      const ref = (object.roleRef ?? {}) as { kind?: string; name?: string };
      const refKind = ref.kind === 'Role' ? roleKind : clusterRoleKind;
      const bind = authorizer.decide(user, { verb: 'bind', group: RBAC_GROUP, resource: refKind.plural, namespace, name: ref.name });
      if (bind.allowed) return;
      const resolved = resolver.roleRefRules(ref, namespace);
      if (resolved.error) throw new ApiError(404, 'NotFound', resolved.error, { name: ref.name, group: RBAC_GROUP, kind: refKind.plural });
      rules = resolved.rules;
    }
    const why = escalationError(user, resolver.rulesFor(user, namespace), rules);
    if (why) throw errors.forbidden(kind, req.name, why);
  };
}
