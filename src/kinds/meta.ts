// The pieces every kind shares: ObjectMeta and its validation (apimachinery's
// objectmeta.go), label and node selectors, quantities, int-or-percent. Kinds
// compose these; the messages and paths are upstream's so that kubectl users
// see what kube-apiserver would print.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import {
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  pathSegmentNameErrors,
  pathSegmentPrefixErrors,
  byteLength,
} from '../lib/names.ts';
import { QuantityParseError, canonicalQuantity, parseQuantity, quantityToNumber } from '../lib/quantity.ts';
import { percentErrors } from '../lib/intorstring.ts';
import type { ObjectMetaJSON } from './kind.ts';
import { named, once } from './schema.ts';

export type { ObjectMetaJSON } from './kind.ts';

// ---------------------------------------------------------------------------
// The shared shapes, built on first use (a browser opening a list page needs
// none of them; building every kind's Zod schema took ~150 ms of its start).

/** The shared shapes: `metaSchemas().ObjectMeta`. */
export const metaSchemas = once(() => {
  // ---------------------------------------------------------------------------
  // Scalar shapes (Go types as JSON)

  /** metav1.Time: RFC 3339, second precision. */
  const Time = z.string().meta({ format: 'date-time' });

  /** resource.Quantity: `"100m"`, `"2Gi"`, or a bare number. */
  const Quantity = z.union([z.string(), z.number()]).meta({ format: 'quantity' });

  /** intstr.IntOrString: `1` or `"25%"`. */
  const IntOrString = z.union([z.number().int(), z.string()]).meta({ format: 'int-or-string' });

  /** map[ResourceName]Quantity. */
  const ResourceList = z.record(z.string(), Quantity);

  const StringMap = z.record(z.string(), z.string());

  // ---------------------------------------------------------------------------
  // ObjectMeta

  const OwnerReference = z
    .object({
      apiVersion: z.string().optional().describe('API version of the owner.'),
      kind: z.string().optional().describe('Kind of the owner.'),
      name: z.string().optional().describe('Name of the owner.'),
      uid: z.string().optional().describe('UID of the owner.'),
      controller: z.boolean().optional().describe('True when the owner is the managing controller; at most one reference may be.'),
      blockOwnerDeletion: z
        .boolean()
        .optional()
        .describe('When true, the owner cannot be deleted in the foreground until this reference is removed.'),
    })
    .describe('An object this object depends on; when all owners are gone the object is garbage-collected.');

  const ManagedFieldsEntry = z
    .object({
      manager: z.string().optional().describe('The workflow that manages these fields.'),
      operation: z.string().optional().meta({ enum: ['Apply', 'Update'], description: 'The operation that led to this entry.' }),
      apiVersion: z.string().optional().describe('API version the fields are expressed in.'),
      time: Time.optional().describe('When the entry was last changed.'),
      fieldsType: z.string().optional().meta({ enum: ['FieldsV1'], description: 'Format of fieldsV1; only FieldsV1.' }),
      fieldsV1: z.record(z.string(), z.unknown()).optional().describe('The set of fields owned, in FieldsV1 form.'),
      subresource: z.string().optional().describe('Subresource the update came through, empty for the main resource.'),
    })
    .describe('Field ownership of one manager (server-side apply).');

  const ObjectMeta = z
    .object({
      name: z.string().optional().describe('Unique name of the object within its namespace (or the cluster).'),
      generateName: z.string().optional().describe('Prefix the server uses to generate a unique name when name is empty.'),
      namespace: z.string().optional().describe('Namespace of the object; empty for cluster-scoped kinds.'),
      selfLink: z.string().optional().meta({ maturity: 'deprecated', description: 'Deprecated and never set.' }),
      uid: z.string().optional().describe('Server-assigned unique identifier; read-only.'),
      resourceVersion: z.string().optional().describe('Opaque version of the object for optimistic concurrency and watches.'),
      generation: z.number().int().optional().describe('Sequence number of the desired state; server-maintained.'),
      creationTimestamp: Time.optional().describe('When the object was created; read-only.'),
      deletionTimestamp: Time.optional().describe('When the object will be deleted; set by the server on graceful deletion.'),
      deletionGracePeriodSeconds: z.number().int().optional().describe('Seconds allowed for graceful termination; read-only.'),
      labels: StringMap.optional().describe('Key/value pairs used to organise and select objects.'),
      annotations: StringMap.optional().describe('Non-identifying key/value metadata for tools.'),
      ownerReferences: z.array(OwnerReference).optional().describe('Objects this object depends on.'),
      finalizers: z.array(z.string()).optional().describe('Conditions that must be cleared before the object is removed.'),
      managedFields: z.array(ManagedFieldsEntry).optional().describe('Field ownership records; maintained by the server.'),
    })
    .describe('Standard object metadata.');

  /** metav1.Condition as the apps and core status types carry it (type, status, reason, message, transition time). */
  const Condition = z.object({
    type: z.string().optional().describe('Condition type.'),
    status: z.string().optional().meta({ enum: ['True', 'False', 'Unknown'], description: 'Status of the condition.' }),
    lastTransitionTime: Time.optional().describe('Last time the status changed.'),
    reason: z.string().optional().describe('Reason of the last transition.'),
    message: z.string().optional().describe('Details of the last transition.'),
  });

  const ListMeta = z
    .object({
      resourceVersion: z.string().optional().describe('Version of the list, for watches.'),
      continue: z.string().optional().describe('Token to fetch the next page.'),
      remainingItemCount: z.number().int().optional().describe('Items left after this page, when known.'),
      selfLink: z.string().optional().meta({ maturity: 'deprecated', description: 'Deprecated and never set.' }),
    })
    .describe('Standard list metadata.');

  // ---------------------------------------------------------------------------
  // Selectors

  const LabelSelectorRequirement = z
    .object({
      key: z.string().optional().describe('The label key the requirement applies to.'),
      operator: z
        .string()
        .optional()
        .meta({ enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'], description: "The key's relation to the values." }),
      values: z.array(z.string()).optional().describe('Values for In/NotIn; must be empty for Exists/DoesNotExist.'),
    })
    .describe('A label requirement: key, operator and values.');

  const LabelSelector = z
    .object({
      matchLabels: StringMap.optional().describe('Labels that must all be present with these values.'),
      matchExpressions: z.array(LabelSelectorRequirement).optional().describe('Requirements that must all hold.'),
    })
    .describe('A label query; all terms are ANDed, an empty selector matches everything.');

  const NodeSelectorRequirement = z
    .object({
      key: z.string().optional().describe('The label (or field) key the requirement applies to.'),
      operator: z.string().optional().meta({
        enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'],
        description: "The key's relation to the values.",
      }),
      values: z.array(z.string()).optional().describe('Values; one integer for Gt/Lt, none for Exists/DoesNotExist.'),
    })
    .describe('A node selector requirement.');

  const NodeSelectorTerm = z
    .object({
      matchExpressions: z.array(NodeSelectorRequirement).optional().describe("Requirements on the node's labels."),
      matchFields: z.array(NodeSelectorRequirement).optional().describe("Requirements on the node's fields (metadata.name)."),
    })
    .describe('Requirements that must all hold; an empty term matches no node.');

  const NodeSelector = z
    .object({
      nodeSelectorTerms: z.array(NodeSelectorTerm).optional().describe('Terms that are ORed.'),
    })
    .describe('A selection of nodes: the union of its terms.');
  // Upstream OpenAPI component names of these shared shapes, so /openapi/v3
  // refers to them as kube-apiserver does (`kubectl explain` prints `<ObjectMeta>`,
  // `<LabelSelector>`, `map[string]Quantity`). The generated core/v1 shapes name themselves.
  const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
  named(`${meta}.ObjectMeta`, ObjectMeta);
  named(`${meta}.ListMeta`, ListMeta);
  named(`${meta}.OwnerReference`, OwnerReference);
  named(`${meta}.ManagedFieldsEntry`, ManagedFieldsEntry);
  named(`${meta}.LabelSelector`, LabelSelector);
  named(`${meta}.LabelSelectorRequirement`, LabelSelectorRequirement);
  named(`${meta}.Time`, Time);
  named('io.k8s.apimachinery.pkg.api.resource.Quantity', Quantity);
  named('io.k8s.apimachinery.pkg.util.intstr.IntOrString', IntOrString);
  named('io.k8s.api.core.v1.NodeSelector', NodeSelector);
  named('io.k8s.api.core.v1.NodeSelectorTerm', NodeSelectorTerm);
  named('io.k8s.api.core.v1.NodeSelectorRequirement', NodeSelectorRequirement);

  return { Time, Quantity, IntOrString, ResourceList, StringMap, OwnerReference, ManagedFieldsEntry, ObjectMeta, Condition, ListMeta, LabelSelectorRequirement, LabelSelector, NodeSelectorRequirement, NodeSelectorTerm, NodeSelector };
});

type Meta = ReturnType<typeof metaSchemas>;

export type OwnerReferenceType = z.infer<Meta['OwnerReference']>;
export type ManagedFieldsEntryType = z.infer<Meta['ManagedFieldsEntry']>;
export type ObjectMetaType = z.infer<Meta['ObjectMeta']>;
export type ListMetaType = z.infer<Meta['ListMeta']>;
export type LabelSelectorType = z.infer<Meta['LabelSelector']>;
export type LabelSelectorRequirementType = z.infer<Meta['LabelSelectorRequirement']>;
export type NodeSelectorType = z.infer<Meta['NodeSelector']>;
export type NodeSelectorRequirementType = z.infer<Meta['NodeSelectorRequirement']>;
export type NodeSelectorTermType = z.infer<Meta['NodeSelectorTerm']>;

// ---------------------------------------------------------------------------
// Top-level object

/**
 * `{apiVersion, kind, metadata, spec?, status?}`; pass `extra` for kinds with
 * top-level data fields (ConfigMap `data`, ControllerRevision `revision`).
 */
export function objectSchema(
  spec?: z.ZodType,
  status?: z.ZodType,
  extra: Record<string, z.ZodType> = {},
  description?: string,
) {
  const shape: Record<string, z.ZodType> = {
    apiVersion: z.string().optional().describe('Versioned schema of this representation of the object.'),
    kind: z.string().optional().describe('The REST resource this object represents.'),
    metadata: metaSchemas().ObjectMeta.optional(),
  };
  if (spec) shape.spec = spec.optional();
  if (status) shape.status = status.optional();
  Object.assign(shape, extra);
  const o = z.object(shape);
  return description ? o.describe(description) : o;
}

/** The `{apiVersion, kind, metadata, items}` list wrapper. */
export function listSchema(item: z.ZodType) {
  return z.object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: metaSchemas().ListMeta.optional(),
    items: z.array(item).optional(),
  });
}

// ---------------------------------------------------------------------------
// Validation helpers

export const IsNegativeErrorMsg = 'must be greater than or equal to 0';
export const FieldImmutableErrorMsg = 'field is immutable';
export const TotalAnnotationSizeLimitB = 256 * (1 << 10);

const sortedKeys = (m: Record<string, unknown> | undefined) => Object.keys(m ?? {}).sort();

export function validateNonnegative(value: number | undefined, path: Path | string): FieldError[] {
  return value !== undefined && value < 0 ? [fieldErrors.invalid(path, value, IsNegativeErrorMsg)] : [];
}

export function validateImmutable(value: unknown, old: unknown, path: Path | string): FieldError[] {
  return deepEq(value, old) ? [] : [fieldErrors.invalid(path, value ?? '', FieldImmutableErrorMsg)];
}

// Small structural equality, so this module needs nothing beyond the lib signatures it names.
function deepEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEq((a as any)[k], (b as any)[k]));
}

/** ValidateLabelName: a qualified name; the path is the map (or `key`), not the entry. */
export function validateLabelName(key: string, path: Path | string): FieldError[] {
  return isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
}

/** ValidateLabels: keys qualified names, values label values (sorted by key, Go iterates randomly). */
export function validateLabels(labels: Record<string, string> | undefined, path: Path | string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of sortedKeys(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(labels![k])) errs.push(fieldErrors.invalid(path, labels![k], m));
  }
  return errs;
}

/** ValidateAnnotations: keys are qualified names once lower-cased; key+value bytes ≤ 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: Path | string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const k of sortedKeys(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, m));
    total += byteLength(k) + byteLength(annotations![k] ?? '');
  }
  if (total > TotalAnnotationSizeLimitB) errs.push(fieldErrors.tooLong(path, TotalAnnotationSizeLimitB));
  return errs;
}

/** ValidateOwnerReferences. Upstream reports the per-reference fields without an index. */
export function validateOwnerReferences(refs: ObjectMetaJSON['ownerReferences'], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const version = (ref.apiVersion ?? '').split('/').at(-1) ?? '';
    if (!version) errs.push(fieldErrors.invalid(path.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(fieldErrors.invalid(path.child('kind'), ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(fieldErrors.invalid(path.child('name'), ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(fieldErrors.invalid(path.child('uid'), ref.uid ?? '', 'uid must not be empty'));
    if (ref.apiVersion === 'v1' && ref.kind === 'Event') {
      errs.push(fieldErrors.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller) {
      const name = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
      } else firstController = name;
    }
  }
  return errs;
}

/** ValidateFinalizers: each a qualified name; orphan and foregroundDeletion exclusive. */
export function validateFinalizers(finalizers: string[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) errs.push(...isQualifiedName(f).map((m) => fieldErrors.invalid(path, f, m)));
  if (finalizers?.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** Go's `%#v` of a []string, as ValidateNoNewFinalizers prints it. */
const goStringSlice = (xs: string[]) => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

function validateManagedFields(entries: unknown[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((raw, i) => {
    const e = (raw ?? {}) as ManagedFieldsEntryType;
    const p = path.index(i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(fieldErrors.invalid(p.child('operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(fieldErrors.invalid(p.child('fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    }
    if ((e.manager ?? '').length > 128) errs.push(fieldErrors.tooLong(p.child('manager'), 128));
    if ((e.subresource ?? '').length > 256) errs.push(fieldErrors.tooLong(p.child('subresource'), 256));
  });
  return errs;
}

export type NameFn = 'subdomain' | 'label' | ((name: string, prefix: boolean) => string[]);

const nameFnOf = (fn: NameFn) =>
  fn === 'subdomain' ? nameIsDNSSubdomain : fn === 'label' ? nameIsDNSLabel : fn;

export interface ObjectMetaValidationOptions {
  namespaced: boolean;
  nameFn: NameFn;
  /** The stored metadata: present means update, which applies ValidateObjectMetaUpdate instead. */
  old?: ObjectMetaJSON;
  /** Defaults to `metadata`. */
  path?: Path;
}

/**
 * ValidateObjectMeta (create) or ValidateObjectMetaUpdate (update, when `old`
 * is given) — the latter is what upstream strategies run on update; it does
 * not re-check name format. `metadata.resourceVersion` emptiness on update is
 * left to the server (§7.2: unconditional updates get the stored version first).
 */
export function validateObjectMeta(meta: ObjectMetaJSON | undefined, opts: ObjectMetaValidationOptions): FieldError[] {
  const m = meta ?? {};
  const path = opts.path ?? new Path(['metadata']);
  const errs: FieldError[] = [];
  if (opts.old) {
    const old = opts.old;
    if (old.deletionTimestamp) {
      const before = new Set(old.finalizers ?? []);
      const extra = [...new Set((m.finalizers ?? []).filter((f) => !before.has(f)))].sort();
      if (extra.length) {
        errs.push(
          fieldErrors.forbidden(
            path.child('finalizers'),
            `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
          ),
        );
      }
    }
    if ((m.generation ?? 0) < (old.generation ?? 0)) {
      errs.push(fieldErrors.invalid(path.child('generation'), m.generation ?? 0, 'must not be decremented'));
    }
    for (const f of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      errs.push(...validateImmutable(m[f], old[f], path.child(f)));
    }
  } else {
    errs.push(...validateNames(m, path, nameFnOf(opts.nameFn)));
    if (opts.namespaced) {
      if (!m.namespace) errs.push(fieldErrors.required(path.child('namespace')));
      else for (const msg of isDNS1123Label(m.namespace)) errs.push(fieldErrors.invalid(path.child('namespace'), m.namespace, msg));
    } else if (m.namespace) {
      errs.push(fieldErrors.forbidden(path.child('namespace'), 'not allowed on this type'));
    }
    errs.push(...validateNonnegative(m.generation, path.child('generation')));
  }
  errs.push(...validateLabels(m.labels, path.child('labels')));
  errs.push(...validateAnnotations(m.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, path.child('ownerReferences')));
  if (!opts.old) errs.push(...validateFinalizers(m.finalizers, path.child('finalizers')));
  errs.push(...validateManagedFields(m.managedFields, path.child('managedFields')));
  return errs;
}

function validateNames(m: ObjectMetaJSON, path: Path, fn: (name: string, prefix: boolean) => string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (m.generateName) for (const msg of fn(m.generateName, true)) errs.push(fieldErrors.invalid(path.child('generateName'), m.generateName, msg));
  if (!m.name) errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  else for (const msg of fn(m.name, false)) errs.push(fieldErrors.invalid(path.child('name'), m.name, msg));
  return errs;
}

/**
 * The generic check kube-apiserver runs on create only after the strategy's
 * validation passed (`rest.BeforeCreate`): names must be usable as a URL path
 * segment. A generateName prefix may be `.`/`..` (a suffix follows).
 */
export function validateNameSegments(meta: ObjectMetaJSON | undefined, path: Path = new Path(['metadata'])): FieldError[] {
  return validateNames(meta ?? {}, path, (name, prefix) => (prefix ? pathSegmentPrefixErrors(name) : pathSegmentNameErrors(name)));
}

// ---------------------------------------------------------------------------
// Selectors

export interface LabelSelectorValidationOptions {
  /** Upstream's AllowInvalidLabelValueInSelector (kept for stored objects). */
  allowInvalidLabelValueInSelector?: boolean;
}

export function validateLabelSelector(
  sel: LabelSelectorType | undefined,
  path: Path,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, path.child('matchLabels'));
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const p = path.child('matchExpressions').index(i);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (!values.length) errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length) errs.push(fieldErrors.forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(p.child('operator'), req.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(req.key ?? '', p.child('key')));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(p.child('values').index(j), v, msg));
      });
    }
  });
  return errs;
}

/** core ValidateNodeSelector (required node affinity, PersistentVolume node affinity). */
export function validateNodeSelector(sel: NodeSelectorType | undefined, path: Path): FieldError[] {
  if (!sel) return [];
  const termsPath = path.child('nodeSelectorTerms');
  const terms = sel.nodeSelectorTerms ?? [];
  if (!terms.length) return [fieldErrors.required(termsPath, 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  terms.forEach((term, i) => errs.push(...validateNodeSelectorTerm(term, termsPath.index(i))));
  return errs;
}

export function validateNodeSelectorTerm(term: NodeSelectorTermType, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (term.matchExpressions ?? []).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(r, path.child('matchExpressions').index(j))));
  (term.matchFields ?? []).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(r, path.child('matchFields').index(j))));
  return errs;
}

export function validateNodeSelectorRequirement(req: NodeSelectorRequirementType, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (!values.length) errs.push(fieldErrors.required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length) errs.push(fieldErrors.forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(fieldErrors.required(path.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('operator'), req.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(req.key ?? '', path.child('key')));
  values.forEach((v, j) => {
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path.child('values').index(j), v, msg));
  });
  return errs;
}

/** matchFields: only `metadata.name`, only In/NotIn with exactly one node name. */
export function validateNodeFieldSelectorRequirement(req: NodeSelectorRequirementType, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) {
      errs.push(fieldErrors.required(path.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else errs.push(fieldErrors.invalid(path.child('operator'), req.operator ?? '', 'not a valid selector operator'));
  if (req.key !== 'metadata.name') errs.push(fieldErrors.invalid(path.child('key'), req.key ?? '', 'not a valid field selector key'));
  else {
    values.forEach((v, j) => {
      for (const msg of nameIsDNSSubdomain(v, false)) errs.push(fieldErrors.invalid(path.child('values').index(j), v, msg));
    });
  }
  return errs;
}

// ---------------------------------------------------------------------------
// Quantities and int-or-percent

/** Upstream's decode error for a malformed quantity (a 400 there; we can only report it here). */
export const QuantityFormatMsg = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * A resource quantity: must parse and (for resources) be ≥ 0. The bad value of
 * the negative case is the canonical form, as upstream prints `value.String()`.
 */
export function validateQuantity(value: string | number | undefined, path: Path | string, opts: { nonNegative?: boolean } = {}): FieldError[] {
  if (value === undefined) return [];
  try {
    parseQuantity(value as any);
  } catch (e) {
    return [fieldErrors.invalid(path, value, e instanceof QuantityParseError ? e.message : QuantityFormatMsg)];
  }
  if ((opts.nonNegative ?? true) && quantityToNumber(value as any) < 0) {
    return [fieldErrors.invalid(path, canonicalQuantity(value), IsNegativeErrorMsg)];
  }
  return [];
}

/** Each quantity of a ResourceList, path `<path>.<resource>`. */
export function validateResourceList(list: Record<string, string | number> | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of sortedKeys(list)) errs.push(...validateQuantity(list![k], path.child(k)));
  return errs;
}

/** apps ValidatePositiveIntOrPercent: an int ≥ 0 or `<digits>%`. */
export function validateIntOrPercent(value: number | string | undefined, path: Path | string): FieldError[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return percentErrors(value).map((m: string) => fieldErrors.invalid(path, value, m));
  return validateNonnegative(value, path);
}

/** apps IsNotMoreThan100Percent. */
export function validateNotMoreThan100Percent(value: number | string | undefined, path: Path | string): FieldError[] {
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value)) return [];
  return Number(value.slice(0, -1)) > 100 ? [fieldErrors.invalid(path, value, 'must not be greater than 100%')] : [];
}

// ---------------------------------------------------------------------------
// Printer columns every kind shares (descriptions are upstream's swagger docs)

export const NameColumnDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const AgeColumnDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
