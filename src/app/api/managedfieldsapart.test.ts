// Items whose managedFields were cut out of their run's text and put back as
// read-when-asked properties must be the same objects to every reader: the
// same JSON, the same keys in the same order, equal, spread and cloned alike.
import { describe, expect, it } from 'vitest';
import { cutManagedFields, hasManagedFields, packFields, putManagedFieldsBack, withoutManagedFields } from './managedfieldsapart.ts';

const fieldsV1 = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } };
const entry = (manager: string) => ({ manager, operation: 'Update', apiVersion: 'v1', time: '2026-11-25T18:14:47Z', fieldsType: 'FieldsV1', fieldsV1 });

const items = [
  // As our server writes a pod: managedFields between the labels and the resourceVersion.
  { kind: 'Pod', metadata: { name: 'a', labels: { app: 'x', managedFields: 'a label' }, managedFields: [entry('kubectl'), entry('kubelet')], resourceVersion: '7' }, spec: { managedFields: [1] } },
  // Last in the metadata, and the metadata after the spec.
  { spec: { containers: [{ name: 'c', args: ['"managedFields":[{}]', '\\"'] }] }, metadata: { name: 'b', managedFields: [entry('ünïcode ✓')] } },
  // First, with more than one key after them.
  { metadata: { managedFields: [entry('m')], name: 'c', namespace: 'ns', annotations: { note: '{"managedFields":[]}' } } },
  // None; an empty list; null.
  { metadata: { name: 'd' } },
  { metadata: { name: 'e', managedFields: [], uid: 'u' } },
  { metadata: { name: 'f', managedFields: null } },
  // Managed fields that are not the metadata's.
  { status: { metadata: { managedFields: [entry('not mine')] } }, metadata: { name: 'g' } },
];

/** The run's items as the main thread gets them from the wire worker. */
function throughTheWire(text: string) {
  const { run, fields } = cutManagedFields(text);
  const parsed = JSON.parse(run);
  const cutOut = parsed.map((o: { metadata: object }) => hasManagedFields(o.metadata));
  putManagedFieldsBack(parsed, fields.length ? packFields(fields) : undefined);
  return { parsed, fields, cutOut };
}

describe('managedFields apart', () => {
  it('cuts each item metadata’s managedFields out of the run, and only those', () => {
    const { fields, cutOut } = throughTheWire(JSON.stringify(items));
    expect(fields.map((f) => JSON.parse(f))).toEqual([items[0].metadata.managedFields, items[1].metadata.managedFields, items[2].metadata.managedFields, [], null]);
    expect(cutOut).toEqual([false, false, false, false, false, false, false]);
  });

  it('gives back the same items: JSON, key order, equality, spread, structured clone', () => {
    for (const text of [JSON.stringify(items), JSON.stringify(items, null, 2)]) {
      const { parsed } = throughTheWire(text);
      expect(JSON.stringify(parsed)).toBe(JSON.stringify(items));
      expect(parsed).toEqual(items);
      expect(parsed.map((o: { metadata: object }) => Object.keys(o.metadata))).toEqual(items.map((o) => Object.keys(o.metadata)));
      expect(parsed.map((o: { metadata: object }) => ({ ...o.metadata }))).toEqual(items.map((o) => o.metadata));
      expect(structuredClone(parsed)).toEqual(items);
      expect(parsed.map((o: { metadata: object }) => hasManagedFields(o.metadata))).toEqual(items.map((o) => 'managedFields' in o.metadata));
    }
  });

  it('reads the same value each time, and takes a new one when set', () => {
    const { parsed } = throughTheWire(JSON.stringify(items));
    const m = parsed[0].metadata;
    expect(m.managedFields).toBe(m.managedFields);
    m.managedFields = [entry('new')];
    expect(m.managedFields).toEqual([entry('new')]);
    expect(Object.keys(m)).toEqual(['name', 'labels', 'managedFields', 'resourceVersion']);
  });

  it('leaves a run without managedFields as it is', () => {
    const text = JSON.stringify([items[3], items[6]]);
    expect(cutManagedFields(text)).toEqual({ run: text, fields: [] });
  });

  it('copies and tests metadata without parsing its managedFields', () => {
    const { run } = cutManagedFields(JSON.stringify([items[0]]));
    const parsed = JSON.parse(run);
    // Bytes that are no JSON: reading them would throw.
    putManagedFieldsBack(parsed, { bytes: new TextEncoder().encode('{not json'), ends: Uint32Array.of(9) });
    expect(() => parsed[0].metadata.managedFields).toThrow();
    expect(hasManagedFields(parsed[0].metadata)).toBe(true);
    expect(withoutManagedFields(parsed[0].metadata)).toEqual({ name: 'a', labels: items[0].metadata.labels, resourceVersion: '7' });
  });
});
