// The form engine's model: from a kind's Zod schema (plus a small per-kind
// layout) to the field tree the form renders. Widgets follow the Go types:
// strings, numbers, booleans, enumerations, IntOrString, Quantity, string
// maps, string lists, lists of objects and nested objects.
import type { z } from 'zod';
import type { Maturity } from '../../../kinds/kind.ts';
import { childSchema, schemaType, shapeOf, unionOptions, unwrap } from '../../../kinds/schema.ts';

export type Widget = 'text' | 'number' | 'checkbox' | 'select' | 'intOrString' | 'quantity' | 'keyValue' | 'stringList' | 'objectList' | 'object';

export interface FieldNode {
  /** Name of the property (or the label of a list item). */
  name: string;
  /** Schema path with `[]` for list items: `spec.ingress[].ports[].port`. */
  schemaPath: string;
  label: string;
  help?: string;
  widget: Widget;
  options?: string[];
  maturity?: Maturity;
  readOnly?: boolean;
  /** For `object` and `objectList`: the fields of one object. */
  children?: FieldNode[];
  schema: z.ZodType;
}

export interface FormLayout {
  /** The fields shown for a schema path (object or list item), in order; absent: every property. */
  show: Record<string, string[]>;
  labels?: Record<string, string>;
  help?: Record<string, string>;
  /** Schema paths the user may not change. */
  readOnly?: string[];
  /** Force a widget for a schema path. */
  widgets?: Record<string, Widget>;
}

const humanize = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/^./, (c) => c.toUpperCase())
    .replace(/\bIP\b/gi, 'IP')
    .replace(/\bCidr/g, 'CIDR');

export function widgetFor(schema: z.ZodType): { widget: Widget; options?: string[] } {
  const { meta } = unwrap(schema);
  if (meta.format === 'int-or-string') return { widget: 'intOrString' };
  if (meta.format === 'quantity') return { widget: 'quantity' };
  if (Array.isArray(meta.enum)) return { widget: 'select', options: meta.enum as string[] };
  const type = schemaType(schema);
  switch (type) {
    case 'string':
      return { widget: 'text' };
    case 'number':
    case 'int':
      return { widget: 'number' };
    case 'boolean':
      return { widget: 'checkbox' };
    case 'record':
      return { widget: 'keyValue' };
    case 'array': {
      const item = childSchema(schema, 0)!;
      return schemaType(item) === 'object' ? { widget: 'objectList' } : { widget: 'stringList' };
    }
    case 'union': {
      const opts = unionOptions(schema) ?? [];
      if (opts.includes('number') && opts.includes('string')) return { widget: 'intOrString' };
      return { widget: 'text' };
    }
    case 'object':
      return { widget: 'object' };
    default:
      return { widget: 'text' };
  }
}

/** The field tree for `schema` at `schemaPath`, following the layout. */
export function buildFields(schema: z.ZodType, layout: FormLayout, schemaPath = ''): FieldNode[] {
  const shape = shapeOf(schema);
  if (!shape) return [];
  const names = layout.show[schemaPath] ?? Object.keys(shape);
  const out: FieldNode[] = [];
  for (const name of names) {
    const child = shape[name];
    if (!child) continue;
    const path = schemaPath ? `${schemaPath}.${name}` : name;
    const { meta } = unwrap(child);
    const { widget: auto, options } = widgetFor(child);
    const widget = layout.widgets?.[path] ?? auto;
    const node: FieldNode = {
      name,
      schemaPath: path,
      label: layout.labels?.[path] ?? humanize(name),
      help: layout.help?.[path] ?? (meta.description as string | undefined),
      widget,
      options,
      maturity: meta.maturity,
      readOnly: layout.readOnly?.includes(path),
      schema: child,
    };
    if (widget === 'object') node.children = buildFields(child, layout, path);
    if (widget === 'objectList') node.children = buildFields(childSchema(child, 0)!, layout, `${path}[]`);
    out.push(node);
  }
  return out;
}

/** Kubernetes field path `spec.ingress[0].ports[1].endPort` -> react-hook-form name `spec.ingress.0.ports.1.endPort`. */
export const formName = (k8sPath: string) => k8sPath.replace(/\[(\d+)\]/g, '.$1');

/** Converts a typed value from an input: numbers stay numbers, `25%` and named ports stay strings. */
export function parseIntOrString(v: string): number | string | undefined {
  const t = v.trim();
  if (t === '') return undefined;
  return /^-?\d+$/.test(t) ? Number(t) : t;
}
