// What a kubelet may do: the Node authorizer
// (K/plugin/pkg/auth/authorizer/node/node_authorizer.go) and the
// NodeRestriction admission plugin
// (K/plugin/pkg/admission/noderestriction/admission.go). A node identity is
// `system:node:<name>` in group `system:nodes`. The authorizer grants the
// static node rules, and reads of configmaps and volumeattachments only for
// objects its own pods (or its own node) use; admission then confines the
// writes to the node's own Node object and the pods bound to it.
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { errors } from '../http/status.ts';
import type { WatchCache } from '../watch/cache.ts';
import type { Admission, Store } from '../registry/store.ts';
import type { UserInfo } from './authn.ts';
import { makeAuthorizer, type Attributes, type Authorizer } from './authz.ts';
import { NODE_RULES } from './bootstrap.ts';
import { ruleAllows, toReviewRules } from './rbac.ts';

export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';

/** The node a user is the kubelet of, if any. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length) || undefined;
}

/** Core resources the node rules treat specially (these rules are about resources, as upstream's are). */
const isCore = (a: { group: string }) => a.group === '';

/** The configmaps the pods bound to `node` reference (volumes, env, envFrom, projected volumes). */
function configMapsOfPodsOn(pods: KubeObject[], node: string, namespace: string): Set<string> {
  const names = new Set<string>();
  for (const p of pods) {
    const spec = p.spec as any;
    if (spec?.nodeName !== node || p.metadata.namespace !== namespace) continue;
    for (const v of spec.volumes ?? []) {
      if (v.configMap?.name) names.add(v.configMap.name);
      for (const s of v.projected?.sources ?? []) if (s.configMap?.name) names.add(s.configMap.name);
    }
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      for (const e of c.envFrom ?? []) if (e.configMapRef?.name) names.add(e.configMapRef.name);
      for (const e of c.env ?? []) if (e.valueFrom?.configMapKeyRef?.name) names.add(e.valueFrom.configMapKeyRef.name);
    }
  }
  return names;
}

export function nodeAuthorizer(cache: WatchCache, storeOf: (group: string, plural: string) => Store | undefined): Authorizer {
  const get = (group: string, plural: string, namespace: string | undefined, name: string) => {
    const store = storeOf(group, plural);
    return store ? cache.get(store.keyFor(namespace, name))?.object : undefined;
  };
  const relationship = (node: string, a: Attributes): boolean | undefined => {
    // Reads the graph-backed resources upstream allows only along node -> pod -> object edges.
    if (isCore(a) && a.resource === 'configmaps') {
      if (a.verb !== 'get' || !a.name || !a.namespace) return false;
      const podStore = storeOf('', 'pods');
      const pods = podStore ? cache.list(podStore.prefixFor(a.namespace)).map((c) => c.object) : [];
      return configMapsOfPodsOn(pods, node, a.namespace).has(a.name);
    }
    if (a.group === 'storage.k8s.io' && a.resource === 'volumeattachments' && !a.subresource) {
      if (a.verb !== 'get' || !a.name) return false;
      return (get(a.group, a.resource, undefined, a.name)?.spec as any)?.nodeName === node;
    }
    return undefined;
  };
  return makeAuthorizer({
    decide(user, a) {
      const node = nodeNameOf(user);
      if (!node) return { allowed: false, reason: '' };
      if (a.resource) {
        const related = relationship(node, a);
        if (related !== undefined) {
          return related ? { allowed: true, reason: '' } : { allowed: false, reason: `no relationship found between node '${node}' and this object` };
        }
      }
      if (NODE_RULES.some((r) => ruleAllows(a, r))) return { allowed: true, reason: '' };
      return { allowed: false, reason: '' };
    },
    rulesFor(user) {
      if (!nodeNameOf(user)) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      // The graph-backed rules cannot be listed; upstream answers incomplete too.
      return { ...toReviewRules(NODE_RULES), incomplete: true };
    },
  });
}

const forbidden = (kind: KindDefinition, name: string, msg: string) => errors.forbidden(kind, name, msg);

/** NodeRestriction: a node writes only its own Node and (the status of, or deletes) pods bound to it. */
export const nodeRestriction: Admission = (req) => {
  const node = nodeNameOf(req.user);
  if (!node || !isCore(req.kind)) return;
  if (req.kind.plural === 'nodes') {
    if (req.name !== node) {
      throw forbidden(req.kind, req.name, `node "${node}" is not allowed to modify node "${req.name}"`);
    }
    return;
  }
  if (req.kind.plural === 'pods') {
    const boundTo = ((req.old ?? req.object)?.spec as any)?.nodeName;
    if (req.operation === 'UPDATE' && req.subresource === 'status' && boundTo !== node) {
      throw forbidden(req.kind, req.name, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    }
    if (req.operation === 'DELETE' && boundTo !== node) {
      throw forbidden(req.kind, req.name, `node "${node}" can only delete pods with spec.nodeName set to itself`);
    }
    if (req.operation === 'CREATE' && boundTo !== node) {
      throw forbidden(req.kind, req.name, `node "${node}" can only create pods with spec.nodeName set to itself`);
    }
    if (req.operation === 'UPDATE' && !req.subresource) {
      throw forbidden(req.kind, req.name, `node "${node}" is not allowed to update pods`);
    }
  }
};
