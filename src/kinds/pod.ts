// v1 Pod, and the PodSpec/PodTemplateSpec that DaemonSets embed. The shape
// covers what DaemonSet templates and the simulated node agents use; the
// validation and defaults follow K/pkg/apis/core/{validation,v1/defaults.go}.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, isValidPortName, nameIsDNSSubdomain } from '../lib/names.ts';
import { age } from '../lib/duration.ts';
import { canonicalQuantity, compareQuantities, isWholeNumber } from '../lib/quantity.ts';
import type { KindDefinition, PrinterColumn } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import {
  AgeColumnDescription,
  IntOrString,
  LabelSelector,
  NameColumnDescription,
  NodeSelector,
  NodeSelectorTerm,
  ObjectMeta,
  Quantity,
  ResourceList,
  Time,
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
import { isConditionTrue } from '../lib/conditions.ts';

const str = (d: string) => z.string().optional().describe(d);
const int = (d: string) => z.number().int().optional().describe(d);
const bool = (d: string) => z.boolean().optional().describe(d);
const strs = (d: string) => z.array(z.string()).optional().describe(d);
const oneOf = (values: string[], d: string) => z.string().optional().meta({ enum: values, description: d });

// ---------------------------------------------------------------------------
// Containers

export const ContainerPort = z
  .object({
    name: str('IANA service name for the port, unique within the pod; referable from services.'),
    containerPort: int('Port number opened on the pod IP (1-65535).'),
    hostPort: int('Port number to open on the host; usually unneeded.'),
    protocol: oneOf(['TCP', 'UDP', 'SCTP'], 'Protocol of the port; defaults to TCP.'),
    hostIP: str('Host IP to bind the host port to.'),
  })
  .describe('A network port of a container.');

const KeySelector = (kind: string) =>
  z
    .object({
      name: str(`Name of the ${kind}.`),
      key: str(`Key within the ${kind}.`),
      optional: bool(`Whether the ${kind} or its key may be missing.`),
    })
    .describe(`Selects a key of a ${kind}.`);

export const ObjectFieldSelector = z
  .object({
    apiVersion: str('Version of the schema the field path is written in; defaults to v1.'),
    fieldPath: str('Path of the pod field to select, e.g. metadata.name.'),
  })
  .describe('Selects a field of the pod.');

export const ResourceFieldSelector = z
  .object({
    containerName: str('Container whose resource is selected (required for volumes).'),
    resource: str('Resource to select, e.g. limits.cpu.'),
    divisor: Quantity.optional().describe('Output unit of the exposed resource; defaults to 1.'),
  })
  .describe('Selects a resource of a container.');

export const EnvVar = z
  .object({
    name: str('Name of the environment variable.'),
    value: str('Literal value; $(VAR) references are expanded.'),
    valueFrom: z
      .object({
        fieldRef: ObjectFieldSelector.optional(),
        resourceFieldRef: ResourceFieldSelector.optional(),
        configMapKeyRef: KeySelector('ConfigMap').optional(),
        secretKeyRef: KeySelector('Secret').optional(),
      })
      .optional()
      .describe('Source of the value; not allowed together with value.'),
  })
  .describe('An environment variable of a container.');

export const EnvFromSource = z
  .object({
    prefix: str('Prefix prepended to every key.'),
    configMapRef: z.object({ name: str('Name of the ConfigMap.'), optional: bool('Whether the ConfigMap may be missing.') }).optional(),
    secretRef: z.object({ name: str('Name of the Secret.'), optional: bool('Whether the Secret may be missing.') }).optional(),
  })
  .describe('A source of a set of environment variables.');

export const ResourceRequirements = z
  .object({
    limits: ResourceList.optional().describe('Maximum amount of compute resources allowed.'),
    requests: ResourceList.optional().describe('Minimum amount of compute resources required; defaults to limits.'),
  })
  .describe('Compute resource requirements.');

const HTTPHeader = z.object({ name: str('Header field name.'), value: str('Header field value.') });

export const Probe = z
  .object({
    exec: z.object({ command: strs('Command line to run inside the container; exit 0 is healthy.') }).optional().describe('Runs a command.'),
    httpGet: z
      .object({
        path: str('Path to request; defaults to /.'),
        port: IntOrString.optional().describe('Port number or name to connect to.'),
        host: str('Host to connect to; defaults to the pod IP.'),
        scheme: oneOf(['HTTP', 'HTTPS'], 'Scheme to use; defaults to HTTP.'),
        httpHeaders: z.array(HTTPHeader).optional().describe('Custom request headers.'),
      })
      .optional()
      .describe('Performs an HTTP GET; 2xx/3xx is healthy.'),
    tcpSocket: z
      .object({
        port: IntOrString.optional().describe('Port number or name to connect to.'),
        host: str('Host to connect to; defaults to the pod IP.'),
      })
      .optional()
      .describe('Opens a TCP connection.'),
    grpc: z
      .object({ port: int('Port of the gRPC service.'), service: str('Service name for the gRPC health check.') })
      .optional()
      .describe('Calls the gRPC health service.'),
    initialDelaySeconds: int('Seconds after container start before the first probe.'),
    timeoutSeconds: int('Seconds after which the probe times out; defaults to 1.'),
    periodSeconds: int('How often to probe, in seconds; defaults to 10.'),
    successThreshold: int('Consecutive successes to count as healthy after a failure; defaults to 1.'),
    failureThreshold: int('Consecutive failures to count as unhealthy; defaults to 3.'),
    terminationGracePeriodSeconds: int('Grace period for termination after a failed probe.'),
  })
  .describe('A health check of a container.');

export const VolumeMount = z
  .object({
    name: str('Name of the pod volume to mount.'),
    mountPath: str('Path inside the container; must not contain ":".'),
    readOnly: bool('Mount read-only.'),
    subPath: str('Path within the volume to mount instead of its root.'),
    mountPropagation: oneOf(['None', 'HostToContainer', 'Bidirectional'], 'How mounts propagate between host and container.'),
  })
  .describe('A volume mounted into a container.');

export const SecurityContext = z
  .object({
    privileged: bool('Run the container privileged.'),
    runAsUser: int('UID to run the entrypoint as.'),
    runAsGroup: int('GID to run the entrypoint as.'),
    runAsNonRoot: bool('Refuse to start if the image runs as root.'),
    readOnlyRootFilesystem: bool('Mount the root filesystem read-only.'),
    allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent.'),
    capabilities: z
      .object({ add: strs('Capabilities to add.'), drop: strs('Capabilities to drop.') })
      .optional()
      .describe('POSIX capabilities to add or drop.'),
    seccompProfile: z
      .object({ type: oneOf(['RuntimeDefault', 'Unconfined', 'Localhost'], 'Kind of seccomp profile.'), localhostProfile: str('Profile file on the node.') })
      .optional()
      .describe('Seccomp profile.'),
  })
  .describe('Security options of a container.');

export const Container = z
  .object({
    name: str('Name of the container, a DNS label unique within the pod.'),
    image: str('Container image name.'),
    command: strs('Entrypoint array; replaces the image ENTRYPOINT.'),
    args: strs('Arguments to the entrypoint; replace the image CMD.'),
    workingDir: str('Working directory of the container.'),
    ports: z.array(ContainerPort).optional().describe('Ports to expose from the container.'),
    envFrom: z.array(EnvFromSource).optional().describe('Sources of environment variables.'),
    env: z.array(EnvVar).optional().describe('Environment variables to set.'),
    resources: ResourceRequirements.optional(),
    volumeMounts: z.array(VolumeMount).optional().describe('Pod volumes to mount.'),
    livenessProbe: Probe.optional().describe('Restarts the container when it fails.'),
    readinessProbe: Probe.optional().describe('Removes the pod from service endpoints when it fails.'),
    startupProbe: Probe.optional().describe('Holds other probes until the container has started.'),
    terminationMessagePath: str('File the termination message is read from; defaults to /dev/termination-log.'),
    terminationMessagePolicy: oneOf(['File', 'FallbackToLogsOnError'], 'How the termination message is filled; defaults to File.'),
    imagePullPolicy: oneOf(['Always', 'Never', 'IfNotPresent'], 'When to pull the image; Always for :latest, else IfNotPresent.'),
    securityContext: SecurityContext.optional(),
    stdin: bool('Allocate a stdin buffer.'),
    tty: bool('Allocate a TTY.'),
  })
  .describe('A container of a pod.');

// ---------------------------------------------------------------------------
// Volumes

const KeyToPath = z.object({
  key: str('Key to project.'),
  path: str('Relative path of the file.'),
  mode: int('File mode bits.'),
});

export const Volume = z
  .object({
    name: str('Name of the volume, a DNS label unique within the pod.'),
    hostPath: z
      .object({
        path: str('Path on the host.'),
        type: oneOf(['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'], 'Expected type of the host path.'),
      })
      .optional()
      .describe('A file or directory on the host.'),
    emptyDir: z
      .object({
        medium: oneOf(['', 'Memory'], 'Storage medium; empty means the node default.'),
        sizeLimit: Quantity.optional().describe('Maximum size of the volume.'),
      })
      .optional()
      .describe('A temporary directory that lives as long as the pod.'),
    configMap: z
      .object({
        name: str('Name of the ConfigMap.'),
        items: z.array(KeyToPath).optional().describe('Keys to project; all keys when empty.'),
        defaultMode: int('File mode bits; defaults to 0644.'),
        optional: bool('Whether the ConfigMap may be missing.'),
      })
      .optional()
      .describe('Files from a ConfigMap.'),
    secret: z
      .object({
        secretName: str('Name of the Secret.'),
        items: z.array(KeyToPath).optional().describe('Keys to project; all keys when empty.'),
        defaultMode: int('File mode bits; defaults to 0644.'),
        optional: bool('Whether the Secret may be missing.'),
      })
      .optional()
      .describe('Files from a Secret.'),
    persistentVolumeClaim: z
      .object({ claimName: str('Name of the PersistentVolumeClaim.'), readOnly: bool('Mount read-only.') })
      .optional()
      .describe('A PersistentVolumeClaim in the same namespace.'),
    downwardAPI: z
      .object({
        items: z.array(z.record(z.string(), z.unknown())).optional().describe('Files to create from pod fields.'),
        defaultMode: int('File mode bits; defaults to 0644.'),
      })
      .optional()
      .describe('Files from pod fields.'),
    projected: z
      .object({
        sources: z.array(z.record(z.string(), z.unknown())).optional().describe('Volume projections.'),
        defaultMode: int('File mode bits; defaults to 0644.'),
      })
      .optional()
      .describe('Several sources projected into one directory.'),
  })
  .describe('A named volume that containers may mount.');

// ---------------------------------------------------------------------------
// Scheduling

export const Toleration = z
  .object({
    key: str('Taint key the toleration applies to; empty with Exists matches all taints.'),
    operator: oneOf(['Exists', 'Equal'], 'Relation of key and value; defaults to Equal.'),
    value: str('Taint value to match; empty with Exists.'),
    effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], 'Taint effect to match; empty matches all.'),
    tolerationSeconds: int('How long a NoExecute taint is tolerated before eviction.'),
  })
  .describe('Lets the pod run on nodes with a matching taint.');

const PodAffinityTerm = z
  .object({
    labelSelector: LabelSelector.optional().describe('Pods to be near (or away from).'),
    namespaceSelector: LabelSelector.optional().describe('Namespaces the selected pods may be in.'),
    namespaces: strs('Namespaces the selected pods may be in.'),
    topologyKey: str('Node label whose equal values form one topology domain.'),
  })
  .describe('Pods that must (not) share a topology domain with this pod.');

const WeightedPodAffinityTerm = z.object({ weight: int('Weight 1-100.'), podAffinityTerm: PodAffinityTerm.optional() });

const PodAffinity = z
  .object({
    requiredDuringSchedulingIgnoredDuringExecution: z.array(PodAffinityTerm).optional().describe('Hard requirements.'),
    preferredDuringSchedulingIgnoredDuringExecution: z.array(WeightedPodAffinityTerm).optional().describe('Soft preferences.'),
  })
  .describe('Inter-pod (anti-)affinity.');

export const Affinity = z
  .object({
    nodeAffinity: z
      .object({
        requiredDuringSchedulingIgnoredDuringExecution: NodeSelector.optional().describe('Nodes the pod must be scheduled on.'),
        preferredDuringSchedulingIgnoredDuringExecution: z
          .array(
            z.object({
              weight: int('Weight 1-100 of this preference.'),
              preference: NodeSelectorTerm.optional().describe('Nodes preferred with this weight.'),
            }),
          )
          .optional()
          .describe('Nodes the scheduler prefers.'),
      })
      .optional()
      .describe('Node affinity rules.'),
    podAffinity: PodAffinity.optional(),
    podAntiAffinity: PodAffinity.optional(),
  })
  .describe('Scheduling constraints.');

export const PodSecurityContext = z
  .object({
    runAsUser: int('UID for all containers.'),
    runAsGroup: int('GID for all containers.'),
    runAsNonRoot: bool('Refuse to start containers that run as root.'),
    fsGroup: int('Supplementary group owning mounted volumes.'),
    supplementalGroups: z.array(z.number().int()).optional().describe('Extra groups of the first process.'),
    seccompProfile: SecurityContext.shape.seccompProfile,
  })
  .describe('Pod-level security attributes.');

export const PodSpec = z
  .object({
    volumes: z.array(Volume).optional().describe('Volumes that containers may mount.'),
    initContainers: z.array(Container).optional().describe('Containers run to completion, in order, before the others start.'),
    containers: z.array(Container).optional().describe('Containers of the pod; at least one.'),
    restartPolicy: oneOf(['Always', 'OnFailure', 'Never'], 'Restart policy of all containers; defaults to Always.'),
    terminationGracePeriodSeconds: int('Seconds to wait for graceful termination; defaults to 30.'),
    activeDeadlineSeconds: int('Seconds the pod may be active before it is failed.'),
    dnsPolicy: oneOf(['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'], 'DNS policy; defaults to ClusterFirst.'),
    nodeSelector: z.record(z.string(), z.string()).optional().describe('Labels a node must have to run the pod.'),
    serviceAccountName: str('Service account the pod runs as.'),
    serviceAccount: z.string().optional().meta({ maturity: 'deprecated', description: 'Deprecated alias of serviceAccountName.' }),
    automountServiceAccountToken: bool('Whether a service account token is mounted.'),
    nodeName: str('Node the pod is bound to; set by the scheduler.'),
    hostNetwork: bool("Use the host's network namespace."),
    hostPID: bool("Use the host's PID namespace."),
    hostIPC: bool("Use the host's IPC namespace."),
    securityContext: PodSecurityContext.optional(),
    imagePullSecrets: z.array(z.object({ name: str('Name of the Secret.') })).optional().describe('Secrets for pulling images.'),
    hostname: str('Hostname of the pod; defaults to the pod name.'),
    subdomain: str('Subdomain of the pod hostname.'),
    affinity: Affinity.optional(),
    schedulerName: str('Scheduler that places the pod; defaults to default-scheduler.'),
    tolerations: z.array(Toleration).optional().describe('Taints the pod tolerates.'),
    priorityClassName: str('PriorityClass that gives the pod its priority.'),
    priority: int('Priority value, filled from the priority class.'),
    readinessGates: z
      .array(z.object({ conditionType: str('Pod condition type that must be True for readiness.') }))
      .optional()
      .describe('Extra conditions that must be True for the pod to be ready.'),
    runtimeClassName: str('RuntimeClass to run the pod with.'),
    enableServiceLinks: bool('Inject service environment variables; defaults to true.'),
    preemptionPolicy: oneOf(['PreemptLowerPriority', 'Never'], 'Whether the pod may preempt lower-priority pods.'),
  })
  .describe('Desired state of a pod.');

export const PodTemplateSpec = z
  .object({
    metadata: ObjectMeta.optional().describe('Metadata of the pods created from the template.'),
    spec: PodSpec.optional(),
  })
  .describe('Template of the pods to create.');

// ---------------------------------------------------------------------------
// Status

const ContainerState = z
  .object({
    waiting: z.object({ reason: str('Why the container is not running yet.'), message: str('Details.') }).optional(),
    running: z.object({ startedAt: Time.optional().describe('When the container started.') }).optional(),
    terminated: z
      .object({
        exitCode: int('Exit status of the last termination.'),
        signal: int('Signal of the last termination.'),
        reason: str('Brief reason of the termination.'),
        message: str('Details of the termination.'),
        startedAt: Time.optional().describe('When the container started.'),
        finishedAt: Time.optional().describe('When the container terminated.'),
        containerID: str('ID of the container.'),
      })
      .optional(),
  })
  .describe('State of a container: waiting, running or terminated.');

export const ContainerStatus = z
  .object({
    name: str('Name of the container.'),
    state: ContainerState.optional(),
    lastState: ContainerState.optional().describe('Last termination state.'),
    ready: bool('Whether the container passes its readiness probe.'),
    started: bool('Whether the container passed its startup probe.'),
    restartCount: int('Number of restarts.'),
    image: str('Image the container runs.'),
    imageID: str('Image ID of the container.'),
    containerID: str('ID of the container as <type>://<id>.'),
  })
  .describe('Status of one container.');

const PodIP = z.object({ ip: str('An IP address.') });

export const PodStatus = z
  .object({
    phase: oneOf(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'], 'Phase of the pod lifecycle.'),
    conditions: z
      .array(
        z.object({
          type: str('Condition type, e.g. Ready.'),
          status: oneOf(['True', 'False', 'Unknown'], 'Status of the condition.'),
          lastProbeTime: Time.optional().describe('Last time the condition was probed.'),
          lastTransitionTime: Time.optional().describe('Last time the status changed.'),
          reason: str('Reason of the last transition.'),
          message: str('Details of the last transition.'),
        }),
      )
      .optional()
      .describe('Current service state of the pod.'),
    message: str('Why the pod is in this condition.'),
    reason: str('Brief reason, e.g. Evicted.'),
    nominatedNodeName: str('Node the scheduler nominated while preempting.'),
    hostIP: str('IP of the node the pod runs on.'),
    hostIPs: z.array(PodIP).optional().describe('IPs of the node the pod runs on.'),
    podIP: str('IP of the pod.'),
    podIPs: z.array(PodIP).optional().describe('IPs of the pod, at most one per family.'),
    startTime: Time.optional().describe('When the node acknowledged the pod.'),
    initContainerStatuses: z.array(ContainerStatus).optional(),
    containerStatuses: z.array(ContainerStatus).optional(),
    qosClass: oneOf(['Guaranteed', 'Burstable', 'BestEffort'], 'QoS class from the resource requirements.'),
  })
  .describe('Observed state of a pod.');

export type PodSpecType = z.infer<typeof PodSpec>;
export type ContainerType = z.infer<typeof Container>;

// ---------------------------------------------------------------------------
// Defaults (SetDefaults_PodSpec, _Container, _Probe, _Volume, …)

/** Docker reference tag: `latest` when neither tag nor digest is given. */
function imageTag(image: string): string {
  const [ref, digest] = image.split('@', 2);
  const colon = ref.lastIndexOf(':');
  const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : '';
  return tag || (digest ? '' : 'latest');
}

function defaultProbe(p: any) {
  if (!p) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  if (p.httpGet) {
    p.httpGet.path ||= '/';
    p.httpGet.scheme ||= 'HTTP';
  }
}

function defaultContainer(c: any, hostNetwork: boolean) {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  c.resources ??= {};
  for (const port of c.ports ?? []) {
    port.protocol ||= 'TCP';
    if (hostNetwork && !port.hostPort) port.hostPort = port.containerPort;
  }
  for (const e of c.env ?? []) if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ||= 'v1';
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

const volumeSources = ['hostPath', 'emptyDir', 'configMap', 'secret', 'persistentVolumeClaim', 'downwardAPI', 'projected'] as const;

function defaultVolume(v: any) {
  if (!volumeSources.some((s) => v[s])) v.emptyDir = {};
  for (const s of ['configMap', 'secret', 'downwardAPI', 'projected']) if (v[s]) v[s].defaultMode ??= 0o644;
  if (v.hostPath) v.hostPath.type ??= '';
}

/** PodSpec defaults as for a pod template (Pod-only ones are in `podKind.defaults`). Idempotent. */
export function defaultPodSpec(spec: any): void {
  if (!spec) return;
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const c of spec.initContainers ?? []) defaultContainer(c, !!spec.hostNetwork);
  for (const c of spec.containers ?? []) defaultContainer(c, !!spec.hostNetwork);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

// ---------------------------------------------------------------------------
// Validation (ValidatePodSpec and its helpers)

const portRangeMsg = 'must be between 1 and 65535, inclusive';
const fileModeMsg = 'must be a number between 0 and 0777 (octal), both inclusive';
const label = (v: string, p: Path) => isDNS1123Label(v).map((m) => fieldErrors.invalid(p, v, m));
const subdomain = (v: string, p: Path) => nameIsDNSSubdomain(v, false).map((m) => fieldErrors.invalid(p, v, m));
const validPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

export interface PodSpecValidationOptions {
  /** The pod's (or template's) metadata, for rules that look at it. */
  podMeta?: unknown;
}

function validatePortNumOrName(port: number | string | undefined, p: Path): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldErrors.invalid(p, port, m));
  return validPort(port ?? 0) ? [] : [fieldErrors.invalid(p, port ?? 0, portRangeMsg)];
}

function validateKeyToPaths(items: any[] | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  (items ?? []).forEach((kp, i) => {
    const ip = p.index(i);
    if (!kp.key) errs.push(fieldErrors.required(ip.child('key')));
    if (!kp.path) errs.push(fieldErrors.required(ip.child('path')));
    if (kp.mode !== undefined && (kp.mode > 0o777 || kp.mode < 0)) errs.push(fieldErrors.invalid(ip.child('mode'), kp.mode, fileModeMsg));
  });
  return errs;
}

function validateDefaultMode(mode: number | undefined, p: Path): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [fieldErrors.invalid(p, mode, fileModeMsg)] : [];
}

function validateVolumeSource(v: any, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const present = volumeSources.filter((s) => v[s]);
  if (!present.length) return [fieldErrors.required(p, 'must specify a volume type')];
  for (const s of present.slice(1)) errs.push(fieldErrors.forbidden(p.child(s), 'may not specify more than 1 volume type'));
  const s = present[0];
  const sp = p.child(s);
  const src = v[s];
  switch (s) {
    case 'hostPath': {
      if (!src.path) errs.push(fieldErrors.required(sp.child('path')));
      else if (src.path.split('/').includes('..')) errs.push(fieldErrors.invalid(sp.child('path'), src.path, "must not contain '..'"));
      const types = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];
      if (src.type !== undefined && !types.includes(src.type)) errs.push(fieldErrors.notSupported(sp.child('type'), src.type, types));
      break;
    }
    case 'emptyDir':
      if (src.sizeLimit !== undefined && validateQuantity(src.sizeLimit, sp.child('sizeLimit')).length) {
        errs.push(fieldErrors.forbidden(sp.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      break;
    case 'configMap':
      if (!src.name) errs.push(fieldErrors.required(sp.child('name')));
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateKeyToPaths(src.items, sp.child('items')));
      break;
    case 'secret':
      if (!src.secretName) errs.push(fieldErrors.required(sp.child('secretName')));
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')), ...validateKeyToPaths(src.items, sp.child('items')));
      break;
    case 'persistentVolumeClaim':
      if (!src.claimName) errs.push(fieldErrors.required(sp.child('claimName')));
      break;
    default:
      errs.push(...validateDefaultMode(src.defaultMode, sp.child('defaultMode')));
  }
  return errs;
}

/** ValidateVolumes: returns the names of the volumes that validated (mounts may only reference those). */
function validateVolumes(volumes: any[] | undefined, p: Path): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  (volumes ?? []).forEach((v, i) => {
    const ip = p.index(i);
    const np = ip.child('name');
    const el = validateVolumeSource(v, ip);
    if (!v.name) el.push(fieldErrors.required(np));
    else el.push(...label(v.name, np));
    if (names.has(v.name)) el.push(fieldErrors.duplicate(np, v.name));
    if (el.length) errs.push(...el);
    else names.add(v.name);
  });
  return { names, errs };
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
      const base = path.replace(/\[.*$/, '');
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

function validateVolumeMounts(mounts: any[] | undefined, volumes: Set<string>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  (mounts ?? []).forEach((m, i) => {
    const ip = p.index(i);
    if (!m.name) errs.push(fieldErrors.required(ip.child('name')));
    if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(ip.child('name'), m.name ?? ''));
    if (!m.mountPath) errs.push(fieldErrors.required(ip.child('mountPath')));
    if (paths.has(m.mountPath)) errs.push(fieldErrors.invalid(ip.child('mountPath'), m.mountPath, 'must be unique'));
    paths.add(m.mountPath);
    if (m.subPath) {
      if (m.subPath.startsWith('/')) errs.push(fieldErrors.invalid(p.child('subPath'), m.subPath, 'must be a relative path'));
      if (m.subPath.split('/').includes('..')) errs.push(fieldErrors.invalid(p.child('subPath'), m.subPath, "must not contain '..'"));
    }
    const props = ['None', 'HostToContainer', 'Bidirectional'];
    if (m.mountPropagation !== undefined && !props.includes(m.mountPropagation)) {
      errs.push(fieldErrors.notSupported(ip.child('mountPropagation'), m.mountPropagation, props));
    }
  });
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
  let handlers = 0;
  for (const h of ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const) {
    if (!probe[h]) continue;
    if (handlers > 0) {
      errs.push(fieldErrors.forbidden(p.child(h), 'may not specify more than 1 handler type'));
      continue;
    }
    handlers++;
    const hp = p.child(h);
    if (h === 'exec' && !probe.exec.command?.length) errs.push(fieldErrors.required(hp.child('command')));
    if (h === 'httpGet') {
      if (!probe.httpGet.path) errs.push(fieldErrors.required(hp.child('path')));
      errs.push(...validatePortNumOrName(probe.httpGet.port, hp.child('port')));
      if (!['HTTP', 'HTTPS'].includes(probe.httpGet.scheme)) errs.push(fieldErrors.notSupported(hp.child('scheme'), probe.httpGet.scheme ?? '', ['HTTP', 'HTTPS']));
    }
    if (h === 'tcpSocket') errs.push(...validatePortNumOrName(probe.tcpSocket.port, hp.child('port')));
    if (h === 'grpc' && !validPort(probe.grpc.port ?? 0)) errs.push(fieldErrors.invalid(hp.child('port'), probe.grpc.port ?? 0, portRangeMsg));
  }
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
  errs.push(...validateVolumeMounts(c.volumeMounts, volumes, p.child('volumeMounts')));
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

/** ValidatePodSpec, in upstream's order. `path` is where the spec sits (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: any, path: Path, _opts: PodSpecValidationOptions = {}): FieldError[] {
  const s = spec ?? {};
  const { names: volumes, errs } = validateVolumes(s.volumes, path.child('volumes'));

  // Init containers: names unique across init and regular containers; probes not allowed.
  const allNames = new Set<string>((s.containers ?? []).map((c: any) => c.name));
  (s.initContainers ?? []).forEach((c: any, i: number) => {
    const p = path.child('initContainers').index(i);
    errs.push(...validateContainerCommon(c, volumes, p));
    if (allNames.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
    else if (c.name) allNames.add(c.name);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (c[probe]) errs.push(fieldErrors.forbidden(p.child(probe), 'may not be set for init containers without restartPolicy=Always'));
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
    });
  }

  if (s.hostNetwork) {
    (s.containers ?? []).forEach((c: any, i: number) =>
      (c.ports ?? []).forEach((port: any, j: number) => {
        if ((port.hostPort ?? 0) !== (port.containerPort ?? 0)) {
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

const podColumns: PrinterColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
  { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0, cell: (o, now) => podSummary(o, now).ready },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', priority: 0, cell: (o, now) => podSummary(o, now).status },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    priority: 0,
    cell: (o, now) => podSummary(o, now).restarts,
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
  schema: objectSchema(PodSpec, PodStatus, {}, 'A group of containers scheduled together onto one node.'),
  subresources: {
    status: { verbs: ['get', 'patch', 'update'] },
    binding: { verbs: ['create'] },
    eviction: { verbs: ['create'] },
  },
  verbs: STANDARD_VERBS,
  defaults(obj) {
    obj.spec ??= {};
    defaultPodSpec(obj.spec);
    // SetDefaults_Pod: pod-only, not for templates.
    obj.spec.enableServiceLinks ??= true;
    for (const c of [...(obj.spec.initContainers ?? []), ...(obj.spec.containers ?? [])]) {
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
    const errs = [...meta, ...validatePodSpec(obj.spec, new Path(['spec']))];
    if (old && stableJSON(mutableSpecMasked(obj.spec, old.spec)) !== stableJSON(old.spec ?? {})) {
      errs.push(fieldErrors.forbidden('spec', podUpdateForbiddenMsg));
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
  },
};
