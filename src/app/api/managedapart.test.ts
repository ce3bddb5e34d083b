// managedFields kept apart in the wire worker and read when first asked for:
// the objects the main thread gets read, serialise and copy as the list's own.
import { describe, expect, it } from 'vitest';
import { managedApart, takeRun } from './managedapart.ts';

const pod = (name: string, managed = true) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'ns',
    labels: { app: 'a "quoted" [value]' },
    ...(managed
      ? { managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'k:{"name":"c"}': { '.': {} } } } }] }
      : {}),
    resourceVersion: '12',
  },
  spec: { nodeName: 'n-1', priority: 1.5, big: 12345678901234 },
});

const items = [pod('a'), pod('b', false), { metadata: null }, 7, pod('c')];
const roundTrip = () => {
  const { run, managed } = managedApart(JSON.stringify(items));
  return { run, managed, got: takeRun(run, managed) as unknown as typeof items };
};

describe('managedFields apart', () => {
  it('leaves the run without them and gives them as text', () => {
    const { run, managed } = roundTrip();
    expect(run).not.toContain('fieldsV1');
    expect(managed.map((t) => t !== null)).toEqual([true, false, false, false, true]);
    expect(JSON.parse(managed[0]!)).toEqual(pod('a').metadata.managedFields);
  });

  it('gives back objects equal to the list items, however read', () => {
    const { got } = roundTrip();
    expect(JSON.parse(JSON.stringify(got))).toEqual(items);
    const first = got[0] as ReturnType<typeof pod>;
    expect(Object.keys(first.metadata).sort()).toEqual(Object.keys(pod('a').metadata).sort());
    expect(structuredClone(got)).toEqual(items);
    expect({ ...first.metadata }).toEqual(pod('a').metadata);
    const { managedFields, ...rest } = (got[4] as ReturnType<typeof pod>).metadata;
    expect(managedFields).toEqual(pod('c').metadata.managedFields);
    expect(rest).not.toHaveProperty('managedFields');
    expect(got).toEqual(items);
  });

  it('parses once, and keeps what is written over them', () => {
    const { got } = roundTrip();
    const m = (got[0] as ReturnType<typeof pod>).metadata;
    expect(m.managedFields).toBe(m.managedFields);
    expect(Object.getOwnPropertyDescriptor(m, 'managedFields')).toHaveProperty('value');
    const other = (got[4] as ReturnType<typeof pod>).metadata;
    other.managedFields = [];
    expect(other.managedFields).toEqual([]);
    expect(Object.keys(other).sort()).toEqual(Object.keys(pod('c').metadata).sort());
  });

  it('reads them from a frozen object too', () => {
    const { got } = roundTrip();
    const m = Object.freeze((got[0] as ReturnType<typeof pod>).metadata);
    expect(m.managedFields).toEqual(pod('a').metadata.managedFields);
  });

  it('cuts them from the text of a run of objects as parsing would, spaces, escapes and look-alikes included', () => {
    const tricky = {
      metadata: { name: 'x', annotations: { note: '"managedFields": [1] \\" }' }, managedFields: [{ manager: 'a\\"b', fieldsV1: { 'f:x': {} } }] },
      spec: { template: { metadata: { managedFields: ['kept'] } } },
    };
    const objects = [pod('a'), pod('b', false), { metadata: null }, tricky, { metadata: { managedFields: null } }, { metadata: { managedFields: [], name: 'first' } }];
    for (const text of [JSON.stringify(objects), JSON.stringify(objects, null, 2)]) {
      const { run, managed } = managedApart(text);
      expect(managed).toHaveLength(objects.length);
      expect(managed.map((t) => (t === null ? null : JSON.parse(t)))).toEqual([pod('a').metadata.managedFields, null, null, tricky.metadata.managedFields, null, []]);
      expect(JSON.parse(JSON.stringify(takeRun(run, managed)))).toEqual(objects);
      expect(JSON.parse(run)).toHaveLength(objects.length);
      expect(run).toContain('kept');
    }
  });

  it('passes a run that is not an array through', () => {
    expect(managedApart('{"kind":"Status"}')).toEqual({ run: '{"kind":"Status"}', managed: [] });
  });
});
