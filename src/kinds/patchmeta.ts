// Strategic-merge-patch metadata of every kind, as data: the `patchStrategy`
// and `patchMergeKey` struct tags of the Go types in k8s.io/api
// (core/v1, apps/v1, networking/v1, storage/v1) and k8s.io/apimachinery
// (meta/v1). Only fields whose lists merge need an entry, plus the structs on
// the way to them: a field without metadata merges maps and replaces lists,
// which is what untagged Go fields do. Lists documented as replaced (NodeSpec
// taints, PodSpec tolerations, all NetworkPolicy lists, NodeStatus images and
// volumesAttached, container command/args/envFrom, LabelSelector
// matchExpressions) are listed explicitly where a reader would look for them.
//
// The same data carries what server-side apply knows of these fields (the
// `+listType`, `+listMapKey`, `+mapType`/`+structType` markers), so that
// /openapi/v3 can publish both from one place. Unless said otherwise a list
// merged by key is a `map` list keyed by it, a merged list of scalars is a
// `set`, and a replaced list is `atomic`.
import type { PatchField } from '../lib/patch/strategicmerge.ts';

/** A field's patch metadata plus its server-side apply markers. */
export interface FieldMeta extends PatchField {
  /** Overrides the list type derived from the strategy. */
  listType?: 'atomic' | 'set' | 'map';
  /** Keys of a `map` list when they are more than the merge key (container ports: containerPort and protocol). */
  listMapKeys?: string[];
  /** `atomic` for maps and structs that apply replaces as a whole (LabelSelector, nodeSelector). */
  mapType?: 'atomic';
  /** A struct the Go type holds by value, not through a pointer (always there, if only empty): managedFields records no `.` for it. */
  embedded?: true;
  fields?: KindPatchSchema;
}

export type KindPatchSchema = { readonly [field: string]: FieldMeta };

const replace: FieldMeta = { strategy: 'replace' };
const mergeBy = (key: string, fields?: KindPatchSchema, listMapKeys?: string[]): FieldMeta => ({ strategy: 'merge', key, fields, ...(listMapKeys ? { listMapKeys } : {}) });
const set: FieldMeta = { strategy: 'merge' };
const struct = (fields: KindPatchSchema): FieldMeta => ({ fields });
/** A struct that server-side apply treats as one value (`+structType=atomic`). */
const atomicStruct = (fields: KindPatchSchema): FieldMeta => ({ fields, mapType: 'atomic' });
/** A struct held by value in the Go type (PodTemplateSpec in a DaemonSetSpec, NodeStatus.nodeInfo). */
const embedded = (fields: KindPatchSchema = {}): FieldMeta => ({ fields, embedded: true });

const objectMeta: KindPatchSchema = {
  finalizers: set,
  ownerReferences: mergeBy('uid'),
  managedFields: replace,
};

const labelSelector: KindPatchSchema = { matchExpressions: replace };

const conditionsByType = mergeBy('type');
const selector = atomicStruct(labelSelector);

const container: KindPatchSchema = {
  ports: mergeBy('containerPort', undefined, ['containerPort', 'protocol']),
  env: mergeBy('name'),
  volumeMounts: mergeBy('mountPath'),
  volumeDevices: mergeBy('devicePath'),
  command: replace,
  args: replace,
  envFrom: replace,
  resizePolicy: replace,
};

const nodeSelectorTerms: FieldMeta = replace;

const podSpec: KindPatchSchema = {
  volumes: { strategy: 'merge,retainKeys', key: 'name' },
  initContainers: mergeBy('name', container),
  containers: mergeBy('name', container),
  ephemeralContainers: mergeBy('name', container),
  imagePullSecrets: mergeBy('name'),
  hostAliases: mergeBy('ip'),
  topologySpreadConstraints: mergeBy('topologyKey', { labelSelector: selector }, ['topologyKey', 'whenUnsatisfiable']),
  schedulingGates: mergeBy('name'),
  resourceClaims: { strategy: 'merge,retainKeys', key: 'name' },
  tolerations: replace,
  readinessGates: replace,
  dnsConfig: struct({ nameservers: replace, searches: replace, options: replace }),
  nodeSelector: { mapType: 'atomic' },
  affinity: struct({
    nodeAffinity: struct({ requiredDuringSchedulingIgnoredDuringExecution: struct({ nodeSelectorTerms }) }),
  }),
};

const podTemplateSpec: KindPatchSchema = {
  metadata: embedded(objectMeta),
  spec: embedded(podSpec),
};

const podStatus: KindPatchSchema = {
  conditions: conditionsByType,
  podIPs: mergeBy('ip'),
  hostIPs: mergeBy('ip'),
  resourceClaimStatuses: { strategy: 'merge,retainKeys', key: 'name' },
};

const networkPolicyPeer: KindPatchSchema = {
  podSelector: selector,
  namespaceSelector: selector,
  ipBlock: struct({ except: replace }),
};

const networkPolicyRule = (peers: 'from' | 'to'): FieldMeta => ({ strategy: 'replace', fields: { [peers]: { strategy: 'replace', fields: networkPolicyPeer }, ports: replace } });

/** Patch metadata by group-qualified kind (`Node`, `DaemonSet.apps`, …). */
export const patchMetaByKind: Readonly<Record<string, KindPatchSchema>> = {
  Node: {
    metadata: struct(objectMeta),
    spec: struct({ podCIDRs: set, taints: replace }),
    status: struct({
      daemonEndpoints: embedded({ kubeletEndpoint: embedded() }),
      nodeInfo: embedded(),
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
      podSelector: selector,
      ingress: networkPolicyRule('from'),
      egress: networkPolicyRule('to'),
      policyTypes: replace,
    }),
  },
  'DaemonSet.apps': {
    metadata: struct(objectMeta),
    spec: struct({ selector, template: embedded(podTemplateSpec), updateStrategy: embedded() }),
    status: struct({ conditions: conditionsByType }),
  },
  'VolumeAttachment.storage.k8s.io': {
    metadata: struct(objectMeta),
    spec: struct({ source: embedded() }),
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
  // An ObjectReference is `+structType=atomic`: an Event's references to objects are owned whole.
  Event: {
    metadata: struct(objectMeta),
    involvedObject: atomicStruct({}),
    related: atomicStruct({}),
  },
  'Event.events.k8s.io': {
    metadata: struct(objectMeta),
    regarding: atomicStruct({}),
    related: atomicStruct({}),
  },
  'ControllerRevision.apps': {
    metadata: struct(objectMeta),
  },
};

/** The metadata for a kind; kinds without an entry patch like JSON merge patch below metadata. */
export function patchMetaFor(kind: { group: string; kind: string }): KindPatchSchema {
  return patchMetaByKind[kind.group ? `${kind.kind}.${kind.group}` : kind.kind] ?? { metadata: struct(objectMeta) };
}
