// VolumeAttachment (storage.k8s.io/v1, cluster-scoped): the intent to attach a
// volume to a node; an external attacher does the work and writes the status.
// Behaviour follows the upstream volumeattachment strategy and validation (API-SEMANTICS §15.4).
import { z } from 'zod';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { fieldErrors, Path, type FieldError } from '../lib/field.ts';
import { byteLength, nameIsDNSSubdomain } from '../lib/names.ts';
import { deepEqual } from '../lib/json.ts';
import { age } from '../lib/duration.ts';
import { AgeColumnDescription, metaSchemas, NameColumnDescription, objectSchema, validateObjectMeta } from './meta.ts';
import { named, once } from './schema.ts';
import { corev1 } from './generated/corev1.ts';
import { defaultVolumeSourceFields, validateCSIDriverName, validatePersistentVolumeSpec } from './persistentvolume.ts';

const str = (description: string) => z.string().optional().meta({ description });

const storage = 'io.k8s.api.storage.v1';

const volumeAttachmentSchemas = once(() => {
  const { Time } = metaSchemas();
  const { PersistentVolumeSpec } = corev1();
  const VolumeError = named(
    `${storage}.VolumeError`,
    z
      .object({
        time: Time.optional().meta({ description: 'When the error occurred.', format: 'date-time' }),
        message: str('What went wrong; may be logged, so it must hold no sensitive information.'),
        errorCode: z.number().int().optional().meta({
          maturity: 'alpha',
          description: 'gRPC error code of the failure; settable only with the MutableCSINodeAllocatableCount feature gate.',
        }),
      })
      .meta({ description: 'VolumeError captures an error encountered during a volume operation.' }),
  );

  const VolumeAttachmentSource = named(
    `${storage}.VolumeAttachmentSource`,
    z
      .object({
        persistentVolumeName: str('Name of the PersistentVolume to attach.'),
        inlineVolumeSpec: PersistentVolumeSpec.optional().meta({
          maturity: 'beta',
          description: "The volume of a pod's inline volume source, filled only for CSI migration (beta).",
        }),
      })
      .meta({ description: 'The volume to attach; exactly one member must be set.' }),
  );

  const VolumeAttachmentSpec = named(
    `${storage}.VolumeAttachmentSpec`,
    z
      .object({
        attacher: str('Name of the volume driver that must handle the request (the CSI driver name).'),
        source: VolumeAttachmentSource.optional(),
        nodeName: str('Node the volume is to be attached to.'),
      })
      .meta({ description: 'Desired attach/detach behaviour.', required: ['attacher', 'source', 'nodeName'] }),
  );

  const VolumeAttachmentStatus = named(
    `${storage}.VolumeAttachmentStatus`,
    z
      .object({
        attached: z.boolean().optional().meta({ description: 'The volume is attached; set only by the attacher.' }),
        attachmentMetadata: z
          .record(z.string(), z.string())
          .optional()
          .meta({ description: 'Information returned by a successful attach, passed to later mount calls; set only by the attacher.' }),
        attachError: VolumeError.optional().meta({ description: 'Last error during attach, if any; set only by the attacher.' }),
        detachError: VolumeError.optional().meta({ description: 'Last error during detach, if any; set only by the attacher.' }),
      })
      .meta({ description: 'Status of the attach or detach, written by the attacher.', required: ['attached'] }),
  );

  const VolumeAttachmentSchema = objectSchema(
    VolumeAttachmentSpec,
    VolumeAttachmentStatus,
    {},
    'VolumeAttachment captures the intent to attach or detach a volume to or from a node; cluster-scoped.',
  );
  return { VolumeError, VolumeAttachmentSource, VolumeAttachmentSpec, VolumeAttachmentStatus, VolumeAttachmentSchema };
});

// ---- defaults ---------------------------------------------------------------

// `attached` is a non-omitempty bool, so it is always emitted; the inline
// volume's sources get their core defaults (SetObjectDefaults_VolumeAttachment).
function defaults(obj: any) {
  const inline = obj.spec?.source?.inlineVolumeSpec;
  if (inline) defaultVolumeSourceFields(inline);
  obj.status ??= {};
  obj.status.attached ??= false;
}

// ---- validation -------------------------------------------------------------

const MAX_METADATA_BYTES = 256 * (1 << 10);
const MAX_ERROR_MESSAGE = 1024;

function validateVolumeError(e: any, p: Path): FieldError[] {
  if (!e) return [];
  const errs: FieldError[] = [];
  // Upstream checks 1024 but reports the metadata limit (API-SEMANTICS §15.4).
  if (byteLength(e.message ?? '') > MAX_ERROR_MESSAGE) errs.push(fieldErrors.tooLong(p.child('message'), MAX_METADATA_BYTES));
  if (e.errorCode !== undefined && e.errorCode < 0) {
    errs.push(fieldErrors.invalid(p.child('errorCode'), e.errorCode, 'must be between 0 and 2147483647, inclusive'));
  }
  return errs;
}

/** ValidateVolumeAttachment: the checks common to create and update. */
function validateCommon(obj: any): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec ?? {};
  const source = spec.source ?? {};
  if (!spec.attacher) errs.push(fieldErrors.required('spec.attacher'));
  const hasPV = source.persistentVolumeName !== undefined;
  const hasInline = source.inlineVolumeSpec !== undefined;
  const one = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (!hasPV && !hasInline) errs.push(fieldErrors.required('spec.source', one));
  else if (hasPV && hasInline) errs.push(fieldErrors.forbidden('spec.source', one));
  else if (hasPV) {
    if (!source.persistentVolumeName) errs.push(fieldErrors.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  } else errs.push(...validatePersistentVolumeSpec(source.inlineVolumeSpec, new Path(['spec', 'source', 'inlineVolumeSpec'])));
  const nodeName = spec.nodeName ?? '';
  for (const msg of nameIsDNSSubdomain(nodeName, false)) errs.push(fieldErrors.invalid('spec.nodeName', nodeName, msg));

  const status = obj.status ?? {};
  let size = 0;
  for (const [k, v] of Object.entries<string>(status.attachmentMetadata ?? {})) size += byteLength(k) + byteLength(v);
  if (size > MAX_METADATA_BYTES) errs.push(fieldErrors.tooLong('status.attachmentMetadata', MAX_METADATA_BYTES));
  errs.push(...validateVolumeError(status.attachError, new Path(['status', 'attachError'])));
  errs.push(...validateVolumeError(status.detachError, new Path(['status', 'detachError'])));
  return errs;
}

/** ValidateVolumeAttachmentV1: stricter checks applied to newly created v1 objects only. */
function validateV1(obj: any): FieldError[] {
  const errs = validateCSIDriverName(obj.spec?.attacher ?? '', new Path(['spec', 'attacher']));
  const pv = obj.spec?.source?.persistentVolumeName;
  if (pv !== undefined) for (const msg of nameIsDNSSubdomain(pv, false)) errs.push(fieldErrors.invalid('spec.source.persistentVolumeName', pv, msg));
  return errs;
}

/** Go's JSON of an internal struct: field names capitalised (the immutable-spec message shows the internal spec). */
function goStruct(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goStruct);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.charAt(0).toUpperCase() + k.slice(1), goStruct(x)]));
  }
  return v;
}

const goSpec = (spec: any) => ({
  Attacher: spec?.attacher ?? '',
  Source: {
    PersistentVolumeName: spec?.source?.persistentVolumeName ?? null,
    InlineVolumeSpec: spec?.source?.inlineVolumeSpec ? goStruct(spec.source.inlineVolumeSpec) : null,
  },
  NodeName: spec?.nodeName ?? '',
});

const metaOpts = { namespaced: false, nameFn: 'subdomain' } as const;

function validate(obj: any, ctx: { old?: any; subresource?: string }): FieldError[] {
  if (!ctx.old) return [...validateObjectMeta(obj.metadata, metaOpts), ...validateCommon(obj), ...validateV1(obj)];
  const errs = [...validateObjectMeta(obj.metadata, { ...metaOpts, old: ctx.old.metadata }), ...validateCommon(obj)];
  // Spec is read-only; if this ever relaxes, generation handling is needed.
  if (!deepEqual(obj.spec ?? {}, ctx.old.spec ?? {})) errs.push(fieldErrors.invalid('spec', goSpec(obj.spec), 'field is immutable'));
  return errs;
}

/**
 * errorCode is alpha (MutableCSINodeAllocatableCount, off here): a status write
 * may only keep an errorCode the stored object already had.
 */
function prepareForStatusUpdate(obj: any, old: any) {
  for (const k of ['attachError', 'detachError']) {
    const e = obj.status?.[k];
    if (e && e.errorCode !== undefined && old.status?.[k]?.errorCode === undefined) delete e.errorCode;
  }
}

export const volumeAttachmentKind: KindDefinition = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  listKind: 'VolumeAttachmentList',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  shortNames: [],
  categories: [],
  scope: 'Cluster',
  description: 'VolumeAttachment captures the intent to attach or detach a volume to or from a node; cluster-scoped.',
  get schema() {
    return volumeAttachmentSchemas().VolumeAttachmentSchema;
  },
  subresources: { status: { verbs: ['get', 'patch', 'update'] } },
  verbs: STANDARD_VERBS,
  defaults,
  validate,
  strategy: {
    mainResetsFields: ['status'],
    statusResetsFields: ['spec'],
    statusResetsMetadata: ['labels', 'annotations', 'finalizers', 'ownerReferences', 'generation', 'deletionTimestamp'],
    statusOnCreate: 'reset',
    generation: false,
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
    // The status a create leaves behind, whatever the client sent.
    prepareForCreate: (obj) => {
      obj.status = { attached: false };
    },
    prepareForStatusUpdate,
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Attacher', type: 'string', format: 'name', description: 'Name of the volume driver that handles the request.', priority: 0, cell: (o) => o.spec?.attacher ?? '' },
    { name: 'PV', type: 'string', description: 'Name of the PersistentVolume to attach.', priority: 0, cell: (o) => o.spec?.source?.persistentVolumeName ?? '' },
    { name: 'Node', type: 'string', description: 'Node the volume is attached to.', priority: 0, cell: (o) => o.spec?.nodeName ?? '' },
    { name: 'Attached', type: 'boolean', description: 'Whether the volume is attached.', priority: 0, cell: (o) => !!o.status?.attached },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: {
      'metadata.name': (o) => o.metadata?.name ?? '',
      'metadata.namespace': (o) => o.metadata?.namespace ?? '',
    },
    unsupported: 'known-fields',
  },
};
