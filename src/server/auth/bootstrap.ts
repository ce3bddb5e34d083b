// The bootstrap RBAC policy, reconciled on every start as kube-apiserver's
// storage_rbac post-start hook does
// (K/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go,
// controller_policy.go; K/pkg/registry/rbac/reconciliation): missing roles
// and bindings are created; existing ones annotated
// `rbac.authorization.kubernetes.io/autoupdate: "true"` get missing rules,
// selectors and subjects added; `"false"` leaves them as the admin made them.
// Only resources this server serves, plus the well-known ones users expect
// in admin/edit/view, are named.
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { clusterRoleBindingKind, clusterRoleKind, RBAC_GROUP, type PolicyRuleType, type SubjectType } from '../../kinds/rbac.ts';
import type { Client } from '../client.ts';
import { uncoveredRules } from './rbac.ts';
import { ApiError } from '../http/status.ts';

export const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAPPING = 'kubernetes.io/bootstrapping';
const AGGREGATE = (to: string) => `rbac.authorization.k8s.io/aggregate-to-${to}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];
const EVENTS = ['create', 'update', 'patch'];

const rule = (verbs: string[], groups: string[], resources: string[], resourceNames?: string[]): PolicyRuleType =>
  resourceNames ? { verbs, apiGroups: groups, resources, resourceNames } : { verbs, apiGroups: groups, resources };
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRuleType => ({ verbs, nonResourceURLs });

export interface BootstrapRole {
  name: string;
  labels?: Record<string, string>;
  rules?: PolicyRuleType[];
  aggregateFrom?: string;
}

/** What a node (system:node:<name> in system:nodes) may do at all; NodeRestriction narrows writes to its own objects. */
export const NODE_RULES: PolicyRuleType[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  // Not upstream: reading one's own status, which `kubectl patch --subresource=status` does first.
  rule(['get'], [''], ['nodes/status', 'pods/status']),
  rule(EVENTS, [''], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['get', 'watch', 'list', 'create', 'patch', 'update', 'delete'], ['storage.k8s.io'], ['csinodes']),
];

/**
 * The controllers' roles. Our controllers write with read-modify-write
 * updates where upstream's often patch, so `update` stands beside `patch`.
 */
export const CONTROLLER_ROLES: BootstrapRole[] = [
  {
    name: 'system:controller:daemon-set-controller',
    rules: [
      rule(READ, ['apps', 'extensions'], ['daemonsets']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/status']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch', 'update'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps'], ['controllerrevisions']),
      rule(EVENTS, ['', 'events.k8s.io'], ['events']),
    ],
  },
  {
    name: 'system:controller:namespace-controller',
    rules: [
      rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
    ],
  },
  {
    name: 'system:controller:generic-garbage-collector',
    rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), rule(EVENTS, ['', 'events.k8s.io'], ['events'])],
  },
  {
    name: 'system:controller:pod-garbage-collector',
    rules: [rule(['list', 'watch', 'delete'], [''], ['pods']), rule(['get', 'list'], [''], ['nodes']), rule(['patch', 'update'], [''], ['pods/status'])],
  },
  {
    name: 'system:controller:node-controller',
    rules: [
      rule(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['list', 'delete'], [''], ['pods']),
      rule(EVENTS, ['', 'events.k8s.io'], ['events']),
    ],
  },
  {
    name: 'system:controller:attachdetach-controller',
    rules: [
      rule(['list', 'watch'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['get', 'list', 'watch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['list', 'watch'], [''], ['pods']),
      rule(EVENTS, ['', 'events.k8s.io'], ['events']),
      rule(['get', 'create', 'delete', 'list', 'watch'], ['storage.k8s.io'], ['volumeattachments']),
    ],
  },
  {
    name: 'system:controller:clusterrole-aggregation-controller',
    rules: [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])],
  },
];

/** kube-scheduler's role (system:kube-scheduler), bound to the user of that name. */
export const SCHEDULER_ROLE: BootstrapRole = {
  name: 'system:kube-scheduler',
  rules: [
    rule(EVENTS, ['', 'events.k8s.io'], ['events']),
    rule(['get', 'list', 'watch'], [''], ['nodes']),
    rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
    rule(['create', 'update'], [''], ['bindings', 'pods/binding']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['get', 'list', 'watch'], ['apps'], ['daemonsets']),
    rule(['get', 'list', 'watch'], ['', 'storage.k8s.io'], ['persistentvolumeclaims', 'persistentvolumes', 'csinodes', 'csidrivers']),
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
  ],
};

/**
 * kube-controller-manager's own role (system:kube-controller-manager), here only
 * its leader-election part: the elector acts as that user on the Lease
 * kube-system/kube-controller-manager (see leader.ts).
 */
export const CONTROLLER_MANAGER_ROLE: BootstrapRole = {
  name: 'system:kube-controller-manager',
  rules: [
    rule(EVENTS, ['', 'events.k8s.io'], ['events']),
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
  ],
};

/** The CSI external-attacher's role (its project's deploy/kubernetes/rbac.yaml): the one writer of volumeattachments/status. */
export const EXTERNAL_ATTACHER_ROLE: BootstrapRole = {
  name: 'external-attacher-runner',
  rules: [
    rule(['get', 'list', 'watch', 'patch'], [''], ['persistentvolumes']),
    rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csinodes']),
    rule(['get', 'list', 'watch', 'patch', 'update'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['patch', 'update'], ['storage.k8s.io'], ['volumeattachments/status']),
    // Not in its project's role: what `kubectl patch --subresource=status` reads first.
    rule(['get'], ['storage.k8s.io'], ['volumeattachments/status']),
  ],
};

export const CLUSTER_ROLES: BootstrapRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  {
    name: 'system:discovery',
    rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])],
  },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  {
    name: 'system:basic-user',
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ],
  },
  { name: 'admin', aggregateFrom: 'admin' },
  { name: 'edit', labels: { [AGGREGATE('admin')]: 'true' }, aggregateFrom: 'edit' },
  { name: 'view', labels: { [AGGREGATE('edit')]: 'true' }, aggregateFrom: 'view' },
  {
    name: 'system:aggregate-to-admin',
    labels: { [AGGREGATE('admin')]: 'true' },
    rules: [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings'])],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [AGGREGATE('edit')]: 'true' },
    rules: [
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
      rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      rule(WRITE, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [AGGREGATE('view')]: 'true' },
    rules: [
      rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status']),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
    ],
  },
  // Unbound: the Node authorizer grants these to each node for its own objects.
  { name: 'system:node', rules: NODE_RULES },
  ...CONTROLLER_ROLES,
  SCHEDULER_ROLE,
  CONTROLLER_MANAGER_ROLE,
  EXTERNAL_ATTACHER_ROLE,
];

export interface BootstrapBinding {
  name: string;
  role: string;
  subjects: SubjectType[];
}

const group = (name: string): SubjectType => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const serviceAccount = (name: string): SubjectType => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });
/** `system:controller:daemon-set-controller` -> `daemon-set-controller`. */
const controllerName = (role: string) => role.slice('system:controller:'.length);

export const CLUSTER_ROLE_BINDINGS: BootstrapBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  ...CONTROLLER_ROLES.map((r) => ({ name: r.name, role: r.name, subjects: [serviceAccount(controllerName(r.name))] })),
  { name: 'system:kube-scheduler', role: SCHEDULER_ROLE.name, subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'system:kube-scheduler' }] },
  {
    name: 'system:kube-controller-manager',
    role: CONTROLLER_MANAGER_ROLE.name,
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'system:kube-controller-manager' }],
  },
  { name: 'csi-attacher-role', role: EXTERNAL_ATTACHER_ROLE.name, subjects: [serviceAccount('csi-attacher')] },
];

function desiredRole(r: BootstrapRole): KubeObject {
  const obj: KubeObject = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name: r.name, labels: { [BOOTSTRAPPING]: 'rbac-defaults', ...r.labels }, annotations: { [AUTOUPDATE]: 'true' } },
  };
  if (r.aggregateFrom) obj.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE(r.aggregateFrom)]: 'true' } }] };
  else obj.rules = r.rules ?? [];
  return obj;
}

function desiredBinding(b: BootstrapBinding): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: b.name, labels: { [BOOTSTRAPPING]: 'rbac-defaults' }, annotations: { [AUTOUPDATE]: 'true' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.role },
    subjects: b.subjects,
  };
}

/** Creates `obj` unless it exists: replicas starting together on one etcd each try, and what the first made is what the others wanted. */
export async function createIfAbsent(client: Client, kind: KindDefinition, obj: KubeObject): Promise<void> {
  try {
    await client.create(kind, obj);
  } catch (e) {
    if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
  }
}

const sameSubject = (a: SubjectType, b: SubjectType) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
const autoupdate = (o: KubeObject) => o.metadata.annotations?.[AUTOUPDATE] !== 'false';

/** Creates what is missing and adds what an auto-updated object lacks; never removes anything. */
export async function reconcileBootstrapPolicy(client: Client): Promise<void> {
  const existingRoles = new Map((await client.list(clusterRoleKind)).map((c) => [c.object.metadata.name!, c.object]));
  for (const r of CLUSTER_ROLES) {
    const want = desiredRole(r);
    const have = existingRoles.get(r.name);
    if (!have) {
      await createIfAbsent(client, clusterRoleKind, want);
      continue;
    }
    if (!autoupdate(have)) continue;
    await client.update(clusterRoleKind, undefined, r.name, (o) => {
      o.metadata.labels = { ...want.metadata.labels, ...o.metadata.labels };
      o.metadata.annotations = { ...want.metadata.annotations, ...o.metadata.annotations };
      if (want.aggregationRule) {
        const sels = ((o.aggregationRule as any)?.clusterRoleSelectors ?? []) as unknown[];
        for (const s of (want.aggregationRule as any).clusterRoleSelectors) if (!sels.some((x) => JSON.stringify(x) === JSON.stringify(s))) sels.push(s);
        o.aggregationRule = { clusterRoleSelectors: sels };
      } else {
        const rules = (o.rules as PolicyRuleType[] | undefined) ?? [];
        o.rules = [...rules, ...uncoveredRules(rules, want.rules as PolicyRuleType[])];
      }
    });
  }
  const existingBindings = new Map((await client.list(clusterRoleBindingKind)).map((c) => [c.object.metadata.name!, c.object]));
  for (const b of CLUSTER_ROLE_BINDINGS) {
    const want = desiredBinding(b);
    const have = existingBindings.get(b.name);
    if (have && !autoupdate(have)) continue;
    if (have && (have.roleRef as any)?.name !== b.role) {
      // roleRef is immutable: the binding is made anew.
      await client.delete(clusterRoleBindingKind, undefined, b.name);
    } else if (have) {
      await client.update(clusterRoleBindingKind, undefined, b.name, (o) => {
        const subjects = ((o.subjects as SubjectType[] | undefined) ?? []).slice();
        for (const s of b.subjects) if (!subjects.some((x) => sameSubject(x, s))) subjects.push(s);
        o.subjects = subjects;
        o.metadata.annotations = { ...want.metadata.annotations, ...o.metadata.annotations };
      });
      continue;
    }
    await createIfAbsent(client, clusterRoleBindingKind, want);
  }
}
