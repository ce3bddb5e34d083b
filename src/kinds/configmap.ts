// v1 ConfigMap (K/pkg/apis/core/validation ValidateConfigMap/Update). Used by
// pods' volumes and env; small, but clients expect it to behave upstream's way.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { maxLenError, regexError } from '../lib/names.ts';
import { age } from '../lib/duration.ts';
import { base64ErrorOffset } from '../lib/base64.ts';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { AgeColumnDescription, NameColumnDescription, objectSchema, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

/** MaxSecretSize: the total of all values. */
export const MaxConfigMapSize = 1 << 20;

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/** IsConfigMapKey (also used for Secret keys and key selectors). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Bytes of a string in UTF-8, counted without encoding it (this runs over every value of a ConfigMap). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A []byte field decodes as Go's JSON decoder reads it, or the body cannot be handled (a 400 naming the byte). */
function base64Decodes(v: string, ctx: z.RefinementCtx) {
  const at = base64ErrorOffset(v);
  if (at >= 0) ctx.addIssue({ code: 'custom', message: `illegal base64 data at input byte ${at}` });
}

/** Bytes of a base64 value once decoded. */
const decodedLength = (b64: string) => {
  // Padding counted by a scan: /=+$/ retries at every '=', quadratic in a value of them (minutes for 1 MB).
  let end = b64.length;
  while (end > 0 && b64.charCodeAt(end - 1) === 0x3d) end--;
  return Math.floor((end * 3) / 4);
};

const immutableMsg = 'field is immutable when `immutable` is set';
const sameMap = (a: unknown, b: unknown) => JSON.stringify(sortMap(a)) === JSON.stringify(sortMap(b));
const sortMap = (m: any) => (m ? Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k]])) : {});

function validateConfigMap(obj: any): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain' });
  let total = 0;
  const data: Record<string, string> = obj.data ?? {};
  const binary: Record<string, string> = obj.binaryData ?? {};
  for (const key of Object.keys(data).sort()) {
    // The path is made only for a key in error: this loop runs over every key of a ConfigMap.
    for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(new Path(['data']).key(key), key, m));
    // An own key of the map: `constructor` or `toString` are keys like any other, not Object's members.
    if (Object.hasOwn(binary, key)) errs.push(fieldErrors.invalid(new Path(['data']).key(key), key, 'duplicate of key present in binaryData'));
    total += utf8Length(data[key]);
  }
  for (const key of Object.keys(binary).sort()) {
    for (const m of isConfigMapKey(key)) errs.push(fieldErrors.invalid(new Path(['binaryData']).key(key), key, m));
    total += decodedLength(binary[key]);
  }
  // Upstream reports the size against the whole object: an empty path.
  if (total > MaxConfigMapSize) errs.push(fieldErrors.tooLong('', MaxConfigMapSize));
  return errs;
}

const configMapSchema = once(() => objectSchema(
  undefined,
  undefined,
  {
    data: z.record(z.string(), z.string()).optional().describe('UTF-8 configuration values by key; keys must not also appear in binaryData.'),
    binaryData: z
      .record(z.string(), z.string().superRefine(base64Decodes))
      .optional()
      .meta({ format: 'byte', description: 'Binary values (base64) by key; keys must not also appear in data.' }),
    immutable: z.boolean().optional().describe('When true, data and binaryData can no longer be changed; the ConfigMap can only be deleted.'),
  },
  'Non-confidential configuration data as key/value pairs, for pods to consume.',
));

export const configMapKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  categories: [],
  scope: 'Namespaced',
  description: 'Non-confidential configuration data as key/value pairs, for pods to consume.',
  get schema() {
    return configMapSchema();
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  defaults() {},
  validate(obj, { old }) {
    if (!old) return validateConfigMap(obj);
    const errs = validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old.metadata });
    if (old.immutable) {
      if (!obj.immutable) errs.push(fieldErrors.forbidden('immutable', immutableMsg));
      if (!sameMap(obj.data, old.data)) errs.push(fieldErrors.forbidden('data', immutableMsg));
      if (!sameMap(obj.binaryData, old.binaryData)) errs.push(fieldErrors.forbidden('binaryData', immutableMsg));
    }
    return [...errs, ...validateConfigMap(obj)];
  },
  strategy: {
    mainResetsFields: [],
    statusResetsFields: [],
    statusResetsMetadata: [],
    statusOnCreate: 'keep',
    generation: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    {
      name: 'Data',
      type: 'string',
      description:
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      priority: 0,
      cell: (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length,
    },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: { 'metadata.name': (o) => o.metadata?.name ?? '', 'metadata.namespace': (o) => o.metadata?.namespace ?? '' },
    unsupported: 'field-label',
  },
};
