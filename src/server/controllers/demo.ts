// The demo cluster `npm start` creates on a fresh data dir: a small,
// realistic cluster so every view has something to show. Eight nodes over
// three zones (a control-plane node, a GPU node with a NoSchedule taint, a
// cordoned node), three labelled namespaces with labelled pods bound to nodes
// (the simulated kubelets run them and give them IPs), two DaemonSets (a
// RollingUpdate with surge and an OnDelete), NetworkPolicies of every shape,
// and VolumeAttachments, one of which fails to attach.
import { nodeKind } from '../../kinds/node.ts';
import { namespaceKind } from '../../kinds/namespace.ts';
import { podKind } from '../../kinds/pod.ts';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { networkPolicyKind } from '../../kinds/networkpolicy.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { configMapKind } from '../../kinds/configmap.ts';
import type { KindDefinition } from '../../kinds/kind.ts';
import type { Client } from '../client.ts';
import { Annotations } from './simulation.ts';
import { createIfAbsent } from '../auth/bootstrap.ts';

const ZONE = 'topology.kubernetes.io/zone';

interface DemoNode {
  name: string;
  zone: string;
  role: 'control-plane' | 'worker';
  cidr: string;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
  extraLabels?: Record<string, string>;
  capacity?: Record<string, string>;
}

const NODES: DemoNode[] = [
  { name: 'control-plane-1', zone: 'eu-west-1a', role: 'control-plane', cidr: '10.244.0.0/24', taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
  { name: 'worker-a1', zone: 'eu-west-1a', role: 'worker', cidr: '10.244.1.0/24' },
  { name: 'worker-a2', zone: 'eu-west-1a', role: 'worker', cidr: '10.244.2.0/24' },
  { name: 'worker-b1', zone: 'eu-west-1b', role: 'worker', cidr: '10.244.3.0/24' },
  { name: 'worker-b2', zone: 'eu-west-1b', role: 'worker', cidr: '10.244.4.0/24' },
  { name: 'worker-b3', zone: 'eu-west-1b', role: 'worker', cidr: '10.244.5.0/24', unschedulable: true },
  { name: 'worker-c1', zone: 'eu-west-1c', role: 'worker', cidr: '10.244.6.0/24', extraLabels: { 'kubernetes.io/arch': 'arm64' } },
  {
    name: 'gpu-c1',
    zone: 'eu-west-1c',
    role: 'worker',
    cidr: '10.244.7.0/24',
    taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
    extraLabels: { 'nvidia.com/gpu.present': 'true', 'node.kubernetes.io/instance-type': 'g5.2xlarge' },
    capacity: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi', 'nvidia.com/gpu': '1' },
  },
];

function nodeObject(n: DemoNode) {
  const node: any = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      labels: {
        'kubernetes.io/hostname': n.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/region': 'eu-west-1',
        [ZONE]: n.zone,
        [`node-role.kubernetes.io/${n.role}`]: '',
        'node.kubernetes.io/instance-type': 'm6i.2xlarge',
        ...n.extraLabels,
      },
    },
    spec: { podCIDR: n.cidr, podCIDRs: [n.cidr], providerID: `aws:///${n.zone}/i-${n.name.replace(/[^a-z0-9]/g, '')}` },
  };
  if (n.taints) node.spec.taints = n.taints;
  if (n.unschedulable) node.spec.unschedulable = true;
  if (n.capacity) node.status = { capacity: n.capacity };
  return node;
}

const NAMESPACES = [
  { name: 'shop', labels: { team: 'storefront', env: 'production', 'pod-security.kubernetes.io/enforce': 'baseline' } },
  { name: 'data', labels: { team: 'data', env: 'production' } },
  { name: 'monitoring', labels: { team: 'platform', purpose: 'observability' } },
];

interface DemoPod {
  ns: string;
  name: string;
  node: string;
  labels: Record<string, string>;
  image: string;
  ports: { name?: string; containerPort: number; protocol?: string }[];
}

const PODS: DemoPod[] = [
  { ns: 'shop', name: 'frontend-7d4b9c-x2k8p', node: 'worker-a1', labels: { app: 'frontend', tier: 'web', version: 'v2' }, image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080 }] },
  { ns: 'shop', name: 'frontend-7d4b9c-m9qzt', node: 'worker-b1', labels: { app: 'frontend', tier: 'web', version: 'v2' }, image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080 }] },
  { ns: 'shop', name: 'backend-5f6d8b-4wqrt', node: 'worker-a2', labels: { app: 'backend', tier: 'api' }, image: 'ghcr.io/example/shop-api:1.8.2', ports: [{ name: 'http', containerPort: 9090 }, { name: 'metrics', containerPort: 9100 }] },
  { ns: 'shop', name: 'backend-5f6d8b-h7vnc', node: 'worker-b2', labels: { app: 'backend', tier: 'api' }, image: 'ghcr.io/example/shop-api:1.8.2', ports: [{ name: 'http', containerPort: 9090 }, { name: 'metrics', containerPort: 9100 }] },
  { ns: 'data', name: 'postgres-0', node: 'worker-c1', labels: { app: 'db', tier: 'db', 'app.kubernetes.io/name': 'postgresql' }, image: 'postgres:16', ports: [{ name: 'postgres', containerPort: 5432 }] },
  { ns: 'data', name: 'redis-0', node: 'worker-a1', labels: { app: 'cache', tier: 'db', 'app.kubernetes.io/name': 'redis' }, image: 'redis:7.4', ports: [{ name: 'redis', containerPort: 6379 }] },
  { ns: 'monitoring', name: 'prometheus-0', node: 'worker-b2', labels: { app: 'prometheus', 'app.kubernetes.io/name': 'prometheus' }, image: 'quay.io/prometheus/prometheus:v2.54.1', ports: [{ name: 'web', containerPort: 9090 }] },
  { ns: 'monitoring', name: 'grafana-6c8f7d-lp2xz', node: 'worker-c1', labels: { app: 'grafana', 'app.kubernetes.io/name': 'grafana' }, image: 'grafana/grafana:11.2.0', ports: [{ name: 'http', containerPort: 3000 }] },
  { ns: 'kube-system', name: 'coredns-6f6b679f8f-7xk2d', node: 'worker-a1', labels: { 'k8s-app': 'kube-dns' }, image: 'registry.k8s.io/coredns/coredns:v1.11.3', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }] },
  { ns: 'kube-system', name: 'coredns-6f6b679f8f-q4hwm', node: 'worker-b1', labels: { 'k8s-app': 'kube-dns' }, image: 'registry.k8s.io/coredns/coredns:v1.11.3', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }] },
];

const podObject = (p: DemoPod) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: p.name, namespace: p.ns, labels: p.labels },
  spec: { nodeName: p.node, containers: [{ name: p.labels.app ?? p.labels['k8s-app'] ?? 'main', image: p.image, ports: p.ports }] },
});

const DAEMONSETS = [
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'node-exporter', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'node-exporter' } },
    spec: {
      selector: { matchLabels: { app: 'node-exporter' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, // host port 9100 (hostNetwork): a surge pod could never be scheduled beside the old one
      minReadySeconds: 5,
      template: {
        metadata: { labels: { app: 'node-exporter' } },
        spec: {
          tolerations: [{ operator: 'Exists' }],
          hostNetwork: true,
          containers: [{ name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2', ports: [{ name: 'metrics', containerPort: 9100 }] }],
        },
      },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'fluent-bit', namespace: 'kube-system', labels: { 'k8s-app': 'fluent-bit' } },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'fluent-bit' } },
      updateStrategy: { type: 'OnDelete' },
      template: {
        metadata: { labels: { 'k8s-app': 'fluent-bit' } },
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{ name: 'fluent-bit', image: 'cr.fluentbit.io/fluent/fluent-bit:3.1.9', ports: [{ name: 'http', containerPort: 2020 }] }],
        },
      },
    },
  },
];

const np = (namespace: string, name: string, spec: unknown) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace }, spec });
const nsSelector = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });

const NETWORK_POLICIES = [
  np('shop', 'default-deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
  np('shop', 'allow-dns-egress', {
    podSelector: {},
    policyTypes: ['Egress'],
    egress: [{ to: [{ namespaceSelector: nsSelector('kube-system'), podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
  }),
  np('shop', 'frontend-from-internet', {
    podSelector: { matchLabels: { app: 'frontend' } },
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '169.254.169.254/32'] } }], ports: [{ protocol: 'TCP', port: 8080 }] }],
  }),
  np('shop', 'frontend-to-backend', {
    podSelector: { matchLabels: { app: 'frontend' } },
    policyTypes: ['Egress'],
    egress: [{ to: [{ podSelector: { matchLabels: { app: 'backend' } } }], ports: [{ protocol: 'TCP', port: 'http' }] }],
  }),
  np('shop', 'backend-from-frontend', {
    podSelector: { matchLabels: { app: 'backend' } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      { from: [{ podSelector: { matchLabels: { app: 'frontend' } } }], ports: [{ protocol: 'TCP', port: 9090 }] },
      { from: [{ namespaceSelector: nsSelector('monitoring'), podSelector: { matchLabels: { app: 'prometheus' } } }], ports: [{ protocol: 'TCP', port: 'metrics' }] },
    ],
    egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'data' } }, podSelector: { matchLabels: { tier: 'db' } } }], ports: [{ protocol: 'TCP', port: 5432 }, { protocol: 'TCP', port: 6379 }] }],
  }),
  np('data', 'db-from-shop-backend', {
    podSelector: { matchLabels: { tier: 'db' } },
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'storefront' } }, podSelector: { matchLabels: { app: 'backend' } } }] }],
  }),
  np('data', 'allow-from-monitoring', {
    podSelector: {},
    policyTypes: ['Ingress'],
    ingress: [{ from: [{ namespaceSelector: nsSelector('monitoring') }] }],
  }),
];

const va = (name: string, attacher: string, pv: string, nodeName: string, annotations?: Record<string, string>) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { attacher, nodeName, source: { persistentVolumeName: pv } },
});

const VOLUME_ATTACHMENTS = [
  va('csi-3f1e9a7c2b4d', 'csi.sim.k8s.io', 'pvc-5d1b0e2a-postgres-data', 'worker-c1'),
  va('csi-8a2c4e6f1d3b', 'csi.sim.k8s.io', 'pvc-9c7e5a3b-prometheus-db', 'worker-b2'),
  va('csi-b7d9f1a3c5e2', 'hostpath.csi.k8s.io', 'pvc-2e4a6c8b-redis-data', 'worker-a1'),
  va('csi-e4c6a8b0d2f4', 'csi.sim.k8s.io', 'pvc-7f3d1b9e-shop-uploads', 'worker-a2', {
    [Annotations.attachError]: 'rpc error: code = ResourceExhausted desc = volume attachment limit of 28 reached on node worker-a2',
  }),
];

/**
 * Where a finished demo set-up is recorded. Written last: a start killed
 * half-way (the objects are many separate writes) leaves no marker, and the
 * next start creates what is missing.
 */
const MARKER = { namespace: 'kube-public', name: 'kube-workbench-demo' };

/** The demo objects, in dependency order (namespaces before what lives in them). */
function demoObjects(): [KindDefinition, { metadata: { name: string; namespace?: string } }][] {
  return [
    ...NAMESPACES.map((ns): [KindDefinition, any] => [namespaceKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns.name, labels: ns.labels } }]),
    ...NODES.map((n): [KindDefinition, any] => [nodeKind, nodeObject(n)]),
    ...PODS.map((p): [KindDefinition, any] => [podKind, podObject(p)]),
    ...DAEMONSETS.map((d): [KindDefinition, any] => [daemonSetKind, d]),
    ...NETWORK_POLICIES.map((p): [KindDefinition, any] => [networkPolicyKind, p]),
    ...VOLUME_ATTACHMENTS.map((v): [KindDefinition, any] => [volumeAttachmentKind, v]),
  ];
}

const exists = (client: Client, kind: KindDefinition, namespace: string | undefined, name: string) => {
  try {
    client.get(kind, namespace, name);
    return true;
  } catch {
    return false;
  }
};

/**
 * Creates the demo objects as the cluster admin (like `kubectl apply` after
 * provisioning) on a fresh data dir, and finishes a set-up an earlier start
 * began but did not complete. A cluster whose first start had no demo stays
 * without one.
 */
export async function createDemoCluster(client: Client, opts: { fresh: boolean } = { fresh: true }): Promise<void> {
  if (exists(client, configMapKind, MARKER.namespace, MARKER.name)) return;
  const objects = demoObjects();
  const begun = objects.some(([kind, o]) => exists(client, kind, o.metadata.namespace, o.metadata.name));
  if (!opts.fresh && !begun) return;
  // Replicas starting together on one etcd each set it up: an object another made first is the same one.
  for (const [kind, o] of objects) {
    if (!exists(client, kind, o.metadata.namespace, o.metadata.name)) await createIfAbsent(client, kind, o);
  }
  await createIfAbsent(client, configMapKind, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: MARKER.name, namespace: MARKER.namespace },
    data: { complete: 'true', note: 'The demo cluster was set up completely; delete this to have missing demo objects created again on the next start.' },
  });
}
