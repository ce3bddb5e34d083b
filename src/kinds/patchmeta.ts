// Strategic-merge-patch metadata of every kind, as data: the `patchStrategy`
// and `patchMergeKey` struct tags of the Go types in k8s.io/api
// (core/v1, apps/v1, networking/v1, storage/v1) and k8s.io/apimachinery
// (meta/v1). Only fields whose lists merge need an entry, plus the structs on
// the way to them: a field without metadata merges maps and replaces lists,
// which is what untagged Go fields do. Lists documented as replaced (NodeSpec
// taints, PodSpec tolerations, all NetworkPolicy lists, NodeStatus images and
// volumesAttached, container command/args/envFrom, LabelSelector
// matchExpressions) are listed explicitly where a reader would look for them.
import type { PatchField, PatchSchema } from '../lib/patch/strategicmerge.ts';

const replace: PatchField = { strategy: 'replace' };
const mergeBy = (key: string, fields?: PatchSchema): PatchField => ({ strategy: 'merge', key, fields });
const set: PatchField = { strategy: 'merge' };
const struct = (fields: PatchSchema): PatchField => ({ fields });

const objectMeta: PatchSchema = {
  finalizers: set,
  ownerReferences: mergeBy('uid'),
  managedFields: replace,
};

const labelSelector: PatchSchema = { matchExpressions: replace };

const conditionsByType = mergeBy('type');

const container: PatchSchema = {
  ports: mergeBy('containerPort'),
  env: mergeBy('name'),
  volumeMounts: mergeBy('mountPath'),
  volumeDevices: mergeBy('devicePath'),
  command: replace,
  args: replace,
  envFrom: replace,
  resizePolicy: replace,
};

const nodeSelectorTerms: PatchField = replace;

const podSpec: PatchSchema = {
  volumes: { strategy: 'merge,retainKeys', key: 'name' },
  initContainers: mergeBy('name', container),
  containers: mergeBy('name', container),
  ephemeralContainers: mergeBy('name', container),
  imagePullSecrets: mergeBy('name'),
  hostAliases: mergeBy('ip'),
  topologySpreadConstraints: mergeBy('topologyKey', { labelSelector: struct(labelSelector) }),
  schedulingGates: mergeBy('name'),
  resourceClaims: { strategy: 'merge,retainKeys', key: 'name' },
  tolerations: replace,
  readinessGates: replace,
  affinity: struct({
    nodeAffinity: struct({ requiredDuringSchedulingIgnoredDuringExecution: struct({ nodeSelectorTerms }) }),
  }),
};

const podTemplateSpec: PatchSchema = {
  metadata: struct(objectMeta),
  spec: struct(podSpec),
};

const podStatus: PatchSchema = {
  conditions: conditionsByType,
  podIPs: mergeBy('ip'),
  hostIPs: mergeBy('ip'),
  resourceClaimStatuses: { strategy: 'merge,retainKeys', key: 'name' },
};

const networkPolicyPeer: PatchSchema = {
  podSelector: struct(labelSelector),
  namespaceSelector: struct(labelSelector),
  ipBlock: struct({ except: replace }),
};

const networkPolicyRule = (peers: 'from' | 'to'): PatchField => ({ strategy: 'replace', fields: { [peers]: { strategy: 'replace', fields: networkPolicyPeer }, ports: replace } });

/** Patch metadata by group-qualified kind (`Node`, `DaemonSet.apps`, …). */
export const patchMetaByKind: Readonly<Record<string, PatchSchema>> = {
  Node: {
    metadata: struct(objectMeta),
    spec: struct({ podCIDRs: set, taints: replace }),
    status: struct({
      conditions: conditionsByType,
      addresses: mergeBy('type'),
      volumesAttached: replace,
      volumesInUse: replace,
      images: replace,
      runtimeHandlers: replace,
    }),
  },
  'NetworkPolicy.networking.k8s.io': {
    metadata: struct(objectMeta),
    spec: struct({
      podSelector: struct(labelSelector),
      ingress: networkPolicyRule('from'),
      egress: networkPolicyRule('to'),
      policyTypes: replace,
    }),
  },
  'DaemonSet.apps': {
    metadata: struct(objectMeta),
    spec: struct({ selector: struct(labelSelector), template: struct(podTemplateSpec) }),
    status: struct({ conditions: conditionsByType }),
  },
  'VolumeAttachment.storage.k8s.io': {
    metadata: struct(objectMeta),
  },
  Namespace: {
    metadata: struct(objectMeta),
    spec: struct({ finalizers: replace }),
    status: struct({ conditions: conditionsByType }),
  },
  Pod: {
    metadata: struct(objectMeta),
    spec: struct(podSpec),
    status: struct(podStatus),
  },
  ConfigMap: {
    metadata: struct(objectMeta),
  },
  'ControllerRevision.apps': {
    metadata: struct(objectMeta),
  },
};

/** The metadata for a kind; kinds without an entry patch like JSON merge patch below metadata. */
export function patchMetaFor(kind: { group: string; kind: string }): PatchSchema {
  return patchMetaByKind[kind.group ? `${kind.kind}.${kind.group}` : kind.kind] ?? { metadata: struct(objectMeta) };
}
