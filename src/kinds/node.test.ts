import { describe, expect, it } from 'vitest';
import { renderFieldError, type FieldError } from '../lib/field.ts';
import { nodeKind } from './node.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const lines = (errs: FieldError[]) => errs.map(renderFieldError);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function fullNode(): any {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'worker-1',
      labels: { 'kubernetes.io/hostname': 'worker-1', 'node-role.kubernetes.io/worker': '' },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: {
      podCIDR: '10.244.1.0/24',
      podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'],
      providerID: 'kind://docker/kind/worker-1',
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: '172.18.0.3' },
        { type: 'Hostname', address: 'worker-1' },
      ],
      capacity: { cpu: '8', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '0', 'example.com/gpu': '2' },
      allocatable: { cpu: '7500m', memory: '15Gi', pods: '110', 'ephemeral-storage': '90Gi', 'hugepages-2Mi': '0', 'example.com/gpu': '2' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: '2026-01-02T03:04:05Z',
          lastTransitionTime: '2026-01-02T03:00:00Z',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
        kernelVersion: '6.1.0-18-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.13',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
      volumesAttached: [{ name: 'kubernetes.io/csi/ebs^vol-1', devicePath: '' }],
      volumesInUse: ['kubernetes.io/csi/ebs^vol-1'],
      runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } }],
      features: { supplementalGroupsPolicy: true },
    },
  };
}

/** Decode as the server does: parse, then default. */
function decode(o: any): any {
  const parsed = nodeKind.schema.parse(o);
  nodeKind.defaults(parsed);
  return parsed;
}

const create = (o: any) => lines(nodeKind.validate(decode(o), {}));
const update = (o: any, old: any, subresource?: string) => lines(nodeKind.validate(decode(o), { old: decode(old), subresource }));

describe('Node definition', () => {
  it('describes the resource as API-SEMANTICS §1 does', () => {
    expect(nodeKind).toMatchObject({ group: '', version: 'v1', plural: 'nodes', singular: 'node', shortNames: ['no'], scope: 'Cluster', listKind: 'NodeList' });
    expect(nodeKind.subresources).toEqual({ status: { verbs: ['get', 'patch', 'update'] } });
    expect(nodeKind.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect(nodeKind.strategy).toMatchObject({
      mainResetsFields: ['status'],
      statusResetsFields: ['spec'],
      statusResetsMetadata: [],
      statusOnCreate: 'keep',
      generation: false,
      allowUnconditionalUpdate: true,
      returnDeletedObject: false,
    });
  });

  it('accepts a realistic node', () => {
    expect(create(fullNode())).toEqual([]);
    expect(update(fullNode(), fullNode())).toEqual([]);
    expect(update(fullNode(), fullNode(), 'status')).toEqual([]);
  });
});

describe('Node schema', () => {
  it('strips unknown fields and keeps real JSON names', () => {
    const o = fullNode();
    o.spec.bogus = 1;
    o.status.nodeInfo.agentVersion = 'x';
    const parsed: any = nodeKind.schema.parse(o);
    expect(parsed.spec.bogus).toBeUndefined();
    expect(parsed.status.nodeInfo.agentVersion).toBeUndefined();
    expect(parsed.status.nodeInfo.kubeletVersion).toBe('v1.32.0');
    expect(parsed.status.daemonEndpoints.kubeletEndpoint.Port).toBe(10250);
  });

  it('rejects wrong JSON types', () => {
    expect(nodeKind.schema.safeParse({ spec: { unschedulable: 'yes' } }).success).toBe(false);
    expect(nodeKind.schema.safeParse({ spec: { podCIDRs: '10.0.0.0/24' } }).success).toBe(false);
    expect(nodeKind.schema.safeParse({ status: { daemonEndpoints: { kubeletEndpoint: { Port: 1.5 } } } }).success).toBe(false);
    expect(nodeKind.schema.safeParse({ status: { capacity: { cpu: true } } }).success).toBe(false);
  });

  it('keeps a bad enum value for validate() to report', () => {
    expect(nodeKind.schema.safeParse({ spec: { taints: [{ key: 'k', effect: 'Bogus' }] } }).success).toBe(true);
  });
});

describe('Node defaults', () => {
  it('always emits spec, the kubelet endpoint and nodeInfo strings', () => {
    const o: any = { metadata: { name: 'n' } };
    nodeKind.defaults(o);
    expect(o.spec).toEqual({});
    expect(o.status.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 0 } });
    expect(Object.values(o.status.nodeInfo)).toHaveLength(10);
    expect(o.status.nodeInfo.kubeProxyVersion).toBe('');
  });

  it('copies capacity into a missing allocatable, canonically', () => {
    const o: any = { metadata: { name: 'n' }, status: { capacity: { cpu: '1000m', memory: '2048Mi', storage: '1.5Gi', half: '0.5' } } };
    nodeKind.defaults(o);
    expect(o.status.capacity).toEqual({ cpu: '1', memory: '2Gi', storage: '1536Mi', half: '500m' });
    expect(o.status.allocatable).toEqual(o.status.capacity);
    expect(o.status.allocatable).not.toBe(o.status.capacity);
  });

  it('keeps an explicit allocatable', () => {
    const o: any = { metadata: { name: 'n' }, status: { capacity: { cpu: '2' }, allocatable: { cpu: '1500m' } } };
    nodeKind.defaults(o);
    expect(o.status.allocatable).toEqual({ cpu: '1500m' });
  });

  it('converts podCIDR and podCIDRs both ways', () => {
    const a: any = { spec: { podCIDR: '10.0.0.0/24' } };
    nodeKind.defaults(a);
    expect(a.spec.podCIDRs).toEqual(['10.0.0.0/24']);
    const b: any = { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } };
    nodeKind.defaults(b);
    expect(b.spec.podCIDR).toBe('10.0.0.0/24');
    const c: any = { spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } };
    nodeKind.defaults(c);
    expect(c.spec).toEqual({ podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24'] });
    const d: any = { spec: { podCIDRs: [] } };
    nodeKind.defaults(d);
    expect(d.spec).toEqual({});
  });

  it('is idempotent', () => {
    const o = decode(fullNode());
    const again = clone(o);
    nodeKind.defaults(again);
    expect(again).toEqual(o);
  });
});

describe('Node validation on create', () => {
  const withSpec = (spec: any) => ({ metadata: { name: 'n' }, spec });
  const withStatus = (status: any) => ({ metadata: { name: 'n' }, status });

  it('requires a DNS-1123 subdomain name', () => {
    expect(create({ metadata: { name: 'Bad_Name' } })).toEqual([`metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`]);
    expect(create({ metadata: {} })).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('validates taints under metadata.taints', () => {
    expect(create(withSpec({ taints: [{ key: 'k', effect: 'NoExecute' }] }))).toEqual([]);
    expect(create(withSpec({ taints: [{ key: 'bad key', effect: 'NoSchedule' }] }))).toEqual([
      "metadata.taints[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(create(withSpec({ taints: [{ key: 'k', value: 'a b', effect: 'NoSchedule' }] }))).toEqual([
      "metadata.taints[0].value: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
    expect(create(withSpec({ taints: [{ key: 'k' }] }))).toEqual(['metadata.taints[0].effect: Required value']);
    expect(create(withSpec({ taints: [{ key: 'k', effect: 'Evict' }] }))).toEqual([
      'metadata.taints[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
  });

  it('rejects duplicate taints by key and effect, with the internal struct as value', () => {
    expect(create(withSpec({ taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }] }))).toEqual([]);
    expect(create(withSpec({ taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }] }))).toEqual([
      'metadata.taints[1]: Duplicate value: {"Key":"k","Value":"v","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair',
    ]);
  });

  it('checks capacity and allocatable quantities', () => {
    expect(create(withStatus({ capacity: { cpu: '-1' } }))).toEqual([
      'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(create(withStatus({ capacity: { cpu: '1500m', 'hugepages-2Mi': '1500m', 'nvidia.com/gpu': '2' } }))).toEqual([]);
    expect(create(withStatus({ capacity: { pods: '1500m' }, allocatable: { pods: '1' } }))).toEqual([
      'status.capacity.pods: Invalid value: "1500m": must be an integer',
    ]);
    expect(create(withStatus({ capacity: { 'example.com/gpu': '0.5' }, allocatable: {} }))).toEqual([
      'status.capacity.example.com/gpu: Invalid value: "500m": must be an integer',
    ]);
    // kubernetes.io/ names are native, not extended: no integer rule.
    expect(create(withStatus({ capacity: { 'kubernetes.io/foo': '0.5' }, allocatable: {} }))).toEqual([]);
  });

  it('validates podCIDRs', () => {
    expect(create(withSpec({ podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }))).toEqual([]);
    expect(create(withSpec({ podCIDRs: ['10.0.0.0/33'] }))).toEqual([
      'spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
    expect(create(withSpec({ podCIDRs: ['10.0.0.1/24'] }))).toEqual([
      'spec.podCIDRs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length',
    ]);
    expect(create(withSpec({ podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] }))).toEqual([
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family',
    ]);
    expect(create(withSpec({ podCIDRs: ['10.0.0.0/24', 'fd00::/64', 'fd01::/64'] }))).toEqual([
      'spec.podCIDRs: Invalid value: ["10.0.0.0/24","fd00::/64","fd01::/64"]: may specify no more than one CIDR for each IP family',
    ]);
  });

  it('validates the preferAvoidPods annotation', () => {
    const ok = JSON.stringify({ preferAvoidPods: [{ podSignature: { podController: { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u', controller: true } } }] });
    expect(create({ metadata: { name: 'n', annotations: { 'scheduler.alpha.kubernetes.io/preferAvoidPods': ok } } })).toEqual([]);
    const bad = JSON.stringify({ preferAvoidPods: [{ podSignature: {} }] });
    expect(create({ metadata: { name: 'n', annotations: { 'scheduler.alpha.kubernetes.io/preferAvoidPods': bad } } })).toEqual([
      'metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[0].PodSignature: Required value',
    ]);
    const errs = create({ metadata: { name: 'n', annotations: { 'scheduler.alpha.kubernetes.io/preferAvoidPods': '{' } } });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^metadata\.annotations\.AvoidPods: Invalid value: "scheduler\.alpha\.kubernetes\.io\/preferAvoidPods": /);
  });

  it('validates the (kept) deprecated configSource', () => {
    const good = { configMap: { namespace: 'kube-system', name: 'node-config', kubeletConfigKey: 'kubelet' } };
    expect(create(withSpec({ configSource: good }))).toEqual([]);
    expect(create(withSpec({ configSource: {} }))).toEqual([
      'spec.configSource: Invalid value: {"ConfigMap":null}: exactly one reference subfield must be non-nil',
    ]);
    expect(create(withSpec({ configSource: { configMap: { uid: 'u', resourceVersion: '1' } } }))).toEqual([
      'spec.configSource.configMap.uid: Forbidden: uid must not be set in spec',
      'spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must not be set in spec',
      'spec.configSource.configMap.namespace: Required value: namespace must be set',
      'spec.configSource.configMap.name: Required value: name must be set',
      'spec.configSource.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
    ]);
    expect(create(withSpec({ configSource: { configMap: { ...good.configMap, kubeletConfigKey: 'a b' } } }))).toEqual([
      "spec.configSource.configMap.kubeletConfigKey: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });

  it('requires uid and resourceVersion in status.config sources', () => {
    const cm = { namespace: 'kube-system', name: 'node-config', kubeletConfigKey: 'kubelet' };
    expect(create(withStatus({ config: { active: { configMap: { ...cm, uid: 'u', resourceVersion: '1' } } } }))).toEqual([]);
    expect(create(withStatus({ config: { assigned: { configMap: cm } } }))).toEqual([
      'status.config.assigned.configMap.uid: Required value: uid must be set in status',
      'status.config.assigned.configMap.resourceVersion: Required value: resourceVersion must be set in status',
    ]);
  });
});

describe('Node validation on update', () => {
  const base = () => decode({ metadata: { name: 'n', resourceVersion: '5' }, spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'p://1', externalID: 'e' } });

  it('keeps podCIDRs, providerID and externalID once set', () => {
    const o = clone(base());
    o.spec.podCIDRs = ['10.1.0.0/24'];
    o.spec.podCIDR = '10.1.0.0/24';
    expect(update(o, base())).toEqual(['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
    const p = clone(base());
    p.spec.providerID = 'p://2';
    expect(update(p, base())).toEqual(['spec.providerID: Forbidden: node updates may not change providerID except from "" to valid']);
    const e = clone(base());
    delete e.spec.externalID;
    expect(update(e, base())).toEqual(['spec.externalID: Forbidden: may not be updated']);
  });

  it('allows setting podCIDRs and providerID from empty', () => {
    const old = decode({ metadata: { name: 'n' } });
    expect(update({ metadata: { name: 'n' }, spec: { podCIDR: '10.0.0.0/24', providerID: 'p://1' } }, old)).toEqual([]);
  });

  it('rejects duplicate status addresses (status write)', () => {
    const o = clone(base());
    o.status.addresses = [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'InternalIP', address: '10.0.0.1' },
    ];
    expect(update(o, base(), 'status')).toEqual(['status.addresses[2]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}']);
  });

  it('runs ValidateNode and ValidateNodeUpdate on the main resource, only the latter on /status', () => {
    const o = clone(base());
    o.spec.taints = [{ key: 'k', effect: 'X' }];
    const msg = 'metadata.taints[0].effect: Unsupported value: "X": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"';
    expect(update(o, base())).toEqual([msg, msg]);
    expect(update(o, base(), 'status')).toEqual([msg]);
    // CIDR syntax is only checked through the main resource.
    const bad = decode({ metadata: { name: 'n' }, spec: { podCIDR: '10.0.0.1/24' } });
    expect(update(bad, decode({ metadata: { name: 'n' } }), 'status')).toEqual([]);
    expect(update(bad, decode({ metadata: { name: 'n' } }))).toEqual(['spec.podCIDRs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length']);
  });

  it('keeps metadata immutability rules', () => {
    const o = clone(base());
    o.metadata.uid = 'other';
    const old = clone(base());
    old.metadata.uid = 'orig';
    expect(update(o, old, 'status')).toEqual(['metadata.uid: Invalid value: "other": field is immutable']);
  });
});

describe('Node warnings', () => {
  it('warns about the deprecated fields', () => {
    expect(nodeKind.strategy.warnings!(decode(fullNode()))).toEqual([]);
    expect(nodeKind.strategy.warnings!(decode({ metadata: { name: 'n' }, spec: { externalID: 'x', configSource: { configMap: {} } } }))).toEqual([
      'spec.configSource: the feature is removed',
      'spec.externalID: this field is deprecated, and is unused by Kubernetes',
    ]);
  });
});

describe('Node printing and field selectors', () => {
  const now = new Date('2026-01-02T04:04:05Z');
  const cells = (o: any, wide = true) =>
    Object.fromEntries(nodeKind.printerColumns.filter((c) => wide || c.priority === 0).map((c) => [c.name, c.cell(o, now)]));

  it('prints the kubectl columns', () => {
    const o = decode(fullNode());
    o.metadata.creationTimestamp = '2026-01-02T03:04:05Z';
    expect(cells(o)).toEqual({
      Name: 'worker-1',
      Status: 'Ready',
      Roles: 'worker',
      Age: '60m',
      Version: 'v1.32.0',
      'Internal-IP': '172.18.0.3',
      'External-IP': '<none>',
      'OS-Image': 'Debian GNU/Linux 12 (bookworm)',
      'Kernel-Version': '6.1.0-18-amd64',
      'Container-Runtime': 'containerd://1.7.13',
    });
    expect(nodeKind.printerColumns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Status', 0],
      ['Roles', 0],
      ['Age', 0],
      ['Version', 0],
      ['Internal-IP', 1],
      ['External-IP', 1],
      ['OS-Image', 1],
      ['Kernel-Version', 1],
      ['Container-Runtime', 1],
    ]);
  });

  it('derives Status and Roles as kubectl does', () => {
    const o = decode({
      metadata: { name: 'n', labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/': 'x', 'kubernetes.io/role': 'master' } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
    });
    expect(cells(o).Status).toBe('NotReady,SchedulingDisabled');
    expect(cells(o).Roles).toBe('control-plane,master');
    const bare = decode({ metadata: { name: 'n' } });
    expect(cells(bare)).toMatchObject({ Status: 'Unknown', Roles: '<none>', Version: '', 'OS-Image': '<unknown>', 'Kernel-Version': '<unknown>', 'Container-Runtime': '<unknown>' });
  });

  it('selects by metadata.name and spec.unschedulable', () => {
    const f = nodeKind.fieldSelector;
    expect(f.unsupported).toBe('field-label');
    expect(Object.keys(f.fields)).toEqual(['metadata.name', 'spec.unschedulable']);
    expect(f.fields['metadata.name'](decode(fullNode()))).toBe('worker-1');
    expect(f.fields['spec.unschedulable'](decode(fullNode()))).toBe('false');
    expect(f.fields['spec.unschedulable']({ metadata: {}, spec: { unschedulable: true } })).toBe('true');
  });
});
