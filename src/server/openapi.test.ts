// /openapi/v3 as upstream publishes it: named components referred to by $ref,
// with the properties, required lists and patch extensions of upstream's own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kinds } from '../kinds/registry.ts';
import { buildOpenAPI } from './openapi.ts';

const upstream = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'kinds', 'testdata', 'upstream', 'openapi-v3-properties.json'), 'utf8'));
const docs = buildOpenAPI(kinds);
const apps = JSON.parse(docs.byPath.get('apis/apps/v1')!.json);
const schemas = apps.components.schemas;

describe('/openapi/v3/apis/apps/v1', () => {
  it('has the named components of upstream, with their properties and required lists', () => {
    for (const [name, want] of Object.entries<any>(upstream.schemas)) {
      const ours = schemas[name];
      expect(ours, name).toBeDefined();
      const short = name.split('.').pop();
      expect(Object.keys(ours.properties).sort(), name).toEqual(want.properties.filter((p: string) => !upstream.addedAfter132[`${short}.${p}`]).sort());
      expect([...(ours.required ?? [])].sort(), name).toEqual([...want.required].sort());
    }
  });

  it("refers to named types as upstream does, and a DaemonSet's fields to their components", () => {
    const ds = schemas['io.k8s.api.apps.v1.DaemonSet'];
    expect(ds.properties.spec.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DaemonSetSpec' }]);
    const podSpec = schemas['io.k8s.api.core.v1.PodSpec'];
    expect(podSpec.properties.containers.items.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }]);
    const resources = schemas['io.k8s.api.core.v1.ResourceRequirements'];
    expect(resources.properties.limits.additionalProperties.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' }]);
    expect(schemas['io.k8s.apimachinery.pkg.api.resource.Quantity'].type).toBeUndefined();
    expect(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].oneOf).toEqual([{ type: 'integer' }, { type: 'string' }]);
    // Every $ref resolves.
    const refs = [...docs.byPath.get('apis/apps/v1')!.json.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    for (const r of new Set(refs)) expect(schemas[r], r).toBeDefined();
    for (const [path, doc] of docs.byPath) expect(doc.json, path).not.toContain('x-component');
  });

  it('carries the patch and list-type extensions upstream publishes', () => {
    for (const [name, fields] of Object.entries<any>(upstream.patch)) {
      for (const [field, ext] of Object.entries<any>(fields)) expect(schemas[name].properties[field], `${name}.${field}`).toMatchObject(ext);
    }
  });
});

describe('/openapi/v2', () => {
  const v2 = JSON.parse(docs.v2.json);
  const defs = v2.definitions;

  it('is Swagger 2.0 whose every $ref names a definition, with no v3 construct left', () => {
    expect(v2.swagger).toBe('2.0');
    const refs = [...docs.v2.json.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(100);
    for (const r of new Set(refs)) {
      expect(r, r).toMatch(/^#\/definitions\//);
      expect(defs[r.slice('#/definitions/'.length)], r).toBeDefined();
    }
    for (const banned of ['#/components/', '"allOf"', '"oneOf"', '"anyOf"', '"nullable"', '"requestBody"', 'x-component']) expect(docs.v2.json).not.toContain(banned);
  });

  it('has every v3 component under the same name, a field referring to its type beside its own description', () => {
    for (const [path, doc] of docs.byPath) {
      for (const name of Object.keys(JSON.parse(doc.json).components.schemas)) expect(defs[name], `${path} ${name}`).toBeDefined();
    }
    const ds = defs['io.k8s.api.apps.v1.DaemonSet'];
    expect(ds['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'DaemonSet' }]);
    expect(ds.properties.spec.$ref).toBe('#/definitions/io.k8s.api.apps.v1.DaemonSetSpec');
    expect(ds.properties.spec.description).toBeTruthy();
    expect(defs['io.k8s.api.core.v1.PodSpec'].properties.containers.items).toMatchObject({ $ref: '#/definitions/io.k8s.api.core.v1.Container' });
    // As upstream's v2: the OneOf scalars are strings.
    expect(defs['io.k8s.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ type: 'string' });
    expect(defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
    expect(defs['io.k8s.api.core.v1.NodeList']['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'NodeList' }]);
  });

  it('carries the patch and list-type extensions upstream publishes', () => {
    for (const [name, fields] of Object.entries<any>(upstream.patch)) {
      for (const [field, ext] of Object.entries<any>(fields)) expect(defs[name].properties[field], `${name}.${field}`).toMatchObject(ext);
    }
  });

  it('writes operations as v2 does: a body parameter, consumes and produces, typed query parameters', () => {
    const item = v2.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}'];
    expect(item.parameters).toContainEqual(expect.objectContaining({ name: 'namespace', in: 'path', required: true, type: 'string' }));
    expect(item.put).toMatchObject({
      operationId: 'replaceDaemonSet',
      'x-kubernetes-action': 'put',
      'x-kubernetes-group-version-kind': { group: 'apps', version: 'v1', kind: 'DaemonSet' },
      consumes: ['application/json', 'application/yaml'],
      responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.apps.v1.DaemonSet' } } },
    });
    expect(item.put.parameters[0]).toEqual({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.apps.v1.DaemonSet' } });
    expect(item.patch.consumes).toContain('application/strategic-merge-patch+json');
    const list = v2.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets'].get;
    expect(list.parameters).toContainEqual(expect.objectContaining({ name: 'watch', in: 'query', type: 'boolean' }));
    expect(list.responses['200'].schema).toEqual({ $ref: '#/definitions/io.k8s.api.apps.v1.DaemonSetList' });
  });

  it('encodes as gnostic protobuf what the JSON says (decoded back field by field)', () => {
    const doc = decode(docs.v2.proto);
    expect(text(doc.get(1)![0])).toBe('2.0');
    // Document.definitions (9) -> NamedSchema (1) {name 1, value 2}.
    const named = decode(doc.get(9)![0] as Buffer).get(1)!.map((b) => decode(b as Buffer));
    expect(named.map((n) => text(n.get(1)![0]))).toEqual(Object.keys(defs));
    const ds = decode(named.find((n) => text(n.get(1)![0]) === 'io.k8s.api.apps.v1.DaemonSet')!.get(2)![0] as Buffer);
    // Schema.vendor_extension (31) -> NamedAny {name, Any {yaml 2}}.
    const ext = ds.get(31)!.map((b) => decode(b as Buffer)).map((n) => [text(n.get(1)![0]), JSON.parse(text(decode(n.get(2)![0] as Buffer).get(2)![0]))]);
    expect(Object.fromEntries(ext)['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'DaemonSet' }]);
    // Schema.properties (25) -> NamedSchema; spec's value has _ref (1).
    const props = decode(ds.get(25)![0] as Buffer).get(1)!.map((b) => decode(b as Buffer));
    const spec = decode(props.find((p) => text(p.get(1)![0]) === 'spec')!.get(2)![0] as Buffer);
    expect(text(spec.get(1)![0])).toBe('#/definitions/io.k8s.api.apps.v1.DaemonSetSpec');
    // Paths (8) -> NamedPathItem (2): every path, in order.
    const paths = decode(doc.get(8)![0] as Buffer).get(2)!.map((b) => text(decode(b as Buffer).get(1)![0]));
    expect(paths).toEqual(Object.keys(v2.paths));
  });
});

/** A protobuf message's fields by number (varints as numbers, length-delimited as bytes): enough to read the encoding back. */
function decode(buf: Buffer): Map<number, (number | Buffer)[]> {
  const out = new Map<number, (number | Buffer)[]>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const [no, wire] = [Math.floor(key / 8), key % 8];
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const n = varint();
      value = buf.subarray(i, i + n);
      i += n;
    } else if (wire === 1) {
      value = buf.readDoubleLE(i);
      i += 8;
    } else throw new Error(`wire type ${wire}`);
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}
const text = (b: number | Buffer) => (b as Buffer).toString('utf8');
