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

const daemonSetForm: KindForm = {
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(true),
    spec: ['selector', 'updateStrategy', 'minReadySeconds', 'revisionHistoryLimit', 'template'],
    ...selector('spec.selector'),
    'spec.updateStrategy': ['type', 'rollingUpdate'],
    'spec.updateStrategy.rollingUpdate': ['maxUnavailable', 'maxSurge'],
    'spec.template': ['metadata', 'spec'],
    'spec.template.metadata': ['labels', 'annotations'],
    'spec.template.spec': ['containers', 'nodeSelector', 'tolerations', 'hostNetwork', 'priorityClassName', 'terminationGracePeriodSeconds'],
    'spec.template.spec.containers[]': ['name', 'image', 'imagePullPolicy', 'ports', 'env', 'resources'],
    'spec.template.spec.containers[].ports[]': ['name', 'containerPort', 'protocol', 'hostPort'],
    'spec.template.spec.containers[].env[]': ['name', 'value'],
    'spec.template.spec.containers[].resources': ['requests', 'limits'],
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
  show: {
    '': ['metadata', 'spec'],
    metadata: meta(false),
    spec: ['attacher', 'nodeName', 'source'],
    'spec.source': ['persistentVolumeName'],
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
