// Query parameters of list, watch and delete, parsed and validated as
// kube-apiserver does (400 for unparseable selectors, 422 for bad options).
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import { parseSelector, SelectorParseError, type Requirement } from '../../lib/labels.ts';
import { parseFieldSelector, FieldSelectorParseError, type FieldRequirement } from '../../lib/fieldselector.ts';
import type { KindDefinition } from '../../kinds/kind.ts';
import { errors } from '../http/status.ts';

export interface ListQuery {
  labelSelector: Requirement[];
  fieldSelector: FieldRequirement[];
  /** Parsed resourceVersion; undefined when unset. */
  resourceVersion?: number;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit: number;
  continueToken?: { rv: number; start: string };
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /** Raw selectors are present (remainingItemCount is then omitted). */
  hasSelectors: boolean;
}

const bool = (v: string | null) => v === 'true' || v === '1';

export function parseResourceVersion(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw errors.badRequest(`invalid resource version: ${v}`);
  return Number(v);
}

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad');
    if (t.start.startsWith('/') || t.start.includes('..')) throw new Error('bad');
    return { rv: t.rv, start: t.start };
  } catch {
    throw errors.badRequest('invalid continue token: continue key is not valid');
  }
}

export function parseListQuery(kind: KindDefinition, q: URLSearchParams): ListQuery {
  let labelSelector: Requirement[] = [];
  let fieldSelector: FieldRequirement[] = [];
  try {
    labelSelector = parseSelector(q.get('labelSelector') ?? '');
  } catch (e) {
    if (e instanceof SelectorParseError) throw errors.badRequest(e.message);
    throw e;
  }
  try {
    fieldSelector = parseFieldSelector(q.get('fieldSelector') ?? '');
  } catch (e) {
    if (e instanceof FieldSelectorParseError) throw errors.badRequest(e.message);
    throw e;
  }
  for (const r of fieldSelector) {
    if (r.field !== 'metadata.name' && !(r.field in kind.fieldSelector.fields)) {
      throw errors.badRequest(
        kind.fieldSelector.unsupported === 'field-label'
          ? `field label not supported: ${r.field}`
          : `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  const watch = bool(q.get('watch'));
  const resourceVersion = parseResourceVersion(q.get('resourceVersion'));
  const rvmRaw = q.get('resourceVersionMatch') ?? '';
  const sendRaw = q.get('sendInitialEvents');
  const sendInitialEvents = sendRaw === null ? undefined : bool(sendRaw);
  const continueRaw = q.get('continue') ?? '';
  const errs: FieldError[] = [];
  if (rvmRaw && rvmRaw !== 'Exact' && rvmRaw !== 'NotOlderThan') {
    errs.push(fieldErrors.notSupported('resourceVersionMatch', rvmRaw, ['Exact', 'NotOlderThan', '']));
  }
  if (watch) {
    if (sendInitialEvents !== undefined && rvmRaw !== 'NotOlderThan') {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    } else if (sendInitialEvents === undefined && rvmRaw) {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
  } else {
    if (sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    if (rvmRaw && continueRaw) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    else if (rvmRaw && resourceVersion === undefined) {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    } else if (rvmRaw === 'Exact' && resourceVersion === 0) {
      errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (errs.length) throw errors.invalidOptions('ListOptions', errs);
  let continueToken: ListQuery['continueToken'];
  if (continueRaw && !watch) {
    if (resourceVersion !== undefined && resourceVersion !== 0) {
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    }
    continueToken = decodeContinue(continueRaw);
  }
  const limitRaw = q.get('limit');
  const limit = limitRaw && /^\d+$/.test(limitRaw) ? Number(limitRaw) : 0;
  const timeoutRaw = q.get('timeoutSeconds');
  return {
    labelSelector,
    fieldSelector,
    resourceVersion,
    resourceVersionMatch: (rvmRaw || undefined) as ListQuery['resourceVersionMatch'],
    limit,
    continueToken,
    watch,
    allowWatchBookmarks: bool(q.get('allowWatchBookmarks')),
    sendInitialEvents,
    timeoutSeconds: timeoutRaw && /^\d+$/.test(timeoutRaw) ? Number(timeoutRaw) : undefined,
    hasSelectors: labelSelector.length > 0 || fieldSelector.length > 0,
  };
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';
const PROPAGATION_POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];

export interface DeleteOptions {
  /** How dependents are treated (the garbage collector's finalizers); the kind's default when absent. */
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  dryRun: boolean;
}

export function parseDeleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
  const pick = (name: string) => (b[name] !== undefined ? b[name] : q.get(name) ?? undefined);
  // JSON null is Go's nil pointer: the same as leaving the field out.
  const policy = pick('propagationPolicy') ?? undefined;
  const orphan = pick('orphanDependents') ?? undefined;
  const grace = pick('gracePeriodSeconds');
  const dryRun = [...q.getAll('dryRun'), ...(Array.isArray(b.dryRun) ? b.dryRun : [])];
  const errs: FieldError[] = [];
  // ValidateDeleteOptions (AM/pkg/apis/meta/v1/validation): both-set first, then the policy's value.
  if (policy !== undefined && orphan !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', policy, [...PROPAGATION_POLICIES, 'nil']));
  }
  for (const d of dryRun) if (d !== 'All') errs.push(fieldErrors.notSupported('dryRun', dryRun, ['All']));
  if (errs.length) throw errors.invalidOptions('DeleteOptions', errs);
  let gracePeriodSeconds = grace === undefined ? undefined : Number(grace);
  if (gracePeriodSeconds !== undefined && gracePeriodSeconds < 0) gracePeriodSeconds = 1;
  return {
    propagationPolicy: policy,
    gracePeriodSeconds,
    preconditions: b.preconditions,
    orphanDependents: orphan === undefined ? undefined : orphan === true || orphan === 'true',
    dryRun: dryRun.length > 0,
  };
}

/** dryRun on create/update/patch: only `All` is allowed. */
export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw errors.invalidOptions(optionsKind, [fieldErrors.notSupported('dryRun', values, ['All'])]);
  return values.length > 0;
}
