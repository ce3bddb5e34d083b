// Walking the kinds' Zod schemas: unknown-field detection for the server's
// fieldValidation, and (later) the form engine's field tree. Only the schema
// constructs src/kinds uses are handled.
import { z } from 'zod';
import type { Maturity } from './kind.ts';

type AnySchema = z.ZodType;
const def = (s: AnySchema) => (s as any)._zod.def as { type: string; [k: string]: any };

/** Field metadata set with `.meta({...})` anywhere along the wrappers. */
export interface FieldMeta {
  description?: string;
  maturity?: Maturity;
  enum?: string[];
  format?: string;
  [k: string]: unknown;
}

const unwrapped = new WeakMap<AnySchema, { schema: AnySchema; meta: FieldMeta }>();

/**
 * The schema under optional/nullable/default/pipe/lazy wrappers, with the
 * metadata met on the way (outer wins). Cached per schema: decoding walks it
 * for every field of every object. The result is shared; do not mutate it.
 */
export function unwrap(schema: AnySchema): { schema: AnySchema; meta: FieldMeta } {
  const cached = unwrapped.get(schema);
  if (cached) return cached;
  let s = schema;
  const meta: FieldMeta = {};
  for (;;) {
    Object.assign(meta, { ...(z.globalRegistry.get(s) ?? {}), ...meta });
    const d = def(s);
    if (d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault' || d.type === 'readonly') s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else if (d.type === 'lazy') s = d.getter();
    else break;
  }
  const result = { schema: s, meta };
  unwrapped.set(schema, result);
  return result;
}

export function schemaType(schema: AnySchema): string {
  return def(unwrap(schema).schema).type;
}

/** Properties of an object schema (after unwrapping), or undefined. */
export function shapeOf(schema: AnySchema): Record<string, AnySchema> | undefined {
  const u = unwrap(schema).schema;
  return def(u).type === 'object' ? (def(u).shape as Record<string, AnySchema>) : undefined;
}

const fieldPath = (base: string, name: string) => (base ? `${base}.${name}` : name);

/**
 * Paths of the fields in `value` that the schema does not declare, in the
 * form kube-apiserver reports them: `spec.foo`, `spec.containers[0].bar`.
 */
export function unknownFields(schema: AnySchema, value: unknown): string[] {
  const out: string[] = [];
  unknownFieldsAt(schema, value, [], out);
  return out;
}

/** A path's text, made only for a field reported: most bodies have none, and every field's path was a string made for nothing. */
function pathText(at: (string | number)[]): string {
  let text = '';
  for (const s of at) text = typeof s === 'number' ? `${text}[${s}]` : fieldPath(text, s);
  return text;
}

function unknownFieldsAt(schema: AnySchema, value: unknown, at: (string | number)[], out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const d = def(unwrap(schema).schema);
  switch (d.type) {
    case 'object': {
      if (Array.isArray(value)) return;
      const shape = d.shape as Record<string, AnySchema>;
      for (const k in value) {
        const child = Object.hasOwn(shape, k) ? shape[k] : undefined;
        at.push(k);
        if (!child) {
          if (!d.catchall || def(d.catchall).type === 'never') out.push(pathText(at));
        } else unknownFieldsAt(child, (value as Record<string, unknown>)[k], at, out);
        at.pop();
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) return;
      for (let i = 0; i < value.length; i++) {
        at.push(i);
        unknownFieldsAt(d.element, value[i], at, out);
        at.pop();
      }
      return;
    case 'record':
      if (Array.isArray(value)) return;
      for (const k in value) {
        at.push(k);
        unknownFieldsAt(d.valueType, (value as Record<string, unknown>)[k], at, out);
        at.pop();
      }
      return;
    case 'union': {
      // The first option that accepts the value's shape decides.
      const option = (d.options as AnySchema[]).find((o) => o.safeParse(value).success) ?? d.options[0];
      return unknownFieldsAt(option, value, at, out);
    }
  }
}

/**
 * JSON `null` means "unset" to the Go decoder; drop such keys (recursively)
 * before parsing. `seen.protoKey` is set when a `__proto__` key was met, so
 * that decoding restores such keys only when there are any.
 */
export function stripNulls<T>(value: T, seen?: { protoKey: boolean }): T {
  if (Array.isArray(value)) return value.map((v) => stripNulls(v, seen)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const src = value as Record<string, unknown>;
    for (const k in src) {
      const v = src[k];
      if (v === null || !Object.hasOwn(src, k)) continue;
      // A key named `__proto__` stays a key: assigning it would set the prototype instead.
      if (k === '__proto__') {
        if (seen) seen.protoKey = true;
        Object.defineProperty(out, k, { value: stripNulls(v, seen), writable: true, enumerable: true, configurable: true });
      } else out[k] = stripNulls(v, seen);
    }
    return out as T;
  }
  return value;
}

/** Fields present in `value` whose schema marks a maturity (deprecated, beta, alpha), with their paths. */
export function fieldsWithMaturity(schema: AnySchema, value: unknown, path = ''): { path: string; maturity: Maturity }[] {
  if (value === undefined) return [];
  const { schema: u, meta } = unwrap(schema);
  const here = meta.maturity && path ? [{ path, maturity: meta.maturity }] : [];
  if (value === null || typeof value !== 'object') return here;
  const d = def(u);
  if (d.type === 'object' && !Array.isArray(value)) {
    return [
      ...here,
      ...Object.entries(value).flatMap(([k, v]) => (Object.hasOwn(d.shape, k) ? fieldsWithMaturity(d.shape[k], v, fieldPath(path, k)) : [])),
    ];
  }
  if (d.type === 'array' && Array.isArray(value)) return [...here, ...value.flatMap((v, i) => fieldsWithMaturity(d.element, v, `${path}[${i}]`))];
  return here;
}

/** The schema of an array's items, a record's values, or an object's property (after unwrapping). */
export function childSchema(schema: AnySchema, key: string | number): AnySchema | undefined {
  const u = unwrap(schema).schema;
  const d = def(u);
  if (d.type === 'object') return (Object.hasOwn(d.shape, key) ? d.shape[key] : undefined) as AnySchema | undefined;
  if (d.type === 'array') return d.element as AnySchema;
  if (d.type === 'record') return d.valueType as AnySchema;
  return undefined;
}

/** The member types of a union (after unwrapping), else undefined. */
export function unionOptions(schema: AnySchema): string[] | undefined {
  const u = unwrap(schema).schema;
  const d = def(u);
  return d.type === 'union' ? (d.options as AnySchema[]).map(schemaType) : undefined;
}

/**
 * The upstream OpenAPI component name of a schema (`io.k8s.api.core.v1.Container`):
 * /openapi/v3 publishes named schemas as components with `$ref`s to them, so
 * that `kubectl explain` shows upstream's type names.
 */
export const componentNames = new WeakMap<object, string>();

/** Registers `schema` under its upstream component name and returns it. */
export function named<T extends AnySchema>(name: string, schema: T): T {
  componentNames.set(schema, name);
  return schema;
}

/**
 * A value built on its first use and kept: the kinds' schemas are built when
 * something first validates, renders a form or publishes OpenAPI, not when a
 * module is loaded (a browser opening a list page needs none of them).
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** The schema under optional/nullable/default wrappers only (they parse a present value as their inner schema does), or undefined past any other wrapper. */
const plainInner = new WeakMap<AnySchema, AnySchema | null>();
function plainUnwrap(schema: AnySchema): AnySchema | undefined {
  let s = plainInner.get(schema);
  if (s === undefined) {
    let t: AnySchema = schema;
    for (;;) {
      const d = def(t);
      if (d.type === 'optional' || d.type === 'nullable' || d.type === 'default') t = d.innerType;
      else break;
    }
    const d = def(t);
    s = (d.checks?.length ?? 0) > 0 || d.type === 'pipe' || d.type === 'lazy' || d.type === 'transform' ? null : t;
    plainInner.set(schema, s);
  }
  return s ?? undefined;
}

/** Whether a field of this schema may be absent and stays so (parsing undefined gives undefined, no default); made once per schema. */
const absentOK = new WeakMap<AnySchema, boolean>();
function mayBeAbsent(schema: AnySchema): boolean {
  let ok = absentOK.get(schema);
  if (ok === undefined) {
    const r = schema.safeParse(undefined);
    absentOK.set(schema, (ok = r.success && r.data === undefined));
  }
  return ok;
}

const UNPARSED = Symbol('unparsed');

/**
 * What `schema.safeParse(value)` gives, for a `value` that is a private copy
 * of `before` (a value the same schema parsed before) with some of it
 * changed: the parts still equal to `before`'s are that parse's output
 * already and are kept as they are; each part that differs is parsed by its
 * own schema (a changed or added field alone, an object that lost a field it
 * must have whole), into a copy of each object and array above it, never in
 * place: a `mutate` may have put a part of another cached object into the copy.
 * Undefined when some part does not parse, or when the schema has a check
 * or transform of its own: parse the whole value then, for its error.
 */
export function parseChanged(schema: AnySchema, value: unknown, before: unknown): { data: unknown } | undefined {
  const data = changedPart(schema, value, before);
  return data === UNPARSED ? undefined : { data };
}

function parseWhole(schema: AnySchema, value: unknown): unknown {
  const r = schema.safeParse(value);
  return r.success ? r.data : UNPARSED;
}

function changedPart(schema: AnySchema, value: unknown, before: unknown): unknown {
  if (value === before) return value;
  if (value === null || before === null || typeof value !== 'object' || typeof before !== 'object') return parseWhole(schema, value);
  const inner = plainUnwrap(schema);
  if (!inner) return parseWhole(schema, value);
  const d = def(inner);
  const isArray = Array.isArray(value);
  if (isArray !== Array.isArray(before)) return parseWhole(schema, value);
  if (d.type === 'array') {
    const was = before as unknown[];
    const items = value as unknown[];
    if (!isArray || items.length !== was.length) return parseWhole(schema, value);
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const v = changedPart(d.element, items[i], was[i]);
      if (v === UNPARSED) return v;
      if (v !== items[i]) (out ??= items.slice())[i] = v;
    }
    return out ?? items;
  }
  if (isArray) return parseWhole(schema, value);
  const o = value as Record<string, unknown>;
  const b = before as Record<string, unknown>;
  if (d.type === 'object') {
    if (d.catchall && def(d.catchall).type !== 'never') return parseWhole(schema, value);
    const shape = d.shape as Record<string, AnySchema>;
    // An unknown field: the whole object, which drops it; a field dropped: only if the schema lets it be absent.
    for (const k in o) if (!Object.hasOwn(shape, k) || o[k] === undefined) return parseWhole(schema, value);
    for (const k in b) if (!Object.hasOwn(o, k) && Object.hasOwn(shape, k) && !mayBeAbsent(shape[k])) return parseWhole(schema, value);
    let out: Record<string, unknown> | undefined;
    for (const k in o) {
      // A field added is parsed alone; it stays where the write put it (the order of an object's fields is not its meaning).
      const v = Object.hasOwn(b, k) ? changedPart(shape[k], o[k], b[k]) : parseWhole(shape[k], o[k]);
      if (v === UNPARSED) return v;
      if (v !== o[k]) (out ??= { ...o })[k] = v;
    }
    return out ?? o;
  }
  if (d.type === 'record' && def(d.keyType).type === 'string' && !(def(d.keyType).checks?.length)) {
    let out: Record<string, unknown> | undefined;
    for (const k in o) {
      if (o[k] === undefined) return parseWhole(schema, value);
      const v = Object.hasOwn(b, k) ? changedPart(d.valueType, o[k], b[k]) : parseWhole(d.valueType, o[k]);
      if (v === UNPARSED) return v;
      if (v !== o[k]) (out ??= { ...o })[k] = v;
    }
    return out ?? o;
  }
  return parseWhole(schema, value);
}
