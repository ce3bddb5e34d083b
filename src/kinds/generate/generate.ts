// Generates src/kinds/generated/corev1.ts, the Zod shapes of core/v1 PodSpec,
// PodStatus and PersistentVolumeSpec with everything they reach, from a
// machine-readable copy of the Kubernetes API: @kubernetes/client-node built
// from the Kubernetes 1.32 OpenAPI (installed as `kubernetes-api-1.32`). Its
// model classes give each type's fields and wire types (attributeTypeMap), its
// declarations give descriptions and which fields are required. overlay.ts
// adds what the client drops (Quantity, enums). For the next Kubernetes
// version, point the alias at the matching client and run
//   npx tsx src/kinds/generate/generate.ts
// generate.test.ts checks that the committed file equals a fresh generation.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENUMS, HAND_TYPES, QUANTITY_FIELDS, ROOTS } from './overlay.ts';

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve('kubernetes-api-1.32/package.json'));
const modelsDir = join(pkgDir, 'dist', 'gen', 'models');
export const OUTPUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'generated', 'corev1.ts');

interface Attr {
  name: string;
  baseName: string;
  type: string;
  format: string;
}
interface ApiType {
  name: string;
  description: string;
  fields: { name: string; type: string; format: string; required: boolean; description: string }[];
}

/** JSDoc text with the generator's escapes undone. */
const unescape = (s: string) => s.replace(/\\(['"])/g, '$1').trim();

function readDeclarations(name: string): { description: string; fields: Map<string, { required: boolean; description: string }> } {
  const src = readFileSync(join(modelsDir, `${name}.d.ts`), 'utf8');
  const fields = new Map<string, { required: boolean; description: string }>();
  let description = '';
  let comment: string[] | undefined;
  let doc = '';
  for (const line of src.split('\n')) {
    const t = line.trim();
    if (t === '/**') comment = [];
    else if (t === '*/' && comment) (doc = comment.join(' ')), (comment = undefined);
    else if (comment) comment.push(t.replace(/^\* ?/, ''));
    else if (t.startsWith('export declare class')) (description = doc), (doc = '');
    else {
      const m = /^'([^']+)'(\??): /.exec(t);
      if (m) fields.set(m[1], { required: m[2] !== '?', description: unescape(doc) });
      doc = '';
    }
  }
  return { description: unescape(description), fields };
}

function readType(name: string): ApiType {
  const js = readFileSync(join(modelsDir, `${name}.js`), 'utf8');
  const map = /\.attributeTypeMap = (\[[\s\S]*?\]);/.exec(js);
  if (!map) throw new Error(`no attributeTypeMap in ${name}`);
  const attrs = JSON.parse(map[1]) as Attr[];
  const decl = readDeclarations(name);
  return {
    name,
    description: decl.description,
    fields: attrs.map((a) => ({
      name: a.baseName,
      type: a.type,
      format: a.format,
      required: decl.fields.get(a.name)?.required ?? false,
      description: decl.fields.get(a.name)?.description ?? '',
    })),
  };
}

/** Type names a wire type refers to (V1Foo in `Array<V1Foo>` etc.). */
const refsOf = (type: string) => [...type.matchAll(/\b(V\d\w*|Core\w+)\b/g)].map((m) => m[1]);

/** client-node's type name -> the upstream OpenAPI component name. */
export const componentName = (name: string) => `io.k8s.api.core.v1.${name.replace(/^(V1|CoreV1)/, '')}`;
const constName = (name: string) => name.replace(/^(V1|CoreV1)/, '');

const q = (s: string) => JSON.stringify(s);

/** Maturity from upstream's wording in the description. */
function maturity(description: string): string | undefined {
  if (/^Deprecated|\bDeprecated:|\bdeprecated\b.*\bno longer\b|is deprecated/.test(description)) return 'deprecated';
  if (/alpha field|alpha-level|\(Alpha\)|in alpha/i.test(description)) return 'alpha';
  if (/beta field|beta-level|\(Beta\)/i.test(description)) return 'beta';
  return undefined;
}

function metaOf(entries: Record<string, unknown>): string {
  const parts = Object.entries(entries)
    .filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return parts.length ? `.meta({ ${parts.join(', ')} })` : '';
}

function zodType(type: string, format: string, key: string): string {
  const quantity = QUANTITY_FIELDS[key];
  if (quantity === 'map') return 'ResourceList';
  if (quantity === 'scalar') return 'Quantity';
  const enumValues = ENUMS[key];
  let m: RegExpExecArray | null;
  if ((m = /^Array<(.+)>$/.exec(type))) {
    const item = zodType(m[1], '', '');
    return `z.array(${enumValues ? `${item}.meta({ enum: ${JSON.stringify(enumValues)} })` : item})`;
  }
  if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) return `z.record(z.string(), ${zodType(m[1], '', '')})`;
  switch (type) {
    case 'string':
      return 'z.string()';
    case 'number':
      return format === 'double' ? 'z.number()' : 'z.number().int()';
    case 'boolean':
      return 'z.boolean()';
    case 'Date':
      return 'Time';
    case 'IntOrString':
      return 'IntOrString';
    case 'any':
      return 'z.unknown()';
  }
  if (HAND_TYPES[type]) return HAND_TYPES[type];
  return constName(type);
}

export function generate(): string {
  const types = new Map<string, ApiType>();
  const order: string[] = [];
  const visit = (name: string) => {
    if (types.has(name) || HAND_TYPES[name]) return;
    const t = readType(name);
    types.set(name, t);
    for (const f of t.fields) for (const r of refsOf(f.type)) visit(r);
    order.push(name); // after its dependencies: a const is declared before use
  };
  for (const r of ROOTS) visit(r);
  // An overlay entry that names no generated field is stale (renamed or removed upstream): say so.
  const stale = [...Object.keys(QUANTITY_FIELDS), ...Object.keys(ENUMS)].filter((key) => {
    const [type, field] = key.split('.');
    return !types.get(type)?.fields.some((f) => f.name === field);
  });
  if (stale.length) throw new Error(`overlay.ts names fields the API does not have: ${stale.join(', ')}`);
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  const spec = /OpenAPI spec version: (v[\d.]+)/.exec(readFileSync(join(modelsDir, 'V1PodSpec.d.ts'), 'utf8'))?.[1];
  const out: string[] = [
    `// GENERATED by src/kinds/generate/generate.ts from @kubernetes/client-node ${version}`,
    `// (Kubernetes OpenAPI ${spec}) and src/kinds/generate/overlay.ts. Do not edit: regenerate.`,
    `// Shapes only: every field is optional here (the kinds' validators report`,
    `// missing required fields with Kubernetes paths); \`required\` is published as metadata.`,
    `// Built on first use, as every kind's schema (see once() in ../schema.ts).`,
    `import { z } from 'zod';`,
    `import { metaSchemas } from '../meta.ts';`,
    `import { named, once } from '../schema.ts';`,
    '',
    '/** The generated shapes: `corev1().PodSpec`. */',
    'export const corev1 = once(() => {',
    '  const { IntOrString, LabelSelector, NodeSelector, NodeSelectorTerm, ObjectMeta, Quantity, ResourceList, Time } = metaSchemas();',
    '',
  ];
  for (const name of order) {
    const t = types.get(name)!;
    out.push(`  const ${constName(name)} = named(`, `    ${q(componentName(name))},`, `    z`, `      .object({`);
    for (const f of t.fields) {
      const key = `${name}.${f.name}`;
      const zt = zodType(f.type, f.format, key);
      const isScalarEnum = ENUMS[key] && !f.type.startsWith('Array<');
      const meta = metaOf({ description: f.description, maturity: maturity(f.description), enum: isScalarEnum ? ENUMS[key] : undefined });
      out.push(`        ${/^\w+$/.test(f.name) ? f.name : q(f.name)}: ${zt}.optional()${meta},`);
    }
    const required = t.fields.filter((f) => f.required).map((f) => f.name);
    out.push(`      })`, `      ${metaOf({ description: t.description, required }) || '.meta({})'},`, `  );`, '');
  }
  out.push(`  return { ${order.map(constName).join(', ')} };`, '});', '', 'export type CoreV1 = ReturnType<typeof corev1>;', '');
  return out.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OUTPUT, generate());
  console.log(`wrote ${OUTPUT}`);
}
