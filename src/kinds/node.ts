// Node (core v1, cluster-scoped): a worker machine. Behaviour follows
// kube-apiserver's node strategy and ValidateNode / ValidateNodeUpdate (API-SEMANTICS §15.1).
import { z } from 'zod';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { fieldErrors, Path, type FieldError } from '../lib/field.ts';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain } from '../lib/names.ts';
import { cidrCanonicalErrors, parseCIDR } from '../lib/cidr.ts';
import { canonicalQuantity, isWholeNumber } from '../lib/quantity.ts';
import { age } from '../lib/duration.ts';
import { AgeColumnDescription, metaSchemas, NameColumnDescription, objectSchema, QuantityFormatMsg, validateObjectMeta, validateQuantity } from './meta.ts';
import { once } from './schema.ts';
import { conditionOf } from '../lib/conditions.ts';

const str = (description: string, extra: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...extra });
const bool = (description: string) => z.boolean().optional().meta({ description });
const int = (description: string) => z.number().int().optional().meta({ description });
const time = (description: string) => metaSchemas().Time.optional().meta({ description, format: 'date-time' });
const list = <T extends z.ZodType>(item: T, description: string, extra: Record<string, unknown> = {}) =>
  z.array(item).optional().meta({ description, ...extra });

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'];

const nodeSchemas = once(() => {
  const { ResourceList } = metaSchemas();
  const ConfigMapNodeConfigSource = z.object({
    namespace: str('Namespace of the referenced ConfigMap.'),
    name: str('Name of the referenced ConfigMap.'),
    uid: str('UID of the referenced ConfigMap; forbidden in spec, required in status.'),
    resourceVersion: str('resourceVersion of the referenced ConfigMap; forbidden in spec, required in status.'),
    kubeletConfigKey: str('Key in the ConfigMap that holds the kubelet configuration.'),
  });

  const NodeConfigSource = z.object({
    configMap: ConfigMapNodeConfigSource.optional().meta({ description: 'Reference to a ConfigMap used as the node configuration source.' }),
  });

  const Taint = z.object({
    key: str('Taint key applied to the node.'),
    value: str('Taint value matching the key.'),
    effect: str('Effect on pods that do not tolerate the taint.', { enum: TAINT_EFFECTS }),
    timeAdded: time('When the taint was added (NoExecute taints only).'),
  });

  const NodeSpec = z.object({
    configSource: NodeConfigSource.optional().meta({
      maturity: 'deprecated',
      description: 'Formerly the source of the dynamic kubelet configuration; the feature is removed (deprecated since 1.22).',
    }),
    externalID: str('Deprecated; not set by every kubelet.', { maturity: 'deprecated' }),
    podCIDR: str('Pod IP range assigned to the node.'),
    podCIDRs: list(z.string(), 'Pod IP ranges of the node, at most one per IP family; entry 0 equals podCIDR.'),
    providerID: str('ID assigned by the cloud provider, <ProviderName>://<ProviderSpecificNodeID>.'),
    taints: list(Taint, 'Taints that repel pods which do not tolerate them.'),
    unschedulable: bool('Stops new pods from being scheduled to the node (nodes are schedulable by default).'),
  });

  const NodeCondition = z.object({
    type: str('Type of the condition, e.g. Ready.'),
    status: str('Status of the condition.', { enum: ['True', 'False', 'Unknown'] }),
    lastHeartbeatTime: time('Last time the condition was updated.'),
    lastTransitionTime: time('Last time the condition changed status.'),
    reason: str('Brief reason for the last transition.'),
    message: str('Human-readable detail of the last transition.'),
  });

  const NodeSystemInfo = z.object({
    machineID: str('Machine ID reported by the node.'),
    systemUUID: str('System UUID reported by the node.'),
    bootID: str('Boot ID reported by the node.'),
    kernelVersion: str('Kernel version (uname -r).'),
    osImage: str('OS image, e.g. Debian GNU/Linux 12 (bookworm).'),
    containerRuntimeVersion: str('Container runtime and version, e.g. containerd://1.7.0.'),
    kubeletVersion: str('Kubelet version.'),
    kubeProxyVersion: str('Kube-proxy version; deprecated and unreliable.', { maturity: 'deprecated' }),
    operatingSystem: str('Operating system of the node.'),
    architecture: str('CPU architecture of the node.'),
  });

  const NodeStatus = z.object({
    addresses: list(
      z.object({
        type: str('Address type.', { enum: ADDRESS_TYPES }),
        address: str('The address.'),
      }),
      'Addresses at which the node is reachable; send the whole list when patching.',
    ),
    allocatable: ResourceList.optional().meta({ description: 'Resources available for scheduling; defaults to capacity.' }),
    capacity: ResourceList.optional().meta({ description: 'Total resources of the node.' }),
    conditions: list(NodeCondition, 'Currently observed node conditions, one per type.'),
    config: z
      .object({
        active: NodeConfigSource.optional().meta({ description: 'Configuration the node is actively using.' }),
        assigned: NodeConfigSource.optional().meta({ description: 'Configuration the node will try to use.' }),
        lastKnownGood: NodeConfigSource.optional().meta({ description: 'Configuration the node falls back to on errors.' }),
        error: str('Problems reconciling spec.configSource with the active configuration.'),
      })
      .optional()
      .meta({ maturity: 'deprecated', description: 'Status of the configuration assigned through the removed dynamic configuration feature.' }),
    daemonEndpoints: z
      .object({
        kubeletEndpoint: z
          .object({ Port: int('Port number of the kubelet endpoint.') })
          .optional()
          .meta({ description: 'Endpoint on which the kubelet listens.' }),
      })
      .optional()
      .meta({ description: 'Endpoints of daemons running on the node.' }),
    features: z
      .object({ supplementalGroupsPolicy: bool('The node supports the supplementalGroupsPolicy pod field.') })
      .optional()
      .meta({ description: 'Features the node supports.' }),
    images: list(
      z.object({
        names: list(z.string(), 'Names under which the image is known.'),
        sizeBytes: int('Size of the image in bytes.'),
      }),
      'Container images present on the node.',
    ),
    nodeInfo: NodeSystemInfo.optional().meta({ description: 'Identifying information about the node.' }),
    phase: str('Deprecated and never populated.', { maturity: 'deprecated', enum: ['Pending', 'Running', 'Terminated'] }),
    runtimeHandlers: list(
      z.object({
        name: str('Runtime handler name; empty for the default handler.'),
        features: z
          .object({
            recursiveReadOnlyMounts: bool('The handler supports recursive read-only mounts.'),
            userNamespaces: bool('The handler supports user namespaces.'),
          })
          .optional()
          .meta({ description: 'Features the handler supports.' }),
      }),
      'Available container runtime handlers.',
    ),
    volumesAttached: list(
      z.object({
        name: str('Name of the attached volume.'),
        devicePath: str('Device path at which the volume should be available.'),
      }),
      'Volumes attached to the node.',
    ),
    volumesInUse: list(z.string(), 'Volumes in use (mounted) by the node.'),
  });

  const NodeSchema = objectSchema(
    NodeSpec.describe('Behaviour of the node.'),
    NodeStatus.describe('Most recently observed status of the node; written by the kubelet.'),
    {},
    'Node is a worker node; each node has a unique identifier.',
  );
  return { ConfigMapNodeConfigSource, NodeConfigSource, Taint, NodeSpec, NodeCondition, NodeSystemInfo, NodeStatus, NodeSchema };
});

// ---- defaults ---------------------------------------------------------------

function canonicalize(list: Record<string, unknown> | undefined) {
  for (const [k, v] of Object.entries(list ?? {})) {
    try {
      list![k] = canonicalQuantity(v as string | number);
    } catch {
      // Left as is: validate() reports the unparseable quantity.
    }
  }
}

function defaults(obj: any) {
  const spec = (obj.spec ??= {});
  // Internally only podCIDRs exists; podCIDR wins when it disagrees (core/v1 conversion).
  if (spec.podCIDR && spec.podCIDRs?.[0] !== spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  if (spec.podCIDRs?.length) spec.podCIDR = spec.podCIDRs[0];
  else {
    delete spec.podCIDRs;
    delete spec.podCIDR;
  }
  for (const t of spec.taints ?? []) {
    t.key ??= '';
    t.effect ??= '';
  }

  const status = (obj.status ??= {});
  if (status.capacity && !status.allocatable) status.allocatable = { ...status.capacity };
  canonicalize(status.capacity);
  canonicalize(status.allocatable);
  // Non-omitempty Go fields are always emitted; the Python client requires them.
  status.daemonEndpoints ??= {};
  status.daemonEndpoints.kubeletEndpoint ??= {};
  status.daemonEndpoints.kubeletEndpoint.Port ??= 0;
  status.nodeInfo ??= {};
  for (const k of Object.keys(nodeSchemas().NodeSystemInfo.shape)) status.nodeInfo[k] ??= '';
  for (const c of status.conditions ?? []) {
    c.type ??= '';
    c.status ??= '';
  }
  for (const a of status.addresses ?? []) {
    a.type ??= '';
    a.address ??= '';
  }
  for (const v of status.volumesAttached ?? []) {
    v.name ??= '';
    v.devicePath ??= '';
  }
  for (const h of status.runtimeHandlers ?? []) h.name ??= '';
}

// ---- validation -------------------------------------------------------------

const PREFER_AVOID_PODS = 'scheduler.alpha.kubernetes.io/preferAvoidPods';

function validateNodeAnnotations(annotations: Record<string, string> | undefined): FieldError[] {
  const raw = annotations?.[PREFER_AVOID_PODS];
  if (!raw) return [];
  const base = new Path(['metadata', 'annotations']);
  let parsed: any;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    return [fieldErrors.invalid(base.child('AvoidPods'), PREFER_AVOID_PODS, (e as Error).message)];
  }
  const errs: FieldError[] = [];
  (parsed?.preferAvoidPods ?? []).forEach((entry: any, i: number) => {
    const p = base.child(PREFER_AVOID_PODS).index(i).child('PodSignature');
    const controller = entry?.podSignature?.podController;
    if (!controller) errs.push(fieldErrors.required(p));
    else if (!controller.controller) errs.push(fieldErrors.invalid(p.child('PodController', 'Controller'), false, 'must point to a controller'));
  });
  return errs;
}

/** The internal Go struct as the Duplicate message renders it (capitalised field names). */
const goTaint = (t: any) => ({ Key: t.key ?? '', Value: t.value ?? '', Effect: t.effect ?? '', TimeAdded: t.timeAdded ?? null });

function validateTaints(taints: any[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const base = new Path(['metadata', 'taints']); // upstream quirk: not spec.taints
  (taints ?? []).forEach((t, i) => {
    const p = base.index(i);
    const key = t.key ?? '';
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(p.child('key'), key, msg));
    const valueErrs = isValidLabelValue(t.value ?? '');
    if (valueErrs.length) errs.push(fieldErrors.invalid(p.child('value'), t.value ?? '', valueErrs.join(';')));
    const effect = t.effect ?? '';
    if (!effect) errs.push(fieldErrors.required(p.child('effect')));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldErrors.notSupported(p.child('effect'), effect, TAINT_EFFECTS));
    const id = JSON.stringify([effect, key]);
    if (seen.has(id)) errs.push(fieldErrors.duplicate(p, goTaint(t), 'taints must be unique by key and effect pair'));
    else seen.add(id);
  });
  return errs;
}

const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);
const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const isExtendedResource = (name: string) =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const isIntegerResource = (name: string) => INTEGER_RESOURCES.has(name) || isExtendedResource(name);

function validateResources(status: any): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['capacity', 'allocatable']) {
    const resources: Record<string, string | number> = status?.[field] ?? {};
    for (const name of Object.keys(resources).sort()) {
      const p = new Path(['status', field, name]);
      const value = resources[name];
      const quantityErrs = validateQuantity(value, p); // parses, and ≥ 0
      errs.push(...quantityErrs);
      const parsed = !quantityErrs.some((e) => e.detail === QuantityFormatMsg);
      if (parsed && isIntegerResource(name) && !isWholeNumber(canonicalQuantity(value))) {
        errs.push(fieldErrors.invalid(p, canonicalQuantity(value), 'must be an integer'));
      }
    }
  }
  return errs;
}

function validatePodCIDRs(cidrs: string[] | undefined): FieldError[] {
  if (!cidrs?.length) return [];
  const errs: FieldError[] = [];
  const p = new Path(['spec', 'podCIDRs']);
  cidrs.forEach((c, i) => cidrCanonicalErrors(c).forEach((msg) => errs.push(fieldErrors.invalid(p.index(i), c, msg))));
  if (cidrs.length > 1) {
    const families = cidrs.map((c) => safeFamily(c));
    if (families.includes(undefined)) {
      errs.push(fieldErrors.internal(p, `invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR address: ${cidrs[families.indexOf(undefined)]}`));
    }
    const dualStack = families.length === 2 && families[0] !== undefined && families[1] !== undefined && families[0] !== families[1];
    if (!dualStack || cidrs.length > 2) errs.push(fieldErrors.invalid(p, cidrs, 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(fieldErrors.duplicate(p.index(i), c));
      seen.add(c);
    });
  }
  return errs;
}

/** netutils.IsDualStackCIDRStrings parses with net.ParseCIDR. */
const safeFamily = (cidr: string) => parseCIDR(cidr)?.family;

const goConfigSource = (s: any) => ({
  ConfigMap: s.configMap
    ? {
        Namespace: s.configMap.namespace ?? '',
        Name: s.configMap.name ?? '',
        UID: s.configMap.uid ?? '',
        ResourceVersion: s.configMap.resourceVersion ?? '',
        KubeletConfigKey: s.configMap.kubeletConfigKey ?? '',
      }
    : null,
});

/** ConfigMap key rules (apimachinery IsConfigMapKey). */
function configMapKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** `inStatus`: uid/resourceVersion are required (status.config.*) instead of forbidden (spec.configSource). */
function validateConfigSource(source: any, p: Path, inStatus: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const cm = source.configMap;
  if (cm) {
    const cp = p.child('configMap');
    if (inStatus) {
      if (!cm.uid) errs.push(fieldErrors.required(cp.child('uid'), 'uid must be set in status'));
      if (!cm.resourceVersion) errs.push(fieldErrors.required(cp.child('resourceVersion'), 'resourceVersion must be set in status'));
    } else {
      if (cm.uid) errs.push(fieldErrors.forbidden(cp.child('uid'), 'uid must not be set in spec'));
      if (cm.resourceVersion) errs.push(fieldErrors.forbidden(cp.child('resourceVersion'), 'resourceVersion must not be set in spec'));
    }
    if (!cm.namespace) errs.push(fieldErrors.required(cp.child('namespace'), 'namespace must be set'));
    else nameIsDNSLabel(cm.namespace, false).forEach((m) => errs.push(fieldErrors.invalid(cp.child('namespace'), cm.namespace, m)));
    if (!cm.name) errs.push(fieldErrors.required(cp.child('name'), 'name must be set'));
    else nameIsDNSSubdomain(cm.name, false).forEach((m) => errs.push(fieldErrors.invalid(cp.child('name'), cm.name, m)));
    if (!cm.kubeletConfigKey) errs.push(fieldErrors.required(cp.child('kubeletConfigKey'), 'kubeletConfigKey must be set'));
    else configMapKeyErrors(cm.kubeletConfigKey).forEach((m) => errs.push(fieldErrors.invalid(cp.child('kubeletConfigKey'), cm.kubeletConfigKey, m)));
  } else {
    errs.push(fieldErrors.invalid(p, goConfigSource(source), 'exactly one reference subfield must be non-nil'));
  }
  return errs;
}

function validateConfig(obj: any): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.spec?.configSource) errs.push(...validateConfigSource(obj.spec.configSource, new Path(['spec', 'configSource']), false));
  const config = obj.status?.config;
  for (const k of ['assigned', 'active', 'lastKnownGood']) {
    if (config?.[k]) errs.push(...validateConfigSource(config[k], new Path(['status', 'config', k]), true));
  }
  return errs;
}

const metaOpts = { namespaced: false, nameFn: 'subdomain' } as const;

/** ValidateNode: create, and the first half of a main-resource update. */
function validateNode(obj: any): FieldError[] {
  return [
    ...validateObjectMeta(obj.metadata, metaOpts),
    ...validateNodeAnnotations(obj.metadata?.annotations),
    ...validateTaints(obj.spec?.taints),
    ...validateResources(obj.status),
    ...validatePodCIDRs(obj.spec?.podCIDRs),
  ];
}

const goAddress = (a: any) => ({ Type: a.type ?? '', Address: a.address ?? '' });
const forbidChange = (field: string) => fieldErrors.forbidden(new Path(['spec', field]), `node updates may not change ${field === 'podCIDRs' ? 'podCIDR' : field} except from "" to valid`);

/** ValidateNodeUpdate: the second half of a main update, and all of a status update. */
function validateNodeUpdate(obj: any, old: any): FieldError[] {
  const errs: FieldError[] = [
    ...validateObjectMeta(obj.metadata, { ...metaOpts, old: old.metadata }),
    ...validateNodeAnnotations(obj.metadata?.annotations),
    ...validateResources(obj.status),
  ];
  const seen = new Set<string>();
  (obj.status?.addresses ?? []).forEach((a: any, i: number) => {
    const id = JSON.stringify([a.type ?? '', a.address ?? '']);
    if (seen.has(id)) errs.push(fieldErrors.duplicate(new Path(['status', 'addresses']).index(i), goAddress(a)));
    seen.add(id);
  });
  const oldCIDRs: string[] = old.spec?.podCIDRs ?? [];
  const newCIDRs: string[] = obj.spec?.podCIDRs ?? [];
  if (oldCIDRs.length) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(forbidChange('podCIDRs'));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(forbidChange('podCIDRs')));
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (obj.spec?.providerID ?? '')) errs.push(forbidChange('providerID'));
  errs.push(...validateConfig(obj));
  errs.push(...validateTaints(obj.spec?.taints));
  if ((obj.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errs.push(fieldErrors.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

function validate(obj: any, ctx: { old?: any; subresource?: string }): FieldError[] {
  if (!ctx.old) return [...validateNode(obj), ...validateConfig(obj)]; // configSource is kept on create here, so it is checked too
  if (ctx.subresource === 'status') return validateNodeUpdate(obj, ctx.old);
  return [...validateNode(obj), ...validateNodeUpdate(obj, ctx.old)];
}

// ---- printing ---------------------------------------------------------------

function nodeStatusCell(node: any): string {
  const ready = conditionOf(node, 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: any): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries<string>(node.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

const addressOf = (node: any, type: string) => (node.status?.addresses ?? []).find((a: any) => a.type === type)?.address || '<none>';
const infoOr = (node: any, key: string) => node.status?.nodeInfo?.[key] || '<unknown>';

export const nodeKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  categories: [],
  scope: 'Cluster',
  description: 'Node is a worker machine registered with the control plane; its status is written by the kubelet.',
  get schema() {
    return nodeSchemas().NodeSchema;
  },
  subresources: { status: { verbs: ['get', 'patch', 'update'] } },
  verbs: STANDARD_VERBS,
  defaults,
  validate,
  strategy: {
    mainResetsFields: ['status'],
    statusResetsFields: ['spec'],
    statusResetsMetadata: [],
    statusOnCreate: 'keep',
    generation: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    // Upstream drops spec.configSource and status.config on create; we keep them because the
    // product simulates the removed dynamic-configuration feature (SPEC.md §3), but still warn.
    warnings: (obj) => {
      const w: string[] = [];
      if (obj.spec?.configSource) w.push('spec.configSource: the feature is removed');
      if (obj.spec?.externalID) w.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
      return w;
    },
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Status', type: 'string', description: 'The status of the node', priority: 0, cell: nodeStatusCell },
    { name: 'Roles', type: 'string', description: 'The roles of the node', priority: 0, cell: nodeRoles },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
    { name: 'Version', type: 'string', description: 'Kubelet version reported by the node.', priority: 0, cell: (o) => o.status?.nodeInfo?.kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', description: 'First InternalIP address of the node.', priority: 1, cell: (o) => addressOf(o, 'InternalIP') },
    { name: 'External-IP', type: 'string', description: 'First ExternalIP address of the node.', priority: 1, cell: (o) => addressOf(o, 'ExternalIP') },
    { name: 'OS-Image', type: 'string', description: 'OS image reported by the node.', priority: 1, cell: (o) => infoOr(o, 'osImage') },
    { name: 'Kernel-Version', type: 'string', description: 'Kernel version reported by the node.', priority: 1, cell: (o) => infoOr(o, 'kernelVersion') },
    { name: 'Container-Runtime', type: 'string', description: 'Container runtime and version.', priority: 1, cell: (o) => infoOr(o, 'containerRuntimeVersion') },
  ],
  fieldSelector: {
    fields: {
      'metadata.name': (o) => o.metadata?.name ?? '',
      'spec.unschedulable': (o) => String(!!o.spec?.unschedulable),
    },
    unsupported: 'field-label',
  },
};
