// Query parameters of list, watch and delete, parsed and validated as
// kube-apiserver does (400 for unparseable selectors, 422 for bad options).
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import { parseSelector, SelectorParseError, type Requirement } from '../../lib/labels.ts';
import { parseFieldSelector, FieldSelectorParseError, type FieldRequirement } from '../../lib/fieldselector.ts';
import type { KindDefinition } from '../../kinds/kind.ts';
import { errors } from '../http/status.ts';
import { IntParseError, parseInt64, queryBool } from '../../lib/queryparams.ts';

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

const bool = queryBool;

/** An integer query parameter (strconv.ParseInt); a value Go refuses is a 400 quoting its error. */
function int64Param(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  try {
    return parseInt64(v);
  } catch (e) {
    if (e instanceof IntParseError) throw errors.badRequest(e.message);
    throw e;
  }
}

/** A resource version is a uint64 (ParseUint); past 2^53 it is only ever "too large" here, as our revisions never get there. */
export function parseResourceVersion(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v) || BigInt(v) > UINT64_MAX) throw errors.badRequest(`invalid resource version: ${v}`);
  return Number(v);
}

const UINT64_MAX = (1n << 64n) - 1n;

/** A resource version as its digits, however large (not `1e+19`). */
export const resourceVersionText = (rv: number) => (Number.isSafeInteger(rv) ? String(rv) : BigInt(rv).toString());

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

/**
 * A continue token's revision is a positive integer (a list's revision), or
 * -1: upstream's "inconsistent continue" token, handed out with a 410 when
 * the revision was compacted, which continues at the latest revision. Zero,
 * other negatives, fractions and numbers past 2^53 are forged (storage.DecodeContinue).
 */
function decodeContinue(token: string): { rv: number; start: string } {
  let t: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw errors.badRequest('invalid continue token: continue key is not valid');
  }
  if (!t || t.v !== 'meta.k8s.io/v1' || typeof t.start !== 'string' || t.start.startsWith('/') || t.start.includes('..')) {
    throw errors.badRequest('invalid continue token: continue key is not valid');
  }
  if (typeof t.rv !== 'number' || !Number.isSafeInteger(t.rv) || (t.rv <= 0 && t.rv !== -1)) {
    throw errors.badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return { rv: t.rv, start: t.start };
}

/** The most seconds a watch may last: Node's timers hold at most 2^31-1 ms (about 24.8 days). */
export const MAX_WATCH_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

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
  // A limit below one is no limit, as the storage reads it.
  const limit = Math.max(0, int64Param(q, 'limit') ?? 0);
  const timeout = int64Param(q, 'timeoutSeconds');
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
    // A timeout no timer can hold is capped, not turned into an instant close.
    timeoutSeconds: timeout !== undefined && timeout >= 0 ? Math.min(timeout, MAX_WATCH_TIMEOUT_SECONDS) : undefined,
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

/** Go's decoding error for a DeleteOptions field of the wrong JSON type. */
const wrongType = (field: string, value: unknown, goType: string) =>
  errors.badRequest(`json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value} into Go struct field ${field} of type ${goType}`);

/** The body's fields as Go's json decoder types them: anything else is a 400, not ignored. */
function checkDeleteOptionsTypes(b: Record<string, unknown>) {
  const is = (v: unknown, t: string) => v === null || v === undefined || typeof v === t;
  if (!is(b.gracePeriodSeconds, 'number') || (typeof b.gracePeriodSeconds === 'number' && !Number.isSafeInteger(b.gracePeriodSeconds))) {
    throw wrongType('DeleteOptions.gracePeriodSeconds', b.gracePeriodSeconds, 'int64');
  }
  if (!is(b.propagationPolicy, 'string')) throw wrongType('DeleteOptions.propagationPolicy', b.propagationPolicy, 'v1.DeletionPropagation');
  if (!is(b.orphanDependents, 'boolean')) throw wrongType('DeleteOptions.orphanDependents', b.orphanDependents, 'bool');
  if (b.dryRun !== undefined && b.dryRun !== null && (!Array.isArray(b.dryRun) || b.dryRun.some((d) => typeof d !== 'string'))) {
    throw wrongType('DeleteOptions.dryRun', b.dryRun, '[]string');
  }
  const pre = b.preconditions;
  if (pre === undefined || pre === null) return;
  if (typeof pre !== 'object' || Array.isArray(pre)) throw wrongType('DeleteOptions.preconditions', pre, 'v1.Preconditions');
  const p = pre as Record<string, unknown>;
  if (!is(p.uid, 'string')) throw wrongType('DeleteOptions.preconditions.uid', p.uid, 'types.UID');
  if (!is(p.resourceVersion, 'string')) throw wrongType('DeleteOptions.preconditions.resourceVersion', p.resourceVersion, 'string');
}

export function parseDeleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw errors.badRequest(`json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type v1.DeleteOptions`);
  }
  const b = (body ?? {}) as Record<string, any>;
  checkDeleteOptionsTypes(b);
  const pick = (name: string) => (b[name] !== undefined ? b[name] : q.get(name) ?? undefined);
  // JSON null is Go's nil pointer: the same as leaving the field out.
  const policy = pick('propagationPolicy') ?? undefined;
  const orphan = pick('orphanDependents') ?? undefined;
  const grace = b.gracePeriodSeconds ?? int64Param(q, 'gracePeriodSeconds');
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
    preconditions: b.preconditions ?? undefined,
    orphanDependents: orphan === undefined ? undefined : typeof orphan === 'string' ? queryBool(orphan) : orphan === true,
    dryRun: dryRun.length > 0,
  };
}

/** dryRun on create/update/patch: only `All` is allowed. */
export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw errors.invalidOptions(optionsKind, [fieldErrors.notSupported('dryRun', values, ['All'])]);
  return values.length > 0;
}
