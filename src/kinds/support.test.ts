// ConfigMap, Namespace and ControllerRevision: the supporting kinds.
import { describe, expect, it } from 'vitest';
import { renderFieldError } from '../lib/field.ts';
import { configMapKind as cm } from './configmap.ts';
import { namespaceKind as ns } from './namespace.ts';
import { controllerRevisionKind as cr } from './controllerrevision.ts';

const lines = (errs: any[]) => errs.map(renderFieldError);
const now = new Date('2026-01-10T00:00:00Z');
const meta = { name: 'cfg', namespace: 'default', creationTimestamp: '2026-01-09T23:59:00Z', uid: 'u', resourceVersion: '1' };

describe('ConfigMap', () => {
  const obj = (over: any = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...meta }, data: { 'app.properties': 'a=b', MODE: 'prod' }, ...over });
  it('accepts a realistic ConfigMap', () => {
    expect(cm.validate(obj({ binaryData: { 'logo.png': 'iVBORw0KGgo=' } }), {})).toEqual([]);
  });
  it('validates keys', () => {
    expect(lines(cm.validate(obj({ data: { 'a b': 'x' } }), {}))).toEqual([
      "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(lines(cm.validate(obj({ data: { '..x': 'x' } }), {}))).toEqual([`data[..x]: Invalid value: "..x": must not start with '..'`]);
    expect(lines(cm.validate(obj({ data: { k: 'x' }, binaryData: { k: 'eA==' } }), {}))).toEqual(['data[k]: Invalid value: "k": duplicate of key present in binaryData']);
    expect(lines(cm.validate(obj({ data: { k: 'x'.repeat((1 << 20) + 1) } }), {}))).toEqual(['Too long: may not be more than 1048576 bytes']);
  });
  it('freezes data once immutable', () => {
    const old = obj({ immutable: true });
    expect(cm.validate(obj({ immutable: true }), { old })).toEqual([]);
    expect(lines(cm.validate(obj({ immutable: true, data: { MODE: 'dev' } }), { old }))).toEqual(['data: Forbidden: field is immutable when `immutable` is set']);
    expect(lines(cm.validate(obj({ immutable: false }), { old }))).toEqual(['immutable: Forbidden: field is immutable when `immutable` is set']);
    expect(cm.validate(obj({ data: { MODE: 'dev' } }), { old: obj() })).toEqual([]);
  });
  it('prints Name, Data count, Age and has the cm short name', () => {
    expect(cm.printerColumns.map((c) => [c.name, c.cell(obj({ binaryData: { b: 'eA==' } }), now)])).toEqual([
      ['Name', 'cfg'],
      ['Data', 3],
      ['Age', '60s'],
    ]);
    expect(cm.shortNames).toEqual(['cm']);
    expect(cm.fieldSelector.fields['metadata.namespace'](obj())).toBe('default');
  });
  it('strips unknown fields and rejects wrong JSON types', () => {
    expect((cm.schema.parse(obj({ spec: {}, extra: 1 })) as any).extra).toBeUndefined();
    expect(cm.schema.safeParse({ data: { a: 1 } }).success).toBe(false);
  });
});

describe('Namespace', () => {
  const obj = (over: any = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', creationTimestamp: '2026-01-09T00:00:00Z' }, ...over });
  it('defaults the name label and phase; create adds the kubernetes finalizer', () => {
    const o: any = obj();
    ns.defaults(o);
    expect(o.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(o.status).toEqual({ phase: 'Active' });
    ns.strategy.prepareForCreate!(o);
    expect(o.spec).toEqual({ finalizers: ['kubernetes'] });
    ns.strategy.prepareForCreate!(o);
    expect(o.spec.finalizers).toEqual(['kubernetes']);
    const again = structuredClone(o);
    ns.defaults(o);
    expect(o).toEqual(again);
  });
  it('keeps finalizers on main-resource updates', () => {
    const old: any = obj({ spec: { finalizers: ['kubernetes'] } });
    const next: any = obj({ spec: { finalizers: [] } });
    ns.strategy.prepareForUpdate!(next, old);
    expect(next.spec.finalizers).toEqual(['kubernetes']);
  });
  it('validates the name as a DNS label and the finalizers', () => {
    const o: any = obj();
    ns.defaults(o);
    expect(ns.validate(o, {})).toEqual([]);
    expect(lines(ns.validate({ metadata: { name: 'Team' } }, {}))[0]).toMatch(/^metadata\.name: Invalid value: "Team": a lowercase RFC 1123 label/);
    expect(lines(ns.validate({ metadata: { name: 'a' }, spec: { finalizers: ['custom'] } }, {}))).toEqual([
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    const old = { metadata: { name: 'a' }, spec: { finalizers: ['kubernetes'] } };
    expect(lines(ns.validate({ metadata: { name: 'a' }, spec: { finalizers: ['bad'] } }, { old, subresource: 'finalize' }))).toEqual([
      'spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
  it('checks the phase on status writes', () => {
    const old = { metadata: { name: 'a' } };
    expect(lines(ns.validate({ metadata: { name: 'a' }, status: { phase: 'Terminating' } }, { old, subresource: 'status' }))).toEqual([
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
  });
  it('has no deletecollection, prints Status, selects by phase', () => {
    expect(ns.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(Object.keys(ns.subresources).sort()).toEqual(['finalize', 'status']);
    const o: any = obj({ status: { phase: 'Terminating' } });
    expect(ns.printerColumns.map((c) => c.cell(o, now))).toEqual(['team-a', 'Terminating', '24h']);
    expect(ns.fieldSelector.fields['status.phase'](o)).toBe('Terminating');
    expect(ns.fieldSelector.unsupported).toBe('field-label');
    expect(ns.shortNames).toEqual(['ns']);
    expect(ns.scope).toBe('Cluster');
  });
});

describe('ControllerRevision', () => {
  const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'u1', controller: true, blockOwnerDeletion: true };
  const obj = (over: any = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'fluentd-5f9c7b', namespace: 'kube-system', creationTimestamp: '2026-01-09T23:00:00Z', ownerReferences: [owner] },
    data: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'c', image: 'x' }] } } } },
    revision: 2,
    ...over,
  });
  it('accepts a realistic revision', () => {
    expect(cr.validate(obj(), {})).toEqual([]);
  });
  it('requires data and a non-negative revision', () => {
    expect(lines(cr.validate(obj({ data: undefined, revision: -1 }), {}))).toEqual([
      'data: Required value: data is mandatory',
      'revision: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
  it('keeps data immutable', () => {
    expect(cr.validate(obj({ revision: 3 }), { old: obj() })).toEqual([]);
    expect(lines(cr.validate(obj({ data: { a: 1 } }), { old: obj() }))).toEqual(['data: Invalid value: {"a":1}: field is immutable']);
  });
  it('prints the controller and revision', () => {
    expect(cr.printerColumns.map((c) => c.cell(obj(), now))).toEqual(['fluentd-5f9c7b', 'daemonset.apps/fluentd', 2, '60m']);
    expect(cr.printerColumns[1].cell(obj({ metadata: { name: 'x' } }), now)).toBe('<none>');
    expect(cr.fieldSelector.unsupported).toBe('known-fields');
  });
  it('keeps any JSON data and rejects a non-integer revision', () => {
    expect((cr.schema.parse(obj({ extra: 1 })) as any).data.spec.template.$patch).toBe('replace');
    expect(cr.schema.safeParse({ revision: 'x' }).success).toBe(false);
  });
});
