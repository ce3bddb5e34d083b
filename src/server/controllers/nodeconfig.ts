// The removed dynamic kubelet configuration feature, as the kubelet's
// nodeconfig controller reported it in status.config (SPEC.md §3):
// - spec.configSource names a ConfigMap that cannot be fetched: an early
//   (download) error; config.error is set and nothing rolls back.
// - the ConfigMap is fetched: config.assigned records it (with the uid and
//   resourceVersion it had); if its payload cannot be loaded or fails
//   validation (a late error), active falls back to lastKnownGood.
// - an assigned config still active after the soak period becomes lastKnownGood.
// - spec.configSource reset to nil: local defaults, lastKnownGood cleared at once.
import { parseDocumentWithin } from '../../lib/yamldepth.ts';
import { MAX_DEPTH } from '../http/bodies.ts';
import { deepEqual } from '../../lib/json.ts';

// The kubelet's status texts (pkg/kubelet/kubeletconfig/status); machines may only test for emptiness.
const DownloadError = 'failed to sync: failed to download config, see Kubelet log for details';
const LoadError = 'failed to load config, see Kubelet log for details';
const ValidateError = 'failed to validate config, see Kubelet log for details';

export interface ConfigMapRef {
  namespace?: string;
  name?: string;
  kubeletConfigKey?: string;
  uid?: string;
  resourceVersion?: string;
}
export interface NodeConfigSource {
  configMap?: ConfigMapRef;
}
export interface NodeConfigStatus {
  assigned?: NodeConfigSource;
  active?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  error?: string;
}

export interface ConfigMapLike {
  metadata: { uid?: string; resourceVersion?: string };
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/**
 * Why a kubelet configuration payload is unusable, or undefined when it is fine.
 * Load errors: the key is missing, the text is not YAML/JSON, or it is not a mapping.
 * Validation errors: `kind` other than KubeletConfiguration, an `apiVersion`
 * other than kubelet.config.k8s.io/v1beta1 or /v1, or a `maxPods` that is not a
 * positive integer.
 */
export function kubeletConfigError(cm: ConfigMapLike, key: string): string | undefined {
  const text = cm.data?.[key] ?? (cm.binaryData?.[key] !== undefined ? Buffer.from(cm.binaryData[key], 'base64').toString('utf8') : undefined);
  if (text === undefined) return `${LoadError}: key "${key}" not found in ConfigMap`;
  let doc: unknown;
  try {
    // A ConfigMap's text is anyone's: bounded as request bodies are (yamldepth.ts).
    const parsed = parseDocumentWithin(text, MAX_DEPTH);
    if (parsed.errors.length) throw parsed.errors[0];
    doc = parsed.toJS();
  } catch (e) {
    return `${LoadError}: ${(e as Error).message.split('\n')[0]}`;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return `${LoadError}: the payload is not a YAML or JSON mapping`;
  const c = doc as Record<string, unknown>;
  if (c.kind !== undefined && c.kind !== 'KubeletConfiguration') return `${ValidateError}: kind ${JSON.stringify(c.kind)} is not KubeletConfiguration`;
  if (c.apiVersion !== undefined && c.apiVersion !== 'kubelet.config.k8s.io/v1beta1' && c.apiVersion !== 'kubelet.config.k8s.io/v1') {
    return `${ValidateError}: apiVersion ${JSON.stringify(c.apiVersion)} is not kubelet.config.k8s.io/v1beta1`;
  }
  if (c.maxPods !== undefined && !(Number.isInteger(c.maxPods) && (c.maxPods as number) > 0)) {
    return `${ValidateError}: maxPods must be a positive integer`;
  }
  return undefined;
}

export interface ConfigDecision {
  /** The status.config to write (undefined: local defaults, nothing to report). */
  config: NodeConfigStatus | undefined;
  /** When the soak period of the assigned config ends (ms since epoch), if it is running. */
  soakEndsAt?: number;
}

/**
 * The status.config a kubelet reports. `assignedAt` is when it recorded the
 * current assigned config locally (the soak clock); `getConfigMap` reads the API.
 */
export function nodeConfigStatus(
  source: NodeConfigSource | undefined,
  current: NodeConfigStatus | undefined,
  getConfigMap: (namespace: string, name: string) => ConfigMapLike | undefined,
  soak: { assignedAt: (assigned: NodeConfigSource) => number; now: number; soakMs: number },
): ConfigDecision {
  const ref = source?.configMap;
  if (!ref) return { config: undefined };
  const cur = current ?? {};
  const cm = getConfigMap(ref.namespace ?? '', ref.name ?? '');
  if (!cm) {
    // Early error: keep whatever was assigned and active; no rollback.
    return { config: compact({ ...cur, error: `${DownloadError}: ConfigMap ${ref.namespace}/${ref.name} not found` }) };
  }
  const assigned: NodeConfigSource = {
    configMap: {
      namespace: ref.namespace,
      name: ref.name,
      uid: cm.metadata.uid,
      resourceVersion: cm.metadata.resourceVersion,
      kubeletConfigKey: ref.kubeletConfigKey,
    },
  };
  const error = kubeletConfigError(cm, ref.kubeletConfigKey ?? '');
  if (error) return { config: compact({ assigned, active: cur.lastKnownGood, lastKnownGood: cur.lastKnownGood, error }) };
  const soakEndsAt = soak.assignedAt(assigned) + soak.soakMs;
  const good = deepEqual(cur.lastKnownGood, assigned) || soak.now >= soakEndsAt;
  return {
    config: compact({ assigned, active: assigned, lastKnownGood: good ? assigned : cur.lastKnownGood }),
    soakEndsAt: good ? undefined : soakEndsAt,
  };
}

function compact(c: NodeConfigStatus): NodeConfigStatus {
  const out: NodeConfigStatus = {};
  if (c.active) out.active = c.active;
  if (c.assigned) out.assigned = c.assigned;
  if (c.lastKnownGood) out.lastKnownGood = c.lastKnownGood;
  if (c.error) out.error = c.error;
  return out;
}
