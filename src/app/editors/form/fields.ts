// The form engine's model: from a kind's Zod schema (plus a small per-kind
// layout) to the field tree the form renders. Every field of the schema is
// in the tree; the layout only orders the common ones first and leaves the
// rest in a collapsed "more fields" part, so nothing is YAML-only. Children
// are built on first use, so a whole PodSpec costs only what is on screen.
// Widgets follow the Go types: strings, numbers, booleans, enumerations (one
// value or, on a list, several), IntOrString, Quantity, string maps, scalar
// lists, lists of objects, nested objects, and YAML for free-form values.
import type { z } from 'zod';
import type { Maturity } from '../../../kinds/kind.ts';
import { childSchema, schemaType, shapeOf, unionOptions, unwrap } from '../../../kinds/schema.ts';

export type Widget =
  | 'text'
  | 'number'
  | 'checkbox'
  | 'select'
  | 'multiSelect'
  | 'intOrString'
  | 'quantity'
  | 'keyValue'
  | 'scalarList'
  | 'objectList'
  | 'object'
  | 'yaml';

export interface FieldNode {
  /** Name of the property. */
  name: string;
  /** Schema path with `[]` for list items: `spec.ingress[].ports[].port`. */
  schemaPath: string;
  label: string;
  help?: string;
  widget: Widget;
  /** Allowed values of a select, or of each item of a multi-select. */
  options?: string[];
  /** For `scalarList`: how one item is typed. */
  itemWidget?: 'text' | 'number';
  maturity?: Maturity;
  readOnly?: boolean;
  /** Shown first; the others wait in the collapsed "more fields" part of their object. */
  primary: boolean;
  /** For `object` and `objectList`: the fields of one object, built on first use. */
  readonly children: FieldNode[];
  schema: z.ZodType;
}

export interface FormLayout {
  /** The fields shown first for a schema path (object or list item), in order; absent: every field of it. */
  show: Record<string, string[]>;
  /** Fields never shown in the form for a schema path (written only by the system, or edited elsewhere). */
  hide?: Record<string, string[]>;
  labels?: Record<string, string>;
  help?: Record<string, string>;
  /** Schema paths the user may not change. */
  readOnly?: string[];
  /** Force a widget for a schema path. */
  widgets?: Record<string, Widget>;
  /** Only the listed fields, none in "more fields" (a form for one aspect, such as the update strategy). */
  exclusive?: boolean;
}

const humanize = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/^./, (c) => c.toUpperCase())
    .replace(/\bIP\b/gi, 'IP')
    .replace(/\bCidr/g, 'CIDR');

const isScalar = (t: string) => t === 'string' || t === 'number' || t === 'int' || t === 'boolean' || t === 'enum' || t === 'literal';

export function widgetFor(schema: z.ZodType): { widget: Widget; options?: string[]; itemWidget?: 'text' | 'number' } {
  const { meta } = unwrap(schema);
  if (meta.format === 'int-or-string') return { widget: 'intOrString' };
  if (meta.format === 'quantity') return { widget: 'quantity' };
  const type = schemaType(schema);
  if (Array.isArray(meta.enum) && type !== 'array') return { widget: 'select', options: meta.enum as string[] };
  switch (type) {
    case 'string':
      return { widget: 'text' };
    case 'number':
    case 'int':
      return { widget: 'number' };
    case 'boolean':
      return { widget: 'checkbox' };
    case 'record': {
      const value = childSchema(schema, '')!;
      const v = widgetFor(value).widget;
      return v === 'text' || v === 'quantity' || v === 'select' ? { widget: 'keyValue' } : { widget: 'yaml' };
    }
    case 'array': {
      const item = childSchema(schema, 0)!;
      // Allowed values of the items (some kinds also state them on the list itself).
      const itemEnum = unwrap(item).meta.enum ?? meta.enum;
      if (Array.isArray(itemEnum)) return { widget: 'multiSelect', options: itemEnum as string[] };
      const itemType = schemaType(item);
      if (itemType === 'object') return { widget: 'objectList' };
      if (itemType === 'number' || itemType === 'int') return { widget: 'scalarList', itemWidget: 'number' };
      if (itemType === 'string') return { widget: 'scalarList', itemWidget: 'text' };
      return { widget: 'yaml' };
    }
    case 'union': {
      const opts = unionOptions(schema) ?? [];
      if (opts.includes('number') && opts.includes('string')) return { widget: 'intOrString' };
      return { widget: opts.every(isScalar) ? 'text' : 'yaml' };
    }
    case 'object':
      return { widget: 'object' };
    default:
      return { widget: 'yaml' };
  }
}

/** Field trees per schema and layout: the edit page mounts and unmounts, the tree stays. */
const cache = new WeakMap<z.ZodType, WeakMap<FormLayout, FieldNode[]>>();

/** The field tree for `schema` at `schemaPath`, following the layout: the layout's fields first, then the rest of the schema's. */
export function buildFields(schema: z.ZodType, layout: FormLayout, schemaPath = ''): FieldNode[] {
  if (schemaPath === '') {
    const perSchema = cache.get(schema) ?? new WeakMap();
    cache.set(schema, perSchema);
    const hit = perSchema.get(layout);
    if (hit) return hit;
    const built = build(schema, layout, '');
    perSchema.set(layout, built);
    return built;
  }
  return build(schema, layout, schemaPath);
}

function build(schema: z.ZodType, layout: FormLayout, schemaPath: string): FieldNode[] {
  const shape = shapeOf(schema);
  if (!shape) return [];
  const listed = layout.show[schemaPath];
  const hidden = new Set(layout.hide?.[schemaPath] ?? []);
  const rest = layout.exclusive && listed ? [] : Object.keys(shape).filter((n) => !listed?.includes(n));
  const names = [...(listed ?? []), ...rest].filter((n) => shape[n] && !hidden.has(n));
  return names.map((name) => {
    const child = shape[name];
    const path = schemaPath ? `${schemaPath}.${name}` : name;
    const { meta } = unwrap(child);
    const auto = widgetFor(child);
    const widget = layout.widgets?.[path] ?? auto.widget;
    let children: FieldNode[] | undefined;
    return {
      name,
      schemaPath: path,
      label: layout.labels?.[path] ?? humanize(name),
      help: layout.help?.[path] ?? (meta.description as string | undefined),
      widget,
      options: auto.options,
      itemWidget: auto.itemWidget,
      maturity: meta.maturity,
      readOnly: layout.readOnly?.includes(path),
      primary: !listed || listed.includes(name),
      schema: child,
      get children() {
        if (!children) {
          if (widget === 'object') children = build(child, layout, path);
          else if (widget === 'objectList') children = build(childSchema(child, 0)!, layout, `${path}[]`);
          else children = [];
        }
        return children;
      },
    } satisfies FieldNode;
  });
}

/** Converts a typed value from an input: numbers stay numbers, `25%` and named ports stay strings. */
export function parseIntOrString(v: string): number | string | undefined {
  const t = v.trim();
  if (t === '') return undefined;
  return /^-?\d+$/.test(t) ? Number(t) : t;
}
