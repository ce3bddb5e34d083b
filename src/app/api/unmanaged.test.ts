// Cutting managedFields out of JSON text: exactly the metadata's member of each
// object at the second level goes, wherever it stands among the metadata's
// members and however the text is spaced; nothing else changes.
import { describe, expect, it } from 'vitest';
import { dropManagedFields, withoutManagedFields } from './unmanaged.ts';

const managed = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'k:{"name":"x"}': {} } } }];

/** An object whose metadata has managedFields at `at` among its members, with strings that look like the key. */
function pod(name: string, at: number): Record<string, unknown> {
  const members: [string, unknown][] = [
    ['name', name],
    ['annotations', { note: '"managedFields":[1]', managedFields: '[]', 'a\\"b': 'x\\' }],
    ['labels', { managedFields: 'no' }],
  ];
  members.splice(at, 0, ['managedFields', managed]);
  return {
    kind: 'Pod',
    metadata: Object.fromEntries(members),
    // Deeper objects' metadata and a spec's own key of that name are not the object's.
    spec: { managedFields: [1, 2], template: { metadata: { managedFields: [3] } } },
    status: { message: 'metadata' },
  };
}

const without = (o: Record<string, any>) => dropManagedFields(o as { metadata: { managedFields?: unknown } });

describe('withoutManagedFields', () => {
  it('cuts the member from every item of a run, first, middle or last among the metadata, and nothing else', () => {
    const items = [0, 1, 3].map((at) => pod(`p${at}`, at));
    for (const text of [JSON.stringify(items), JSON.stringify(items, null, 2)]) {
      const cut = withoutManagedFields(text);
      expect(JSON.parse(cut)).toEqual(items.map(without));
      expect(cut).not.toContain('"kubectl"');
    }
  });

  it('cuts the object’s member of a watch event, and leaves events without one as they are', () => {
    const event = { type: 'MODIFIED', object: pod('w', 2) };
    expect(JSON.parse(withoutManagedFields(JSON.stringify(event)))).toEqual({ type: 'MODIFIED', object: without(event.object) });
    const bookmark = JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '12' } } });
    expect(withoutManagedFields(bookmark)).toBe(bookmark);
    const onlyMember = JSON.stringify([{ metadata: { managedFields: managed } }]);
    expect(JSON.parse(withoutManagedFields(onlyMember))).toEqual([{ metadata: {} }]);
  });

  it('cuts only from an object’s own metadata key: not after a value "metadata", nor in an array at the second level', () => {
    for (const text of ['[{"kind":"metadata","x":{"managedFields":[1]}}]', '[["metadata",{"managedFields":[1]}]]', '[{"metadata":{}},[{"managedFields":[1]}]]']) {
      expect(withoutManagedFields(text)).toBe(text);
    }
  });

  it('leaves a managedFields that is not an array (null) in place', () => {
    const text = JSON.stringify([{ metadata: { name: 'a', managedFields: null } }]);
    expect(withoutManagedFields(text)).toBe(text);
  });
});

describe('dropManagedFields', () => {
  it('gives an object without them a copy without, and the object itself when it has none', () => {
    const p = pod('x', 1);
    const { managedFields: _, ...metadata } = p.metadata as Record<string, unknown>;
    expect(dropManagedFields(p as never)).toEqual({ ...p, metadata });
    const none: { metadata: { name: string; managedFields?: unknown } } = { metadata: { name: 'n' } };
    expect(dropManagedFields(none)).toBe(none);
  });
});
