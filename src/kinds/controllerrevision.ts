// apps/v1 ControllerRevision: an immutable snapshot of a controller's pod
// template, which `kubectl rollout history/undo` reads for DaemonSets.
import { z } from 'zod';
import { fieldErrors, type FieldError } from '../lib/field.ts';
import { age } from '../lib/duration.ts';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { AgeColumnDescription, NameColumnDescription, objectSchema, validateImmutable, validateNonnegative, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

const description = 'An immutable snapshot of state data, kept by controllers for rollback.';

function validateRevision(obj: any): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain' });
  if (obj.data === undefined) errs.push(fieldErrors.required('data', 'data is mandatory'));
  errs.push(...validateNonnegative(obj.revision, 'revision'));
  return errs;
}

/** `daemonset.apps/fluentd` for the controller owner reference, else `<none>`. */
export function controllerOf(obj: any): string {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r: any) => r.controller);
  if (!ref) return '<none>';
  const group = ref.apiVersion?.includes('/') ? ref.apiVersion.split('/')[0] : '';
  return `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
}

const controllerRevisionSchema = once(() => objectSchema(
  undefined,
  undefined,
  {
    data: z.unknown().optional().describe('The serialized state (any JSON); required and immutable.'),
    revision: z.number().int().optional().describe('Revision number of the state represented by data; at least 0.'),
  },
  description,
));

export const controllerRevisionKind: KindDefinition = {
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  listKind: 'ControllerRevisionList',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  shortNames: [],
  categories: [],
  scope: 'Namespaced',
  description,
  get schema() {
    return controllerRevisionSchema();
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  defaults() {},
  validate(obj, { old }) {
    if (!old) return validateRevision(obj);
    return [
      ...validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: old.metadata }),
      ...validateRevision(obj),
      ...validateImmutable(obj.data, old.data, 'data'),
    ];
  },
  strategy: {
    mainResetsFields: [],
    statusResetsFields: [],
    statusResetsMetadata: [],
    statusOnCreate: 'keep',
    generation: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Controller', type: 'string', description: 'Controller of the object', priority: 0, cell: controllerOf },
    {
      name: 'Revision',
      type: 'string',
      description: 'Revision indicates the revision of the state represented by Data.',
      priority: 0,
      cell: (o) => o.revision ?? 0,
    },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: { 'metadata.name': (o) => o.metadata?.name ?? '', 'metadata.namespace': (o) => o.metadata?.namespace ?? '' },
    unsupported: 'known-fields',
  },
};
