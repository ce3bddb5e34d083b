// Who owns which fields: metadata.managedFields, and how each write changes
// it, after kube-apiserver's field manager (the structured-merge-diff
// Updater wrapped by apiserver's managers: strip meta, before-first-apply,
// last-applied for kubectl). Pure: the caller gives the time.
import { clone, deepEqual } from '../json.ts';
import { comparePathElements, FieldSet, FieldsV1Error, pathString, sortPathElements, type FieldPath, type FieldsV1 } from './fieldset.ts';
import { compare, createdFieldsV1, merge, removeItems, toFieldSet, type ApplySchema } from './typed.ts';

export { FieldSet, pathString } from './fieldset.ts';
export { TypedError, type ApplySchema, type ApplyField } from './typed.ts';

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** Managers by identity: appliers by name and subresource, updaters also by apiVersion (BuildManagerIdentifier). */
export type Managed = Map<string, Manager>;

export const managerId = (m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>) =>
  JSON.stringify([m.manager, m.operation, m.subresource ?? '', m.operation === 'Update' ? m.apiVersion : '']);

/** The manager kube-apiserver credits the fields a client had before its first apply. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';
/** kubectl's field manager for `apply --server-side`; its applies keep the client-side apply annotation in step. */
export const KUBECTL_MANAGER = 'kubectl';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Reads managedFields; throws FieldsV1Error for entries that are not valid. */
export function decodeManaged(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  const out: Managed = new Map();
  for (const e of entries ?? []) {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new FieldsV1Error(`operation must be Apply or Update, not ${JSON.stringify(e.operation)}`);
    if (e.fieldsType !== 'FieldsV1') throw new FieldsV1Error(`fieldsType must be FieldsV1, not ${JSON.stringify(e.fieldsType)}`);
    const m: Manager = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      fields: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : {}),
    };
    const id = managerId(m);
    const prev = out.get(id);
    if (prev) m.fields = prev.fields.union(m.fields);
    out.set(id, m);
  }
  return out;
}

/** managedFields as stored: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManaged(managed: Managed): ManagedFieldsEntry[] {
  return [...managed.values()]
    .filter((m) => !m.fields.empty())
    .sort(storedOrder)
    .map(encodeManager);
}

const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);

/** The order of stored entries (a total order over managers of distinct identities whose times parse). */
function storedOrder(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    cmp(p.operation!, q.operation!) || seconds(p.time) - seconds(q.time) || cmp(p.manager!, q.manager!) || cmp(p.apiVersion!, q.apiVersion!) || cmp(p.subresource ?? '', q.subresource ?? '')
  );
}

function encodeManager(m: Manager): ManagedFieldsEntry {
  return withFieldsV1(m, m.fields.toFieldsV1() as FieldsV1);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Fields nobody owns: identity and bookkeeping (apiserver's stripMeta). */
const STRIPPED = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', `f:${f}`]),
);

export interface FieldManagerContext {
  schema: ApplySchema;
  /** Fields the write's endpoint resets (status on the main resource, spec on /status): owned by no one. */
  ignored: FieldSet;
  /** RFC 3339 time of the write. */
  now: string;
}

export interface Writer {
  manager: string;
  apiVersion: string;
  subresource?: string;
}

/** The writer's entry head (manager, operation, apiVersion, subresource) at `time`: one place for its shape. */
const writerEntry = (writer: Writer, operation: Operation, time: string | undefined) => ({
  manager: writer.manager,
  operation,
  apiVersion: writer.apiVersion,
  ...(writer.subresource ? { subresource: writer.subresource } : {}),
  time,
});

export interface Conflict {
  manager: Manager;
  path: FieldPath;
}

/** An apply that would change fields others own (merge.Conflicts). */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(conflictMessage(conflicts));
  }
}

/** How kube-apiserver names a manager in a conflict (printManager). */
export function printManager(m: Manager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/** The Status message of a 409 for conflicts (apiserver's getConflictMessage). */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    const name = printManager(c.manager);
    byManager.set(name, [...(byManager.get(name) ?? []), c]);
  }
  const lines: string[] = [];
  for (const name of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${name}:`);
    for (const c of byManager.get(name)!) lines.push(`- ${pathString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

type JSONMap = Record<string, unknown>;

function copyManaged(managed: Managed): Managed {
  const out: Managed = new Map();
  for (const [id, m] of managed) out.set(id, { ...m });
  return out;
}

function withoutStripped(managed: Managed): Managed {
  for (const [id, m] of managed) {
    m.fields = m.fields.difference(STRIPPED);
    if (m.fields.empty()) managed.delete(id);
  }
  return managed;
}

/**
 * Changes from `live` to `next` taken from other managers (Updater.update):
 * fields the write changed or added leave every other manager; fields it
 * removed leave everyone. Without `force`, changed fields another manager
 * owns are conflicts instead.
 */
function takeChanged(live: JSONMap, next: JSONMap, managed: Managed, self: string, force: boolean, ctx: FieldManagerContext) {
  const c = compare(live, next, ctx.schema, ctx.ignored);
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  for (const [id, m] of managed) {
    if (id === self) continue;
    const clash = m.fields.intersection(changed);
    if (!clash.empty()) {
      if (!force) for (const path of clash.paths()) conflicts.push({ manager: m, path });
      m.fields = m.fields.difference(clash);
    }
    if (!c.removed.empty()) m.fields = m.fields.difference(c.removed);
  }
  if (conflicts.length) throw new ApplyConflictError(conflicts);
  for (const [id, m] of managed) if (id !== self && m.fields.empty()) managed.delete(id);
  return { comparison: c, changed };
}

/**
 * The managed fields after an update (create, PUT, any non-apply patch) by
 * `writer`: what it changed becomes its own (merged into its earlier
 * entry, whose time moves), and leaves the others. `live` is undefined on
 * create. An existing object nobody tracks stays untracked, as upstream.
 */
export function updateManaged(live: JSONMap | undefined, next: JSONMap, managed: Managed, writer: Writer, ctx: FieldManagerContext): Managed {
  if (live !== undefined && managed.size === 0) return managed;
  const out = copyManaged(managed);
  const { changed, comparison } = takeChanged(live ?? zeroOf(next, ctx.schema), next, out, '', true, ctx);
  const mine = changed.difference(comparison.removed).difference(STRIPPED);
  const id = managerId({ ...writer, operation: 'Update' });
  if (!mine.empty()) {
    const prev = out.get(id);
    out.set(id, { ...writerEntry(writer, 'Update', ctx.now), fields: prev ? prev.fields.union(mine) : mine });
  }
  return capUpdateManagers(withoutStripped(out));
}

/**
 * updateManaged and encodeManaged in one, on the stored entries themselves
 * (`[]` when none is left), or undefined where only updateManaged can tell
 * (see storedAsEncoded; more than MAX_UPDATE_MANAGERS - 1 updaters). An
 * entry the write takes no field from is kept as stored, the same object,
 * rather than decoded and encoded again: a status write by one manager then
 * costs its own entry and the change, not every manager's fields. Nothing is
 * kept between writes. The result is the same as encodeManaged(updateManaged(…))
 * of the decoded entries (server/registry/managedentries.test.ts compares them).
 */
export function updateManagedEntries(live: JSONMap, next: JSONMap, entries: readonly ManagedFieldsEntry[], writer: Writer, ctx: FieldManagerContext): ManagedFieldsEntry[] | undefined {
  if (!entries.length) return undefined;
  const ids: string[] = [];
  let updaters = 0;
  for (const e of entries) {
    if (!storedAsEncoded(e)) return undefined;
    const id = managerId(e as Manager);
    if (ids.includes(id)) return undefined;
    ids.push(id);
    if (e.operation === 'Update') updaters++;
  }
  // A new updater could make one too many: capUpdateManagers decides then.
  if (updaters >= MAX_UPDATE_MANAGERS) return undefined;
  const c = compare(live, next, ctx.schema, ctx.ignored);
  const changed = c.modified.union(c.added);
  const mine = changed.difference(c.removed).difference(STRIPPED);
  const selfId = managerId({ ...writer, operation: 'Update' });
  const out: ManagedFieldsEntry[] = [];
  let renewedFields: FieldsV1 | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const fields = e.fieldsV1 as FieldsV1;
    const renewed = ids[i] === selfId && !mine.empty();
    const minus: FieldSet[] = [];
    // Taken from as updateManaged takes (takeChanged; withoutStripped has nothing to take from a stored entry).
    if (fieldsMeet(fields, changed)) minus.push(changed);
    if (!c.removed.empty() && fieldsMeet(fields, c.removed)) minus.push(c.removed);
    if (!minus.length && !renewed) {
      out.push(e);
      continue;
    }
    const left = rewriteFieldsV1(fields, minus, renewed ? mine : undefined);
    if (renewed) renewedFields = left;
    else if (left) out.push(withFieldsV1(e, left));
  }
  if (!mine.empty()) {
    out.push(withFieldsV1(writerEntry(writer, 'Update', ctx.now), renewedFields ?? (mine.toFieldsV1() as FieldsV1)));
  }
  if (out.length < 2) return out;
  // Sorted as encodeManaged sorts, each time parsed once.
  const at = new Map(out.map((e) => [e, seconds(e.time)]));
  return out.sort((p, q) => cmp(p.operation!, q.operation!) || at.get(p)! - at.get(q)! || storedOrder(p, q));
}

/**
 * updateManaged and encodeManaged for a create that sent no managed fields
 * (or cleared them): the creator's entry, its FieldsV1 written from the object
 * (createdFieldsV1) without the fields nobody owns; `[]` when it owns none,
 * undefined where only updateManaged can tell. The same entries as
 * encodeManaged(updateManaged(undefined, next, new Map(), …)) (typed.test.ts compares them).
 */
export function createdEntries(next: JSONMap, writer: Writer, ctx: FieldManagerContext): ManagedFieldsEntry[] | undefined {
  const added = createdFieldsV1(next, zeroOf(next, ctx.schema), ctx.schema, ctx.ignored);
  if (!added) return undefined;
  const mine = rewriteFieldsV1(added, [STRIPPED], undefined);
  return mine ? [withFieldsV1(writerEntry(writer, 'Update', ctx.now), mine)] : [];
}

/** An entry as encodeManaged writes it (its keys in this order), with these fields. */
function withFieldsV1(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'time' | 'subresource'>, fieldsV1: FieldsV1): ManagedFieldsEntry {
  return {
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time ? { time: e.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(e.subresource ? { subresource: e.subresource } : {}),
  };
}

/**
 * (`v` − each of `minus`) ∪ `plus` for an encoded FieldsV1 value, written as
 * FieldSet.toFieldsV1 writes it, without decoding it: the parts no set reaches
 * are `v`'s own objects. A difference takes members only (what is below a
 * member taken stays), as FieldSet.difference does. Undefined when nothing is left.
 */
function rewriteFieldsV1(v: FieldsV1, minus: FieldSet[], plus: FieldSet | undefined): FieldsV1 | undefined {
  const keys: string[] = [];
  for (const pe in v) if (pe !== '.') keys.push(pe);
  if (plus) {
    const n = keys.length;
    for (const pe of plus.members) if (!Object.hasOwn(v, pe)) keys.push(pe);
    for (const pe of plus.children.keys()) if (!Object.hasOwn(v, pe) && !plus.members.has(pe)) keys.push(pe);
    if (keys.length > n) sortPathElements(keys);
  }
  const out: FieldsV1 = {};
  let any = false;
  for (const pe of keys) {
    const sub = Object.hasOwn(v, pe) ? v[pe] : undefined;
    let taken = false;
    let below: FieldSet[] | undefined;
    for (const m of minus) {
      if (m.members.has(pe)) taken = true;
      const c = m.children.get(pe);
      if (c) (below ??= []).push(c);
    }
    const more = plus?.children.get(pe);
    const added = !!plus?.members.has(pe);
    if (sub && !taken && !below && !more && !added) {
      out[pe] = sub;
      any = true;
      continue;
    }
    const member = (!!sub && isMember(sub) && !taken) || added;
    const rest = rewriteFieldsV1(sub ?? {}, below ?? [], more);
    if (rest) out[pe] = member ? { '.': {}, ...rest } : rest;
    else if (member) out[pe] = {};
    else continue;
    any = true;
  }
  return any ? out : undefined;
}

/** Whether a stored FieldsV1 value holds a path of `set` (its intersection with `set` is not empty), read without decoding it. */
function fieldsMeet(v: FieldsV1, set: FieldSet): boolean {
  for (const pe of set.members) if (Object.hasOwn(v, pe) && isMember(v[pe])) return true;
  for (const [pe, below] of set.children) if (Object.hasOwn(v, pe) && fieldsMeet(v[pe], below)) return true;
  return false;
}

/** A path element's value in an encoded FieldsV1 is a member when it is `{}` or has `.`. */
function isMember(v: FieldsV1): boolean {
  for (const k in v) return k === '.';
  return true;
}

/**
 * Whether an entry is exactly what encodeManaged writes for the manager it
 * decodes to (so that keeping it as it is changes no byte): the keys in
 * encodeManaged's order, a time that parses, non-empty fields in canonical
 * FieldsV1 with none of STRIPPED. Entries a client sent in another form go
 * through the decoding path, which makes them so.
 */
function storedAsEncoded(e: ManagedFieldsEntry): boolean {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
  const keys = Object.keys(e);
  let i = 0;
  if (keys[i++] !== 'manager' || typeof e.manager !== 'string') return false;
  if (keys[i++] !== 'operation' || (e.operation !== 'Apply' && e.operation !== 'Update')) return false;
  if (keys[i++] !== 'apiVersion' || typeof e.apiVersion !== 'string') return false;
  if (keys[i] === 'time') {
    i++;
    if (typeof e.time !== 'string' || !e.time || Number.isNaN(Date.parse(e.time))) return false;
  }
  if (keys[i++] !== 'fieldsType' || e.fieldsType !== 'FieldsV1') return false;
  if (keys[i++] !== 'fieldsV1') return false;
  if (keys[i] === 'subresource') {
    i++;
    if (typeof e.subresource !== 'string' || !e.subresource) return false;
  }
  if (i !== keys.length) return false;
  const f = e.fieldsV1;
  if (!canonicalFieldsV1(f, false) || isEmptyObject(f)) return false;
  const meta = (f as FieldsV1)['f:metadata'];
  if (Object.hasOwn(f as object, 'f:apiVersion') || Object.hasOwn(f as object, 'f:kind')) return false;
  if (meta && (isMember(meta) || STRIPPED_METADATA.some((pe) => Object.hasOwn(meta, pe)))) return false;
  return true;
}

const STRIPPED_METADATA = [...STRIPPED.withPrefix('f:metadata').members];

const isPlainObject = (v: unknown): v is FieldsV1 => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmptyObject = (v: unknown) => {
  for (const _ in v as object) return false;
  return true;
};

/** FieldsV1 exactly as FieldSet.toFieldsV1 writes it: `.` first (below a member with more below it) as `{}`, path elements valid and in order. */
function canonicalFieldsV1(v: unknown, dotAllowed: boolean): boolean {
  if (!isPlainObject(v)) return false;
  let prev: string | undefined;
  let first = true;
  for (const pe in v) {
    if (!Object.hasOwn(v, pe)) return false;
    const sub = v[pe];
    if (pe === '.') {
      if (!first || !dotAllowed || !isPlainObject(sub) || !isEmptyObject(sub)) return false;
      first = false;
      continue;
    }
    first = false;
    const c = pe.charCodeAt(0);
    // f, k, v or i, then ':'.
    if (pe.charCodeAt(1) !== 58 || (c !== 102 && c !== 107 && c !== 118 && c !== 105)) return false;
    if (prev !== undefined && !(c === 102 && prev.charCodeAt(0) === 102 ? prev < pe : comparePathElements(prev, pe) < 0)) return false;
    prev = pe;
    if (!isPlainObject(sub)) return false;
    // `{}` is a member with nothing below it; anything else is a level of its own.
    if (!isEmptyObject(sub) && !canonicalFieldsV1(sub, true)) return false;
  }
  // `{".": {}}` alone is a member written the long way (toFieldsV1 writes `{}`).
  return !(prev === undefined && !first);
}

/** At most this many Update entries are kept (DefaultMaxUpdateManagers). */
export const MAX_UPDATE_MANAGERS = 10;
/** Where the oldest updaters' fields go when there are more (capManagersManager). */
export const ANCIENT_CHANGES = 'ancient-changes';

/** The oldest Update entries merged into `ancient-changes` (per apiVersion) until at most MAX_UPDATE_MANAGERS remain. */
export function capUpdateManagers(managed: Managed): Managed {
  const updaters = () => [...managed].filter(([, m]) => m.operation === 'Update');
  if (updaters().length <= MAX_UPDATE_MANAGERS) return managed;
  const oldest = updaters()
    .filter(([, m]) => m.manager !== ANCIENT_CHANGES)
    .sort(([, a], [, b]) => (a.time ?? '').localeCompare(b.time ?? ''));
  for (const [id, m] of oldest) {
    if (updaters().length <= MAX_UPDATE_MANAGERS) break;
    const bucket: Manager = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: m.apiVersion, fields: new FieldSet() };
    const bucketId = managerId(bucket);
    const prev = managed.get(bucketId) ?? bucket;
    managed.delete(id);
    const later = (prev.time ?? '') > (m.time ?? '') ? prev.time : m.time;
    managed.set(bucketId, { ...prev, fields: prev.fields.union(m.fields), ...(later ? { time: later } : {}) });
  }
  return managed;
}

/**
 * The object a create starts from: Go's zero value of the kind, whose
 * top-level structs (spec, status, metadata) exist empty, so a creator
 * owns `spec.x` but not `spec` itself, while a map such as a ConfigMap's
 * `data` is new (`f:data: {".": {}, …}`), as upstream records them.
 */
function zeroOf(next: JSONMap, schema: ApplySchema): JSONMap {
  const out: JSONMap = {};
  for (const [k, v] of Object.entries(next)) {
    const struct = !!schema[k]?.fields || k === 'spec' || k === 'status';
    if (struct && v && typeof v === 'object' && !Array.isArray(v)) out[k] = {};
  }
  return out;
}

export interface ApplyResult {
  /** The object after the apply; equal to `live` when the apply changes no value. */
  object: JSONMap;
  managed: Managed;
}

/**
 * Server-side apply of `config` by `writer` onto `live` (`{}` for an object
 * that does not exist yet): the merge, removal of the fields this applier
 * applied before and no longer does (unless another manager owns them),
 * conflicts with other managers' fields unless `force`, and the new
 * ownership. Throws ApplyConflictError or TypedError.
 */
export function applyManaged(live: JSONMap, config: JSONMap, managedIn: Managed, writer: Writer, force: boolean, ctx: FieldManagerContext): ApplyResult {
  let managed = copyManaged(managedIn);
  if (managed.size === 0 && Object.keys(live).length) {
    // Fields set before anyone applied belong to a manager of their own, so that appliers conflict with them.
    managed = updateManaged(undefined, live, managed, { manager: BEFORE_FIRST_APPLY, apiVersion: writer.apiVersion, subresource: writer.subresource }, ctx);
    for (const m of managed.values()) delete m.time;
  }
  try {
    return applyOnce(live, config, managed, writer, force, ctx);
  } catch (e) {
    if (!(e instanceof ApplyConflictError) || writer.manager !== KUBECTL_MANAGER) throw e;
    // kubectl moving from client-side apply: conflicts over fields its last-applied configuration set are its own.
    const allowed = allowedByLastApplied(live, ctx);
    const left = e.conflicts.filter((c) => !allowed?.has(c.path));
    if (left.length) throw left.length === e.conflicts.length ? e : new ApplyConflictError(left);
    return applyOnce(live, config, managed, writer, true, ctx);
  }
}

function applyOnce(live: JSONMap, config: JSONMap, managedIn: Managed, writer: Writer, force: boolean, ctx: FieldManagerContext): ApplyResult {
  const managed = copyManaged(managedIn);
  const id = managerId({ ...writer, operation: 'Apply' });
  const last = managed.get(id);
  let object = merge(live, config, ctx.schema);
  const set = toFieldSet(config, ctx.schema).recursiveDifference(ctx.ignored);
  managed.set(id, { ...writerEntry(writer, 'Apply', last?.time), fields: set });
  if (last && !last.fields.empty()) object = prune(object, managed, last.fields, ctx);
  takeChanged(live, object, managed, id, force, ctx);
  if (writer.manager === KUBECTL_MANAGER && hasLastApplied(object)) object = withLastApplied(object, config);
  const changed = !deepEqual(live, object);
  const mine = managed.get(id)!;
  if (changed || !mine.time) mine.time = ctx.now;
  return { object: changed ? object : live, managed: withoutStripped(managed) };
}

/**
 * Fields the applier had and no longer applies, that no manager owns now,
 * are removed (Updater.prune with addBackOwnedItems and addBackDanglingItems).
 */
function prune(merged: JSONMap, managed: Managed, last: FieldSet, ctx: FieldManagerContext): JSONMap {
  let owned = new FieldSet();
  for (const m of managed.values()) owned = owned.union(m.fields);
  const present = toFieldSet(merged, ctx.schema).ensureNamedFieldsAreMembers();
  const remove = present.intersection(last.ensureNamedFieldsAreMembers()).difference(owned.ensureNamedFieldsAreMembers());
  return remove.empty() ? merged : removeItems(merged, remove, ctx.schema);
}

function hasLastApplied(o: JSONMap): boolean {
  const a = (o.metadata as JSONMap | undefined)?.annotations as Record<string, string> | undefined;
  return !!a?.[LAST_APPLIED_ANNOTATION];
}

/** The applied configuration becomes the client-side apply annotation (lastAppliedUpdater), so a later client-side apply agrees. */
function withLastApplied(o: JSONMap, config: JSONMap): JSONMap {
  const c = clone(config) as JSONMap;
  const cm = c.metadata as JSONMap | undefined;
  const ca = cm?.annotations as Record<string, string> | undefined;
  if (ca) {
    delete ca[LAST_APPLIED_ANNOTATION];
    if (!Object.keys(ca).length) delete cm!.annotations;
  }
  const out = { ...o, metadata: { ...(o.metadata as JSONMap) } };
  const meta = out.metadata as JSONMap;
  meta.annotations = { ...(meta.annotations as JSONMap), [LAST_APPLIED_ANNOTATION]: JSON.stringify(c) };
  return out;
}

/** Fields the live object's last-applied configuration set and still holds as set (lastAppliedManager). */
function allowedByLastApplied(live: JSONMap, ctx: FieldManagerContext): FieldSet | undefined {
  const text = ((live.metadata as JSONMap | undefined)?.annotations as Record<string, string> | undefined)?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  try {
    const last = JSON.parse(text) as JSONMap;
    const c = compare(last, live, ctx.schema);
    return toFieldSet(last, ctx.schema).difference(c.modified).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The object with its managers written into metadata.managedFields (omitted when none). */
export function withManagedFields<T extends JSONMap>(o: T, managed: Managed): T {
  return withManagedEntries(o, encodeManaged(managed));
}

/** The object with `entries` as its metadata.managedFields (omitted when none). */
export function withManagedEntries<T extends JSONMap>(o: T, entries: ManagedFieldsEntry[]): T {
  const meta = { ...((o.metadata as JSONMap | undefined) ?? {}) };
  if (entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
  return { ...o, metadata: meta };
}

