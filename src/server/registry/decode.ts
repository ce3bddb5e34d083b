// Decoding a request body into a typed object, as the Go decoder would:
// wrong JSON types are 400s, unknown fields follow fieldValidation, and
// defaults are applied on the way in.
import { apiVersionOf, type KindDefinition, type KubeObject } from '../../kinds/kind.ts';
import { parseChanged, stripNulls, unknownFields } from '../../kinds/schema.ts';
import { ApiError, errors } from '../http/status.ts';
import { fieldErrors } from '../../lib/field.ts';
import { restoreProtoKeys } from './protokeys.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface DecodeOptions {
  fieldValidation: FieldValidation;
  /** Collected `Warning` header texts. */
  warnings: string[];
  /** The body is the result of a patch: errors are 422s about `patch`, not 400s. */
  patch?: boolean;
  /** Problems the parser found that Strict refuses with the unknown fields (`duplicate field "x"`). */
  strictErrors?: string[];
  /**
   * `raw` is the caller's own copy, given away (an in-process update's): its
   * nulls are dropped in place instead of in a copy (the schema's parse copies it anyway).
   */
  owned?: boolean;
  /**
   * The stored object a status write changes: the top-level fields the
   * endpoint resets from it (the strategy's statusResetsFields, e.g. `spec`)
   * are taken from it as they are (decoded, defaulted and frozen when it was
   * stored) rather than decoded again from `raw`, whose copies of them the
   * write discards anyway (PrepareForUpdate). Only for bodies made in this
   * process: a client's body is decoded whole, as Go decodes it.
   */
  statusOf?: KubeObject;
  /**
   * The decoded object `raw` is a changed private copy of (an in-process
   * update's: the cached object, copied and changed by `mutate`): only the
   * parts that differ from it are parsed (parseChanged); the rest is its
   * parse already. Not for a client's body, which is decoded whole.
   */
  before?: KubeObject;
}

/** Each kind's schema without the fields a status write keeps, by the fields' names; built once. */
const statusSchemas = new WeakMap<KindDefinition, { fields: string[]; schema: KindDefinition['schema'] } | null>();
function statusSchemaOf(kind: KindDefinition) {
  let s = statusSchemas.get(kind);
  if (s === undefined) {
    const fields = kind.strategy.statusResetsFields;
    const schema = kind.schema as KindDefinition['schema'] & { omit?: (mask: Record<string, true>) => KindDefinition['schema'] };
    // Only top-level fields of an object schema can be left out of it.
    const usable = fields.length > 0 && fields.every((f) => !f.includes('.')) && typeof schema.omit === 'function';
    s = usable ? { fields, schema: schema.omit!(Object.fromEntries(fields.map((f) => [f, true]))) } : null;
    statusSchemas.set(kind, s);
  }
  return s;
}

/** stripNulls without the copy: object members that are null are deleted (array elements stay, as there). */
function dropNulls(value: unknown, seen: { protoKey: boolean }): void {
  if (Array.isArray(value)) {
    for (const v of value) if (v && typeof v === 'object') dropNulls(v, seen);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (k === '__proto__') seen.protoKey = true;
    if (v === null) delete o[k];
    else if (typeof v === 'object') dropNulls(v, seen);
  }
}

const cannotHandle = (kind: KindDefinition, why: string) =>
  errors.badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${why}`);

const patchInvalid = (raw: unknown, why: string) =>
  new ApiError(422, 'Invalid', ` "" is invalid: patch: Invalid value: ${JSON.stringify(JSON.stringify(raw))}: ${why}`, {
    causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(JSON.stringify(raw))}: ${why}`, field: 'patch' }],
  });

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Top-level and metadata keys in the order kube-apiserver writes them. */
const topOrder = ['kind', 'apiVersion', 'metadata', 'spec', 'status'];
const metaOrder = [
  'name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
];
function ordered<T extends Record<string, unknown>>(o: T, order: string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of order) if (o[k] !== undefined) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out) && o[k] !== undefined) out[k] = o[k];
  return out as T;
}
/** ObjectMeta's maps and lists are `omitempty`: empty ones are not stored or shown (a patch may leave them empty). */
const omitEmptyMeta = ['labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'] as const;
export function canonicalOrder(obj: KubeObject): KubeObject {
  const o = ordered(obj, topOrder);
  const meta = ordered(o.metadata ?? {}, metaOrder);
  for (const k of omitEmptyMeta) {
    const v = meta[k] as unknown;
    if (v && typeof v === 'object' && !Object.keys(v).length) delete meta[k];
  }
  o.metadata = meta;
  return o;
}

export function decodeObject(kind: KindDefinition, raw: unknown, opts: DecodeOptions): KubeObject {
  const fail = (why: string) => (opts.patch ? patchInvalid(raw, why) : cannotHandle(kind, why));
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw fail(`json: cannot unmarshal ${typeName(raw)} into Go value of type ${kind.group || 'core'}.${kind.kind}`);
  }
  const seen = { protoKey: false };
  let body: Record<string, unknown>;
  if (opts.owned) dropNulls((body = raw as Record<string, unknown>), seen);
  else body = stripNulls(raw as Record<string, unknown>, seen);
  const apiVersion = apiVersionOf(kind);
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw errors.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (body.kind !== undefined && body.kind !== kind.kind) {
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind.kind})`);
  }
  if (opts.fieldValidation !== 'Ignore') {
    const unknown = unknownFields(kind.schema, body).filter((f) => f !== 'apiVersion' && f !== 'kind');
    const strict = [...(opts.strictErrors ?? []), ...unknown.map((f) => `unknown field "${f}"`)];
    if (strict.length && opts.fieldValidation === 'Strict') throw fail(`strict decoding error: ${strict.join(', ')}`);
    for (const f of unknown) opts.warnings.push(`unknown field "${f}"`);
  }
  // A status write's kept fields are not decoded (see DecodeOptions.statusOf); a `__proto__` key anywhere takes the whole path.
  const status = opts.statusOf && !seen.protoKey ? statusSchemaOf(kind) : null;
  let input = body;
  if (status) {
    input = {};
    for (const k of Object.keys(body)) if (!status.fields.includes(k)) input[k] = body[k];
  }
  const schema = status ? status.schema : kind.schema;
  const changed = opts.before && !seen.protoKey ? parseChanged(schema, input, opts.before) : undefined;
  const parsed = changed ? { success: true as const, data: changed.data } : schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A kind's own decoding check (a []byte field that is not base64) says what Go's decoder says.
    if (issue.code === 'custom') throw fail(issue.message);
    const path = issue.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('');
    const got = issue.path.reduce<any>((v, s) => (v == null ? v : v[s as any]), body);
    const expected = (issue as { expected?: string }).expected ?? 'value';
    throw fail(`json: cannot unmarshal ${typeName(got)} into Go struct field ${kind.kind}${path} of type ${expected}`);
  }
  const obj = parsed.data as KubeObject;
  // Maps of user keys may hold `__proto__`, which the copies above drop (protokeys.ts).
  if (seen.protoKey) restoreProtoKeys(kind.schema, raw, obj);
  obj.apiVersion = apiVersion;
  obj.kind = kind.kind;
  obj.metadata ??= {};
  // Defaults see the kept fields absent; theirs were applied when they were stored.
  kind.defaults(obj);
  if (status) {
    for (const f of status.fields) {
      const kept = opts.statusOf![f];
      if (kept === undefined) delete obj[f];
      else obj[f] = kept;
    }
  }
  const reset = Array.isArray(obj.metadata.managedFields) && obj.metadata.managedFields.length === 0;
  const out = canonicalOrder(obj);
  // An empty list is how a client resets managedFields (isResetManagedFields); the field manager, not this omitempty, decides what is stored.
  if (reset) out.metadata.managedFields = [];
  return out;
}

export function parseFieldValidation(v: string | null, optionsKind = 'CreateOptions'): FieldValidation {
  if (v === null || v === '' || v === 'Warn') return 'Warn';
  if (v === 'Strict' || v === 'Ignore') return v;
  throw errors.invalidOptions(optionsKind, [fieldErrors.notSupported('fieldValidation', v, ['Ignore', 'Strict', 'Warn'])]);
}
