// Which nodes a DaemonSet's pods belong on (upstream's NodeShouldRunDaemonPod),
// with the reason when a node is left out, so the controller and the rollout
// view decide it in one place. Pure: plain API objects in.

export interface Taint {
  key?: string;
  value?: string;
  effect?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

interface NodeLike {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: { taints?: Taint[] };
}

interface DaemonSetLike {
  spec?: { template?: { spec?: PodSpecLike } };
}

interface PodSpecLike {
  containers?: unknown[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  hostNetwork?: boolean;
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector } };
}

interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

interface NodeSelector {
  nodeSelectorTerms?: { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }[];
}

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator || 'Equal';
  if (op === 'Exists') return true;
  if (op === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

/** The tolerations every daemon pod gets on top of its template's (util.AddOrUpdateDaemonPodTolerations). */
export function daemonPodTolerations(spec: PodSpecLike | undefined): Toleration[] {
  const tolerations: Toleration[] = [...(spec?.tolerations ?? [])];
  const add = (key: string, effect: string) => {
    const same = (x: Toleration) => x.key === key && (x.operator || 'Equal') === 'Exists' && (x.value ?? '') === '' && x.effect === effect;
    if (!tolerations.some(same)) tolerations.push({ key, operator: 'Exists', effect });
  };
  add('node.kubernetes.io/not-ready', 'NoExecute');
  add('node.kubernetes.io/unreachable', 'NoExecute');
  add('node.kubernetes.io/disk-pressure', 'NoSchedule');
  add('node.kubernetes.io/memory-pressure', 'NoSchedule');
  add('node.kubernetes.io/pid-pressure', 'NoSchedule');
  add('node.kubernetes.io/unschedulable', 'NoSchedule');
  if (spec?.hostNetwork) add('node.kubernetes.io/network-unavailable', 'NoSchedule');
  return tolerations;
}

function matchesRequirement(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false;
      const a = Number(value);
      const b = Number(values[0]);
      if (!Number.isInteger(a) || !Number.isInteger(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** A NodeSelector's terms are ORed, a term's requirements ANDed; an empty term matches nothing. */
export function matchesNodeSelector(sel: NodeSelector | undefined, node: NodeLike): boolean {
  const labels = node.metadata.labels ?? {};
  return (sel?.nodeSelectorTerms ?? []).some((term) => {
    const exprs = term?.matchExpressions ?? [];
    const fields = term?.matchFields ?? [];
    if (!exprs.length && !fields.length) return false;
    return (
      exprs.every((r) => matchesRequirement(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) &&
      fields.every((r) => r.key === 'metadata.name' && matchesRequirement(r, node.metadata.name))
    );
  });
}

/** Why the pod spec's nodeSelector or required node affinity rules the node out, or undefined when it matches. */
export function nodeAffinityMismatch(podSpec: PodSpecLike | undefined, node: NodeLike): string | undefined {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(podSpec?.nodeSelector ?? {})) {
    if (labels[k] !== v) return `node selector ${k}=${v} does not match (${k in labels ? `node has ${k}=${labels[k]}` : 'label absent'})`;
  }
  const required = podSpec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required && !matchesNodeSelector(required, node)) return 'required node affinity does not match';
  return undefined;
}

export const matchesRequiredNodeAffinity = (podSpec: PodSpecLike | undefined, node: NodeLike) => nodeAffinityMismatch(podSpec, node) === undefined;

const describeTaint = (t: Taint) => `${t.key ?? ''}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''}`;

export interface DaemonPlacement {
  /** A new daemon pod belongs on this node. */
  shouldRun: boolean;
  /** An existing daemon pod may stay (only an untolerated NoExecute taint evicts). */
  shouldContinueRunning: boolean;
  /** Why the node is left out, when it is. */
  reason?: string;
}

/**
 * NodeShouldRunDaemonPod. The Ready condition and spec.unschedulable do not
 * count: only taints do, and daemon pods tolerate the lifecycle ones.
 */
export function nodeShouldRunDaemonPod(node: NodeLike, ds: DaemonSetLike, tolerations = daemonPodTolerations(ds.spec?.template?.spec)): DaemonPlacement {
  const podSpec = ds.spec?.template?.spec ?? {};
  if (podSpec.nodeName && podSpec.nodeName !== node.metadata.name) {
    return { shouldRun: false, shouldContinueRunning: false, reason: `the template names node ${podSpec.nodeName}` };
  }
  const mismatch = nodeAffinityMismatch(podSpec, node);
  if (mismatch) return { shouldRun: false, shouldContinueRunning: false, reason: mismatch };
  const untolerated = (effects: string[]) => (node.spec?.taints ?? []).find((t) => effects.includes(t.effect ?? '') && !tolerations.some((x) => toleratesTaint(x, t)));
  const blocking = untolerated(['NoSchedule', 'NoExecute']);
  if (blocking) {
    return { shouldRun: false, shouldContinueRunning: !untolerated(['NoExecute']), reason: `taint ${describeTaint(blocking)} is not tolerated` };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/**
 * util.GetTargetNodeName: the node a daemon pod is for — spec.nodeName once
 * bound, else the one name its required node affinity allows (what the
 * DaemonSet controller writes; the scheduler binds the pod later).
 */
export function daemonPodNodeName(pod: { spec?: { nodeName?: string; affinity?: PodSpecLike['affinity'] } }): string | undefined {
  const spec = pod.spec;
  if (spec?.nodeName) return spec.nodeName;
  for (const term of spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term?.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  }
  return undefined;
}
