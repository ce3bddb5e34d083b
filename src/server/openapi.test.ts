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
