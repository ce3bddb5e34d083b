// /openapi/v3: one OpenAPI 3.0 document per group-version, generated from the
// kinds' Zod schemas. kubectl uses it for `explain` and to learn that the
// server supports fieldValidation (so `kubectl create` validates server-side).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { apiVersionOf, type KindDefinition } from '../kinds/kind.ts';
import { groupVersions, SUBRESOURCE_KINDS, type GroupVersion, type ServedResource } from './discovery.ts';
import { encodeSwaggerProto } from './openapiv2proto.ts';
import { patchMetaFor, type FieldMeta, type KindPatchSchema } from '../kinds/patchmeta.ts';
import { componentNames } from '../kinds/schema.ts';

const SAFE_INT = 9007199254740991;

/** Adjusts Zod's JSON Schema to OpenAPI 3.0 as Kubernetes writes it. */
function toOpenAPI(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenAPI);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === 'propertyNames' || k === 'id') continue;
    if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
    if (k === 'maturity') {
      out['x-maturity'] = v;
      if (v === 'deprecated') out.deprecated = true;
      continue;
    }
    out[k] = toOpenAPI(v);
  }
  // IntOrString and Quantity are written as Kubernetes does.
  const any = out.anyOf as Record<string, unknown>[] | undefined;
  if (any?.length === 2 && any.some((s) => s.type === 'string') && any.some((s) => s.type === 'integer' || s.type === 'number')) {
    delete out.anyOf;
    out['x-kubernetes-int-or-string'] = true;
  }
  return out;
}

type JSONSchema = Record<string, unknown>;

/** The object or array schema under `node`, looking through the nullable/union wrappers Zod writes. */
function shapes(node: JSONSchema): JSONSchema[] {
  const out: JSONSchema[] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const s of (node[key] as JSONSchema[] | undefined) ?? []) out.push(...shapes(s));
  }
  if (node.type === 'object' || node.type === 'array' || node.properties || node.items) out.push(node);
  return out;
}

/**
 * Writes the kind's patch metadata into its schema as Kubernetes publishes it:
 * `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` for strategic
 * merge patch (kubectl apply and edit read them from here), and
 * `x-kubernetes-list-type` / `x-kubernetes-list-map-keys` / `x-kubernetes-map-type`
 * for server-side apply aware tools. A replaced list carries no strategy
 * (untagged Go fields replace lists), only `atomic`.
 */
function annotatePatchMeta(node: JSONSchema, meta: KindPatchSchema) {
  for (const [field, fm] of Object.entries(meta)) {
    for (const holder of shapes(node)) {
      const prop = (holder.properties as Record<string, JSONSchema> | undefined)?.[field];
      if (prop) annotateField(prop, fm);
    }
  }
}

function annotateField(prop: JSONSchema, fm: FieldMeta) {
  for (const shape of shapes(prop)) {
    if (shape.type === 'array' || shape.items) {
      const merge = fm.strategy && fm.strategy !== 'replace' && fm.strategy !== 'retainKeys';
      if (merge) shape['x-kubernetes-patch-strategy'] = fm.strategy;
      if (merge && fm.key) shape['x-kubernetes-patch-merge-key'] = fm.key;
      const listType = fm.listType ?? (!merge ? 'atomic' : fm.key ? 'map' : 'set');
      shape['x-kubernetes-list-type'] = listType;
      if (listType === 'map') shape['x-kubernetes-list-map-keys'] = fm.listMapKeys ?? [fm.key!];
      if (fm.fields && shape.items) annotatePatchMeta(shape.items as JSONSchema, fm.fields);
    } else {
      if (fm.strategy === 'retainKeys') shape['x-kubernetes-patch-strategy'] = 'retainKeys';
      if (fm.mapType) shape['x-kubernetes-map-type'] = fm.mapType;
      if (fm.fields) annotatePatchMeta(shape, fm.fields);
    }
  }
}

const schemaName = (k: Pick<KindDefinition, 'group' | 'version' | 'kind'>, kind = k.kind) =>
  `io.k8s.api.${k.group ? k.group.split('.')[0] : 'core'}.${k.version}.${kind}`;

const COMPONENT = 'x-component';
const COMPONENT_DESCRIPTION = 'x-component-description';

/** The schema as JSON, with each named schema (src/kinds `named`) marked for extraction into a component. */
function jsonSchemaOf(schema: z.ZodType): JSONSchema {
  return toOpenAPI(
    z.toJSONSchema(schema, {
      io: 'input',
      unrepresentable: 'any',
      target: 'openapi-3.0',
      override: ({ zodSchema, jsonSchema }) => {
        const name = componentNames.get(zodSchema);
        if (!name) return;
        const js = jsonSchema as JSONSchema;
        js[COMPONENT] = name;
        const description = z.globalRegistry.get(zodSchema as unknown as z.ZodType)?.description;
        if (description) js[COMPONENT_DESCRIPTION] = description;
      },
    }),
  ) as JSONSchema;
}

/** How upstream publishes the types that are not objects (kube-openapi's OpenAPIV3OneOfTypes). */
const SCALAR_COMPONENTS: Record<string, JSONSchema> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
};

/**
 * Moves every named schema under `node` into `components` and refers to it as
 * upstream's /openapi/v3 does (`allOf: [{$ref}]` beside the field's own
 * description), so that `kubectl explain` prints `<DaemonSetSpec>`,
 * `[]Container` and `map[string]Quantity`. Patch and list-type extensions met
 * at different uses of one type are merged into its component.
 */
function extractComponents(node: unknown, components: Record<string, JSONSchema>): unknown {
  if (Array.isArray(node)) return node.map((n) => extractComponents(n, components));
  if (!node || typeof node !== 'object') return node;
  const out: JSONSchema = {};
  // (`required` and `enum` lists hold names and values; a property may be named `required` too.)
  for (const [k, v] of Object.entries(node)) out[k] = Array.isArray(v) && (k === 'enum' || k === 'required') ? v : extractComponents(v, components);
  const name = out[COMPONENT] as string | undefined;
  if (!name) return out;
  const { [COMPONENT]: _n, [COMPONENT_DESCRIPTION]: typeDescription, description, ...body } = out;
  const existing = components[name];
  if (!existing) {
    const scalar = SCALAR_COMPONENTS[name];
    const own = scalar ? { ...scalar } : body;
    if (scalar) for (const [k, v] of Object.entries(body)) if (k.startsWith('x-kubernetes-') && k !== 'x-kubernetes-int-or-string') own[k] = v;
    components[name] = { ...((typeDescription ?? description) ? { description: typeDescription ?? description } : {}), ...own };
  } else {
    for (const [k, v] of Object.entries(body)) if (k.startsWith('x-kubernetes-') && k !== 'x-kubernetes-int-or-string' && !(k in existing)) existing[k] = v;
  }
  const ref = { $ref: `#/components/schemas/${name}` };
  return description !== undefined ? { allOf: [ref], description } : { allOf: [ref] };
}

function kindSchemas(k: KindDefinition): Record<string, unknown> {
  const gvk = [{ group: k.group, version: k.version, kind: k.kind }];
  const inline = jsonSchemaOf(k.schema);
  inline.description ??= k.description;
  annotatePatchMeta(inline, patchMetaFor(k));
  const components: Record<string, JSONSchema> = {};
  const obj = extractComponents(inline, components) as JSONSchema;
  obj['x-kubernetes-group-version-kind'] = gvk;
  const list = {
    description: `${k.listKind} is a list of ${k.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { type: 'object', description: 'Standard list metadata.' },
      items: { type: 'array', items: { $ref: `#/components/schemas/${schemaName(k)}` } },
    },
    'x-kubernetes-group-version-kind': [{ group: k.group, version: k.version, kind: k.listKind }],
  };
  return { ...components, [schemaName(k)]: obj, [schemaName(k, k.listKind)]: list };
}

const param = (name: string, type: string, description: string, where: 'query' | 'path' = 'query') => ({
  name,
  in: where,
  description,
  ...(where === 'path' ? { required: true } : {}),
  schema: { type, uniqueItems: true },
});

const writeParams = [
  param('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid value: All.'),
  param('fieldManager', 'string', 'A name associated with the actor or entity that is making these changes.'),
  param('fieldValidation', 'string', 'How the server treats unknown and duplicate fields: Ignore, Warn (default) or Strict.'),
  param('pretty', 'string', "If 'true', then the output is pretty printed."),
];
const listParams = [
  'allowWatchBookmarks:boolean', 'continue:string', 'fieldSelector:string', 'labelSelector:string', 'limit:integer',
  'pretty:string', 'resourceVersion:string', 'resourceVersionMatch:string', 'sendInitialEvents:boolean', 'timeoutSeconds:integer', 'watch:boolean',
].map((p) => param(p.split(':')[0], p.split(':')[1], p.split(':')[0]));

// Every patch type the server takes, server-side apply included, as upstream lists them.
const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

function kindPaths(k: KindDefinition): Record<string, unknown> {
  const prefix = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  const gvk = { group: k.group, version: k.version, kind: k.kind };
  const ref = { $ref: `#/components/schemas/${schemaName(k)}` };
  const listRef = { $ref: `#/components/schemas/${schemaName(k, k.listKind)}` };
  const json = (schema: unknown) => ({ 'application/json': { schema }, 'application/yaml': { schema } });
  const op = (action: string, id: string, extra: Record<string, unknown>) => ({
    operationId: id,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    responses: { '200': { description: 'OK', content: json(action === 'list' || action === 'deletecollection' ? listRef : ref) } },
    ...extra,
  });
  const Kind = k.kind;
  const ns = k.scope === 'Namespaced';
  const base = ns ? `${prefix}/namespaces/{namespace}/${k.plural}` : `${prefix}/${k.plural}`;
  const nsParam = ns ? [param('namespace', 'string', 'object name and auth scope', 'path')] : [];
  const nameParam = [param('name', 'string', `name of the ${Kind}`, 'path')];
  const paths: Record<string, unknown> = {
    [base]: {
      parameters: nsParam,
      get: op('list', `list${Kind}`, { parameters: listParams }),
      post: op('post', `create${Kind}`, { parameters: writeParams, requestBody: { required: true, content: json(ref) } }),
      ...(k.verbs.includes('deletecollection') ? { delete: op('deletecollection', `deleteCollection${Kind}`, { parameters: listParams }) } : {}),
    },
    [`${base}/{name}`]: {
      parameters: [...nameParam, ...nsParam],
      get: op('get', `read${Kind}`, {}),
      put: op('put', `replace${Kind}`, { parameters: writeParams, requestBody: { required: true, content: json(ref) } }),
      patch: op('patch', `patch${Kind}`, {
        parameters: [...writeParams, param('force', 'boolean', 'Force is going to "force" Apply requests.')],
        requestBody: { required: true, content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: 'object' } }])) },
      }),
      delete: op('delete', `delete${Kind}`, {
        parameters: ['dryRun:string', 'gracePeriodSeconds:integer', 'propagationPolicy:string', 'pretty:string'].map((p) => param(p.split(':')[0], p.split(':')[1], p.split(':')[0])),
      }),
    },
  };
  if (ns) paths[`${prefix}/${k.plural}`] = { get: op('list', `list${Kind}ForAllNamespaces`, { parameters: listParams }) };
  if (k.subresources.status) {
    paths[`${base}/{name}/status`] = {
      parameters: [...nameParam, ...nsParam],
      get: op('get', `read${Kind}Status`, {}),
      put: op('put', `replace${Kind}Status`, { parameters: writeParams, requestBody: { required: true, content: json(ref) } }),
      patch: op('patch', `patch${Kind}Status`, {
        parameters: [...writeParams, param('force', 'boolean', 'Force is going to "force" Apply requests.')],
        requestBody: { required: true, content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: 'object' } }])) },
      }),
    };
  }
  // Other subresources (pods/eviction, pods/binding, namespaces/finalize), with
  // the kind they take when it is not the parent's (discovery says the same).
  for (const [sub, { verbs }] of Object.entries(k.subresources)) {
    if (sub === 'status') continue;
    const other = SUBRESOURCE_KINDS[sub];
    const subGvk = other ?? gvk;
    const body = other ? { type: 'object', description: `${other.kind} (${other.group ? `${other.group}/` : ''}${other.version}).` } : ref;
    const content = { 'application/json': { schema: body }, 'application/yaml': { schema: body } };
    const Sub = sub[0].toUpperCase() + sub.slice(1);
    const item: Record<string, unknown> = { parameters: [...nameParam, ...nsParam] };
    const subOp = (action: string, id: string) => ({
      operationId: `${id}${Kind}${Sub}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': subGvk,
      parameters: writeParams,
      requestBody: { required: true, content },
      responses: { [action === 'post' ? '201' : '200']: { description: 'OK', content } },
    });
    if (verbs.includes('create')) item.post = subOp('post', 'create');
    if (verbs.includes('update')) item.put = subOp('put', 'replace');
    paths[`${base}/{name}/${sub}`] = item;
  }
  return paths;
}

/** A resource that is only ever created and answered, never stored (the authorization reviews). */
export type CreateOnlyResource = ServedResource & { withoutStorage: true; schema: z.ZodType; description: string };
type Documented = KindDefinition | CreateOnlyResource;

function createOnlySchemas(r: CreateOnlyResource): Record<string, unknown> {
  const obj = toOpenAPI(z.toJSONSchema(r.schema, { io: 'input', unrepresentable: 'any', target: 'openapi-3.0' })) as Record<string, unknown>;
  obj.description ??= r.description;
  obj['x-kubernetes-group-version-kind'] = [{ group: r.group, version: r.version, kind: r.kind }];
  return { [schemaName(r)]: obj };
}

function createOnlyPaths(r: CreateOnlyResource): Record<string, unknown> {
  const ref = { $ref: `#/components/schemas/${schemaName(r)}` };
  const content = { 'application/json': { schema: ref }, 'application/yaml': { schema: ref } };
  const ns = r.scope === 'Namespaced';
  return {
    [`/apis/${r.group}/${r.version}/${ns ? 'namespaces/{namespace}/' : ''}${r.plural}`]: {
      post: {
        operationId: `create${ns ? 'Namespaced' : ''}${r.kind}`,
        description: r.description,
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
        parameters: writeParams,
        requestBody: { required: true, content },
        responses: { '201': { description: 'Created', content } },
      },
      ...(ns ? { parameters: [param('namespace', 'string', 'object name and auth scope', 'path')] } : {}),
    },
  };
}

export interface OpenAPIDocs {
  /** `api/v1`, `apis/apps/v1` -> document JSON and its hash. */
  byPath: Map<string, { json: string; hash: string }>;
  index: string;
  /** /openapi/v2: one Swagger 2.0 document of every group-version, as JSON and as gnostic protobuf; `etag` is of the JSON, as upstream. */
  v2: { json: string; proto: Buffer; etag: string };
}

const sha512Hex = (text: string) => createHash('sha512').update(text).digest('hex').toUpperCase();

/**
 * The OpenAPI documents of these kinds, each built when first asked for (as
 * upstream's handler caches do): a server starts without the ~0.3 s they
 * take, and servers of one process over the same kinds share them.
 */
export function buildOpenAPI(kinds: readonly KindDefinition[], createOnly: readonly CreateOnlyResource[] = []): OpenAPIDocs {
  const byCreateOnly = built.get(kinds) ?? new WeakMap<readonly CreateOnlyResource[], OpenAPIDocs>();
  built.set(kinds, byCreateOnly);
  let docs = byCreateOnly.get(createOnly);
  if (!docs) byCreateOnly.set(createOnly, (docs = lazyDocs(kinds, createOnly)));
  return docs;
}

const built = new WeakMap<readonly KindDefinition[], WeakMap<readonly CreateOnlyResource[], OpenAPIDocs>>();

function lazyDocs(kinds: readonly KindDefinition[], createOnly: readonly CreateOnlyResource[]): OpenAPIDocs {
  let v3: { byPath: OpenAPIDocs['byPath']; index: string; docs: V3Document[] } | undefined;
  const v3Docs = () => {
    if (v3) return v3;
    const byPath = new Map<string, { json: string; hash: string }>();
    const docs: V3Document[] = [];
    for (const gv of groupVersions<Documented>([...kinds, ...createOnly])) {
      const doc = gvDocument(gv);
      docs.push(doc);
      const json = JSON.stringify(doc);
      const hash = sha512Hex(json).slice(0, 128);
      byPath.set(gv.group ? `apis/${apiVersionOf(gv)}` : `api/${gv.version}`, { json, hash });
    }
    const paths = Object.fromEntries([...byPath].map(([p, d]) => [p, { serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}` }]));
    return (v3 = { byPath, index: JSON.stringify({ paths }), docs });
  };
  // v2 is converted from the v3 documents; most clients never read it.
  let v2: OpenAPIDocs['v2'] | undefined;
  return {
    get byPath() {
      return v3Docs().byPath;
    },
    get index() {
      return v3Docs().index;
    },
    get v2() {
      if (!v2) {
        const doc = swaggerDocument(v3Docs().docs);
        const json = JSON.stringify(doc);
        v2 = { json, proto: encodeSwaggerProto(doc), etag: sha512Hex(json) };
      }
      return v2;
    },
  };
}

interface V3Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
}

function gvDocument(gv: GroupVersion<Documented>): V3Document {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, any> = {};
  for (const k of gv.kinds) {
    const stored = !('withoutStorage' in k && k.withoutStorage);
    Object.assign(schemas, stored ? kindSchemas(k as KindDefinition) : createOnlySchemas(k as CreateOnlyResource));
    Object.assign(paths, stored ? kindPaths(k as KindDefinition) : createOnlyPaths(k as CreateOnlyResource));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}

// ---- /openapi/v2 ----------------------------------------------------------
// Swagger 2.0 as kube-apiserver publishes it, converted from the v3 documents
// above so that one place generates the schemas. kubectl reads it (as
// protobuf) to validate on the client (`apply -f` of a `kind: List`,
// `create --validate`), for `explain --output=plaintext-openapiv2`, and to
// build strategic merge patches when v3 does not know a kind.

/** A v3 schema as v2 writes it: `$ref` beside the description instead of an `allOf` wrapper, OneOf scalars as strings. */
function swaggerSchema(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const s = node as JSONSchema;
  const out: JSONSchema = {};
  const allOf = s.allOf as JSONSchema[] | undefined;
  const single = allOf?.length === 1 && typeof allOf[0].$ref === 'string' && !s.type && !s.properties;
  for (const [k, v] of Object.entries(s)) {
    if (k === 'allOf') {
      if (single) out.$ref = swaggerRef(allOf![0].$ref as string);
      else out.allOf = (v as unknown[]).map(swaggerSchema);
    } else if (k === '$ref') out.$ref = swaggerRef(v as string);
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as JSONSchema).map(([p, ps]) => [p, swaggerSchema(ps)]));
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object')) out[k] = swaggerSchema(v);
    // Swagger 2.0 has no oneOf: upstream writes Quantity and IntOrString as strings (with their format).
    else if (k === 'oneOf') out.type = 'string';
    // Nor a schema-level deprecated or nullable (x-maturity still says deprecated).
    else if (k === 'deprecated' || k === 'nullable' || k === 'anyOf') continue;
    else out[k] = v;
  }
  return out;
}

const swaggerRef = (ref: string) => ref.replace('#/components/schemas/', '#/definitions/');

/** A v3 parameter (`schema: {type}`) as v2 writes it (`type` beside the name). */
function swaggerParameter(p: JSONSchema): JSONSchema {
  const { schema, ...rest } = p as JSONSchema & { schema?: JSONSchema };
  return { ...rest, ...(schema ?? {}) };
}

/** A v3 operation as v2 writes it: the request body a `body` parameter, media types in consumes/produces. */
function swaggerOperation(op: JSONSchema): JSONSchema {
  const out: JSONSchema = {};
  const produces = new Set<string>();
  for (const [k, v] of Object.entries(op)) {
    if (k === 'parameters') continue;
    if (k === 'requestBody') continue;
    if (k === 'responses') {
      const responses: JSONSchema = {};
      for (const [code, r] of Object.entries(v as Record<string, JSONSchema>)) {
        const content = (r.content ?? {}) as Record<string, { schema: unknown }>;
        Object.keys(content).forEach((t) => produces.add(t));
        const first = Object.values(content)[0];
        responses[code] = { description: r.description, ...(first ? { schema: swaggerSchema(first.schema) } : {}) };
      }
      responses['401'] = { description: 'Unauthorized' };
      out.responses = responses;
    } else out[k] = v;
  }
  const body = op.requestBody as { required?: boolean; content: Record<string, { schema: unknown }> } | undefined;
  const params = ((op.parameters as JSONSchema[] | undefined) ?? []).map(swaggerParameter);
  if (body) {
    out.consumes = Object.keys(body.content);
    params.unshift({ name: 'body', in: 'body', required: true, schema: swaggerSchema(Object.values(body.content)[0].schema) });
  } else out.consumes = ['*/*'];
  if (params.length) out.parameters = params;
  out.produces = [...produces];
  out.schemes = ['https'];
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function swaggerDocument(docs: readonly V3Document[]) {
  const definitions: Record<string, unknown> = {};
  const paths: Record<string, JSONSchema> = {};
  for (const doc of docs) {
    // A type shared by several group-versions (ObjectMeta, PodSpec) is generated alike in each.
    for (const [name, schema] of Object.entries(doc.components.schemas)) definitions[name] ??= swaggerSchema(schema);
    for (const [path, item] of Object.entries(doc.paths)) {
      const out: JSONSchema = {};
      for (const [k, v] of Object.entries(item)) {
        if (METHODS.includes(k)) out[k] = swaggerOperation(v);
        else if (k === 'parameters') out.parameters = (v as JSONSchema[]).map(swaggerParameter);
        else out[k] = v;
      }
      if ((out.parameters as unknown[] | undefined)?.length === 0) delete out.parameters;
      paths[path] = out;
    }
  }
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: sorted(paths),
    definitions: sorted(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
