import { describe, expect, it } from 'vitest';
import { Path, renderFieldError, type FieldError } from '../lib/field.ts';
import { volumeAttachmentKind } from './volumeattachment.ts';
import { validatePersistentVolumeSpec } from './persistentvolume.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const lines = (errs: FieldError[]) => errs.map(renderFieldError);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function fullAttachment(): any {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: 'csi-0123456789abcdef', resourceVersion: '7', annotations: { 'csi.alpha.kubernetes.io/node-id': 'worker-1' } },
    spec: { attacher: 'ebs.csi.aws.com', nodeName: 'worker-1', source: { persistentVolumeName: 'pvc-4f1c2e' } },
    status: {
      attached: true,
      attachmentMetadata: { devicePath: '/dev/xvdba' },
      detachError: { time: '2026-01-02T03:04:05Z', message: 'timed out waiting for detach' },
    },
  };
}

const inlineSpec = () => ({
  accessModes: ['ReadWriteOnce'],
  csi: {
    driver: 'pd.csi.storage.gke.io',
    volumeHandle: 'projects/p/zones/z/disks/d',
    fsType: 'ext4',
    readOnly: false,
    volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': 'x' },
    nodeStageSecretRef: { name: 'stage-secret', namespace: 'kube-system' },
  },
  persistentVolumeReclaimPolicy: 'Retain',
  volumeMode: 'Filesystem',
  mountOptions: ['noatime'],
});

function decode(o: any): any {
  const parsed = volumeAttachmentKind.schema.parse(o);
  volumeAttachmentKind.defaults(parsed);
  return parsed;
}
const create = (o: any) => lines(volumeAttachmentKind.validate(decode(o), {}));
const update = (o: any, old: any, subresource?: string) => lines(volumeAttachmentKind.validate(decode(o), { old: decode(old), subresource }));
const withSpec = (spec: any) => ({ metadata: { name: 'va' }, spec });
const validSpec = () => clone(fullAttachment().spec);

describe('VolumeAttachment definition', () => {
  it('describes the resource as API-SEMANTICS §1 does', () => {
    expect(volumeAttachmentKind).toMatchObject({
      group: 'storage.k8s.io',
      version: 'v1',
      plural: 'volumeattachments',
      singular: 'volumeattachment',
      listKind: 'VolumeAttachmentList',
      shortNames: [],
      scope: 'Cluster',
    });
    expect(volumeAttachmentKind.subresources).toEqual({ status: { verbs: ['get', 'patch', 'update'] } });
    expect(volumeAttachmentKind.strategy).toMatchObject({
      mainResetsFields: ['status'],
      statusResetsFields: ['spec'],
      statusResetsMetadata: ['labels', 'annotations', 'finalizers', 'ownerReferences', 'generation', 'deletionTimestamp'],
      statusOnCreate: 'reset',
      generation: false,
      allowUnconditionalUpdate: false,
      returnDeletedObject: true,
    });
  });

  it('accepts realistic attachments (persistent volume and inline CSI volume)', () => {
    expect(create(fullAttachment())).toEqual([]);
    expect(update(fullAttachment(), fullAttachment())).toEqual([]);
    expect(update(fullAttachment(), fullAttachment(), 'status')).toEqual([]);
    expect(create(withSpec({ attacher: 'pd.csi.storage.gke.io', nodeName: 'n1', source: { inlineVolumeSpec: inlineSpec() } }))).toEqual([]);
  });
});

describe('VolumeAttachment schema', () => {
  it('strips unknown fields', () => {
    const o = fullAttachment();
    o.spec.source.bogus = 1;
    o.status.attachError = { message: 'x', extra: true };
    const parsed: any = volumeAttachmentKind.schema.parse(o);
    expect(parsed.spec.source).toEqual({ persistentVolumeName: 'pvc-4f1c2e' });
    expect(parsed.status.attachError).toEqual({ message: 'x' });
  });

  it('rejects wrong JSON types', () => {
    expect(volumeAttachmentKind.schema.safeParse({ status: { attached: 'yes' } }).success).toBe(false);
    expect(volumeAttachmentKind.schema.safeParse({ status: { attachError: { errorCode: 'x' } } }).success).toBe(false);
    expect(volumeAttachmentKind.schema.safeParse(withSpec({ source: { inlineVolumeSpec: { accessModes: 'ReadWriteOnce' } } })).success).toBe(false);
    expect(volumeAttachmentKind.schema.safeParse(withSpec({ source: { inlineVolumeSpec: { csi: { readOnly: 'no' } } } })).success).toBe(false);
  });
});

describe('VolumeAttachment defaults and strategy', () => {
  it('always emits status.attached and has no other defaults', () => {
    const o: any = withSpec(validSpec());
    volumeAttachmentKind.defaults(o);
    expect(o.status).toEqual({ attached: false });
    expect(o.spec).toEqual(validSpec());
    const again = clone(o);
    volumeAttachmentKind.defaults(again);
    expect(again).toEqual(o);
  });

  it('resets status on create', () => {
    const o = decode(fullAttachment());
    volumeAttachmentKind.strategy.prepareForCreate!(o);
    expect(o.status).toEqual({ attached: false });
  });

  it('clears a new alpha errorCode on status writes but keeps one already stored', () => {
    const old = decode(fullAttachment());
    const o = decode(fullAttachment());
    o.status.attachError = { message: 'failed', errorCode: 5 };
    volumeAttachmentKind.strategy.prepareForStatusUpdate!(o, old);
    expect(o.status.attachError).toEqual({ message: 'failed' });
    const stored = decode(fullAttachment());
    stored.status.detachError.errorCode = 4;
    const next = decode(fullAttachment());
    next.status.detachError.errorCode = 9;
    volumeAttachmentKind.strategy.prepareForStatusUpdate!(next, stored);
    expect(next.status.detachError.errorCode).toBe(9);
  });
});

describe('VolumeAttachment validation', () => {
  it('checks the name', () => {
    expect(create({ ...fullAttachment(), metadata: { name: 'VA_1' } })).toEqual([`metadata.name: Invalid value: "VA_1": ${SUBDOMAIN_MSG}`]);
  });

  it('requires the attacher (reported twice when empty, plus the subdomain check)', () => {
    expect(create(withSpec({ ...validSpec(), attacher: '' }))).toEqual([
      'spec.attacher: Required value',
      'spec.attacher: Required value',
      `spec.attacher: Invalid value: "": ${SUBDOMAIN_MSG}`,
    ]);
    expect(create(withSpec({ ...validSpec(), attacher: 'a'.repeat(64) }))).toEqual(['spec.attacher: Too long: may not be more than 63 bytes']);
    expect(create(withSpec({ ...validSpec(), attacher: 'X_Y' }))).toEqual([`spec.attacher: Invalid value: "X_Y": ${SUBDOMAIN_MSG}`]);
    // Upper case is fine: the subdomain check runs on the lower-cased name.
    expect(create(withSpec({ ...validSpec(), attacher: 'EBS.csi.aws.com' }))).toEqual([]);
  });

  it('requires exactly one source', () => {
    expect(create(withSpec({ ...validSpec(), source: {} }))).toEqual([
      'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ]);
    expect(create(withSpec({ ...validSpec(), source: { persistentVolumeName: 'pv', inlineVolumeSpec: inlineSpec() } }))).toEqual([
      'spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ]);
  });

  it('validates persistentVolumeName', () => {
    expect(create(withSpec({ ...validSpec(), source: { persistentVolumeName: '' } }))).toEqual([
      'spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName',
      `spec.source.persistentVolumeName: Invalid value: "": ${SUBDOMAIN_MSG}`,
    ]);
    expect(create(withSpec({ ...validSpec(), source: { persistentVolumeName: 'PV' } }))).toEqual([
      `spec.source.persistentVolumeName: Invalid value: "PV": ${SUBDOMAIN_MSG}`,
    ]);
  });

  it('validates nodeName as a subdomain (empty fails too)', () => {
    expect(create(withSpec({ ...validSpec(), nodeName: undefined }))).toEqual([`spec.nodeName: Invalid value: "": ${SUBDOMAIN_MSG}`]);
    expect(create(withSpec({ ...validSpec(), nodeName: 'Node_1' }))).toEqual([`spec.nodeName: Invalid value: "Node_1": ${SUBDOMAIN_MSG}`]);
  });

  it('validates the inline volume spec under spec.source.inlineVolumeSpec', () => {
    const spec = (inline: any) => withSpec({ ...validSpec(), source: { inlineVolumeSpec: inline } });
    expect(create(spec({ ...inlineSpec(), csi: { ...inlineSpec().csi, driver: '', volumeHandle: '' } }))).toEqual([
      'spec.source.inlineVolumeSpec.csi.driver: Required value',
      `spec.source.inlineVolumeSpec.csi.driver: Invalid value: "": ${SUBDOMAIN_MSG}`,
      'spec.source.inlineVolumeSpec.csi.volumeHandle: Required value',
    ]);
    expect(create(spec({ ...inlineSpec(), accessModes: ['ReadWriteSometimes'] }))).toEqual([
      'spec.source.inlineVolumeSpec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ]);
    expect(create(spec({ ...inlineSpec(), accessModes: [] }))).toEqual(['spec.source.inlineVolumeSpec.accessModes: Required value']);
    expect(create(spec({ ...inlineSpec(), accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }))).toEqual([
      'spec.source.inlineVolumeSpec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    ]);
    expect(create(spec({ ...inlineSpec(), capacity: { storage: '10Gi' }, persistentVolumeReclaimPolicy: 'Delete' }))).toEqual([
      'spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes',
    ]);
    expect(create(spec({ accessModes: ['ReadWriteOnce'] }))).toEqual([
      'spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec: Required value: must specify a volume type',
    ]);
    expect(create(spec({ ...inlineSpec(), csi: { ...inlineSpec().csi, nodePublishSecretRef: { name: 'Bad_Name' } } }))).toEqual([
      `spec.source.inlineVolumeSpec.csi.nodePublishSecretRef.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`,
      'spec.source.inlineVolumeSpec.csi.nodePublishSecretRef.namespace: Required value',
    ]);
    expect(create(spec({ ...inlineSpec(), volumeMode: 'Raw' }))).toEqual([
      'spec.source.inlineVolumeSpec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
    ]);
  });

  it('validates capacity quantities of a non-inline PersistentVolumeSpec', () => {
    const p = new Path(['spec']);
    expect(lines(validatePersistentVolumeSpec({ ...inlineSpec(), capacity: { storage: '10Gi' } }, p, { inline: false }))).toEqual([]);
    expect(lines(validatePersistentVolumeSpec({ ...inlineSpec(), capacity: { storage: '-1' } }, p, { inline: false }))).toEqual([
      'spec.capacity[storage]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(lines(validatePersistentVolumeSpec({ ...inlineSpec(), capacity: { storage: '0' } }, p, { inline: false }))).toEqual([
      'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
    ]);
  });

  it('limits attachmentMetadata and error messages', () => {
    const big = { ...fullAttachment(), status: { attached: true, attachmentMetadata: { k: 'x'.repeat(262144) } } };
    expect(create(big)).toEqual(['status.attachmentMetadata: Too long: may not be more than 262144 bytes']);
    const msg = { ...fullAttachment(), status: { attachError: { message: 'x'.repeat(1025) }, detachError: { message: 'x'.repeat(1024) } } };
    // Upstream checks 1024 but reports the metadata limit.
    expect(create(msg)).toEqual(['status.attachError.message: Too long: may not be more than 262144 bytes']);
  });

  it('rejects a negative errorCode', () => {
    const o = { ...fullAttachment(), status: { detachError: { errorCode: -1 } } };
    expect(create(o)).toEqual(['status.detachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive']);
    expect(create({ ...fullAttachment(), status: { detachError: { errorCode: 0 } } })).toEqual([]);
  });

  it('keeps the spec immutable on update, rendering the internal struct', () => {
    const o = fullAttachment();
    o.spec.nodeName = 'worker-2';
    expect(update(o, fullAttachment())).toEqual([
      'spec: Invalid value: {"Attacher":"ebs.csi.aws.com","Source":{"PersistentVolumeName":"pvc-4f1c2e","InlineVolumeSpec":null},"NodeName":"worker-2"}: field is immutable',
    ]);
    // The V1-only checks do not run on update.
    const legacy = fullAttachment();
    legacy.spec.attacher = 'X_Y';
    expect(update(legacy, legacy)).toEqual([]);
  });

  it('applies ObjectMeta update rules', () => {
    const o = fullAttachment();
    o.metadata.uid = 'b';
    const old = fullAttachment();
    old.metadata.uid = 'a';
    expect(update(o, old, 'status')).toEqual(['metadata.uid: Invalid value: "b": field is immutable']);
  });
});

describe('VolumeAttachment printing and field selectors', () => {
  const now = new Date('2026-01-04T03:04:05Z');
  it('prints Name, Attacher, PV, Node, Attached, Age', () => {
    const o = decode(fullAttachment());
    o.metadata.creationTimestamp = '2026-01-02T03:04:05Z';
    expect(volumeAttachmentKind.printerColumns.map((c) => [c.name, c.type, c.cell(o, now)])).toEqual([
      ['Name', 'string', 'csi-0123456789abcdef'],
      ['Attacher', 'string', 'ebs.csi.aws.com'],
      ['PV', 'string', 'pvc-4f1c2e'],
      ['Node', 'string', 'worker-1'],
      ['Attached', 'boolean', true],
      ['Age', 'string', '2d'],
    ]);
    expect(volumeAttachmentKind.printerColumns[1].format).toBe('name');
    const inline = decode(withSpec({ attacher: 'a', nodeName: 'n', source: { inlineVolumeSpec: inlineSpec() } }));
    expect(volumeAttachmentKind.printerColumns[2].cell(inline, now)).toBe('');
    expect(volumeAttachmentKind.printerColumns[4].cell(inline, now)).toBe(false);
  });

  it('selects by metadata.name and metadata.namespace', () => {
    const f = volumeAttachmentKind.fieldSelector;
    expect(f.unsupported).toBe('known-fields');
    expect(f.fields['metadata.name'](decode(fullAttachment()))).toBe('csi-0123456789abcdef');
    expect(f.fields['metadata.namespace'](decode(fullAttachment()))).toBe('');
  });
});
