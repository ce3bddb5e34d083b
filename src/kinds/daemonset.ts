// apps/v1 DaemonSet (K/pkg/registry/apps/daemonset/strategy.go,
// K/pkg/apis/apps/{v1/defaults.go,validation}). The template generation that
// upstream keeps internally is stored here directly as its public face, the
// `deprecated.daemonset.template.generation` annotation.
import { z } from 'zod';
import { Path, fieldErrors, type FieldError } from '../lib/field.ts';
import { age } from '../lib/duration.ts';
import { formatLabelSelector, formatLabels, labelSelectorAsRequirements, matchesRequirements } from '../lib/labels.ts';
import { deepEqual } from '../lib/json.ts';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import {
  AgeColumnDescription,
  metaSchemas,
  NameColumnDescription,
  objectSchema,
  validateImmutable,
  validateIntOrPercent,
  validateLabelSelector,
  validateNonnegative,
  validateNotMoreThan100Percent,
  validateObjectMeta,
} from './meta.ts';
import { defaultPodSpec, validatePodTemplateSpec } from './pod.ts';
import { corev1 } from './generated/corev1.ts';
import { named, once } from './schema.ts';

export const TemplateGenerationAnnotation = 'deprecated.daemonset.template.generation';

const int = (d: string) => z.number().int().optional().describe(d);

const apps = 'io.k8s.api.apps.v1';

const daemonSetSchemas = once(() => {
  const { Condition, IntOrString, LabelSelector } = metaSchemas();
  const { PodTemplateSpec } = corev1();
  const RollingUpdateDaemonSet = named(
    `${apps}.RollingUpdateDaemonSet`,
    z
      .object({
        maxUnavailable: IntOrString.optional().describe('Pods that may be unavailable during the update, absolute or percent of desired; defaults to 1.'),
        maxSurge: IntOrString.optional().describe('Nodes that may run an extra updated pod during the update, absolute or percent; defaults to 0.'),
      })
      .describe('Spec to control the desired behavior of daemon set rolling update.'),
  );

  const DaemonSetUpdateStrategy = named(
    `${apps}.DaemonSetUpdateStrategy`,
    z
      .object({
        type: z.string().optional().meta({ enum: ['OnDelete', 'RollingUpdate'], description: 'How old pods are replaced; defaults to RollingUpdate.' }),
        rollingUpdate: RollingUpdateDaemonSet.optional().describe('Rolling update parameters; only with type RollingUpdate.'),
      })
      .describe('DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet.'),
  );

  const DaemonSetSpec = named(
    `${apps}.DaemonSetSpec`,
    z
      .object({
        selector: LabelSelector.optional().describe("Label query over the pods the DaemonSet manages; must match the template's labels."),
        template: PodTemplateSpec.optional().describe('The pod to run on every eligible node; restartPolicy must be Always.'),
        updateStrategy: DaemonSetUpdateStrategy.optional().describe('How existing pods are replaced with new ones.'),
        minReadySeconds: int('Seconds a new pod must be ready without crashing to count as available; defaults to 0.'),
        revisionHistoryLimit: int('Old revisions kept for rollback; defaults to 10.'),
      })
      .meta({ description: 'DaemonSetSpec is the specification of a daemon set.', required: ['selector', 'template'] }),
  );

  const DaemonSetStatus = named(
    `${apps}.DaemonSetStatus`,
    z
      .object({
        currentNumberScheduled: int('Nodes running at least one daemon pod that should run it.'),
        numberMisscheduled: int('Nodes running a daemon pod that should not.'),
        desiredNumberScheduled: int('Nodes that should run the daemon pod.'),
        numberReady: int('Nodes that should run the daemon pod and have a ready one.'),
        observedGeneration: int('Most recent generation observed by the controller.'),
        updatedNumberScheduled: int('Nodes running an updated daemon pod.'),
        numberAvailable: int('Nodes that should run the daemon pod and have an available one.'),
        numberUnavailable: int('Nodes that should run the daemon pod and have no available one.'),
        collisionCount: int('Hash collisions met when naming the newest revision.'),
        conditions: z.array(Condition).optional().describe('Latest observations of the DaemonSet.'),
      })
      .meta({ description: 'DaemonSetStatus represents the current status of a daemon set.', required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'] }),
  );
  return { RollingUpdateDaemonSet, DaemonSetUpdateStrategy, DaemonSetSpec, DaemonSetStatus };
});

const zeroStatus = () => ({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });

/** getIntOrPercentValue: a percent's number, an int as is, anything else 0. */
const intOrPercentValue = (v: number | string | undefined) =>
  typeof v === 'number' ? v : typeof v === 'string' ? (/^[0-9]+%$/.test(v) ? Number(v.slice(0, -1)) : Number.isInteger(Number(v)) && v.trim() !== '' ? Number(v) : 0) : 0;

function validateUpdateStrategy(strategy: any, p: Path): FieldError[] {
  const s = strategy ?? {};
  if (s.type === 'OnDelete') return [];
  if (s.type !== 'RollingUpdate') {
    // The bad value is the internal Go struct, printed with its capitalised field names.
    const ru = s.rollingUpdate ? { MaxUnavailable: s.rollingUpdate.maxUnavailable ?? 0, MaxSurge: s.rollingUpdate.maxSurge ?? 0 } : null;
    return [fieldErrors.notSupported(p, { Type: s.type ?? '', RollingUpdate: ru }, ['RollingUpdate', 'OnDelete'])];
  }
  const ru = s.rollingUpdate;
  const rp = p.child('rollingUpdate');
  if (!ru) return [fieldErrors.required(rp)];
  const errs = [
    ...validateIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')),
    ...validateIntOrPercent(ru.maxSurge, rp.child('maxSurge')),
    ...validateNotMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')),
    ...validateNotMoreThan100Percent(ru.maxSurge, rp.child('maxSurge')),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(rp.child('maxSurge'), ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(rp.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  return errs;
}

function selectorMismatch(sel: any, labels: Record<string, string> | undefined): boolean {
  if (!sel) return true;
  try {
    return !matchesRequirements(labelSelectorAsRequirements(sel), labels ?? {});
  } catch {
    return false;
  }
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(spec: any, p: Path = new Path(['spec'])): FieldError[] {
  const s = spec ?? {};
  const errs = validateLabelSelector(s.selector, p.child('selector'));
  const labels = s.template?.metadata?.labels;
  // A missing selector selects nothing, so it surfaces only as this mismatch;
  // an unparseable one is skipped (its errors are reported above).
  if (selectorMismatch(s.selector, labels)) {
    errs.push(fieldErrors.invalid(p.child('template', 'metadata', 'labels'), labels ?? {}, '`selector` does not match template `labels`'));
  }
  if (s.selector && Object.keys(s.selector.matchLabels ?? {}).length + (s.selector.matchExpressions ?? []).length === 0) {
    errs.push(fieldErrors.invalid(p.child('selector'), s.selector, 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(s.template, p.child('template')));
  const tspec = s.template?.spec ?? {};
  if (tspec.restartPolicy !== 'Always') {
    errs.push(fieldErrors.notSupported(p.child('template', 'spec', 'restartPolicy'), tspec.restartPolicy ?? '', ['Always']));
  }
  if (tspec.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.forbidden(p.child('template', 'spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errs.push(...validateNonnegative(s.minReadySeconds, p.child('minReadySeconds')));
  errs.push(...validateUpdateStrategy(s.updateStrategy, p.child('updateStrategy')));
  errs.push(...validateNonnegative(s.revisionHistoryLimit, p.child('revisionHistoryLimit')));
  return errs;
}

const counters = [
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'observedGeneration',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
  'collisionCount',
];

function validateStatus(status: any, old: any): FieldError[] {
  const st = status ?? {};
  const errs = counters.flatMap((c) => validateNonnegative(st[c], new Path(['status', c])));
  if (old?.collisionCount !== undefined && (st.collisionCount === undefined || st.collisionCount < old.collisionCount)) {
    errs.push(fieldErrors.invalid('status.collisionCount', st.collisionCount ?? 0, 'cannot be decremented'));
  }
  return errs;
}

const templateGeneration = (obj: any): number => {
  const n = Number(obj?.metadata?.annotations?.[TemplateGenerationAnnotation]);
  return Number.isInteger(n) ? n : 0;
};

const setTemplateGeneration = (obj: any, n: number) => {
  obj.metadata ??= {};
  obj.metadata.annotations = { ...obj.metadata.annotations, [TemplateGenerationAnnotation]: String(n) };
};

const statusColumn = (name: string, field: string, description: string) => ({
  name,
  type: 'integer' as const,
  description,
  priority: 0 as const,
  cell: (o: any) => o.status?.[field] ?? 0,
});

const containers = (o: any): any[] => o.spec?.template?.spec?.containers ?? [];

const daemonSetSchema = once(() => objectSchema(daemonSetSchemas().DaemonSetSpec, daemonSetSchemas().DaemonSetStatus, {}, 'Runs a copy of a pod on every eligible node.'));

export const daemonSetKind: KindDefinition = {
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  listKind: 'DaemonSetList',
  plural: 'daemonsets',
  singular: 'daemonset',
  shortNames: ['ds'],
  categories: ['all'],
  scope: 'Namespaced',
  description: 'Runs a copy of a pod on every eligible node.',
  get schema() {
    return daemonSetSchema();
  },
  subresources: { status: { verbs: ['get', 'patch', 'update'] } },
  verbs: STANDARD_VERBS,
  defaults(obj) {
    const spec = (obj.spec ??= {});
    const strategy = (spec.updateStrategy ??= {});
    strategy.type ||= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') {
      const ru = (strategy.rollingUpdate ??= {});
      ru.maxUnavailable ??= 1;
      ru.maxSurge ??= 0;
    }
    spec.revisionHistoryLimit ??= 10;
    spec.template ??= {};
    spec.template.metadata ??= {};
    spec.template.spec ??= {};
    defaultPodSpec(spec.template.spec);
  },
  validate(obj, { old, subresource }) {
    if (old && subresource === 'status') {
      return [
        ...validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old.metadata }),
        ...validateStatus(obj.status, old.status),
      ];
    }
    const errs = [...validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain' }), ...validateDaemonSetSpec(obj.spec)];
    if (old) {
      errs.push(...validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old.metadata }));
      errs.push(...validateImmutable(obj.spec?.selector, old.spec?.selector, 'spec.selector'));
    }
    return errs;
  },
  strategy: {
    mainResetsFields: ['status'],
    statusResetsFields: ['spec'],
    statusResetsMetadata: [],
    statusOnCreate: 'reset',
    generation: true,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    prepareForCreate(obj) {
      obj.status = zeroStatus();
      setTemplateGeneration(obj, Math.max(1, templateGeneration(obj)));
    },
    prepareForUpdate(obj, old) {
      // The client's value is ignored: the stored one counts, bumped when the template changed.
      const changed = !deepEqual(obj.spec?.template, old.spec?.template);
      setTemplateGeneration(obj, templateGeneration(old) + (changed ? 1 : 0));
    },
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    statusColumn(
      'Desired',
      'desiredNumberScheduled',
      'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    statusColumn(
      'Current',
      'currentNumberScheduled',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    statusColumn('Ready', 'numberReady', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    statusColumn('Up-to-date', 'updatedNumberScheduled', 'The total number of nodes that are running updated daemon pod'),
    statusColumn(
      'Available',
      'numberAvailable',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
    {
      name: 'Node Selector',
      type: 'string',
      description:
        "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
      priority: 0,
      cell: (o) => formatLabels(o.spec?.template?.spec?.nodeSelector),
    },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1, cell: (o) => containers(o).map((c) => c.name).join(',') },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1, cell: (o) => containers(o).map((c) => c.image).join(',') },
    {
      name: 'Selector',
      type: 'string',
      description:
        "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      priority: 1,
      cell: (o) => formatLabelSelector(o.spec?.selector),
    },
  ],
  fieldSelector: {
    fields: { 'metadata.name': (o) => o.metadata?.name ?? '', 'metadata.namespace': (o) => o.metadata?.namespace ?? '' },
    unsupported: 'known-fields',
  },
  // A template change is a new ControllerRevision: one new pod per scheduled node.
  rollout: {
    template: ['spec', 'template'],
    pods: (o) => ({ count: o.status?.desiredNumberScheduled ?? 0, per: 'node' }),
    automatic: (o) => o.spec?.updateStrategy?.type !== 'OnDelete',
  },
};
