// PersistentVolumeSpec, as VolumeAttachment's `source.inlineVolumeSpec`
// carries it. The shape is generated (src/kinds/generated/corev1.ts, every
// upstream source); defaults and validation follow core
// SetDefaults_* and ValidatePersistentVolumeSpec.
import { fieldErrors, Path, type FieldError } from '../lib/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../lib/names.ts';
import { canonicalQuantity, quantityToNumber } from '../lib/quantity.ts';
import { validateNodeSelector, validateQuantity } from './meta.ts';

// Sorted, as upstream lists them (sets.List).
export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
export const VOLUME_MODES = ['Block', 'Filesystem'];

/** The PersistentVolumeSource members, in the order upstream's ValidatePersistentVolumeSpec checks them. */
export const PERSISTENT_VOLUME_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'cinder', 'cephfs', 'fc',
  'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO',
  'local', 'storageos', 'csi', 'iscsi',
] as const;

/** SetDefaults_RBD/ISCSI/AzureDisk/ScaleIO (volume and persistent volume sources alike). Mutates. */
export function defaultVolumeSourceFields(v: any) {
  if (v.iscsi) v.iscsi.iscsiInterface ||= 'default';
  if (v.rbd) {
    v.rbd.pool ||= 'rbd';
    v.rbd.user ||= 'admin';
    v.rbd.keyring ||= '/etc/ceph/keyring';
  }
  if (v.azureDisk) {
    v.azureDisk.cachingMode ??= 'ReadWrite';
    v.azureDisk.fsType ??= 'ext4';
    v.azureDisk.readOnly ??= false;
    v.azureDisk.kind ??= 'Shared';
  }
  if (v.scaleIO) {
    v.scaleIO.storageMode ||= 'ThinProvisioned';
    v.scaleIO.fsType ||= 'xfs';
  }
}

/** ValidateCSIDriverName (core): used for PV csi.driver and VolumeAttachment spec.attacher. */
export function validateCSIDriverName(name: string, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(fieldErrors.required(p));
  if (name.length > 63) errs.push(fieldErrors.tooLong(p, 63));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErrors.invalid(p, name, msg));
  return errs;
}

function validateSecretRef(ref: any, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(fieldErrors.required(p.child('name')));
  else isDNS1123Subdomain(ref.name).forEach((m) => errs.push(fieldErrors.invalid(p.child('name'), ref.name, m)));
  if (!ref.namespace) errs.push(fieldErrors.required(p.child('namespace')));
  else isDNS1123Label(ref.namespace).forEach((m) => errs.push(fieldErrors.invalid(p.child('namespace'), ref.namespace, m)));
  return errs;
}

function validateCSISource(csi: any, p: Path): FieldError[] {
  const errs = validateCSIDriverName(csi.driver ?? '', p.child('driver'));
  if (!csi.volumeHandle) errs.push(fieldErrors.required(p.child('volumeHandle')));
  for (const ref of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef', 'nodeStageSecretRef']) {
    if (csi[ref]) errs.push(...validateSecretRef(csi[ref], p.child(ref)));
  }
  return errs;
}

const INLINE_FORBIDDEN = 'may not be specified in the context of inline volumes';

/**
 * ValidatePersistentVolumeSpec. `inline` (the default) is VolumeAttachment's
 * inlineVolumeSpec: csi required, capacity/claimRef/nodeAffinity forbidden,
 * reclaim policy only Retain.
 */
export function validatePersistentVolumeSpec(spec: any, path: Path, { inline = true }: { inline?: boolean } = {}): FieldError[] {
  const errs: FieldError[] = [];
  const capacity: Record<string, string | number> = spec.capacity ?? {};
  if (inline) {
    if (spec.claimRef) errs.push(fieldErrors.forbidden(path.child('claimRef'), INLINE_FORBIDDEN));
    if (Object.keys(capacity).length) errs.push(fieldErrors.forbidden(path.child('capacity'), INLINE_FORBIDDEN));
    if (!spec.csi) errs.push(fieldErrors.required(path.child('csi'), 'has to be specified in the context of inline volumes'));
  }

  const modes: string[] = spec.accessModes ?? [];
  if (!modes.length) errs.push(fieldErrors.required(path.child('accessModes')));
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(mode)) errs.push(fieldErrors.notSupported(path.child('accessModes'), mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(path.child('accessModes'), 'may not use ReadWriteOncePod with other access modes'));

  if (!inline) {
    const names = Object.keys(capacity);
    if (!names.length) errs.push(fieldErrors.required(path.child('capacity')));
    if (!('storage' in capacity) || names.length > 1) errs.push(fieldErrors.notSupported(path.child('capacity'), capacity, ['storage']));
    for (const name of names.sort()) {
      const p = path.child('capacity').key(name);
      const qErrs = validateQuantity(capacity[name], p);
      errs.push(...qErrs);
      if (!qErrs.length && quantityToNumber(capacity[name]) === 0) errs.push(fieldErrors.invalid(p, canonicalQuantity(capacity[name]), 'must be greater than zero'));
    }
  }

  if (spec.storageClassName) {
    nameIsDNSSubdomain(spec.storageClassName, false).forEach((m) => errs.push(fieldErrors.invalid(path.child('storageClassName'), spec.storageClassName, m)));
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(fieldErrors.notSupported(path.child('volumeMode'), spec.volumeMode, VOLUME_MODES));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy) {
    if (inline && policy !== 'Retain') {
      errs.push(fieldErrors.forbidden(path.child('persistentVolumeReclaimPolicy'), 'may only be Retain in the context of inline volumes'));
    } else if (!inline && !RECLAIM_POLICIES.includes(policy)) {
      errs.push(fieldErrors.notSupported(path.child('persistentVolumeReclaimPolicy'), policy, RECLAIM_POLICIES));
    }
  }
  if (spec.nodeAffinity) {
    if (inline) errs.push(fieldErrors.forbidden(path.child('nodeAffinity'), INLINE_FORBIDDEN));
    else if (!spec.nodeAffinity.required) errs.push(fieldErrors.required(path.child('nodeAffinity', 'required'), 'must specify required node constraints'));
    else errs.push(...validateNodeSelector(spec.nodeAffinity.required, path.child('nodeAffinity', 'required')));
  }
  const present = PERSISTENT_VOLUME_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  if (!present.length) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  for (const s of present.slice(1)) errs.push(fieldErrors.forbidden(path.child(s), 'may not specify more than 1 volume type'));
  if (spec.csi) errs.push(...validateCSISource(spec.csi, path.child('csi')));
  return errs;
}
