import { describe, expect, it } from 'vitest';
import { SharedFields } from './sharedfields.ts';

const entry = (manager: string, fieldsV1: object, operation = 'Update') => ({ manager, operation, apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 });
const obj = (...entries: object[]) => ({ metadata: { name: 'x', managedFields: entries } });
const spec = () => ({ 'f:spec': { 'f:nodeName': {}, 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } });
const values = (o: { metadata: { managedFields: object[] } }) => o.metadata.managedFields.map((e) => (e as { fieldsV1: object }).fieldsV1);

describe('FieldsV1 values shared between objects', () => {
  it('gives equal values of any manager one object, keeps the JSON of each object, and never mixes values that differ in content or order', () => {
    const shared = new SharedFields();
    const list = [
      obj(entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:phase': {} } }, 'Update')),
      obj(entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:phase': {} } }, 'Update')),
      // Another manager with the same tree: the same value.
      obj(entry('helm', spec())),
      // The kubelet's fields in another order, and more of them: values of their own.
      obj(entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:podIP': {}, 'f:phase': {} } })),
      obj(entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:phase': {}, 'f:podIP': {} } })),
      obj(entry('kubectl', spec()), entry('kubelet', { 'f:status': { 'f:phase': {} } })),
    ];
    const texts = list.map((o) => JSON.stringify(o));
    for (const o of list) shared.share(o);
    expect(list.map((o) => JSON.stringify(o))).toEqual(texts);
    const [a, b, c, d, e, f] = list.map(values);
    expect(b[0]).toBe(a[0]);
    expect(b[1]).toBe(a[1]);
    expect(c[0]).toBe(a[0]);
    expect(d[1]).not.toBe(e[1]);
    expect(d[1]).not.toBe(a[1]);
    expect(f[1]).toBe(a[1]);
  });

  it("takes a value from the object's version before, and leaves frozen entries and entries without a value as they are", () => {
    const shared = new SharedFields();
    const before = obj(entry('kubelet', { 'f:spec': { 'f:holderIdentity': {} } }));
    shared.share(before);
    const after = obj(entry('kubelet', { 'f:spec': { 'f:holderIdentity': {} } }));
    shared.share(after, before);
    expect(values(after)[0]).toBe(values(before)[0]);
    const frozen = Object.freeze(entry('kubelet', { 'f:spec': { 'f:holderIdentity': {} } }));
    const odd = obj(frozen, { manager: 'm', operation: 'Update' });
    shared.share(odd);
    expect(values(odd)[0]).toBe(frozen.fieldsV1);
    expect(values(odd)[0]).not.toBe(values(before)[0]);
    expect(values(odd)[1]).toBeUndefined();
  });
});
