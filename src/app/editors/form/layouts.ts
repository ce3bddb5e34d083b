// What the form shows for each kind: the fields, in order, the labels that
// read better than the JSON names, and a template for new objects. Help text
// comes from the schema's descriptions.
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { volumeAttachmentKind } from '../../../kinds/volumeattachment.ts';
import type { FormLayout } from './fields.ts';

export interface KindForm extends FormLayout {
  template: (namespace: string) => KubeObject;
  /** Validation paths that differ from the form's (upstream reports Node taints under metadata). */
  errorPaths?: Record<string, string>;
}

/** What only the system writes in ObjectMeta: never in the form (the YAML tab shows it). */
const SYSTEM_META = ['selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'];
/** The object's own envelope: apiVersion and kind are fixed, status has its own tab. */
const envelope = (namespaced: boolean) => ({ '': ['apiVersion', 'kind', 'status'], metadata: namespaced ? SYSTEM_META : [...SYSTEM_META, 'namespace'] });

const selector = (path: string) => ({
  [path]: ['matchLabels', 'matchExpressions'],
  [`${path}.matchExpressions[]`]: ['key', 'operator', 'values'],
});
const meta = (namespaced: boolean) => (namespaced ? ['name', 'namespace', 'labels', 'annotations'] : ['name', 'labels', 'annotations']);
const peers = (path: string) => ({
  [path]: ['podSelector', 'namespaceSelector', 'ipBlock'],
  ...selector(`${path}.podSelector`),
  ...selector(`${path}.namespaceSelector`),
  [`${path}.ipBlock`]: ['cidr', 'except'],
});
const ports = (path: string) => ({ [path]: ['protocol', 'port', 'endPort'] });

const nodeForm: KindForm = {
  hide: envelope(false),
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(false),
    spec: ['unschedulable', 'taints', 'podCIDR', 'podCIDRs', 'providerID', 'configSource', 'externalID'],
    'spec.taints[]': ['key', 'value', 'effect'],
    'spec.configSource': ['configMap'],
    'spec.configSource.configMap': ['namespace', 'name', 'kubeletConfigKey'],
  },
  labels: { 'spec.unschedulable': 'Unschedulable (cordoned)', 'spec.podCIDR': 'Pod CIDR', 'spec.podCIDRs': 'Pod CIDRs', 'spec.providerID': 'Provider ID', 'spec.externalID': 'External ID' },
  errorPaths: { 'metadata.taints': 'spec.taints' },
  template: () => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'new-node', labels: { 'kubernetes.io/hostname': 'new-node' } }, spec: {} }),
};

const networkPolicyForm: KindForm = {
  hide: envelope(true),
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(true),
    spec: ['podSelector', 'policyTypes', 'ingress', 'egress'],
    ...selector('spec.podSelector'),
    'spec.ingress[]': ['from', 'ports'],
    ...peers('spec.ingress[].from[]'),
    ...ports('spec.ingress[].ports[]'),
    'spec.egress[]': ['to', 'ports'],
    ...peers('spec.egress[].to[]'),
    ...ports('spec.egress[].ports[]'),
  },
  labels: { 'spec.podSelector': 'Pods this policy selects', 'spec.ingress': 'Ingress rules', 'spec.egress': 'Egress rules', 'spec.policyTypes': 'Policy types' },
  template: (namespace) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'new-policy', namespace },
    spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }], ports: [{ protocol: 'TCP', port: 8080 }] }] },
  }),
};

// The pod template: the fields most DaemonSets set come first; the rest of
// the PodSpec (every field of it) waits in each object's "more fields".
const container = (path: string) => ({
  [path]: ['name', 'image', 'imagePullPolicy', 'command', 'args', 'ports', 'env', 'envFrom', 'resources', 'volumeMounts', 'securityContext', 'livenessProbe', 'readinessProbe', 'startupProbe'],
  [`${path}.ports[]`]: ['name', 'containerPort', 'protocol', 'hostPort'],
  [`${path}.env[]`]: ['name', 'value', 'valueFrom'],
  [`${path}.resources`]: ['requests', 'limits'],
  [`${path}.volumeMounts[]`]: ['name', 'mountPath', 'readOnly', 'subPath', 'mountPropagation'],
});

const daemonSetForm: KindForm = {
  hide: { ...envelope(true), 'spec.template.metadata': [...SYSTEM_META, 'name', 'namespace', 'generateName', 'ownerReferences', 'finalizers'] },
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(true),
    spec: ['selector', 'updateStrategy', 'minReadySeconds', 'revisionHistoryLimit', 'template'],
    ...selector('spec.selector'),
    'spec.updateStrategy': ['type', 'rollingUpdate'],
    'spec.updateStrategy.rollingUpdate': ['maxUnavailable', 'maxSurge'],
    'spec.template': ['metadata', 'spec'],
    'spec.template.metadata': ['labels', 'annotations'],
    'spec.template.spec': ['containers', 'initContainers', 'volumes', 'nodeSelector', 'tolerations', 'affinity', 'serviceAccountName', 'hostNetwork', 'hostPID', 'dnsPolicy', 'priorityClassName', 'terminationGracePeriodSeconds', 'securityContext'],
    ...container('spec.template.spec.containers[]'),
    ...container('spec.template.spec.initContainers[]'),
    'spec.template.spec.volumes[]': ['name', 'hostPath', 'configMap', 'secret', 'emptyDir', 'projected', 'downwardAPI', 'persistentVolumeClaim', 'csi'],
    'spec.template.spec.tolerations[]': ['key', 'operator', 'value', 'effect', 'tolerationSeconds'],
  },
  labels: { 'spec.template': 'Pod template', 'spec.template.spec': 'Pod spec', 'spec.selector': 'Pod selector' },
  template: (namespace) => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'new-daemon', namespace },
    spec: {
      selector: { matchLabels: { app: 'new-daemon' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: { metadata: { labels: { app: 'new-daemon' } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
    },
  }),
};

const volumeAttachmentForm: KindForm = {
  hide: envelope(false),
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(false),
    spec: ['attacher', 'nodeName', 'source'],
    'spec.source': ['persistentVolumeName', 'inlineVolumeSpec'],
  },
  labels: { 'spec.attacher': 'Attacher (CSI driver)', 'spec.nodeName': 'Node', 'spec.source.persistentVolumeName': 'PersistentVolume name' },
  template: () => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: 'new-attachment' },
    spec: { attacher: 'csi.sim.k8s.io', nodeName: '', source: { persistentVolumeName: '' } },
  }),
};

export const kindForms = new Map<KindDefinition, KindForm>([
  [nodeKind, nodeForm],
  [networkPolicyKind, networkPolicyForm],
  [daemonSetKind, daemonSetForm],
  [volumeAttachmentKind, volumeAttachmentForm],
]);
