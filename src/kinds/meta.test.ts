import { describe, expect, it } from 'vitest';
import { Path, renderFieldError } from '../lib/field.ts';
import {
  metaSchemas,
  validateAnnotations,
  validateIntOrPercent,
  validateLabelSelector,
  validateLabels,
  validateNameSegments,
  validateNodeSelector,
  validateNotMoreThan100Percent,
  validateObjectMeta,
  validateQuantity,
} from './meta.ts';

const lines = (errs: { field: string }[]) => errs.map((e) => renderFieldError(e as any));
const ns = { namespaced: true, nameFn: 'subdomain' as const };
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('validateObjectMeta (create)', () => {
  it('accepts a valid object', () => {
    expect(validateObjectMeta({ name: 'a.b', namespace: 'default', labels: { app: 'x' }, annotations: { 'Example.com/Key': 'v' } }, ns)).toEqual([]);
  });
  it('requires name or generateName', () => {
    expect(lines(validateObjectMeta({ namespace: 'd' }, ns))).toEqual(['metadata.name: Required value: name or generateName is required']);
  });
  it('checks name, generateName and namespace', () => {
    expect(lines(validateObjectMeta({ name: 'A', namespace: 'd' }, ns))[0]).toMatch(/^metadata\.name: Invalid value: "A": a lowercase RFC 1123 subdomain/);
    expect(lines(validateObjectMeta({ name: 'ok', generateName: 'Bad-', namespace: 'd' }, ns))[0]).toMatch(/^metadata\.generateName: Invalid value: "Bad-"/);
    expect(validateObjectMeta({ name: 'x', generateName: 'web-', namespace: 'd' }, ns)).toEqual([]);
    expect(lines(validateObjectMeta({ name: 'a' }, ns))).toEqual(['metadata.namespace: Required value']);
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'A' }, ns))).toEqual([`metadata.namespace: Invalid value: "A": ${labelMsg}`]);
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'x' }, { namespaced: false, nameFn: 'label' }))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
    expect(lines(validateObjectMeta({ name: 'A' }, { namespaced: false, nameFn: 'label' }))).toEqual([`metadata.name: Invalid value: "A": ${labelMsg}`]);
  });
  it('checks labels, annotations, generation, finalizers, ownerReferences', () => {
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'd', generation: -1 }, ns))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'd', labels: { k: 'bad value' } }, ns))[0]).toMatch(
      /^metadata\.labels: Invalid value: "bad value": a valid label must be an empty string/,
    );
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] }, ns))).toEqual([
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
    const ref = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u1', controller: true };
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'd', ownerReferences: [{ ...ref, uid: '' }] }, ns))).toEqual([
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    const two = [ref, { ...ref, name: 'other', uid: 'u2' }];
    expect(lines(validateObjectMeta({ name: 'a', namespace: 'd', ownerReferences: two }, ns))[0]).toMatch(
      /Only one reference can have Controller set to true\. Found "true" in references for DaemonSet\/ds and DaemonSet\/other$/,
    );
  });
});

describe('validateObjectMeta (update)', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z', generation: 2 };
  it('keeps server-owned fields immutable', () => {
    expect(validateObjectMeta({ ...old }, { ...ns, old })).toEqual([]);
    expect(lines(validateObjectMeta({ ...old, uid: 'v' }, { ...ns, old }))).toEqual(['metadata.uid: Invalid value: "v": field is immutable']);
    expect(lines(validateObjectMeta({ ...old, generation: 1 }, { ...ns, old }))).toEqual(['metadata.generation: Invalid value: 1: must not be decremented']);
  });
  it('forbids new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2026-01-02T00:00:00Z', finalizers: ['a/b'] };
    expect(lines(validateObjectMeta({ ...deleting, finalizers: ['a/b', 'x/y'] }, { ...ns, old: deleting }))).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x/y"}',
    ]);
  });
});

describe('validateNameSegments', () => {
  it('rejects names unusable in a URL path', () => {
    expect(lines(validateNameSegments({ name: '..' }))).toEqual([`metadata.name: Invalid value: "..": may not be '..'`]);
    expect(lines(validateNameSegments({ name: 'a/b' }))).toEqual([`metadata.name: Invalid value: "a/b": may not contain '/'`]);
    expect(validateNameSegments({ name: 'x', generateName: '.' })).toEqual([]);
  });
});

describe('labels and annotations', () => {
  it('validates label keys', () => {
    expect(lines(validateLabels({ '-x': 'v' }, new Path(['l'])))[0]).toMatch(/^l: Invalid value: "-x": name part must consist/);
  });
  it('lower-cases annotation keys and limits the size', () => {
    expect(validateAnnotations({ 'Foo.Com/Bar': 'x' }, 'a')).toEqual([]);
    expect(lines(validateAnnotations({ k: 'x'.repeat(262144) }, 'metadata.annotations'))).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });
});

describe('validateLabelSelector', () => {
  const p = new Path(['spec', 'podSelector']);
  it('accepts good selectors', () => {
    expect(validateLabelSelector({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }, p)).toEqual([]);
  });
  it('reports operator/value mismatches', () => {
    expect(lines(validateLabelSelector({ matchExpressions: [{ key: 'k', operator: 'In' }] }, p))).toEqual([
      "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
    expect(lines(validateLabelSelector({ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['v'] }] }, p))).toEqual([
      "spec.podSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(lines(validateLabelSelector({ matchExpressions: [{ key: 'k', operator: 'Foo' }] }, p))).toEqual([
      'spec.podSelector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator',
    ]);
    expect(lines(validateLabelSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] }, p))[0]).toMatch(
      /^spec\.podSelector\.matchExpressions\[0\]\.values\[0\]: Invalid value: "a b"/,
    );
  });
});

describe('validateNodeSelector', () => {
  const p = new Path(['spec', 'affinity']);
  it('needs a term and checks requirements', () => {
    expect(lines(validateNodeSelector({ nodeSelectorTerms: [] }, p))).toEqual(['spec.affinity.nodeSelectorTerms: Required value: must have at least one node selector term']);
    expect(lines(validateNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: [] }] }] }, p))).toEqual([
      "spec.affinity.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
    ]);
    expect(lines(validateNodeSelector({ nodeSelectorTerms: [{ matchFields: [{ key: 'spec.x', operator: 'In', values: ['n'] }] }] }, p))).toEqual([
      'spec.affinity.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.x": not a valid field selector key',
    ]);
    expect(validateNodeSelector({ nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] }, p)).toEqual([]);
  });
});

describe('quantities and int-or-percent', () => {
  it('parses quantities and rejects negatives', () => {
    expect(validateQuantity('100m', 'x')).toEqual([]);
    expect(lines(validateQuantity('-1', 'status.capacity.cpu'))).toEqual(['status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0']);
    expect(lines(validateQuantity('abc', 'q'))[0]).toMatch(/^q: Invalid value: "abc": /);
  });
  it('validates int-or-percent', () => {
    expect(validateIntOrPercent('25%', 'm')).toEqual([]);
    expect(lines(validateIntOrPercent(-1, 'm'))).toEqual(['m: Invalid value: -1: must be greater than or equal to 0']);
    expect(lines(validateIntOrPercent('x', 'm'))[0]).toMatch(/^m: Invalid value: "x": a valid percent string must be a numeric string followed by an ending '%'/);
    expect(lines(validateNotMoreThan100Percent('150%', 'm'))).toEqual(['m: Invalid value: "150%": must not be greater than 100%']);
  });
});

describe('ObjectMeta schema', () => {
  it('strips unknown fields and rejects wrong types', () => {
    expect(metaSchemas().ObjectMeta.parse({ name: 'a', bogus: 1 })).toEqual({ name: 'a' });
    expect(metaSchemas().ObjectMeta.safeParse({ labels: { a: 1 } }).success).toBe(false);
  });
});
