// A map of user keys may hold `__proto__` (a ConfigMap data key, say): JSON.parse
// makes it an ordinary own key, but the copies decoding makes lose it (an
// assignment `o["__proto__"] = v` sets the prototype instead, and Zod drops
// the key from records on purpose). This puts it back where the schema has a
// map, and nowhere else: in a struct it is an unknown field like any other.
import type { z } from 'zod';
import { childSchema, schemaType } from '../../kinds/schema.ts';

type AnySchema = z.ZodType;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function restoreProtoKeys(schema: AnySchema, from: unknown, to: unknown): void {
  if (Array.isArray(from) && Array.isArray(to)) {
    const element = childSchema(schema, 0);
    if (element) from.forEach((v, i) => restoreProtoKeys(element, v, to[i]));
    return;
  }
  if (!isObject(from) || !isObject(to)) return;
  const type = schemaType(schema);
  if (type === 'record' && Object.hasOwn(from, '__proto__') && from.__proto__ !== null && !Object.hasOwn(to, '__proto__')) {
    Object.defineProperty(to, '__proto__', { value: from.__proto__, writable: true, enumerable: true, configurable: true });
  }
  if (type !== 'record' && type !== 'object') return;
  for (const k of Object.keys(from)) {
    if (!Object.hasOwn(to, k)) continue;
    const child = childSchema(schema, k);
    if (child) restoreProtoKeys(child, from[k], to[k]);
  }
}
