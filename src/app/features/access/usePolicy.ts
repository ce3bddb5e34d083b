// The RBAC objects the who-can views compute from, read through the live
// lists (so answers follow changes), and which of them the user may not read.
import { useMemo } from 'react';
import type { KindDefinition } from '../../../kinds/kind.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from '../../../kinds/rbac.ts';
import { KubeError } from '../../api/client.ts';
import { useList } from '../../api/hooks.ts';
import type { Policy } from './policy.ts';

export interface PolicyState {
  policy: Policy;
  loading: boolean;
  /** What could not be read and why: the answers leave out what it grants. */
  unreadable: { kind: KindDefinition; message: string }[];
}

/** Roles and bindings cluster-wide and in `namespace` (every namespace when undefined). */
export function usePolicy(namespace?: string): PolicyState {
  const clusterRoles = useList(clusterRoleKind);
  const roles = useList(roleKind, namespace);
  const clusterRoleBindings = useList(clusterRoleBindingKind);
  const roleBindings = useList(roleBindingKind, namespace);
  const all = [
    [clusterRoleKind, clusterRoles],
    [roleKind, roles],
    [clusterRoleBindingKind, clusterRoleBindings],
    [roleBindingKind, roleBindings],
  ] as const;
  const policy = useMemo(
    (): Policy => ({
      clusterRoles: clusterRoles.data ? clusterRoles.items : undefined,
      roles: roles.data ? roles.items : undefined,
      clusterRoleBindings: clusterRoleBindings.data ? clusterRoleBindings.items : undefined,
      roleBindings: roleBindings.data ? roleBindings.items : undefined,
    }),
    [clusterRoles.data, clusterRoles.items, roles.data, roles.items, clusterRoleBindings.data, clusterRoleBindings.items, roleBindings.data, roleBindings.items],
  );
  const unreadable = all
    .filter(([, l]) => l.error)
    .map(([kind, l]) => ({
      kind,
      message: l.error instanceof KubeError && l.error.code === 403 ? `you may not list ${kind.plural}${kind.scope === 'Namespaced' && namespace ? ` in ${namespace}` : ''}` : (l.error as Error).message,
    }));
  return { policy, loading: all.some(([, l]) => l.isPending && !l.error), unreadable };
}
