// Intents: the YAML format and its validation, and the evaluator against
// upstream's x/y/z model (met, violated with pairs and policies, exact over
// every port and over every address region of an ipBlock).
import { describe, expect, it } from 'vitest';
import { evaluateIntents, parseIntents, probeAddresses, probePorts, type Intent } from './index.ts';
import { policy, upstreamModel } from './test-helpers.ts';
import type { ReachabilityInput } from './types.ts';

const cluster = (policies: ReachabilityInput['policies'] = []): ReachabilityInput => ({ ...upstreamModel(), policies });

const denyAllIngressX = policy('x', 'deny-all', { podSelector: {}, ingress: [] });
const allowAFromYOn80 = policy('x', 'allow-y-to-a', {
  podSelector: { matchLabels: { pod: 'a' } },
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }], ports: [{ port: 80 }] }],
});

describe('parseIntents', () => {
  it('reads the documented format', () => {
    const { intents, errors } = parseIntents(`
intents:
  - name: y-reaches-x-a
    description: y calls the API
    expect: allowed
    from: {namespace: y}
    to: {namespace: x, podSelector: {matchLabels: {pod: a}}}
    ports: [{port: 80}]
  - name: outside-blocked
    expect: denied
    from: {ipBlock: {cidr: 203.0.113.0/24}}
    to: {namespaceSelector: {matchExpressions: [{key: ns, operator: In, values: [x]}]}}
`);
    expect(errors).toEqual([]);
    expect(intents.map((i) => i.name)).toEqual(['y-reaches-x-a', 'outside-blocked']);
  });

  it('names every problem with its place', () => {
    const { errors } = parseIntents(`
intents:
  - name: Bad_Name
    expect: maybe
    from: {namespace: x, namespaceSelector: {}}
    to: {podSelector: {matchExpressions: [{key: a, operator: Bogus}]}}
    ports: [{port: 70000}]
  - name: two-outsides
    expect: denied
    from: {ipBlock: {cidr: 10.0.0.0/8}}
    to: {ipBlock: {cidr: not-a-cidr}}
`);
    const text = errors.join('\n');
    expect(text).toContain('intents.0.name');
    expect(text).toContain('intents.0.expect');
    expect(text).toContain('intents.0.from');
    expect(text).toContain('intents.0.ports.0.port');
    expect(text).toContain('intents.1.to');
    const dup = parseIntents('intents:\n- {name: dup, expect: allowed, from: {}, to: {}}\n- {name: dup, expect: denied, from: {}, to: {}}');
    expect(dup.errors).toEqual(['intents.1.name: duplicate intent name "dup"']);
  });

  it('reports YAML syntax errors with the line', () => {
    expect(parseIntents('intents:\n  - name: [').errors[0]).toMatch(/^line \d+/);
    expect(parseIntents('')).toEqual({ intents: [], errors: [] });
  });
});

describe('probes', () => {
  it('cut port space at every policy boundary, named ports resolved on the pods', () => {
    const np = policy('x', 'p', { ingress: [{ ports: [{ port: 80, endPort: 90 }, { protocol: 'UDP', port: 'serve-81-udp' }] }] });
    const probes = probePorts([[np]], upstreamModel().pods, [{ protocol: 'TCP', from: 1, to: 65535 }, { protocol: 'UDP', from: 1, to: 65535 }]);
    expect(probes.map((p) => `${p.protocol}/${p.port}`)).toEqual(['TCP/1', 'TCP/80', 'TCP/91', 'UDP/1', 'UDP/81', 'UDP/82']);
  });

  it('take one address per region of a block, skipping pod addresses', () => {
    const ips = probeAddresses({ cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] }, ['10.0.0.0/24', '192.168.0.0/16'], new Set(['10.0.0.0']));
    expect(ips.sort()).toEqual(['10.0.1.0', '10.2.0.0']);
  });
});

describe('evaluateIntents', () => {
  const intents: Intent[] = [
    { name: 'y-to-xa', expect: 'allowed', from: { namespace: 'y' }, to: { namespace: 'x', podSelector: { matchLabels: { pod: 'a' } } }, ports: [{ port: 80 }] },
    { name: 'z-to-x-denied', expect: 'denied', from: { namespaceSelector: { matchLabels: { ns: 'z' } } }, to: { namespace: 'x' } },
    { name: 'outside-to-xb', expect: 'denied', from: { ipBlock: { cidr: '203.0.113.0/24' } }, to: { namespace: 'x', podSelector: { matchLabels: { pod: 'b' } } }, ports: [{ port: 443 }] },
  ];

  it('without policies: allowed intents are met, denied ones violated, nothing isolates', () => {
    const [a, b, c] = evaluateIntents(cluster(), intents);
    expect(a).toMatchObject({ status: 'met', checked: 3, violationCount: 0 });
    // z's 3 pods x x's 3 pods, on every port of three protocols (no policy: one region each).
    expect(b).toMatchObject({ status: 'violated', checked: 27, violationCount: 27, policies: [] });
    expect(b.warnings.join()).toContain('no policy isolates');
    expect(c).toMatchObject({ status: 'violated', violationCount: 1 });
    expect(c.violations[0]).toEqual({ from: { ip: '203.0.113.0' }, to: { namespace: 'x', name: 'b' }, port: 443, protocol: 'TCP' });
  });

  it('a deny-all breaks the allowed intent and names the policy; the denied ones are met', () => {
    const [a, b, c] = evaluateIntents(cluster([denyAllIngressX]), intents);
    expect(a).toMatchObject({ status: 'violated', violationCount: 3, policies: [{ namespace: 'x', name: 'deny-all' }] });
    expect(a.violations.map((v) => `${'ip' in v.from ? v.from.ip : v.from.name}>${'ip' in v.to ? v.to.ip : v.to.name}`)).toEqual(['a>a', 'b>a', 'c>a']);
    expect(b.status).toBe('met');
    expect(c.status).toBe('met');
  });

  it('an allow for y on port 80 meets the intent; other ports stay denied', () => {
    const [a] = evaluateIntents(cluster([denyAllIngressX, allowAFromYOn80]), intents);
    expect(a.status).toBe('met');
    const [wider] = evaluateIntents(cluster([denyAllIngressX, allowAFromYOn80]), [{ ...intents[0], ports: [{ port: 79, endPort: 81 }] }]);
    // 79 and 81 are their own regions: 3 sources x 2 regions violate, 80 is met.
    expect(wider).toMatchObject({ status: 'violated', checked: 9, violationCount: 6 });
  });

  it('a denied intent violated by a rule names the policy whose rule lets it through', () => {
    const [, , , d] = evaluateIntents(cluster([denyAllIngressX, allowAFromYOn80]), [
      ...intents,
      { name: 'y-not-to-xa', expect: 'denied', from: { namespace: 'y', podSelector: { matchLabels: { pod: 'b' } } }, to: { namespace: 'x', podSelector: { matchLabels: { pod: 'a' } } } },
    ]);
    expect(d).toMatchObject({ status: 'violated', violationCount: 1, policies: [{ namespace: 'x', name: 'allow-y-to-a' }] });
    expect(d.violations[0]).toMatchObject({ port: 80, protocol: 'TCP' });
  });

  it('warns about an endpoint matching no pods', () => {
    const [r] = evaluateIntents(cluster(), [{ name: 'nobody', expect: 'allowed', from: { namespace: 'nope' }, to: {} }]);
    expect(r.status).toBe('met');
    expect(r.warnings).toContain('The source matches no pods.');
  });
});
