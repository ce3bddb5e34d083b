// Server-side apply and managed fields for every kind (kube-apiserver's
// fieldmanager): each write records who set which fields in
// metadata.managedFields; an apply patch (application/apply-patch+yaml)
// merges the applier's configuration, answering 409 for fields others own.
// The field logic is src/lib/managedfields; this module binds it to the
// kinds' patch metadata, the request's field manager and the store.
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import { patchMetaFor } from '../../kinds/patchmeta.ts';
import { rfc3339 } from '../../lib/duration.ts';
import { fieldErrors, type FieldError } from '../../lib/field.ts';
import {
  applyManaged,
  createdEntries,
  ApplyConflictError,
  decodeManaged,
  printManager,
  updateManaged,
  updateManagedEntries,
  withManagedEntries,
  withManagedFields,
  type ManagedFieldsEntry,
  FieldSet,
  pathString,
  TypedError,
  type FieldManagerContext,
  type Managed,
} from '../../lib/managedfields/managers.ts';
import { FieldsV1Error } from '../../lib/managedfields/fieldset.ts';
import { ApiError, errors } from '../http/status.ts';
import type { UserInfo } from '../auth/authn.ts';
import { decodeObject, type FieldValidation } from './decode.ts';
import type { Store, WriteContext } from './store.ts';
import type { CachedObject } from '../watch/cache.ts';
import { yieldToEventLoop } from './turns.ts';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';
/** validation.FieldManagerMaxLength */
const FIELD_MANAGER_MAX_LENGTH = 128;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

type JSONMap = Record<string, unknown>;

/** Fields the endpoint resets from the stored object: owned by no one (the strategy's reset fields). */
function ignoredFields(kind: KindDefinition, subresource: string | undefined): FieldSet {
  const paths = (fields: string[], prefix: string[] = []) => fields.map((f) => [...prefix, ...f.split('.')].map((p) => `f:${p}`));
  if (subresource === 'status') {
    return FieldSet.of(...paths(kind.strategy.statusResetsFields), ...paths(kind.strategy.statusResetsMetadata, ['metadata']));
  }
  return subresource ? new FieldSet() : FieldSet.of(...paths(kind.strategy.mainResetsFields));
}

/** Each kind's patch metadata and ignored fields per endpoint, built once: every write of a rollout needs them. */
const contexts = new WeakMap<KindDefinition, Map<string, Omit<FieldManagerContext, 'now'>>>();

function contextFor(kind: KindDefinition, subresource: string | undefined): FieldManagerContext {
  let byEndpoint = contexts.get(kind);
  if (!byEndpoint) contexts.set(kind, (byEndpoint = new Map()));
  let c = byEndpoint.get(subresource ?? '');
  if (!c) byEndpoint.set(subresource ?? '', (c = { schema: patchMetaFor(kind), ignored: ignoredFields(kind, subresource) }));
  return { ...c, now: nowSeconds() };
}

/** The time now to the second, as managedFields record it; made once a second, not once a write. */
let second = { at: -1, text: '' };
function nowSeconds(): string {
  const at = Math.floor(Date.now() / 1000);
  if (at !== second.at) second = { at, text: rfc3339(new Date(at * 1000)) };
  return second.text;
}

/** The object without its managedFields: what field sets and comparisons look at. */
function withoutManaged(o: KubeObject | JSONMap): JSONMap {
  const meta = o.metadata as JSONMap | undefined;
  if (!meta || !('managedFields' in meta)) return o as JSONMap;
  const { managedFields: _, ...rest } = meta;
  return { ...o, metadata: rest };
}

function decodeOrEmpty(entries: unknown): Managed | undefined {
  try {
    return decodeManaged(entries as never);
  } catch (e) {
    if (e instanceof FieldsV1Error) return undefined;
    throw e;
  }
}

/**
 * The manager of a write made without `fieldManager`: the User-Agent up to
 * its first `/`, printable characters only, at most 128 bytes
 * (prefixFromUserAgent); for the in-process controllers, their user's name.
 */
export function defaultFieldManager(userAgent: string | undefined, user?: UserInfo): string {
  if (userAgent === undefined) return componentOf(user?.name ?? '');
  const program = userAgent.split('/')[0];
  // The usual case, printable ASCII (`kubectl`, `kubelet`), is itself: one byte a character.
  if (PRINTABLE_ASCII.test(program)) return program.slice(0, FIELD_MANAGER_MAX_LENGTH);
  let out = '';
  for (const ch of program) {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

/** The program whose User-Agent upstream credits for a control-plane identity's writes. */
function componentOf(user: string): string {
  if (user.startsWith('system:serviceaccount:kube-system:')) return 'kube-controller-manager';
  if (user === 'system:kube-scheduler') return 'kube-scheduler';
  if (user.startsWith('system:node:')) return 'kubelet';
  return user;
}

/** ValidateFieldManager: at most 128 bytes, printable. */
export function validateFieldManager(fieldManager: string): FieldError[] {
  if (fieldManager.length <= FIELD_MANAGER_MAX_LENGTH && PRINTABLE_ASCII.test(fieldManager)) return [];
  const errs: FieldError[] = [];
  if (fieldManager.length > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  [...fieldManager].forEach((ch, i) => {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push(fieldErrors.invalid('fieldManager', fieldManager, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`));
    }
  });
  return errs;
}

/**
 * Records an update (create, PUT, any non-apply patch) in `next`'s
 * managedFields. The managers are the ones the client sent, when valid and
 * not through a subresource (kubectl's client-side to server-side upgrade
 * rewrites them this way), else the stored ones (decodeLiveOrNew). For a
 * large object, decoding the managers, the compare and the encoding of the
 * result each take a turn of their own.
 */
export async function recordUpdate(kind: KindDefinition, live: KubeObject | undefined, next: KubeObject, ctx: WriteContext, subresource?: string): Promise<void> {
  const steps = recording(kind, live, next, ctx.fieldManager ?? defaultFieldManager(undefined, ctx.user), subresource);
  do if (ctx.large) await yieldToEventLoop();
  while (!steps.next().done);
}

/** recordUpdate in one go (the body decoder's worker records a large write's fields this way, off the event loop). */
export function recordUpdateNow(kind: KindDefinition, live: KubeObject | undefined, next: KubeObject, manager: string, subresource?: string): void {
  for (const _ of recording(kind, live, next, manager, subresource));
}

/** recordUpdate's steps, with a pause between them. */
function* recording(kind: KindDefinition, live: KubeObject | undefined, next: KubeObject, manager: string, subresource: string | undefined): Generator<void, void> {
  const sent = subresource ? undefined : next.metadata.managedFields;
  // `[]` or `[{}]` is how a client clears them (isResetManagedFields): an existing object then stays untracked, a new one is tracked from its creation.
  const reset = sent?.length === 0 || (sent?.length === 1 && !Object.keys(sent[0] ?? {}).length);
  const writer = { manager, apiVersion: apiVersionOf(kind), subresource };
  // An update of a tracked object, its entries as encodeManaged writes them (as every stored one is): the
  // entries the write takes nothing from are kept as they are, not decoded and encoded again.
  const entries = reset ? undefined : sent?.length ? sent : live?.metadata.managedFields;
  if (live && entries?.length && wroteEntries(live, next, () => updateManagedEntries(withoutManaged(live), withoutManaged(next), entries as ManagedFieldsEntry[], writer, contextFor(kind, subresource)))) {
    return;
  }
  let managed = reset ? new Map() : sent?.length ? decodeOrEmpty(sent) : undefined;
  if (!reset && !managed?.size) managed = decodeOrEmpty(live?.metadata.managedFields) ?? new Map();
  // A create nobody sent entries for (every create of the in-process actors, most of kubectl's): the creator's entry written from the object.
  if (!live && !managed!.size && wroteEntries(live, next, () => createdEntries(withoutManaged(next), writer, contextFor(kind, subresource)))) return;
  yield;
  let after: Managed;
  try {
    after = updateManaged(live && withoutManaged(live), withoutManaged(next), managed!, writer, contextFor(kind, subresource));
  } catch (e) {
    if (!(e instanceof TypedError)) throw e;
    return keepLive(live, next);
  }
  yield;
  next.metadata = withManagedFields(next, after).metadata as KubeObject['metadata'];
}

/**
 * Writes the entries `make` gives into `next` (or, should it fail as a typed
 * comparison fails, keeps the live ones); false when `make` cannot tell
 * (undefined) and updateManaged must.
 */
function wroteEntries(live: KubeObject | undefined, next: KubeObject, make: () => ManagedFieldsEntry[] | undefined): boolean {
  let entries: ManagedFieldsEntry[] | undefined;
  try {
    entries = make();
  } catch (e) {
    if (!(e instanceof TypedError)) throw e;
    keepLive(live, next);
    return true;
  }
  if (!entries) return false;
  next.metadata = withManagedEntries(next, entries).metadata as KubeObject['metadata'];
  return true;
}

/** Upstream never fails a write over its managed fields (UpdateNoErrors): they stay as they were. */
function keepLive(live: KubeObject | undefined, next: KubeObject): void {
  if (live?.metadata.managedFields) next.metadata.managedFields = live.metadata.managedFields;
}

/**
 * What a create drops from the body as sent (the server sets or clears
 * these), before the creator's fields are recorded: a creator is not
 * credited with a status the endpoint resets.
 */
export function dropOnCreate(kind: KindDefinition, obj: KubeObject): void {
  for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const) delete obj.metadata[f];
  if (kind.strategy.statusOnCreate === 'reset' && 'status' in obj) delete obj.status;
}

/** The 409 for apply conflicts (NewApplyConflict): a FieldManagerConflict cause per field. */
function conflictError(e: ApplyConflictError): ApiError {
  return new ApiError(409, 'Conflict', e.message, {
    causes: e.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) })),
  });
}

export interface ApplyOptions {
  namespace: string | undefined;
  name: string;
  manager: string;
  force: boolean;
  fieldValidation: FieldValidation;
  subresource?: string;
}

export interface ApplyRequest extends ApplyOptions {
  /**
   * One attempt's merge: the applied configuration merged into the live
   * object (undefined when there is none: a create), decoded, with its
   * managed fields, as applyConfig makes it (in place, or in the body
   * decoder's worker for a large one: `large`).
   */
  merge: (live: CachedObject | undefined) => Promise<{ object: KubeObject; large?: boolean }>;
}

/** Checks on the configuration itself (structuredmerge's Apply and the patcher). */
function checkConfig(kind: KindDefinition, config: unknown, name: string): JSONMap {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw errors.badRequest(`error decoding YAML: json: cannot unmarshal ${Array.isArray(config) ? 'array' : typeof config} into Go value of type map[string]interface {}`);
  }
  const c = config as JSONMap;
  const apiVersion = apiVersionOf(kind);
  if (c.apiVersion !== apiVersion) {
    throw errors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(c.apiVersion ?? '')}, expected: ${apiVersion}`);
  }
  if (c.kind !== kind.kind) throw errors.badRequest(`Incorrect kind specified in apply patch. Specified patch kind: ${String(c.kind ?? '')}, expected: ${kind.kind}`);
  const meta = (c.metadata ?? {}) as JSONMap;
  if (meta.managedFields !== undefined && meta.managedFields !== null) throw errors.badRequest('metadata.managedFields must be nil');
  if (meta.name !== undefined && meta.name !== name) {
    throw errors.badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  }
  return c;
}

/**
 * PATCH with an apply configuration: merged into the stored object, or
 * creating it when there is none (answered 201). Returns the object written.
 */
export async function serverSideApply(store: Store, req: ApplyRequest, ctx: WriteContext): Promise<{ object: KubeObject; created: boolean }> {
  const applied: WriteContext = { ...ctx, applied: true };
  for (let attempt = 0; ; attempt++) {
    if (!store.peek(req.namespace, req.name) && !req.subresource) {
      const { object, large } = await req.merge(undefined);
      applied.large ||= large;
      try {
        return { object: await store.create(req.namespace, object, applied), created: true };
      } catch (e) {
        // Created by someone else meanwhile: apply to theirs.
        if (e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists' && attempt < 3) continue;
        throw e;
      }
    }
    const object = await store.guaranteedUpdateFrom(
      req.namespace,
      req.name,
      async (current) => {
        const { object, large } = await req.merge(current);
        applied.large ||= large;
        return object;
      },
      applied,
      req.subresource,
    );
    return { object, created: false };
  }
}

/**
 * One attempt of an apply, on this thread: `config` (the parsed body)
 * merged into `live` (undefined: none yet), decoded, with the managed
 * fields after it; a 409 for fields others own unless forced.
 */
export function applyConfig(kind: KindDefinition, live: KubeObject | undefined, config: unknown, opts: ApplyOptions, warnings: string[]): KubeObject {
  const checked = checkConfig(kind, config, opts.name);
  const writer = { manager: opts.manager, apiVersion: apiVersionOf(kind), subresource: opts.subresource };
  const fm = contextFor(kind, opts.subresource);
  let r: ReturnType<typeof applyManaged>;
  try {
    r = live
      ? applyManaged(withoutManaged(live), checked, decodeOrEmpty(live.metadata.managedFields) ?? new Map(), writer, opts.force, fm)
      : applyManaged({}, { ...checked, metadata: { ...(checked.metadata as JSONMap), name: opts.name } }, new Map(), writer, opts.force, fm);
  } catch (e) {
    if (e instanceof ApplyConflictError) throw conflictError(e);
    if (e instanceof TypedError) throw errors.internal(`failed to create typed patch object (${apiVersionOf(kind)}, Kind=${kind.kind}) ${opts.namespace ? `${opts.namespace}/` : ''}${opts.name}: ${e.message}`);
    throw e;
  }
  const obj = decodeObject(kind, r.object, { fieldValidation: opts.fieldValidation, warnings, patch: true });
  obj.metadata = withManagedFields(obj, r.managed).metadata as KubeObject['metadata'];
  return obj;
}
