// The JSON Schema Monaco validates and completes YAML with, generated from the
// same Zod schema the server validates with. Kept free of Monaco imports so
// callers can build it in the main bundle for the price of one conversion.
import { z } from 'zod';
import { apiVersionOf, type KindDefinition } from '../../../kinds/kind.ts';

type JsonSchema = { [key: string]: unknown };

const cache = new WeakMap<KindDefinition, object>();

/**
 * Adjusts the generated schema for an editor: an `enum` our kinds attach to a
 * list for the form's multi-select belongs to its items only; a field's
 * maturity (deprecated, beta, alpha) is said in its hover text, and deprecated
 * fields are flagged; an object with known fields admits no others, so a
 * misspelt field is underlined as the server's strict field validation would
 * reject it (maps such as labels keep their `additionalProperties` schema).
 */
function forEditor(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(forEditor);
  if (!node || typeof node !== 'object') return;
  const s = node as JsonSchema;
  if (s.type === 'array') delete s.enum;
  if (typeof s.maturity === 'string') {
    s.description = `${s.description ?? ''} [${s.maturity}]`.trim();
    if (s.maturity === 'deprecated') s.deprecationMessage = `Deprecated: ${s.description}`;
    delete s.maturity;
  }
  if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  for (const value of Object.values(s)) forEditor(value);
}

/** The kind's schema as JSON Schema (the input side: what a user may write), computed once per kind. */
export function jsonSchemaFor(kind: KindDefinition): object {
  let schema = cache.get(kind);
  if (!schema) {
    // `unrepresentable: 'any'` turns transforms and custom checks into `{}` instead of throwing.
    schema = z.toJSONSchema(kind.schema, { io: 'input', unrepresentable: 'any' });
    forEditor(schema);
    cache.set(kind, schema);
  }
  return schema;
}

/** A URI naming the kind's schema (shown as the source in hovers; never fetched). */
export function schemaUriFor(kind: KindDefinition): string {
  return `kube-workbench://schemas/${apiVersionOf(kind)}/${kind.kind}.json`;
}
