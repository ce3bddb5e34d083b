import { describe, expect, it } from 'vitest';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { buildFields, formName, parseIntOrString, type FieldNode } from './fields.ts';
import { kindForms } from './layouts.ts';
import { formPath, kindResolver, pathSegments, validateObject } from './validation.ts';

const find = (nodes: FieldNode[], path: string): FieldNode | undefined => {
  for (const n of nodes) {
    if (n.schemaPath === path) return n;
    const inner = n.children && find(n.children, path);
    if (inner) return inner;
  }
  return undefined;
};

describe('form engine: schema walk', () => {
  const fields = buildFields(networkPolicyKind.schema, kindForms.get(networkPolicyKind)!);

  it('follows the layout order and picks widgets from the Go types', () => {
    expect(fields.map((f) => f.name)).toEqual(['metadata', 'spec']);
    expect(find(fields, 'spec')!.children!.map((f) => f.name)).toEqual(['podSelector', 'policyTypes', 'ingress', 'egress']);
    expect(find(fields, 'metadata.labels')!.widget).toBe('keyValue');
    expect(find(fields, 'spec.ingress')!.widget).toBe('objectList');
    expect(find(fields, 'spec.ingress[].ports[].port')!.widget).toBe('intOrString');
    expect(find(fields, 'spec.ingress[].ports[].endPort')!.widget).toBe('number');
    expect(find(fields, 'spec.ingress[].ports[].protocol')).toMatchObject({ widget: 'select', options: ['TCP', 'UDP', 'SCTP'] });
    expect(find(fields, 'spec.ingress[].from[].ipBlock.except')!.widget).toBe('stringList');
    expect(find(fields, 'spec.podSelector.matchExpressions[].operator')!.options).toEqual(['In', 'NotIn', 'Exists', 'DoesNotExist']);
  });

  it('carries maturity marks and help from the schema', () => {
    expect(find(fields, 'spec.egress')!.maturity).toBe('beta');
    expect(find(fields, 'spec.policyTypes')!.maturity).toBe('beta');
    const node = buildFields(nodeKind.schema, kindForms.get(nodeKind)!);
    expect(find(node, 'spec.configSource')!.maturity).toBe('deprecated');
    expect(find(node, 'spec.taints[].effect')!.options).toEqual(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
    expect(find(node, 'spec.unschedulable')!.help).toBeTruthy();
  });

  it('renders IntOrString and Quantity fields of the DaemonSet', () => {
    const ds = buildFields(daemonSetKind.schema, kindForms.get(daemonSetKind)!);
    expect(find(ds, 'spec.updateStrategy.rollingUpdate.maxSurge')!.widget).toBe('intOrString');
    expect(find(ds, 'spec.template.spec.containers[].resources.limits')!.widget).toBe('keyValue');
    expect(find(ds, 'spec.updateStrategy.type')!.options).toEqual(['RollingUpdate', 'OnDelete']);
  });
});

describe('form engine: values and paths', () => {
  it('reads IntOrString input as Kubernetes does', () => {
    expect(parseIntOrString('8080')).toBe(8080);
    expect(parseIntOrString('25%')).toBe('25%');
    expect(parseIntOrString('http')).toBe('http');
    expect(parseIntOrString(' ')).toBeUndefined();
  });

  it('maps Kubernetes paths to form names and back', () => {
    expect(formName('spec.ingress[0].ports[1].endPort')).toBe('spec.ingress.0.ports.1.endPort');
    expect(pathSegments('spec.ingress[0].ports[1].endPort')).toEqual(['spec', 'ingress', 0, 'ports', 1, 'endPort']);
    expect(formPath(kindForms.get(nodeKind), 'metadata.taints[0].effect')).toBe('spec.taints[0].effect');
  });
});

describe('form engine: validation with the server rules', () => {
  const policy = (ports: unknown) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'p', namespace: 'default', annotations: { keep: 'me' } },
    spec: { podSelector: {}, ingress: [{ ports }] },
    somethingUnknown: { kept: true },
  });
  const run = (values: object) =>
    kindResolver(networkPolicyKind, kindForms.get(networkPolicyKind))(values, undefined, { fields: {}, shouldUseNativeValidation: false } as never) as Promise<{ values: any; errors: any }>;

  it('reports endPort below port at its field, before any request', async () => {
    const r = await run(policy([{ port: 9000, endPort: 8000 }]));
    expect(r.errors.spec.ingress[0].ports[0].endPort.message).toBe('Invalid value: 9000: must be greater than or equal to `port`');
  });

  it('requires a numeric port for endPort', async () => {
    const r = await run(policy([{ port: 'http', endPort: 8000 }]));
    expect(r.errors.spec.ingress[0].ports[0].endPort.message).toContain('may not be specified when `port` is non-numeric');
  });

  it('keeps fields the form does not know when valid', async () => {
    const r = await run(policy([{ port: 8000, endPort: 8080 }]));
    expect(r.errors).toEqual({});
    expect(r.values.somethingUnknown).toEqual({ kept: true });
    expect(r.values.metadata.annotations).toEqual({ keep: 'me' });
  });

  it('validates on a defaulted copy, without changing the draft', () => {
    const draft = policy([{ port: 80 }]) as any;
    expect(validateObject(networkPolicyKind, draft)).toEqual([]);
    expect(draft.spec.ingress[0].ports[0].protocol).toBeUndefined();
  });
});
