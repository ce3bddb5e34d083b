// v1 Pod, and the PodSpec/PodTemplateSpec that DaemonSets embed. The shape
// covers what DaemonSet templates and the simulated node agents use; the
// validation and defaults follow K/pkg/apis/core/{validation,v1/defaults.go}.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, isValidPortName, nameIsDNSSubdomain } from '../lib/names.ts';
import { age } from '../lib/duration.ts';
import { escapeValue } from '../lib/fieldselector.ts';
import { canonicalQuantity, compareQuantities, isWholeNumber } from '../lib/quantity.ts';
import type { KindDefinition, PrinterColumn } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import {
  AgeColumnDescription,
  NameColumnDescription,
  objectSchema,
  validateLabelName,
  validateLabelSelector,
  validateAnnotations,
  validateLabels,
  validateNodeSelector,
  validateNodeSelectorTerm,
  validateNonnegative,
  validateObjectMeta,
  validateQuantity,
} from './meta.ts';
import { isConfigMapKey } from './configmap.ts';
import { ipErrors } from '../lib/cidr.ts';
import { isConditionTrue } from '../lib/conditions.ts';

// The shapes are generated from the upstream API (src/kinds/generated/corev1.ts);
// this file adds what kube-apiserver does with them: defaults and validation.
import { corev1, type CoreV1 } from './generated/corev1.ts';
import { once, shapeOf } from './schema.ts';
import { validateVolumes } from './volumesource.ts';
import { defaultVolumeSourceFields } from './persistentvolume.ts';

export type PodSpecType = z.infer<CoreV1['PodSpec']>;
export type ContainerType = z.infer<CoreV1['Container']>;

// ---------------------------------------------------------------------------
// Defaults (SetDefaults_PodSpec, _Container, _Probe, _Volume, …)

/** Docker reference tag: `latest` when neither tag nor digest is given. */
function imageTag(image: string): string {
  const [ref, digest] = image.split('@', 2);
  const colon = ref.lastIndexOf(':');
  const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : '';
  return tag || (digest ? '' : 'latest');
}

/** SetDefaults_HTTPGetAction: probes and lifecycle hooks alike. */
function defaultHTTPGet(h: any) {
  if (!h) return;
  h.path ||= '/';
  h.scheme ||= 'HTTP';
}

function defaultProbe(p: any) {
  if (!p) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  defaultHTTPGet(p.httpGet);
}

/** SetDefaults_ObjectFieldSelector: wherever a fieldRef appears. */
function defaultFieldRef(ref: any) {
  if (ref) ref.apiVersion ||= 'v1';
}

function defaultContainer(c: any) {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  c.resources ??= {};
  for (const port of c.ports ?? []) port.protocol ||= 'TCP';
  for (const e of c.env ?? []) defaultFieldRef(e.valueFrom?.fieldRef);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultHTTPGet(c.lifecycle?.postStart?.httpGet);
  defaultHTTPGet(c.lifecycle?.preStop?.httpGet);
}

/** Every volume source upstream's Volume lists (all of its fields but `name`), from the generated shape. */
export const volumeSources = once((): readonly string[] => Object.keys(shapeOf(corev1().Volume)!).filter((k) => k !== 'name'));

function defaultVolume(v: any) {
  // SetDefaults_Volume: a volume without a source is an emptyDir. Only a volume
  // that names no source at all: the shape knows every upstream source, so a
  // source is never replaced by another.
  if (!volumeSources().some((s) => v[s])) v.emptyDir = {};
  for (const s of ['configMap', 'secret', 'downwardAPI', 'projected']) if (v[s]) v[s].defaultMode ??= 0o644;
  if (v.hostPath) v.hostPath.type ??= '';
  for (const item of v.downwardAPI?.items ?? []) defaultFieldRef(item.fieldRef);
  for (const p of v.projected?.sources ?? []) {
    if (p.serviceAccountToken) p.serviceAccountToken.expirationSeconds ??= 3600;
    for (const item of p.downwardAPI?.items ?? []) defaultFieldRef(item.fieldRef);
  }
  const claim = v.ephemeral?.volumeClaimTemplate?.spec;
  if (claim) claim.volumeMode ??= 'Filesystem';
  defaultVolumeSourceFields(v);
}

/** PodSpec defaults as for a pod template (Pod-only ones are in `podKind.defaults`). Idempotent. */
export function defaultPodSpec(spec: any): void {
  if (!spec) return;
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

// ---------------------------------------------------------------------------
// Validation (ValidatePodSpec and its helpers)

const portRangeMsg = 'must be between 1 and 65535, inclusive';
const label = (v: string, p: Path) => isDNS1123Label(v).map((m) => fieldErrors.invalid(p, v, m));
const subdomain = (v: string, p: Path) => nameIsDNSSubdomain(v, false).map((m) => fieldErrors.invalid(p, v, m));
const validPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

export interface PodSpecValidationOptions {
  /** The pod's (or template's) metadata, for rules that look at it. */
  podMeta?: unknown;
  /** A pod, not a pod template (ValidationOptions.ResourceIsPod). */
  isPod?: boolean;
}

function validatePortNumOrName(port: number | string | undefined, p: Path): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldErrors.invalid(p, port, m));
  return validPort(port ?? 0) ? [] : [fieldErrors.invalid(p, port ?? 0, portRangeMsg)];
}

function validateContainerPorts(ports: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const ip = p.index(i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length) errs.push(...msgs.map((m) => fieldErrors.invalid(ip.child('name'), port.name, m)));
      else if (names.has(port.name)) errs.push(fieldErrors.duplicate(ip.child('name'), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(fieldErrors.required(ip.child('containerPort')));
    else if (!validPort(port.containerPort)) errs.push(fieldErrors.invalid(ip.child('containerPort'), port.containerPort, portRangeMsg));
    if (port.hostPort && !validPort(port.hostPort)) errs.push(fieldErrors.invalid(ip.child('hostPort'), port.hostPort, portRangeMsg));
    if (!port.protocol) errs.push(fieldErrors.required(ip.child('protocol')));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol)) errs.push(fieldErrors.notSupported(ip.child('protocol'), port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

const envVarNameMsg = "a valid environment variable name must consist only of printable ASCII characters other than '='";
const downwardFieldPaths = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

function validateKeySelector(sel: any, p: Path, nameField: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!sel[nameField]) errs.push(fieldErrors.required(p.child(nameField)));
  if (!sel.key) errs.push(fieldErrors.required(p.child('key')));
  else errs.push(...isConfigMapKey(sel.key).map((m) => fieldErrors.invalid(p.child('key'), sel.key, m)));
  return errs;
}

function validateEnv(env: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (env ?? []).forEach((ev, i) => {
    const ip = p.index(i);
    if (!ev.name) errs.push(fieldErrors.required(ip.child('name')));
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(ev.name)) errs.push(fieldErrors.invalid(ip.child('name'), ev.name, envVarNameMsg));
    const from = ev.valueFrom;
    if (!from) return;
    const vp = ip.child('valueFrom');
    let n = 0;
    if (from.fieldRef) {
      n++;
      const fp = vp.child('fieldRef');
      if (!from.fieldRef.apiVersion) errs.push(fieldErrors.required(fp.child('apiVersion')));
      const path: string = from.fieldRef.fieldPath ?? '';
      // Up to the first '[' by indexOf: /\[.*$/ retries at every '[' before a newline, quadratic in a long path.
      const base = path.includes('[') ? path.slice(0, path.indexOf('[')) : path;
      if (!path) errs.push(fieldErrors.required(fp.child('fieldPath')));
      else if (!downwardFieldPaths.includes(base) || (path !== base && !/^metadata\.(labels|annotations)\['.+'\]$/.test(path))) {
        errs.push(fieldErrors.notSupported(fp.child('fieldPath'), path, downwardFieldPaths));
      }
    }
    if (from.resourceFieldRef) {
      n++;
      if (!from.resourceFieldRef.resource) errs.push(fieldErrors.required(vp.child('resourceFieldRef', 'resource')));
    }
    if (from.configMapKeyRef) {
      n++;
      errs.push(...validateKeySelector(from.configMapKeyRef, vp.child('configMapKeyRef'), 'name'));
    }
    if (from.secretKeyRef) {
      n++;
      errs.push(...validateKeySelector(from.secretKeyRef, vp.child('secretKeyRef'), 'name'));
    }
    if (n === 0) errs.push(fieldErrors.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (ev.value) errs.push(fieldErrors.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (n > 1) errs.push(fieldErrors.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** ValidateEnvFrom (relaxed variable names, as 1.32 by default). */
function validateEnvFrom(sources: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (sources ?? []).forEach((ev, i) => {
    const ip = p.index(i);
    if (ev.prefix && !/^[\x20-\x3c\x3e-\x7e]+$/.test(ev.prefix)) errs.push(fieldErrors.invalid(ip.child('prefix'), ev.prefix, envVarNameMsg));
    let n = 0;
    for (const ref of ['configMapRef', 'secretRef']) {
      if (!ev[ref]) continue;
      n++;
      const rp = ip.child(ref, 'name');
      if (!ev[ref].name) errs.push(fieldErrors.required(rp));
      else errs.push(...subdomain(ev[ref].name, rp));
    }
    if (n === 0) errs.push(fieldErrors.invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (n > 1) errs.push(fieldErrors.invalid(p, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateVolumeMounts(c: any, volumes: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  const privileged = !!c.securityContext?.privileged;
  (c.volumeMounts ?? []).forEach((m: any, i: number) => {
    const ip = p.index(i);
    if (!m.name) errs.push(fieldErrors.required(ip.child('name')));
    if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(ip.child('name'), m.name ?? ''));
    if (!m.mountPath) errs.push(fieldErrors.required(ip.child('mountPath')));
    if (paths.has(m.mountPath)) errs.push(fieldErrors.invalid(ip.child('mountPath'), m.mountPath, 'must be unique'));
    paths.add(m.mountPath);
    if (m.subPath) {
      if (m.subPath.startsWith('/')) errs.push(fieldErrors.invalid(ip.child('subPath'), m.subPath, 'must be a relative path'));
      if (m.subPath.split('/').includes('..')) errs.push(fieldErrors.invalid(ip.child('subPath'), m.subPath, "must not contain '..'"));
    }
    if (m.subPathExpr) {
      if (m.subPath) errs.push(fieldErrors.invalid(ip.child('subPathExpr'), m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      if (m.subPathExpr.startsWith('/')) errs.push(fieldErrors.invalid(ip.child('subPathExpr'), m.subPathExpr, 'must be a relative path'));
      if (m.subPathExpr.split('/').includes('..')) errs.push(fieldErrors.invalid(ip.child('subPathExpr'), m.subPathExpr, "must not contain '..'"));
    }
    const props = ['Bidirectional', 'HostToContainer', 'None'];
    if (m.mountPropagation !== undefined && !props.includes(m.mountPropagation)) {
      errs.push(fieldErrors.notSupported(ip.child('mountPropagation'), m.mountPropagation, props));
    } else if (m.mountPropagation === 'Bidirectional' && !privileged) {
      errs.push(fieldErrors.forbidden(ip.child('mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
    }
    const rro = ['Disabled', 'Enabled', 'IfPossible'];
    if (m.recursiveReadOnly !== undefined) {
      if (!rro.includes(m.recursiveReadOnly)) errs.push(fieldErrors.notSupported(ip.child('recursiveReadOnly'), m.recursiveReadOnly, rro));
      else if (m.recursiveReadOnly !== 'Disabled') {
        if (!m.readOnly) errs.push(fieldErrors.forbidden(ip.child('recursiveReadOnly'), 'may only be specified when readOnly is true'));
        if (m.mountPropagation && m.mountPropagation !== 'None') {
          errs.push(fieldErrors.forbidden(ip.child('recursiveReadOnly'), 'may only be specified when mountPropagation is None or not specified'));
        }
      }
    }
  });
  return errs;
}

function validateVolumeDevices(c: any, volumes: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const devicePaths = new Set<string>();
  const mountPaths = new Set((c.volumeMounts ?? []).map((m: any) => m.mountPath));
  const mountNames = new Set((c.volumeMounts ?? []).map((m: any) => m.name));
  (c.volumeDevices ?? []).forEach((d: any, i: number) => {
    const ip = p.index(i);
    if (!d.name) errs.push(fieldErrors.required(ip.child('name')));
    else if (!volumes.has(d.name)) errs.push(fieldErrors.notFound(ip.child('name'), d.name));
    if (!d.devicePath) errs.push(fieldErrors.required(ip.child('devicePath')));
    else {
      if (devicePaths.has(d.devicePath)) errs.push(fieldErrors.invalid(ip.child('devicePath'), d.devicePath, 'must be unique'));
      if (d.devicePath.split('/').includes('..')) errs.push(fieldErrors.invalid(ip.child('devicePath'), d.devicePath, "can not contain '..'"));
      if (mountPaths.has(d.devicePath)) errs.push(fieldErrors.invalid(ip.child('devicePath'), d.devicePath, 'must not be already mounted in the volumeMounts'));
      devicePaths.add(d.devicePath);
    }
    if (d.name && mountNames.has(d.name)) errs.push(fieldErrors.invalid(ip.child('name'), d.name, 'must not already exist in volumeMounts'));
  });
  return errs;
}

/** A lifecycle hook or probe action: exactly one handler. */
function validateHandler(h: any, p: Path, kinds: readonly string[]): { errs: FieldError[]; count: number } {
  const errs: FieldError[] = [];
  let count = 0;
  for (const k of kinds) {
    if (!h[k]) continue;
    if (count++ > 0) {
      errs.push(fieldErrors.forbidden(p.child(k), 'may not specify more than 1 handler type'));
      continue;
    }
    const hp = p.child(k);
    if (k === 'exec' && !h.exec.command?.length) errs.push(fieldErrors.required(hp.child('command')));
    if (k === 'httpGet') {
      if (!h.httpGet.path) errs.push(fieldErrors.required(hp.child('path')));
      errs.push(...validatePortNumOrName(h.httpGet.port, hp.child('port')));
      if (!['HTTP', 'HTTPS'].includes(h.httpGet.scheme)) errs.push(fieldErrors.notSupported(hp.child('scheme'), h.httpGet.scheme ?? '', ['HTTP', 'HTTPS']));
      (h.httpGet.httpHeaders ?? []).forEach((hd: any, i: number) => {
        if (!/^[-!#$%&'*+.^_`|~0-9A-Za-z]+$/.test(hd.name ?? '')) errs.push(fieldErrors.invalid(hp.child('httpHeaders').index(i).child('name'), hd.name ?? '', 'a valid HTTP header must consist of alphanumeric characters, \'-\' and \'_\''));
      });
    }
    if (k === 'tcpSocket') errs.push(...validatePortNumOrName(h.tcpSocket.port, hp.child('port')));
    if (k === 'grpc' && !validPort(h.grpc.port ?? 0)) errs.push(fieldErrors.invalid(hp.child('port'), h.grpc.port ?? 0, portRangeMsg));
    if (k === 'sleep' && !(h.sleep.seconds >= 0)) errs.push(fieldErrors.invalid(hp.child('seconds'), h.sleep.seconds ?? 0, 'must be non-negative'));
  }
  return { errs, count };
}

function validateLifecycle(lc: any, p: Path): FieldError[] {
  if (!lc) return [];
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) {
    if (!lc[hook]) continue;
    const { errs: e, count } = validateHandler(lc[hook], p.child(hook), ['exec', 'httpGet', 'tcpSocket', 'sleep']);
    errs.push(...e);
    if (!count) errs.push(fieldErrors.required(p.child(hook), 'must specify a handler type'));
  }
  return errs;
}

function validateResizePolicy(policies: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (policies ?? []).forEach((r, i) => {
    const ip = p.index(i);
    if (!['cpu', 'memory'].includes(r.resourceName)) errs.push(fieldErrors.notSupported(ip.child('resourceName'), r.resourceName ?? '', ['cpu', 'memory']));
    else if (seen.has(r.resourceName)) errs.push(fieldErrors.duplicate(ip.child('resourceName'), r.resourceName));
    seen.add(r.resourceName);
    const policies = ['NotRequired', 'RestartContainer'];
    if (!policies.includes(r.restartPolicy)) errs.push(fieldErrors.notSupported(ip.child('restartPolicy'), r.restartPolicy ?? '', policies));
  });
  return errs;
}

/** Seccomp and AppArmor profiles: a Localhost profile names its file, other types must not. */
function validateProfile(profile: any, p: Path, what: 'seccomp' | 'AppArmor'): FieldError[] {
  if (!profile) return [];
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (!profile.type) return [fieldErrors.required(p.child('type'))];
  if (!types.includes(profile.type)) return [fieldErrors.notSupported(p.child('type'), profile.type, types)];
  if (profile.type === 'Localhost' && !profile.localhostProfile?.trim()) {
    return [fieldErrors.required(p.child('localhostProfile'), `must be set when ${what} type is Localhost`)];
  }
  if (profile.type !== 'Localhost' && profile.localhostProfile !== undefined) {
    return [fieldErrors.invalid(p.child('localhostProfile'), profile.localhostProfile, `can only be set when ${what} type is Localhost`)];
  }
  return [];
}

function validateSecurityContext(sc: any, p: Path): FieldError[] {
  if (!sc) return [];
  const errs: FieldError[] = [];
  for (const f of ['runAsUser', 'runAsGroup']) {
    if (sc[f] !== undefined && !(sc[f] >= 0 && sc[f] <= 2147483647)) errs.push(fieldErrors.invalid(p.child(f), sc[f], 'must be between 0 and 2147483647, inclusive'));
  }
  if (sc.privileged && sc.allowPrivilegeEscalation === false) {
    errs.push(fieldErrors.invalid(p, 'false', 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  const procMounts = ['Default', 'Unmasked'];
  if (sc.procMount !== undefined && !procMounts.includes(sc.procMount)) errs.push(fieldErrors.notSupported(p.child('procMount'), sc.procMount, procMounts));
  errs.push(...validateProfile(sc.seccompProfile, p.child('seccompProfile'), 'seccomp'));
  errs.push(...validateProfile(sc.appArmorProfile, p.child('appArmorProfile'), 'AppArmor'));
  return errs;
}

const standardContainerResources = ['cpu', 'memory', 'ephemeral-storage'];
// Extended resources (`example.com/gpu`) are counted in whole units and may not be overcommitted.
const isExtendedResource = (name: string) => name.includes('/') && !name.startsWith('requests.') && !name.includes('kubernetes.io/');
const isOvercommitAllowed = (name: string) => (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith('hugepages-');

function validateResourceRequirements(r: any, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const check = (list: Record<string, any> | undefined, lp: Path) => {
    for (const name of Object.keys(list ?? {}).sort()) {
      const rp = lp.key(name);
      for (const m of isQualifiedName(name)) errs.push(fieldErrors.invalid(rp, name, m));
      if (!name.includes('/') && !standardContainerResources.includes(name) && !name.startsWith('hugepages-')) {
        errs.push(fieldErrors.invalid(rp, name, 'must be a standard resource for containers'));
      }
      const qErrs = validateQuantity(list![name], rp);
      errs.push(...qErrs);
      if (!qErrs.length && isExtendedResource(name) && !isWholeNumber(list![name])) {
        errs.push(fieldErrors.invalid(rp, list![name], 'must be an integer'));
      }
    }
  };
  check(r?.limits, p.child('limits'));
  check(r?.requests, p.child('requests'));
  for (const name of Object.keys(r?.requests ?? {}).sort()) {
    const lim = r?.limits?.[name];
    if (lim === undefined) continue;
    try {
      const req = r.requests[name];
      if (!isOvercommitAllowed(name) && compareQuantities(req, lim) !== 0) {
        errs.push(fieldErrors.invalid(p.child('requests'), canonicalQuantity(req), `must be equal to ${name} limit of ${canonicalQuantity(lim)}`));
      } else if (compareQuantities(req, lim) > 0) {
        errs.push(fieldErrors.invalid(p.child('requests'), canonicalQuantity(req), `must be less than or equal to ${name} limit of ${canonicalQuantity(lim)}`));
      }
    } catch {
      // unparseable quantities are already reported above
    }
  }
  return errs;
}

function validateProbe(probe: any, p: Path, which: 'liveness' | 'readiness' | 'startup'): FieldError[] {
  if (!probe) return [];
  const errs: FieldError[] = [];
  const { errs: handlerErrs, count: handlers } = validateHandler(probe, p, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  errs.push(...handlerErrs);
  if (!handlers) errs.push(fieldErrors.required(p, 'must specify a handler type'));
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...validateNonnegative(probe[f], p.child(f)));
  }
  if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(fieldErrors.invalid(p.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  if (which !== 'readiness' && probe.successThreshold !== 1) errs.push(fieldErrors.invalid(p.child('successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  if (which === 'readiness' && probe.terminationGracePeriodSeconds !== undefined) {
    errs.push(fieldErrors.invalid(p.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  return errs;
}

function validateContainerCommon(c: any, volumes: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErrors.required(p.child('name')));
  else errs.push(...label(c.name, p.child('name')));
  if (!c.image) errs.push(fieldErrors.required(p.child('image')));
  const tmp = ['File', 'FallbackToLogsOnError'];
  if (!c.terminationMessagePolicy) errs.push(fieldErrors.required(p.child('terminationMessagePolicy')));
  else if (!tmp.includes(c.terminationMessagePolicy)) errs.push(fieldErrors.notSupported(p.child('terminationMessagePolicy'), c.terminationMessagePolicy, tmp));
  errs.push(...validateContainerPorts(c.ports, p.child('ports')));
  errs.push(...validateEnv(c.env, p.child('env')));
  errs.push(...validateEnvFrom(c.envFrom, p.child('envFrom')));
  errs.push(...validateVolumeMounts(c, volumes, p.child('volumeMounts')));
  errs.push(...validateVolumeDevices(c, volumes, p.child('volumeDevices')));
  errs.push(...validateSecurityContext(c.securityContext, p.child('securityContext')));
  errs.push(...validateResizePolicy(c.resizePolicy, p.child('resizePolicy')));
  const pulls = ['Always', 'IfNotPresent', 'Never'];
  if (!c.imagePullPolicy) errs.push(fieldErrors.required(p.child('imagePullPolicy')));
  else if (!pulls.includes(c.imagePullPolicy)) errs.push(fieldErrors.notSupported(p.child('imagePullPolicy'), c.imagePullPolicy, pulls));
  errs.push(...validateResourceRequirements(c.resources, p.child('resources')));
  return errs;
}

function validateTolerations(tolerations: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
  (tolerations ?? []).forEach((t, i) => {
    const ip = p.index(i);
    if (t.key) errs.push(...validateLabelName(t.key, ip.child('key')));
    if (!t.key && t.operator !== 'Exists') {
      errs.push(fieldErrors.invalid(ip.child('operator'), t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(ip.child('effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (t.operator ?? '') {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(t.value ?? '');
        if (msgs.length) errs.push(fieldErrors.invalid(ip.child('operator'), t.value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (t.value) {
          // The bad value is the internal Go struct, printed with its capitalised field names.
          const internal = { Key: t.key ?? '', Operator: t.operator, Value: t.value, Effect: t.effect ?? '', TolerationSeconds: t.tolerationSeconds ?? null };
          errs.push(fieldErrors.invalid(ip.child('operator'), internal, "value must be empty when `operator` is 'Exists'"));
        }
        break;
      default:
        errs.push(fieldErrors.notSupported(ip.child('operator'), t.operator, ['Equal', 'Exists']));
    }
    if (t.effect && !effects.includes(t.effect)) errs.push(fieldErrors.notSupported(ip.child('effect'), t.effect, effects));
  });
  return errs;
}

function validatePodAffinityTerms(terms: any[] | undefined, p: Path, weighted: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (terms ?? []).forEach((raw, i) => {
    const ip = p.index(i);
    let term = raw;
    let tp = ip;
    if (weighted) {
      if (!(raw.weight >= 1 && raw.weight <= 100)) errs.push(fieldErrors.invalid(ip.child('weight'), raw.weight ?? 0, 'must be in the range 1-100'));
      term = raw.podAffinityTerm ?? {};
      tp = ip.child('podAffinityTerm');
    }
    errs.push(...validateLabelSelector(term.labelSelector, tp.child('labelSelector')));
    errs.push(...validateLabelSelector(term.namespaceSelector, tp.child('namespaceSelector')));
    for (const ns of term.namespaces ?? []) errs.push(...label(ns, tp.child('namespace')));
    if (!term.topologyKey) errs.push(fieldErrors.required(tp.child('topologyKey'), 'can not be empty'));
    else errs.push(...validateLabelName(term.topologyKey, tp.child('topologyKey')));
  });
  return errs;
}

function validateAffinity(a: any, p: Path): FieldError[] {
  if (!a) return [];
  const errs: FieldError[] = [];
  const na = a.nodeAffinity;
  if (na) {
    const np = p.child('nodeAffinity');
    errs.push(...validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, np.child('requiredDuringSchedulingIgnoredDuringExecution')));
    (na.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t: any, i: number) => {
      const tp = np.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
      if (!(t.weight >= 1 && t.weight <= 100)) errs.push(fieldErrors.invalid(tp.child('weight'), t.weight ?? 0, 'must be in the range 1-100'));
      errs.push(...validateNodeSelectorTerm(t.preference ?? {}, tp.child('preference')));
    });
  }
  for (const k of ['podAffinity', 'podAntiAffinity']) {
    if (!a[k]) continue;
    const kp = p.child(k);
    errs.push(...validatePodAffinityTerms(a[k].requiredDuringSchedulingIgnoredDuringExecution, kp.child('requiredDuringSchedulingIgnoredDuringExecution'), false));
    errs.push(...validatePodAffinityTerms(a[k].preferredDuringSchedulingIgnoredDuringExecution, kp.child('preferredDuringSchedulingIgnoredDuringExecution'), true));
  }
  return errs;
}

const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;

/** validatePodDNSConfig. */
function validateDNSConfig(cfg: any, dnsPolicy: string | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (dnsPolicy === 'None') {
    if (!cfg) return [fieldErrors.required(p, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!cfg.nameservers?.length) errs.push(fieldErrors.required(p.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
  }
  if (!cfg) return errs;
  const ns: string[] = cfg.nameservers ?? [];
  if (ns.length > MAX_DNS_NAMESERVERS) errs.push(fieldErrors.invalid(p.child('nameservers'), ns, `must not have more than ${MAX_DNS_NAMESERVERS} nameservers`));
  ns.forEach((n, i) => errs.push(...ipErrors(n).map((m) => fieldErrors.invalid(p.child('nameservers').index(i), n, m))));
  const searches: string[] = cfg.searches ?? [];
  if (searches.length > MAX_DNS_SEARCH_PATHS) errs.push(fieldErrors.invalid(p.child('searches'), searches, `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`));
  searches.forEach((d, i) => errs.push(...subdomain(d.replace(/\.$/, ''), p.child('searches').index(i))));
  (cfg.options ?? []).forEach((o: any, i: number) => {
    if (!o.name) errs.push(fieldErrors.required(p.child('options').index(i), 'Option.Name must not be empty'));
  });
  return errs;
}

/** validateTopologySpreadConstraints. */
function validateTopologySpreadConstraints(constraints: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const pairs = new Set<string>();
  const when = ['DoNotSchedule', 'ScheduleAnyway'];
  const inclusion = ['Honor', 'Ignore'];
  (constraints ?? []).forEach((c, i) => {
    const ip = p.index(i);
    if (!(c.maxSkew > 0)) errs.push(fieldErrors.invalid(ip.child('maxSkew'), c.maxSkew ?? 0, 'must be greater than zero'));
    if (!c.topologyKey) errs.push(fieldErrors.required(ip.child('topologyKey'), 'can not be empty'));
    else errs.push(...validateLabelName(c.topologyKey, ip.child('topologyKey')));
    if (!when.includes(c.whenUnsatisfiable)) errs.push(fieldErrors.notSupported(ip.child('whenUnsatisfiable'), c.whenUnsatisfiable ?? '', when));
    const pair = `${c.topologyKey}/${c.whenUnsatisfiable}`;
    if (pairs.has(pair)) errs.push(fieldErrors.duplicate(ip, `{${c.topologyKey}, ${c.whenUnsatisfiable}}`));
    pairs.add(pair);
    if (c.minDomains !== undefined) {
      if (!(c.minDomains > 0)) errs.push(fieldErrors.invalid(ip.child('minDomains'), c.minDomains, 'must be greater than zero'));
      else if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        errs.push(fieldErrors.invalid(ip.child('minDomains'), c.minDomains, 'can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway'));
      }
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (c[f] !== undefined && !inclusion.includes(c[f])) errs.push(fieldErrors.notSupported(ip.child(f), c[f], inclusion));
    }
    errs.push(...validateLabelSelector(c.labelSelector, ip.child('labelSelector')));
    (c.matchLabelKeys ?? []).forEach((k: string, j: number) => {
      errs.push(...validateLabelName(k, ip.child('matchLabelKeys').index(j)));
      if (c.labelSelector?.matchLabels?.[k] !== undefined) {
        errs.push(fieldErrors.invalid(ip.child('matchLabelKeys').index(j), k, 'exists in both matchLabelKeys and labelSelector'));
      }
    });
  });
  return errs;
}

/** ValidatePodSpec, in upstream's order. `path` is where the spec sits (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: any, path: Path, opts: PodSpecValidationOptions = {}): FieldError[] {
  const s = spec ?? {};
  const { names: volumes, errs } = validateVolumes(s.volumes, path.child('volumes'), { isPod: opts.isPod });

  // Init containers: names unique across init and regular containers. Only
  // sidecars (restartPolicy Always) may have probes and lifecycle hooks.
  const allNames = new Set<string>((s.containers ?? []).map((c: any) => c.name));
  (s.initContainers ?? []).forEach((c: any, i: number) => {
    const p = path.child('initContainers').index(i);
    errs.push(...validateContainerCommon(c, volumes, p));
    if (allNames.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
    else if (c.name) allNames.add(c.name);
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(p.child('restartPolicy'), c.restartPolicy, ['Always']));
    if (c.restartPolicy === 'Always') {
      errs.push(...validateLifecycle(c.lifecycle, p.child('lifecycle')));
      errs.push(...validateProbe(c.livenessProbe, p.child('livenessProbe'), 'liveness'));
      errs.push(...validateProbe(c.readinessProbe, p.child('readinessProbe'), 'readiness'));
      errs.push(...validateProbe(c.startupProbe, p.child('startupProbe'), 'startup'));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f]) errs.push(fieldErrors.forbidden(p.child(f), 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });

  const cp = path.child('containers');
  if (!s.containers?.length) errs.push(fieldErrors.required(cp));
  else {
    const seen = new Set<string>();
    s.containers.forEach((c: any, i: number) => {
      const p = cp.index(i);
      errs.push(...validateContainerCommon(c, volumes, p));
      if (seen.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
      else seen.add(c.name);
      errs.push(...validateProbe(c.livenessProbe, p.child('livenessProbe'), 'liveness'));
      errs.push(...validateProbe(c.readinessProbe, p.child('readinessProbe'), 'readiness'));
      errs.push(...validateProbe(c.startupProbe, p.child('startupProbe'), 'startup'));
      errs.push(...validateLifecycle(c.lifecycle, p.child('lifecycle')));
      if (c.restartPolicy !== undefined) errs.push(fieldErrors.forbidden(p.child('restartPolicy'), 'may not be set for non-init containers'));
    });
  }
  // checkHostPortConflicts: one host port per protocol and host IP among the containers.
  const hostPorts = new Set<string>();
  (s.containers ?? []).forEach((c: any, i: number) =>
    (c.ports ?? []).forEach((port: any, j: number) => {
      if (!port.hostPort) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (hostPorts.has(key)) errs.push(fieldErrors.duplicate(cp.index(i).child('ports').index(j).child('hostPort'), key));
      hostPorts.add(key);
    }),
  );
  // A pod gets ephemeral containers only through its ephemeralcontainers subresource (ValidatePodCreate refuses them).
  if (s.ephemeralContainers?.length && !opts.isPod) {
    errs.push(fieldErrors.forbidden(path.child('ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }

  if (s.hostNetwork) {
    (s.containers ?? []).forEach((c: any, i: number) =>
      (c.ports ?? []).forEach((port: any, j: number) => {
        // Templates may leave hostPort unset (it is defaulted on the pod).
        if ((port.hostPort ?? 0) !== (port.containerPort ?? 0) && (opts.isPod || port.hostPort)) {
          errs.push(fieldErrors.invalid(cp.index(i).child('ports').index(j).child('hostPort'), port.hostPort ?? 0, 'must match `containerPort` when `hostNetwork` is true'));
        }
      }),
    );
  }

  const restart = ['Always', 'OnFailure', 'Never'];
  if (!s.restartPolicy) errs.push(fieldErrors.required(path.child('restartPolicy')));
  else if (!restart.includes(s.restartPolicy)) errs.push(fieldErrors.notSupported(path.child('restartPolicy'), s.restartPolicy, restart));
  const dns = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
  if (!s.dnsPolicy) errs.push(fieldErrors.required(path.child('dnsPolicy')));
  else if (!dns.includes(s.dnsPolicy)) errs.push(fieldErrors.notSupported(path.child('dnsPolicy'), s.dnsPolicy, dns));
  errs.push(...validateLabels(s.nodeSelector, path.child('nodeSelector')));
  (s.imagePullSecrets ?? []).forEach((ref: any, i: number) => {
    if (!ref.name) errs.push(fieldErrors.required(path.child('imagePullSecrets').index(i).child('name')));
  });
  errs.push(...validateAffinity(s.affinity, path.child('affinity')));
  (s.readinessGates ?? []).forEach((g: any, i: number) => {
    const gp = path.child('readinessGates').index(i).child('conditionType');
    for (const m of isQualifiedName(g.conditionType ?? '')) errs.push(fieldErrors.invalid(gp, g.conditionType ?? '', m));
  });
  if (s.serviceAccountName) errs.push(...subdomain(s.serviceAccountName, path.child('serviceAccountName')));
  if (s.nodeName) errs.push(...subdomain(s.nodeName, path.child('nodeName')));
  if (s.activeDeadlineSeconds !== undefined && !(s.activeDeadlineSeconds >= 1 && s.activeDeadlineSeconds <= 2147483647)) {
    errs.push(fieldErrors.invalid(path.child('activeDeadlineSeconds'), s.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
  if (s.hostname) errs.push(...label(s.hostname, path.child('hostname')));
  if (s.subdomain) errs.push(...label(s.subdomain, path.child('subdomain')));
  errs.push(...validateTolerations(s.tolerations, path.child('tolerations')));
  if (s.priorityClassName) errs.push(...subdomain(s.priorityClassName, path.child('priorityClassName')));
  const preemption = ['PreemptLowerPriority', 'Never'];
  if (s.preemptionPolicy !== undefined && !preemption.includes(s.preemptionPolicy)) {
    errs.push(fieldErrors.notSupported(path.child('preemptionPolicy'), s.preemptionPolicy, preemption));
  }
  errs.push(...validateDNSConfig(s.dnsConfig, s.dnsPolicy, path.child('dnsConfig')));
  (s.hostAliases ?? []).forEach((h: any, i: number) => {
    const hp = path.child('hostAliases').index(i);
    if (!h.ip) errs.push(fieldErrors.required(hp.child('ip')));
    else errs.push(...ipErrors(h.ip).map((m) => fieldErrors.invalid(hp.child('ip'), h.ip, m)));
    (h.hostnames ?? []).forEach((n: string, j: number) => errs.push(...subdomain(n, hp.child('hostnames').index(j))));
  });
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, path.child('topologySpreadConstraints')));
  const gates = new Set<string>();
  (s.schedulingGates ?? []).forEach((g: any, i: number) => {
    const gp = path.child('schedulingGates').index(i).child('name');
    errs.push(...isQualifiedName(g.name ?? '').map((m) => fieldErrors.invalid(gp, g.name ?? '', m)));
    if (gates.has(g.name)) errs.push(fieldErrors.duplicate(gp, g.name));
    gates.add(g.name);
  });
  if (s.os) {
    if (!s.os.name) errs.push(fieldErrors.required(path.child('os', 'name')));
  }
  for (const name of Object.keys(s.overhead ?? {}).sort()) errs.push(...validateQuantity(s.overhead[name], path.child('overhead').key(name)));
  const psc = s.securityContext ?? {};
  const pscPath = path.child('securityContext');
  if (s.shareProcessNamespace && s.hostPID) {
    errs.push(fieldErrors.invalid(pscPath.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  errs.push(...validateProfile(psc.seccompProfile, pscPath.child('seccompProfile'), 'seccomp'));
  errs.push(...validateProfile(psc.appArmorProfile, pscPath.child('appArmorProfile'), 'AppArmor'));
  const fsPolicies = ['Always', 'OnRootMismatch'];
  if (psc.fsGroupChangePolicy !== undefined && !fsPolicies.includes(psc.fsGroupChangePolicy)) {
    errs.push(fieldErrors.notSupported(pscPath.child('fsGroupChangePolicy'), psc.fsGroupChangePolicy, fsPolicies));
  }
  (psc.sysctls ?? []).forEach((sc: any, i: number) => {
    const sp = pscPath.child('sysctls').index(i);
    if (!sc.name) errs.push(fieldErrors.required(sp.child('name')));
    else if (!/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/.test(sc.name)) {
      errs.push(fieldErrors.invalid(sp.child('name'), sc.name, "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"));
    }
  });
  return errs;
}

/** ValidatePodTemplateSpec: template labels/annotations (paths without `metadata`), then the PodSpec. */
export function validatePodTemplateSpec(template: any, path: Path): FieldError[] {
  const t = template ?? {};
  return [
    ...validateLabels(t.metadata?.labels, path.child('labels')),
    ...validateAnnotations(t.metadata?.annotations, path.child('annotations')),
    ...validatePodSpec(t.spec, path.child('spec')),
  ];
}

// ---------------------------------------------------------------------------
// Pod kind

/** The fields a pod update may change (ValidatePodUpdate); everything else in spec is frozen. */
const podUpdateForbiddenMsg =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

function mutableSpecMasked(spec: any, old: any): any {
  const s = structuredClone(spec ?? {});
  const o = old ?? {};
  (s.containers ?? []).forEach((c: any, i: number) => (c.image = o.containers?.[i]?.image));
  (s.initContainers ?? []).forEach((c: any, i: number) => (c.image = o.initContainers?.[i]?.image));
  s.activeDeadlineSeconds = o.activeDeadlineSeconds;
  s.tolerations = o.tolerations;
  s.terminationGracePeriodSeconds = o.terminationGracePeriodSeconds;
  return s;
}

const stableJSON = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().filter((k) => x[k] !== undefined).map((k) => [k, x[k]])) : x,
  );

/** Guaranteed when every container has equal cpu+memory requests and limits; BestEffort when none has any. */
export function qosClass(spec: any): string {
  const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  const has = (c: any) => Object.keys(c.resources?.requests ?? {}).length + Object.keys(c.resources?.limits ?? {}).length > 0;
  if (!containers.some(has)) return 'BestEffort';
  const guaranteed = containers.every((c) =>
    ['cpu', 'memory'].every((r) => {
      const lim = c.resources?.limits?.[r];
      const req = c.resources?.requests?.[r] ?? lim;
      return lim !== undefined && compareQuantities(lim, req) === 0;
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** printPod's Ready, Status and Restarts cells. */
export function podSummary(pod: any, now: Date): { ready: string; status: string; restarts: string } {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const phase: string = status.phase ?? '';
  let reason = status.reason || phase;
  if ((status.conditions ?? []).some((c: any) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  let restarts = 0;
  let ready = 0;
  let lastRestart = '';
  const later = (t?: string) => {
    if (t && (!lastRestart || Date.parse(t) > Date.parse(lastRestart))) lastRestart = t;
  };
  const initStatuses: any[] = status.initContainerStatuses ?? [];
  let initializing = false;
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    restarts += c.restartCount ?? 0;
    later(c.lastState?.terminated?.finishedAt);
    const term = c.state?.terminated;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (term) reason = term.reason ? `Init:${term.reason}` : term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    initializing = true;
    break;
  }
  if (!initializing || isConditionTrue(pod, 'Initialized')) {
    restarts = 0;
    lastRestart = '';
    let hasRunning = false;
    const statuses: any[] = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += c.restartCount ?? 0;
      later(c.lastState?.terminated?.finishedAt);
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = isConditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartText = restarts !== 0 && lastRestart ? `${restarts} (${age(lastRestart, now)} ago)` : String(restarts);
  return { ready: `${ready}/${(spec.containers ?? []).length}`, status: reason, restarts: restartText };
}

/** The last row's podSummary: its Ready, Status and Restarts cells are read from one computation. */
let lastSummary: { pod: unknown; now: Date; summary: ReturnType<typeof podSummary> } | undefined;
function rowSummary(pod: any, now: Date) {
  if (lastSummary === undefined || lastSummary.pod !== pod || lastSummary.now !== now) lastSummary = { pod, now, summary: podSummary(pod, now) };
  return lastSummary.summary;
}

const podColumns: PrinterColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
  { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0, cell: (o, now) => rowSummary(o, now).ready },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', priority: 0, cell: (o, now) => rowSummary(o, now).status },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    priority: 0,
    cell: (o, now) => rowSummary(o, now).restarts,
  },
  { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  {
    name: 'IP',
    type: 'string',
    description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    priority: 1,
    cell: (o) => o.status?.podIPs?.[0]?.ip || o.status?.podIP || '<none>',
  },
  {
    name: 'Node',
    type: 'string',
    description:
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
    priority: 1,
    cell: (o) => o.spec?.nodeName || '<none>',
  },
  {
    name: 'Nominated Node',
    type: 'string',
    description:
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
    priority: 1,
    cell: (o) => o.status?.nominatedNodeName || '<none>',
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    description:
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
    priority: 1,
    cell: (o) => {
      const gates: any[] = o.spec?.readinessGates ?? [];
      if (!gates.length) return '<none>';
      const conds: any[] = o.status?.conditions ?? [];
      const ok = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === 'True').length;
      return `${ok}/${gates.length}`;
    },
  },
];

const podSchema = once(() => objectSchema(corev1().PodSpec, corev1().PodStatus, {}, 'A group of containers scheduled together onto one node.'));

export const podKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  scope: 'Namespaced',
  description: 'A group of containers scheduled together onto one node.',
  get schema() {
    return podSchema();
  },
  subresources: {
    status: { verbs: ['get', 'patch', 'update'] },
    binding: { verbs: ['create'] },
    eviction: { verbs: ['create'] },
  },
  verbs: STANDARD_VERBS,
  defaults(obj) {
    obj.spec ??= {};
    defaultPodSpec(obj.spec);
    // SetDefaults_Pod: pod-only, not for templates (since 1.28 a template's
    // hostNetwork ports keep hostPort unset; the pod made from it gets it).
    obj.spec.enableServiceLinks ??= true;
    for (const c of [...(obj.spec.initContainers ?? []), ...(obj.spec.containers ?? [])]) {
      if (obj.spec.hostNetwork) for (const port of c.ports ?? []) port.hostPort ||= port.containerPort;
      const limits = c.resources?.limits;
      if (!limits || !Object.keys(limits).length) continue;
      c.resources.requests ??= {};
      for (const [k, v] of Object.entries(limits)) c.resources.requests[k] ??= v;
    }
  },
  validate(obj, { old, subresource }) {
    const meta = validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old?.metadata });
    // A binding writes spec.nodeName straight to storage upstream, past update validation.
    if (subresource === 'status' || subresource === 'binding') return meta;
    const errs = [...meta, ...validatePodSpec(obj.spec, new Path(['spec']), { isPod: true })];
    if (!old && obj.spec?.ephemeralContainers?.length) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
    if (old && stableJSON(mutableSpecMasked(obj.spec, old.spec)) !== stableJSON(old.spec ?? {})) {
      errs.push(fieldErrors.forbidden('spec', podUpdateForbiddenMsg));
    }
    return errs;
  },
  strategy: {
    mainResetsFields: ['status'],
    statusResetsFields: ['spec'],
    statusResetsMetadata: ['ownerReferences'],
    statusOnCreate: 'reset',
    generation: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    subresourceWrites: { binding: ['spec.nodeName', 'metadata.annotations', 'status.conditions'] },
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending', qosClass: qosClass(obj.spec) };
    },
    // A pod that never ran, or has finished, goes at once; a running one is
    // given its grace period and the kubelet removes it (K/pkg/registry/core/pod/strategy.go).
    gracePeriod(obj, requested) {
      if (!obj.spec?.nodeName || obj.status?.phase === 'Succeeded' || obj.status?.phase === 'Failed') return 0;
      return Math.max(0, requested ?? obj.spec?.terminationGracePeriodSeconds ?? 30);
    },
  },
  printerColumns: podColumns,
  fieldSelector: {
    fields: {
      'metadata.name': (o) => o.metadata?.name ?? '',
      'metadata.namespace': (o) => o.metadata?.namespace ?? '',
      'spec.nodeName': (o) => o.spec?.nodeName ?? '',
      'spec.restartPolicy': (o) => o.spec?.restartPolicy ?? '',
      'spec.schedulerName': (o) => o.spec?.schedulerName ?? '',
      'spec.serviceAccountName': (o) => o.spec?.serviceAccountName ?? '',
      'spec.hostNetwork': (o) => String(!!o.spec?.hostNetwork),
      'status.phase': (o) => o.status?.phase ?? '',
      'status.podIP': (o) => o.status?.podIPs?.[0]?.ip ?? o.status?.podIP ?? '',
      'status.podIPs': (o) => (o.status?.podIPs ?? []).map((p: any) => p.ip).join(','),
      'status.nominatedNodeName': (o) => o.status?.nominatedNodeName ?? '',
    },
    unsupported: 'field-label',
    // Every kubelet lists and watches its pods by node (kube-apiserver's pod storage indexes and triggers on it).
    indexed: ['spec.nodeName'],
  },
};

/** The field selector of the pods bound to a node (a kubelet's, `kubectl describe node`'s, a drain's): indexed by the API server's cache. */
export const podsOnNode = (node: string) => `spec.nodeName=${escapeValue(node)}`;
