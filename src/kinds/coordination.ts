// coordination.k8s.io/v1 Lease (K/pkg/apis/coordination/validation,
// K/pkg/registry/coordination/lease/strategy.go): the lock that leader
// election holds, as client-go's leaderelection and kubectl see it.
import { z } from 'zod';
import { fieldErrors, type FieldError } from '../lib/field.ts';
import { isQualifiedName } from '../lib/names.ts';
import { age } from '../lib/duration.ts';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { AgeColumnDescription, NameColumnDescription, objectSchema, validateNonnegative, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

const description = 'Lease defines a lease concept.';

const holderIdentityDescription =
  'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.';

/** The Kubernetes-defined strategies (CoordinatedLeaseStrategy); others must be qualified names. */
const validLeaseStrategies = ['OldestEmulationVersion'];

const leaseSchemas = once(() => {
  /** metav1.MicroTime: RFC 3339 with microseconds (`2024-01-02T03:04:05.123456Z`). */
  const MicroTime = z.string().meta({ format: 'date-time' });


  const LeaseSpec = z
    .object({
      acquireTime: MicroTime.optional().describe('acquireTime is a time when the current lease was acquired.'),
      holderIdentity: z.string().optional().describe(holderIdentityDescription),
      leaseDurationSeconds: z
        .number()
        .int()
        .optional()
        .describe('leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measured against the time of last observed renewTime.'),
      leaseTransitions: z.number().int().optional().describe('leaseTransitions is the number of transitions of a lease between holders.'),
      renewTime: MicroTime.optional().describe('renewTime is a time when the current holder of a lease has last updated the lease.'),
      preferredHolder: z
        .string()
        .optional()
        .meta({
          maturity: 'alpha',
          description:
            'PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set.',
        }),
      strategy: z
        .string()
        .optional()
        .meta({
          maturity: 'alpha',
          description:
            'Strategy indicates the strategy for picking the leader for coordinated leader election. If the field is not specified, there is no active coordination for this lease. (Alpha) Using this field requires the CoordinatedLeaderElection feature gate to be enabled.',
        }),
    })
    .describe('LeaseSpec is a specification of a Lease.');
  return objectSchema(LeaseSpec, undefined, {}, description);
});

/** ValidateLeaseSpec. holderIdentity is free text upstream: client-go writes `<hostname>_<uuid>`. */
function validateLeaseSpec(spec: any): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  errs.push(...validateNonnegative(spec.leaseTransitions, 'spec.leaseTransitions'));
  if (spec.strategy !== undefined) {
    if (!spec.strategy.includes('/')) {
      if (!validLeaseStrategies.includes(spec.strategy)) errs.push(fieldErrors.notSupported('spec.strategy', spec.strategy, validLeaseStrategies));
    } else {
      const msgs = isQualifiedName(spec.strategy);
      if (msgs.length) errs.push(fieldErrors.invalid('spec.strategy', spec.strategy, msgs.join(',')));
    }
  }
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(fieldErrors.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

/** The alpha fields of the CoordinatedLeaderElection gate, off in 1.32: dropped unless the stored object uses them. */
function dropDisabledFields(obj: any, old?: any) {
  if (!obj.spec) return;
  if (old?.spec?.strategy === undefined) delete obj.spec.strategy;
  if (old?.spec?.preferredHolder === undefined) delete obj.spec.preferredHolder;
}

export const leaseKind: KindDefinition = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  listKind: 'LeaseList',
  plural: 'leases',
  singular: 'lease',
  shortNames: [],
  categories: [],
  scope: 'Namespaced',
  description,
  get schema() {
    return leaseSchemas();
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  heartbeats: true,
  defaults() {},
  validate(obj, { old }) {
    return [
      ...validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old?.metadata }),
      ...validateLeaseSpec(obj.spec ?? {}),
    ];
  },
  strategy: {
    mainResetsFields: [],
    statusResetsFields: [],
    statusResetsMetadata: [],
    statusOnCreate: 'keep',
    generation: false,
    // leaseStrategy.AllowUnconditionalUpdate: a PUT must name the resourceVersion it replaces.
    allowUnconditionalUpdate: false,
    returnDeletedObject: false,
    prepareForCreate: (obj) => dropDisabledFields(obj),
    prepareForUpdate: (obj, old) => dropDisabledFields(obj, old),
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Holder', type: 'string', description: holderIdentityDescription, priority: 0, cell: (o) => o.spec?.holderIdentity ?? '' },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: { 'metadata.name': (o) => o.metadata?.name ?? '', 'metadata.namespace': (o) => o.metadata?.namespace ?? '' },
    unsupported: 'known-fields',
  },
};
