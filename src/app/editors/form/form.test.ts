import { describe, expect, it } from 'vitest';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { volumeAttachmentKind } from '../../../kinds/volumeattachment.ts';
import { buildFields, parseIntOrString, type FieldNode } from './fields.ts';
import { changedPaths, editField, removeItem, setIn } from './draft.ts';
import { kindForms } from './layouts.ts';
import { errorsIn, errorTree } from './store.ts';
import { formKey, formPath, pathSegments, serverErrors, validateDraft, validateObject } from './validation.ts';

const find = (nodes: FieldNode[], path: string): FieldNode | undefined => {
  for (const n of nodes) {
    if (n.schemaPath === path) return n;
    if (!path.startsWith(`${n.schemaPath}.`) && !path.startsWith(`${n.schemaPath}[]`)) continue;
    const inner = find(n.children, path);
    if (inner) return inner;
  }
  return undefined;
};

describe('form engine: schema walk', () => {
  const fields = buildFields(networkPolicyKind.schema, kindForms.get(networkPolicyKind)!);

  it('follows the layout order and picks widgets from the Go types', () => {
    expect(fields.map((f) => f.name)).toEqual(['metadata', 'spec']);
    expect(find(fields, 'spec')!.children.map((f) => f.name)).toEqual(['podSelector', 'policyTypes', 'ingress', 'egress']);
    expect(find(fields, 'metadata.labels')!.widget).toBe('keyValue');
    expect(find(fields, 'spec.ingress')!.widget).toBe('objectList');
    expect(find(fields, 'spec.ingress[].ports[].port')!.widget).toBe('intOrString');
    expect(find(fields, 'spec.ingress[].ports[].endPort')!.widget).toBe('number');
    expect(find(fields, 'spec.ingress[].ports[].protocol')).toMatchObject({ widget: 'select', options: ['TCP', 'UDP', 'SCTP'] });
    expect(find(fields, 'spec.ingress[].from[].ipBlock.except')).toMatchObject({ widget: 'scalarList', itemWidget: 'text' });
    expect(find(fields, 'spec.podSelector.matchExpressions[].operator')!.options).toEqual(['In', 'NotIn', 'Exists', 'DoesNotExist']);
  });

  it('draws a list whose items take values from a fixed set as a multi-select (policyTypes)', () => {
    expect(find(fields, 'spec.policyTypes')).toMatchObject({ widget: 'multiSelect', options: ['Ingress', 'Egress'] });
  });

  it('carries maturity marks and help from the schema; NetworkPolicy egress and policyTypes are GA (since 1.12)', () => {
    expect(find(fields, 'spec.egress')!.maturity).toBeUndefined();
    expect(find(fields, 'spec.policyTypes')!.maturity).toBeUndefined();
    const node = buildFields(nodeKind.schema, kindForms.get(nodeKind)!);
    expect(find(node, 'spec.configSource')!.maturity).toBe('deprecated');
    expect(find(node, 'spec.taints[].effect')!.options).toEqual(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
    expect(find(node, 'spec.unschedulable')!.help).toBeTruthy();
  });

  it('covers the whole pod template: the common fields first, every other one under "more fields"', () => {
    const ds = buildFields(daemonSetKind.schema, kindForms.get(daemonSetKind)!);
    expect(find(ds, 'spec.updateStrategy.rollingUpdate.maxSurge')!.widget).toBe('intOrString');
    expect(find(ds, 'spec.template.spec.containers[].resources.limits')!.widget).toBe('keyValue');
    expect(find(ds, 'spec.updateStrategy.type')!.options!.slice().sort()).toEqual(['OnDelete', 'RollingUpdate']);
    const podSpec = find(ds, 'spec.template.spec')!.children;
    // Every PodSpec field of the schema is in the form, none YAML-only.
    expect(podSpec.map((f) => f.name).sort()).toEqual(Object.keys((daemonSetKind.schema as any).shape.spec.unwrap().shape.template.unwrap().shape.spec.unwrap().shape).sort());
    for (const name of ['containers', 'volumes', 'initContainers', 'serviceAccountName', 'hostPID', 'affinity']) expect(podSpec.find((f) => f.name === name)?.primary).toBe(true);
    expect(podSpec.find((f) => f.name === 'hostIPC')!.primary).toBe(false);
    const container = find(ds, 'spec.template.spec.containers[]') ?? find(ds, 'spec.template.spec.containers')!;
    const names = container.children.map((f) => f.name);
    for (const name of ['command', 'args', 'volumeMounts', 'livenessProbe', 'securityContext', 'envFrom']) expect(names).toContain(name);
    expect(find(ds, 'spec.template.spec.containers[].command')).toMatchObject({ widget: 'scalarList' });
    expect(find(ds, 'spec.template.spec.containers[].env[].valueFrom')!.widget).toBe('object');
    // System-written metadata is not in the form.
    expect(find(ds, 'metadata')!.children.map((f) => f.name)).not.toContain('resourceVersion');
  });

  it('shows the VolumeAttachment inline volume spec beside the PersistentVolume name', () => {
    const va = buildFields(volumeAttachmentKind.schema, kindForms.get(volumeAttachmentKind)!);
    expect(find(va, 'spec.source')!.children.map((f) => [f.name, f.primary])).toEqual([
      ['persistentVolumeName', true],
      ['inlineVolumeSpec', true],
    ]);
    expect(find(va, 'spec.source.inlineVolumeSpec.accessModes')!.widget).toBe('multiSelect');
  });

  it('builds children only when asked (a large schema costs what is shown)', () => {
    const ds = buildFields(daemonSetKind.schema, { show: {} });
    const spec = ds.find((f) => f.name === 'spec')!;
    const descriptor = Object.getOwnPropertyDescriptor(spec, 'children')!;
    expect(typeof descriptor.get).toBe('function');
  });
});

describe('form engine: the draft is the stored object plus the user\'s edits', () => {
  const stored = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default', labels: { app: 'agent' } },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:v1' }] } } },
  };

  it('a label edit changes the labels and nothing else', () => {
    const next = editField(stored, stored, ['metadata', 'labels'], { app: 'agent', team: 'obs' });
    expect(changedPaths(stored, next)).toEqual(['metadata.labels.team']);
    expect(next.spec).toBe(stored.spec);
  });

  it('an unchecked box, an emptied text or an emptied map the stored object lacks leave nothing behind', () => {
    let d = editField(stored, stored, ['spec', 'template', 'spec', 'hostNetwork'], true);
    d = editField(d, stored, ['spec', 'template', 'spec', 'hostNetwork'], false);
    d = editField(d, stored, ['spec', 'template', 'spec', 'containers', 0, 'resources', 'limits'], { cpu: '1' });
    d = editField(d, stored, ['spec', 'template', 'spec', 'containers', 0, 'resources', 'limits'], undefined);
    d = editField(d, stored, ['spec', 'template', 'spec', 'priorityClassName'], undefined);
    expect(d).toEqual(stored);
  });

  it('an empty value the stored object has is kept as stored', () => {
    const withFalse = setIn(stored, ['spec', 'template', 'spec', 'hostNetwork'], false);
    const d = editField(editField(withFalse, withFalse, ['spec', 'template', 'spec', 'hostNetwork'], true), withFalse, ['spec', 'template', 'spec', 'hostNetwork'], false);
    expect(d).toEqual(withFalse);
  });

  it('removes list items, and the list with its last item', () => {
    const two = setIn(stored, ['spec', 'template', 'spec', 'containers', 1], { name: 'd' });
    expect(removeItem(two, stored, ['spec', 'template', 'spec', 'containers'], 1)).toEqual(stored);
    expect((removeItem(stored, stored, ['spec', 'template', 'spec', 'containers'], 0) as any).spec.template.spec).toEqual({});
  });

  it('reads IntOrString input as Kubernetes does', () => {
    expect(parseIntOrString('8080')).toBe(8080);
    expect(parseIntOrString('25%')).toBe('25%');
    expect(parseIntOrString('http')).toBe('http');
    expect(parseIntOrString(' ')).toBeUndefined();
  });
});

describe('form engine: errors, every one at its field', () => {
  const policy = (spec: unknown) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'default' }, spec });

  it('keeps a list item\'s own error and the errors of the fields inside it', async () => {
    const errors = await validateDraft(networkPolicyKind, kindForms.get(networkPolicyKind), policy({ podSelector: {}, ingress: [{ from: [{ podSelector: {}, ipBlock: { cidr: '10.0.0.300/33' } }] }] }));
    const fields = errors.map((e) => e.field);
    expect(fields).toContain('spec.ingress[0].from[0]');
    expect(fields).toContain('spec.ingress[0].from[0].ipBlock.cidr');
    expect(errors.find((e) => e.field === 'spec.ingress[0].from[0]')!.message).toContain('may not specify both ipBlock and another peer');
  });

  it('reports endPort below port at its field, before any request', async () => {
    const errors = await validateDraft(networkPolicyKind, undefined, policy({ podSelector: {}, ingress: [{ ports: [{ port: 9000, endPort: 8000 }] }] }));
    expect(errors).toEqual([{ field: 'spec.ingress[0].ports[0].endPort', message: 'Invalid value: 9000: must be greater than or equal to `port`' }]);
  });

  it('reports a value of the wrong shape (a string for policyTypes) at its field', async () => {
    const errors = await validateDraft(networkPolicyKind, undefined, policy({ podSelector: {}, policyTypes: 'Ingress' }));
    expect(errors[0].field).toBe('spec.policyTypes');
  });

  it('maps a Node taint error from metadata.taints (as upstream reports it) to spec.taints, for the form and the YAML', async () => {
    const form = kindForms.get(nodeKind);
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { taints: [{ key: 'k', effect: 'Sometimes' }] } };
    const errors = await validateDraft(nodeKind, form, node);
    expect(errors.map((e) => e.field)).toEqual(['spec.taints[0].effect']);
    expect(serverErrors(form, [{ field: 'metadata.taints[0].effect', message: 'x' }])).toEqual([{ field: 'spec.taints[0].effect', message: 'x' }]);
    expect(formPath(form, 'metadata.taintsExtra')).toBe('metadata.taintsExtra');
  });

  it("keeps every error in react-hook-form's error tree at its key: an object's own, a field named `type` below it, a label key with dots", () => {
    const errors = [
      { key: 'spec.updateStrategy', field: 'spec.updateStrategy', message: 'a' },
      { key: 'spec.updateStrategy.type', field: 'spec.updateStrategy.type', message: 'b' },
      { key: 'spec.updateStrategy.type', field: 'spec.updateStrategy.type', message: 'b2' },
      { key: 'metadata.labels.app.kubernetes.io/name', field: 'metadata.labels[app.kubernetes.io/name]', message: 'c' },
      { key: 'spec.ingress.1.from', field: 'spec.ingress[1].from', message: 'd' },
    ];
    const order = (list: { key: string; message: string }[]) => [...list].sort((x, y) => `${x.key}${x.message}`.localeCompare(`${y.key}${y.message}`));
    const tree = errorTree(errors);
    expect(order(errorsIn(tree))).toEqual(order(errors));
    expect(errorsIn(tree, 'spec.updateStrategy').map((e) => e.message).sort()).toEqual(['a', 'b', 'b2']);
    expect(errorsIn(tree, 'metadata.labels')).toEqual([errors[3]]);
  });

  it('maps Kubernetes paths to form keys and segments', () => {
    expect(formKey('spec.ingress[0].ports[1].endPort')).toBe('spec.ingress.0.ports.1.endPort');
    expect(pathSegments('spec.ingress[0].ports[1].endPort')).toEqual(['spec', 'ingress', 0, 'ports', 1, 'endPort']);
    expect(pathSegments('metadata.labels[app.kubernetes.io/name]')).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
  });

  it('fills uid and creationTimestamp from the stored object on an update, as the server does (a YAML without them is valid)', () => {
    const stored = { ...policy({ podSelector: {} }), metadata: { name: 'p', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', generation: 3 } };
    expect(validateObject(networkPolicyKind, policy({ podSelector: {} }) as any, stored as any)).toEqual([]);
  });

  it('validates on a defaulted copy, without changing the draft', () => {
    const draft = policy({ podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] }) as any;
    expect(validateObject(networkPolicyKind, draft)).toEqual([]);
    expect(draft.spec.ingress[0].ports[0].protocol).toBeUndefined();
  });
});
