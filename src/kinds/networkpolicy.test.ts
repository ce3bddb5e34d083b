import { describe, expect, it } from 'vitest';
import { renderFieldError, type FieldError } from '../lib/field.ts';
import { networkPolicyKind } from './networkpolicy.ts';

const lines = (errs: FieldError[]) => errs.map(renderFieldError);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function fullPolicy(): any {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'api-allow', namespace: 'shop', labels: { team: 'payments' } },
    spec: {
      podSelector: { matchLabels: { app: 'api' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [
            { podSelector: { matchLabels: { app: 'web' } } },
            { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] }, podSelector: {} },
            { ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } },
          ],
          ports: [{ protocol: 'TCP', port: 8080 }, { port: 'http' }, { protocol: 'UDP', port: 30000, endPort: 32767 }],
        },
      ],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ protocol: 'SCTP', port: 5978 }] }, {}],
    },
  };
}

function decode(o: any): any {
  const parsed = networkPolicyKind.schema.parse(o);
  networkPolicyKind.defaults(parsed);
  return parsed;
}
const create = (o: any) => lines(networkPolicyKind.validate(decode(o), {}));
const update = (o: any, old: any) => lines(networkPolicyKind.validate(decode(o), { old: decode(old) }));
const withSpec = (spec: any) => ({ metadata: { name: 'p', namespace: 'ns' }, spec });
const ingressPort = (port: any) => withSpec({ ingress: [{ ports: [port] }] });
const ingressPeer = (peer: any) => withSpec({ ingress: [{ from: [peer] }] });

describe('NetworkPolicy definition', () => {
  it('describes the resource as API-SEMANTICS §1 does', () => {
    expect(networkPolicyKind).toMatchObject({
      group: 'networking.k8s.io',
      version: 'v1',
      plural: 'networkpolicies',
      singular: 'networkpolicy',
      listKind: 'NetworkPolicyList',
      shortNames: ['netpol'],
      scope: 'Namespaced',
      subresources: {},
    });
    expect(networkPolicyKind.strategy).toMatchObject({ generation: true, allowUnconditionalUpdate: true, returnDeletedObject: false, mainResetsFields: [] });
  });

  it('accepts a realistic policy, on create and on update', () => {
    expect(create(fullPolicy())).toEqual([]);
    expect(update(fullPolicy(), fullPolicy())).toEqual([]);
  });
});

describe('NetworkPolicy schema', () => {
  it('strips unknown fields, including the removed status', () => {
    const o = fullPolicy();
    o.status = { conditions: [] };
    o.spec.ingress[0].bogus = true;
    const parsed: any = networkPolicyKind.schema.parse(o);
    expect(parsed.status).toBeUndefined();
    expect(parsed.spec.ingress[0].bogus).toBeUndefined();
    expect(parsed.spec.ingress[0].ports[1].port).toBe('http');
  });

  it('rejects wrong JSON types', () => {
    expect(networkPolicyKind.schema.safeParse(withSpec({ ingress: {} })).success).toBe(false);
    expect(networkPolicyKind.schema.safeParse(ingressPort({ port: 1.5 })).success).toBe(false);
    expect(networkPolicyKind.schema.safeParse(ingressPort({ endPort: '9000' })).success).toBe(false);
    expect(networkPolicyKind.schema.safeParse(ingressPeer({ ipBlock: { except: '10.0.0.0/8' } })).success).toBe(false);
  });
});

describe('NetworkPolicy defaults', () => {
  it('defaults protocol, podSelector and policyTypes', () => {
    const o: any = { metadata: { name: 'p' } };
    networkPolicyKind.defaults(o);
    expect(o.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const e: any = { spec: { egress: [{ ports: [{ port: 53 }] }], ingress: [{ ports: [{}] }] } };
    networkPolicyKind.defaults(e);
    expect(e.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(e.spec.egress[0].ports[0].protocol).toBe('TCP');
    expect(e.spec.ingress[0].ports[0].protocol).toBe('TCP');
    const explicit: any = { spec: { policyTypes: ['Egress'], egress: [{}] } };
    networkPolicyKind.defaults(explicit);
    expect(explicit.spec.policyTypes).toEqual(['Egress']);
    const udp: any = { spec: { ingress: [{ ports: [{ protocol: 'UDP' }] }] } };
    networkPolicyKind.defaults(udp);
    expect(udp.spec.ingress[0].ports[0].protocol).toBe('UDP');
  });

  it('is idempotent', () => {
    const o = decode(fullPolicy());
    const again = clone(o);
    networkPolicyKind.defaults(again);
    expect(again).toEqual(o);
  });
});

describe('NetworkPolicy validation', () => {
  it('checks metadata', () => {
    expect(create({ metadata: { name: 'Bad' , namespace: 'ns'}, spec: {} })[0]).toMatch(/^metadata\.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain/);
    expect(create({ metadata: { name: 'p' }, spec: {} })).toEqual(['metadata.namespace: Required value']);
  });

  it('validates label selectors', () => {
    expect(create(withSpec({ podSelector: { matchLabels: { app: 'a b' } } }))[0]).toMatch(/^spec\.podSelector\.matchLabels: Invalid value: "a b": a valid label must be/);
    expect(create(withSpec({ podSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] } }))).toEqual([
      "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
    expect(create(ingressPeer({ namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['x'] }] } }))).toEqual([
      "spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(create(withSpec({ egress: [{ to: [{ podSelector: { matchExpressions: [{ key: 'k', operator: 'Has' }] } }] }] }))).toEqual([
      'spec.egress[0].to[0].podSelector.matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator',
    ]);
  });

  it('requires exactly one kind of peer', () => {
    expect(create(ingressPeer({}))).toEqual(['spec.ingress[0].from[0]: Required value: must specify a peer']);
    expect(create(ingressPeer({ podSelector: {}, namespaceSelector: {} }))).toEqual([]);
    expect(create(ingressPeer({ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }))).toEqual([
      'spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer',
    ]);
  });

  it('validates ipBlock cidr and except', () => {
    expect(create(ingressPeer({ ipBlock: {} }))).toEqual(['spec.ingress[0].from[0].ipBlock.cidr: Required value']);
    expect(create(ingressPeer({ ipBlock: { cidr: 'x' } }))).toEqual([
      'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
    // Legacy-lenient: host bits are accepted (with a warning).
    expect(create(ingressPeer({ ipBlock: { cidr: '10.0.0.1/8' } }))).toEqual([]);
    expect(create(withSpec({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['nope'] } }] }] }))).toEqual([
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('rejects an except outside cidr (SPEC.md §7)', () => {
    expect(create(ingressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.5.0/24'] } }))).toEqual([]);
    const msg = (v: string) => `spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "${v}": must be a strict subset of \`cidr\``;
    expect(create(ingressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }))).toEqual([msg('192.168.0.0/24')]);
    expect(create(ingressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/16'] } }))).toEqual([msg('10.0.0.0/16')]);
    expect(create(ingressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/8'] } }))).toEqual([msg('10.0.0.0/8')]);
  });

  it('validates protocol and numeric and named ports', () => {
    expect(create(ingressPort({ protocol: 'ICMP', port: 80 }))).toEqual([
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    ]);
    expect(create(ingressPort({ port: 0 }))).toEqual(['spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive']);
    expect(create(ingressPort({ port: 65536 }))).toEqual(['spec.ingress[0].ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive']);
    expect(create(ingressPort({ port: 'Http' }))).toEqual([
      'spec.ingress[0].ports[0].port: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    expect(create(ingressPort({ port: 'a-very-long-port-name' }))).toEqual([
      'spec.ingress[0].ports[0].port: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
    ]);
  });

  it('validates endPort with the upstream messages (SPEC.md §7)', () => {
    expect(create(ingressPort({ port: 8000, endPort: 8000 }))).toEqual([]);
    // The value shown is `port`, not `endPort` (API-SEMANTICS §15.2).
    expect(create(ingressPort({ port: 8080, endPort: 8000 }))).toEqual([
      'spec.ingress[0].ports[0].endPort: Invalid value: 8080: must be greater than or equal to `port`',
    ]);
    expect(create(ingressPort({ port: 8080, endPort: 70000 }))).toEqual(['spec.ingress[0].ports[0].endPort: Invalid value: 70000: must be less than or equal to 65535']);
    expect(create(ingressPort({ port: 'http', endPort: 9000 }))).toEqual([
      'spec.ingress[0].ports[0].endPort: Invalid value: 9000: may not be specified when `port` is non-numeric',
    ]);
    expect(create(ingressPort({ endPort: 9000 }))).toEqual([
      'spec.ingress[0].ports[0].endPort: Invalid value: 9000: may not be specified when `port` is not specified',
    ]);
  });

  it('validates policyTypes', () => {
    expect(create(withSpec({ policyTypes: ['Ingress', 'Ingress'] }))).toEqual([]);
    expect(create(withSpec({ policyTypes: ['ingress'] }))).toEqual(['spec.policyTypes[0]: Unsupported value: "ingress": supported values: "Ingress", "Egress"']);
    expect(create(withSpec({ policyTypes: ['Ingress', 'Egress', 'X'] }))).toEqual(['spec.policyTypes: Too many: 3: must have at most 2 items']);
  });

  it('applies ObjectMeta update rules on update; spec is mutable', () => {
    const old = fullPolicy();
    const o = fullPolicy();
    o.spec.podSelector = {};
    o.spec.ingress = [];
    expect(update(o, old)).toEqual([]);
    o.metadata.namespace = 'other';
    expect(update(o, old)).toEqual(['metadata.namespace: Invalid value: "other": field is immutable']);
  });
});

describe('NetworkPolicy warnings', () => {
  it('warns about non-standard CIDRs with their paths', () => {
    expect(networkPolicyKind.strategy.warnings!(decode(fullPolicy()))).toEqual([]);
    const o = decode(withSpec({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['10.0.0.0/16'] } }] }] }));
    expect(networkPolicyKind.strategy.warnings!(o)).toEqual([
      'spec.egress[0].to[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
    ]);
  });
});

describe('NetworkPolicy printing and field selectors', () => {
  const now = new Date('2026-01-02T03:04:35Z');
  it('prints Name, Pod-Selector, Age', () => {
    const o = decode(fullPolicy());
    o.metadata.creationTimestamp = '2026-01-02T03:04:05Z';
    expect(networkPolicyKind.printerColumns.map((c) => [c.name, c.cell(o, now)])).toEqual([
      ['Name', 'api-allow'],
      ['Pod-Selector', 'app=api'],
      ['Age', '30s'],
    ]);
    expect(networkPolicyKind.printerColumns[1].cell(decode(withSpec({})), now)).toBe('<none>');
  });

  it('selects by metadata.name and metadata.namespace', () => {
    const f = networkPolicyKind.fieldSelector;
    expect(f.unsupported).toBe('known-fields');
    expect(Object.keys(f.fields)).toEqual(['metadata.name', 'metadata.namespace']);
    expect(f.fields['metadata.namespace'](decode(fullPolicy()))).toBe('shop');
  });
});
