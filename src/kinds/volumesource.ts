// Validation of a pod Volume's source (core validateVolumeSource and the
// validators of each source), with kube-apiserver's field paths and messages.
// The shapes are generated (src/kinds/generated/corev1.ts).
import { fieldErrors, Path, type FieldError } from '../lib/field.ts';
import { isDNS1123Label, nameIsDNSSubdomain } from '../lib/names.ts';
import { validateQuantity } from './meta.ts';
import { validateCSIDriverName } from './persistentvolume.ts';

/** The sources in the order upstream's validateVolumeSource checks them (the first one found is "the" source). */
export const VOLUME_SOURCE_ORDER = [
  'hostPath', 'emptyDir', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'quobyte', 'cinder', 'cephfs', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
] as const;

export const fileModeMsg = 'must be a number between 0 and 0777 (octal), both inclusive';
const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];
const DOWNWARD_VOLUME_FIELDS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];

const required = (src: any, sp: Path, ...fields: string[]) => fields.filter((f) => !src[f]).map((f) => fieldErrors.required(sp.child(f)));

function validateDefaultMode(mode: number | undefined, p: Path): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [fieldErrors.invalid(p, mode, fileModeMsg)] : [];
}

/** validateLocalDescendingPath: relative, no `..` element. */
function validateLocalDescendingPath(path: string, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (path.startsWith('/')) errs.push(fieldErrors.invalid(p, path, 'must be a relative path'));
  if (path.split('/').includes('..')) errs.push(fieldErrors.invalid(p, path, "must not contain '..'"));
  return errs;
}

export function validateKeyToPaths(items: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (items ?? []).forEach((kp, i) => {
    const ip = p.index(i);
    if (!kp.key) errs.push(fieldErrors.required(ip.child('key')));
    if (!kp.path) errs.push(fieldErrors.required(ip.child('path')));
    else errs.push(...validateLocalDescendingPath(kp.path, ip.child('path')));
    if (kp.mode !== undefined && (kp.mode > 0o777 || kp.mode < 0)) errs.push(fieldErrors.invalid(ip.child('mode'), kp.mode, fileModeMsg));
  });
  return errs;
}

function validateDownwardAPIFiles(items: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (items ?? []).forEach((f, i) => {
    const ip = p.index(i);
    if (!f.path) errs.push(fieldErrors.required(ip.child('path')));
    else errs.push(...validateLocalDescendingPath(f.path, ip.child('path')));
    if (f.mode !== undefined && (f.mode > 0o777 || f.mode < 0)) errs.push(fieldErrors.invalid(ip.child('mode'), f.mode, fileModeMsg));
    if (f.fieldRef) {
      const fp = ip.child('fieldRef');
      if (!f.fieldRef.apiVersion) errs.push(fieldErrors.required(fp.child('apiVersion')));
      const path: string = f.fieldRef.fieldPath ?? '';
      // Up to the first '[' by indexOf: /\[.*$/ retries at every '[' before a newline, quadratic in a long path.
      const base = path.includes('[') ? path.slice(0, path.indexOf('[')) : path;
      if (!path) errs.push(fieldErrors.required(fp.child('fieldPath')));
      else if (!DOWNWARD_VOLUME_FIELDS.includes(base) || (path !== base && !/^metadata\.(labels|annotations)\['.+'\]$/.test(path))) {
        errs.push(fieldErrors.notSupported(fp.child('fieldPath'), path, DOWNWARD_VOLUME_FIELDS));
      }
      if (f.resourceFieldRef) errs.push(fieldErrors.invalid(ip, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
    } else if (f.resourceFieldRef) {
      const rp = ip.child('resourceFieldRef');
      if (!f.resourceFieldRef.resource) errs.push(fieldErrors.required(rp.child('resource')));
      if (!f.resourceFieldRef.containerName) errs.push(fieldErrors.required(rp.child('containerName')));
    } else {
      errs.push(fieldErrors.required(ip, 'one of fieldRef and resourceFieldRef is required'));
    }
  });
  return errs;
}

function validateProjectedSources(sources: any[] | undefined, projected: Path): FieldError[] {
  const p = projected.child('sources');
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  (sources ?? []).forEach((src, i) => {
    const ip = p.index(i);
    const kinds = ['secret', 'downwardAPI', 'configMap', 'serviceAccountToken', 'clusterTrustBundle'].filter((k) => src[k]);
    if (kinds.length > 1) errs.push(fieldErrors.forbidden(ip, 'may not specify more than 1 volume type per source'));
    // A path claimed twice is reported on the projected volume, with the source's name (or the path).
    const seen = (path: string, value: string) => {
      if (paths.has(path)) errs.push(fieldErrors.invalid(projected, value, 'conflicting duplicate paths'));
      paths.add(path);
    };
    if (src.secret) {
      const sp = ip.child('secret');
      if (!src.secret.name) errs.push(fieldErrors.required(sp.child('name')));
      errs.push(...validateKeyToPaths(src.secret.items, sp.child('items')));
      (src.secret.items ?? []).forEach((it: any) => it.path && seen(it.path, src.secret.name ?? ''));
    }
    if (src.configMap) {
      const cp = ip.child('configMap');
      if (!src.configMap.name) errs.push(fieldErrors.required(cp.child('name')));
      errs.push(...validateKeyToPaths(src.configMap.items, cp.child('items')));
      (src.configMap.items ?? []).forEach((it: any) => it.path && seen(it.path, src.configMap.name ?? ''));
    }
    if (src.downwardAPI) {
      const dp = ip.child('downwardAPI');
      errs.push(...validateDownwardAPIFiles(src.downwardAPI.items, dp.child('items')));
      (src.downwardAPI.items ?? []).forEach((it: any) => it.path && seen(it.path, it.path));
    }
    if (src.serviceAccountToken) {
      const tp = ip.child('serviceAccountToken');
      const t = src.serviceAccountToken;
      if (t.expirationSeconds < 10 * 60) errs.push(fieldErrors.invalid(tp.child('expirationSeconds'), t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (t.expirationSeconds > 2 ** 32) errs.push(fieldErrors.invalid(tp.child('expirationSeconds'), t.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
      if (!t.path) errs.push(fieldErrors.required(tp.child('path')));
      else {
        errs.push(...validateLocalDescendingPath(t.path, tp.child('path')));
        seen(t.path, t.path);
      }
    }
    if (src.clusterTrustBundle) {
      const bp = ip.child('clusterTrustBundle');
      const b = src.clusterTrustBundle;
      if (!b.path) errs.push(fieldErrors.required(bp.child('path')));
      else seen(b.path, b.path);
      if (!b.name && !b.signerName) errs.push(fieldErrors.required(bp, 'either name or signerName must be set'));
      if (b.name && (b.signerName || b.labelSelector)) errs.push(fieldErrors.invalid(bp.child('name'), b.name, 'name and signerName may not be used together'));
    }
  });
  return errs;
}

function validateEphemeral(src: any, sp: Path): FieldError[] {
  const t = src.volumeClaimTemplate;
  if (!t) return [fieldErrors.required(sp.child('volumeClaimTemplate'))];
  const errs: FieldError[] = [];
  const tp = sp.child('volumeClaimTemplate');
  // The template's metadata may carry only labels and annotations.
  for (const k of Object.keys(t.metadata ?? {})) {
    if (k !== 'labels' && k !== 'annotations') errs.push(fieldErrors.forbidden(tp.child('metadata', k), 'must not be set in a volume claim template'));
  }
  const spec = t.spec ?? {};
  const cp = tp.child('spec');
  if (!spec.accessModes?.length) errs.push(fieldErrors.required(cp.child('accessModes'), 'at least 1 access mode is required'));
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined) errs.push(fieldErrors.required(cp.child('resources').key('storage')));
  else errs.push(...validateQuantity(storage, cp.child('resources', 'requests').key('storage')));
  if (spec.storageClassName) {
    errs.push(...nameIsDNSSubdomain(spec.storageClassName, false).map((m) => fieldErrors.invalid(cp.child('storageClassName'), spec.storageClassName, m)));
  }
  return errs;
}

function validatePartition(src: any, sp: Path): FieldError[] {
  return src.partition !== undefined && (src.partition < 0 || src.partition > 255)
    ? [fieldErrors.invalid(sp.child('partition'), src.partition, 'must be between 0 and 255, inclusive')]
    : [];
}

/** validateVolumeSource: exactly one source, then that source's own rules. `isPod`: a pod (not a template). */
export function validateVolumeSource(v: any, p: Path, { isPod = false } = {}): FieldError[] {
  const errs: FieldError[] = [];
  const present = VOLUME_SOURCE_ORDER.filter((s) => v[s] !== undefined && v[s] !== null);
  if (!present.length) return [fieldErrors.required(p, 'must specify a volume type')];
  for (const s of present.slice(1)) errs.push(fieldErrors.forbidden(p.child(s), 'may not specify more than 1 volume type'));
  const s = present[0];
  const sp = p.child(s);
  const src = v[s] ?? {};
  switch (s) {
    case 'hostPath':
      if (!src.path) errs.push(fieldErrors.required(sp.child('path')));
      else if (src.path.split('/').includes('..')) errs.push(fieldErrors.invalid(sp.child('path'), src.path, "must not contain '..'"));
      if (src.type !== undefined && !HOST_PATH_TYPES.includes(src.type)) errs.push(fieldErrors.notSupported(sp.child('type'), src.type, HOST_PATH_TYPES));
      break;
    case 'emptyDir':
      if (src.sizeLimit !== undefined && validateQuantity(src.sizeLimit, sp.child('sizeLimit')).length) {
        errs.push(fieldErrors.forbidden(sp.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      break;
    case 'gitRepo':
      errs.push(...required(src, sp, 'repository'));
      if (src.directory) errs.push(...validateLocalDescendingPath(src.directory, sp.child('directory')));
      break;
    case 'gcePersistentDisk':
      errs.push(...required(src, sp, 'pdName'), ...validatePartition(src, sp));
      break;
    case 'awsElasticBlockStore':
      errs.push(...required(src, sp, 'volumeID'), ...validatePartition(src, sp));
      break;
    case 'secret':
      if (!src.secretName) errs.push(fieldErrors.required(sp.child('secretName')));
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateKeyToPaths(src.items, sp.child('items')));
      break;
    case 'configMap':
      if (!src.name) errs.push(fieldErrors.required(sp.child('name')));
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateKeyToPaths(src.items, sp.child('items')));
      break;
    case 'nfs':
      errs.push(...required(src, sp, 'server'));
      if (!src.path) errs.push(fieldErrors.required(sp.child('path')));
      else if (!src.path.startsWith('/')) errs.push(fieldErrors.invalid(sp.child('path'), src.path, 'must be an absolute path'));
      break;
    case 'iscsi':
      errs.push(...required(src, sp, 'targetPortal', 'iqn'));
      if (src.lun !== undefined && (src.lun < 0 || src.lun > 255)) errs.push(fieldErrors.invalid(sp.child('lun'), src.lun, 'must be between 0 and 255, inclusive'));
      if ((src.chapAuthDiscovery || src.chapAuthSession) && !src.secretRef?.name) {
        errs.push(fieldErrors.required(sp.child('secretRef'), 'Required value'));
      }
      break;
    case 'glusterfs':
      errs.push(...required(src, sp, 'endpoints', 'path'));
      break;
    case 'flocker':
      if (!!src.datasetName === !!src.datasetUUID) errs.push(fieldErrors.required(sp, 'one of datasetName and datasetUUID is required'));
      break;
    case 'persistentVolumeClaim':
      if (!src.claimName) errs.push(fieldErrors.required(sp.child('claimName')));
      break;
    case 'rbd':
      if (!src.monitors?.length) errs.push(fieldErrors.required(sp.child('monitors')));
      errs.push(...required(src, sp, 'image'));
      break;
    case 'quobyte':
      errs.push(...required(src, sp, 'registry', 'volume'));
      break;
    case 'cinder':
      errs.push(...required(src, sp, 'volumeID'));
      break;
    case 'cephfs':
      if (!src.monitors?.length) errs.push(fieldErrors.required(sp.child('monitors')));
      break;
    case 'downwardAPI':
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateDownwardAPIFiles(src.items, sp.child('items')));
      break;
    case 'fc':
      if (!src.targetWWNs?.length && !src.wwids?.length) errs.push(fieldErrors.required(sp.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
      else if (src.targetWWNs?.length && src.wwids?.length) errs.push(fieldErrors.invalid(sp.child('targetWWNs'), src.targetWWNs, 'targetWWNs and wwids can not be specified simultaneously'));
      if (src.targetWWNs?.length) {
        if (src.lun === undefined) errs.push(fieldErrors.required(sp.child('lun'), 'lun is required if targetWWNs is specified'));
        else if (src.lun < 0 || src.lun > 255) errs.push(fieldErrors.invalid(sp.child('lun'), src.lun, 'lun must be between 0 and 255, inclusive'));
      }
      break;
    case 'flexVolume':
      errs.push(...required(src, sp, 'driver'));
      break;
    case 'azureFile':
      errs.push(...required(src, sp, 'secretName', 'shareName'));
      break;
    case 'vsphereVolume':
      errs.push(...required(src, sp, 'volumePath'));
      break;
    case 'photonPersistentDisk':
      errs.push(...required(src, sp, 'pdID'));
      break;
    case 'portworxVolume':
      errs.push(...required(src, sp, 'volumeID'));
      break;
    case 'azureDisk': {
      errs.push(...required(src, sp, 'diskName', 'diskURI'));
      const caching = ['None', 'ReadOnly', 'ReadWrite'];
      if (src.cachingMode && !caching.includes(src.cachingMode)) errs.push(fieldErrors.notSupported(sp.child('cachingMode'), src.cachingMode, caching));
      const kinds = ['Dedicated', 'Managed', 'Shared'];
      if (src.kind && !kinds.includes(src.kind)) errs.push(fieldErrors.notSupported(sp.child('kind'), src.kind, kinds));
      break;
    }
    case 'storageos':
      errs.push(...required(src, sp, 'volumeName'));
      break;
    case 'projected':
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateProjectedSources(src.sources, sp));
      break;
    case 'scaleIO':
      errs.push(...required(src, sp, 'gateway', 'system'));
      if (!src.secretRef) errs.push(fieldErrors.required(sp.child('secretRef')));
      break;
    case 'csi':
      errs.push(...validateCSIDriverName(src.driver ?? '', sp.child('driver')));
      if (src.nodePublishSecretRef && !src.nodePublishSecretRef.name) errs.push(fieldErrors.required(sp.child('nodePublishSecretRef', 'name')));
      break;
    case 'ephemeral':
      errs.push(...validateEphemeral(src, sp));
      break;
    case 'image': {
      if (isPod && !src.reference) errs.push(fieldErrors.required(sp.child('reference')));
      const pulls = ['Always', 'IfNotPresent', 'Never'];
      if (src.pullPolicy && !pulls.includes(src.pullPolicy)) errs.push(fieldErrors.notSupported(sp.child('pullPolicy'), src.pullPolicy, pulls));
      break;
    }
  }
  return errs;
}

/** ValidateVolumes: the names of the volumes that validated (mounts may only reference those), and the errors. */
export function validateVolumes(volumes: any[] | undefined, p: Path, opts: { isPod?: boolean } = {}): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  (volumes ?? []).forEach((v, i) => {
    const ip = p.index(i);
    const np = ip.child('name');
    const el = validateVolumeSource(v, ip, opts);
    if (!v.name) el.push(fieldErrors.required(np));
    else el.push(...isDNS1123Label(v.name).map((m) => fieldErrors.invalid(np, v.name, m)));
    if (names.has(v.name)) el.push(fieldErrors.duplicate(np, v.name));
    if (el.length) errs.push(...el);
    else names.add(v.name);
  });
  return { names, errs };
}
