// v1 Namespace (K/pkg/registry/core/namespace/strategy.go, core validation).
// spec.finalizers changes only through /finalize; the namespace controller
// uses it to release a terminating namespace.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { isQualifiedName } from '../lib/names.ts';
import { age } from '../lib/duration.ts';
import type { KindDefinition } from './kind.ts';
import { AgeColumnDescription, NameColumnDescription, metaSchemas, objectSchema, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

/** Namespaces the cluster cannot do without. */
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);

const namespaceSchemas = once(() => {
  const { Condition } = metaSchemas();
  const NamespaceSpec = z
    .object({
      finalizers: z.array(z.string()).optional().describe('Must be empty before the namespace is removed; changed through /finalize.'),
    })
    .describe('Desired state of a namespace.');

  const NamespaceStatus = z
    .object({
      phase: z.string().optional().meta({ enum: ['Active', 'Terminating'], description: 'Lifecycle phase of the namespace.' }),
      conditions: z
        .array(Condition)
        .optional()
        .describe('Observations of the namespace, mostly about its deletion.'),
    })
    .describe('Observed state of a namespace.');
  return objectSchema(NamespaceSpec, NamespaceStatus, {}, 'A scope for names; most objects live in one.');
});

const standardFinalizers = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** core validateFinalizerName: a qualified name, and a bare name must be a standard one. */
function validateFinalizerName(name: string, p: Path): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(p, name, m));
  if (!name.includes('/') && !standardFinalizers.includes(name)) {
    errs.push(fieldErrors.invalid(p, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

const metaOpts = { namespaced: false, nameFn: 'label' as const };

export const namespaceKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  categories: [],
  scope: 'Cluster',
  description: 'A scope for names; most objects live in one.',
  get schema() {
    return namespaceSchemas();
  },
  subresources: {
    finalize: { verbs: ['update'] },
    status: { verbs: ['get', 'patch', 'update'] },
  },
  // Namespaces cannot be deleted as a collection.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  defaults(obj) {
    // SetDefaults_Namespace / _NamespaceStatus.
    if (obj.metadata?.name) obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
    obj.status ??= {};
    obj.status.phase ||= 'Active';
  },
  validate(obj, { old, subresource }) {
    if (!old) {
      const errs = validateObjectMeta(obj.metadata, metaOpts);
      for (const f of obj.spec?.finalizers ?? []) errs.push(...validateFinalizerName(f, new Path(['spec', 'finalizers'])));
      return errs;
    }
    const errs = validateObjectMeta(obj.metadata, { ...metaOpts, old: old.metadata });
    if (subresource === 'status') {
      // Upstream's path really has a capital P here.
      const phase = obj.status?.phase ?? '';
      if (!obj.metadata?.deletionTimestamp) {
        if (phase !== 'Active') errs.push(fieldErrors.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
      } else if (phase !== 'Terminating') {
        errs.push(fieldErrors.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
      }
    }
    if (subresource === 'finalize') {
      (obj.spec?.finalizers ?? []).forEach((f: string, i: number) => errs.push(...validateFinalizerName(f, new Path(['spec', 'finalizers']).index(i))));
    }
    return errs;
  },
  strategy: {
    mainResetsFields: ['status'],
    statusResetsFields: ['spec'],
    statusResetsMetadata: [],
    statusOnCreate: 'reset',
    generation: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    prepareForCreate(obj) {
      obj.status = { phase: 'Active' };
      obj.spec ??= {};
      const finalizers: string[] = obj.spec.finalizers ?? [];
      if (!finalizers.includes('kubernetes')) obj.spec.finalizers = [...finalizers, 'kubernetes'];
    },
    prepareForUpdate(obj, old) {
      // Finalizers only change through /finalize.
      obj.spec = { ...obj.spec, finalizers: old.spec?.finalizers };
      if (obj.spec.finalizers === undefined) delete obj.spec.finalizers;
    },
    forbidDelete: (obj) => (IMMORTAL.has(obj.metadata?.name) ? 'this namespace may not be deleted' : undefined),
    // A namespace is removed only once the namespace controller has emptied it
    // and released its `kubernetes` finalizer.
    deletionPending: (obj) => (obj.spec?.finalizers?.length ?? 0) > 0,
    onDeletionStart(obj) {
      obj.status = { ...obj.status, phase: 'Terminating' };
    },
    subresourceWrites: { finalize: ['spec.finalizers'] },
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Status', type: 'string', description: 'The status of the namespace', priority: 0, cell: (o) => o.status?.phase ?? '' },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: { 'metadata.name': (o) => o.metadata?.name ?? '', 'status.phase': (o) => o.status?.phase ?? '' },
    unsupported: 'field-label',
  },
};
