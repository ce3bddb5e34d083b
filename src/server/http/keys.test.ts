// Keys of user maps are data: `__proto__`, `constructor`, `toString` and
// `hasOwnProperty` survive every way into and out of the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
/** Label-like maps need qualified names, which `__proto__` is not. */
const LABEL_KEYS = KEYS.slice(1);
/** A JSON object with these keys (JSON.stringify of a literal cannot write `__proto__`). */
const mapJSON = (value: (k: string) => string, keys = KEYS) => `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(value(k))}`).join(',')}}`;
const ownKeys = (o: unknown) => Object.keys(o as object).sort();

describe('map keys that are Object members', () => {
  it('are ConfigMap data, binaryData, labels and annotations keys, through create, get, list and the table', async () => {
    const body = `{"metadata":{"name":"proto","labels":${mapJSON(() => 'v', LABEL_KEYS)},"annotations":${mapJSON((k) => `a-${k}`, LABEL_KEYS)}},"data":${mapJSON((k) => `d-${k}`)},"binaryData":{"b":"AA=="}}`;
    const created = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body });
    expect(created.status).toBe(201);
    for (const o of [created.body, (await s.api('/api/v1/namespaces/default/configmaps/proto')).body, (await s.api('/api/v1/namespaces/default/configmaps')).body.items[0]]) {
      expect(ownKeys(o.data)).toEqual([...KEYS].sort());
      expect(ownKeys(o.metadata.labels)).toEqual([...LABEL_KEYS].sort());
      expect(ownKeys(o.metadata.annotations)).toEqual([...LABEL_KEYS].sort());
      expect(JSON.parse(JSON.stringify(o.data)).toString).toBe('d-toString');
    }
    const table = await s.api('/api/v1/namespaces/default/configmaps/proto', { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.rows[0].cells[1]).toBe(5);
  });

  it('are validated like any key: `__proto__` is no label or annotation key (a 422, not silently dropped)', async () => {
    for (const map of ['labels', 'annotations']) {
      const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: `{"metadata":{"name":"bad-${map}","${map}":{"__proto__":"x"}}}` });
      expect(res.status, map).toBe(422);
      expect(res.body.message).toContain(`metadata.${map}`);
      expect(res.body.message).toContain('__proto__');
    }
  });

  it('is an unknown field outside maps: refused when Strict, dropped when Ignored', async () => {
    const body = (name: string) => `{"metadata":{"name":"${name}","__proto__":{"x":"y"}},"__proto__":"z","data":{"__proto__":"kept"}}`;
    const strict = await s.api('/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { method: 'POST', body: body('strict') });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "__proto__"');
    const ignored = await s.api('/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', { method: 'POST', body: body('ignored') });
    expect(ignored.status).toBe(201);
    expect(Object.hasOwn(ignored.body, '__proto__')).toBe(false);
    expect(Object.hasOwn(ignored.body.metadata, '__proto__')).toBe(false);
    expect(ownKeys(ignored.body.data)).toEqual(['__proto__']);
  });

  it('may be both in data and binaryData only when they really are', async () => {
    const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: `{"metadata":{"name":"dup"},"data":{"constructor":"x"},"binaryData":{"toString":"AA=="}}` });
    expect(res.status).toBe(201);
    const dup = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: `{"metadata":{"name":"dup2"},"data":{"__proto__":"x"},"binaryData":{"__proto__":"AA=="}}` });
    expect(dup.status).toBe(422);
    expect(dup.body.message).toContain('duplicate of key present in binaryData');
  });

  it('survive merge, strategic merge and JSON patches', async () => {
    await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'patched' } } });
    const path = '/api/v1/namespaces/default/configmaps/patched';
    const merge = await s.api(path, { method: 'PATCH', body: `{"data":{"__proto__":"m"}}`, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(merge.status).toBe(200);
    expect(Object.hasOwn(merge.body.data, '__proto__')).toBe(true);
    const smp = await s.api(path, { method: 'PATCH', body: `{"metadata":{"labels":{"toString":"s","constructor":"c"}},"data":{"constructor":"d"}}`, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(200);
    expect(ownKeys(smp.body.metadata.labels)).toEqual(['constructor', 'toString']);
    expect(ownKeys(smp.body.data)).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(smp.body.data, '__proto__')).toBe(true);
    const jp = await s.api(path, { method: 'PATCH', body: `[{"op":"add","path":"/metadata/annotations","value":{"hasOwnProperty":"j"}},{"op":"add","path":"/data/hasOwnProperty","value":"h"}]`, headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(jp.status).toBe(200);
    expect(ownKeys(jp.body.metadata.annotations)).toEqual(['hasOwnProperty']);
    expect(ownKeys(jp.body.data)).toEqual(['__proto__', 'constructor', 'hasOwnProperty']);
  });

  it('are read from YAML', async () => {
    const yaml = `metadata:\n  name: from-yaml\n  labels:\n    constructor: y\ndata:\n  __proto__: y\n  constructor: c\n`;
    const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: yaml, headers: { 'Content-Type': 'application/yaml' } });
    expect(res.status).toBe(201);
    expect(ownKeys(res.body.data)).toEqual(['__proto__', 'constructor']);
    expect(ownKeys(res.body.metadata.labels)).toEqual(['constructor']);
  });

  it('are nodeSelector keys of a DaemonSet template, kept through defaulting and the stored round trip', async () => {
    const ds = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"proto"},"spec":{"selector":{"matchLabels":{"app":"p"}},"template":{"metadata":{"labels":{"app":"p"}},"spec":{"nodeSelector":{"constructor":"n","toString":"t"},"containers":[{"name":"c","image":"i"}]}}}}`;
    const res = await s.api('/apis/apps/v1/namespaces/default/daemonsets', { method: 'POST', body: ds });
    expect(res.status).toBe(201);
    const got = (await s.api('/apis/apps/v1/namespaces/default/daemonsets/proto')).body;
    expect(ownKeys(got.spec.template.spec.nodeSelector)).toEqual(['constructor', 'toString']);
  });

  it('are fields in managedFields: each manager owns the keys it wrote, whatever their names', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const created = await s.api(`${path}?fieldManager=first`, { method: 'POST', body: `{"metadata":{"name":"owned"},"data":{"a":"1"}}` });
    expect(created.status).toBe(201);
    const apply = (data: string) =>
      s.api(`${path}/owned?fieldManager=second`, {
        method: 'PATCH',
        body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned"},"data":${data}}`,
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    const first = await apply(`{"constructor":"c","toString":"t","__proto__":"p"}`);
    expect(first.status).toBe(200);
    const second = first.body.metadata.managedFields.find((m: { manager: string }) => m.manager === 'second');
    expect(ownKeys(second.fieldsV1['f:data'])).toEqual(['f:__proto__', 'f:constructor', 'f:toString']);
    // Applying without two of them removes them (their only owner let go); `a` is another manager's.
    const again = await apply(`{"toString":"t2"}`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ a: '1', toString: 't2' });
  });
});
