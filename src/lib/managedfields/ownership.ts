// Who owns a field, read from managedFields, and what an applier should send
// to own what a user changed: the app's view of server-side apply (its YAML
// hover, form badges and apply requests). Pure.
import { FieldSet, fieldPE, type FieldPath, type PathElement } from './fieldset.ts';
import type { Managed, Operation } from './managers.ts';
import { compare, extractItems, itemPE, listTypeOf, type ApplyField, type ApplySchema } from './typed.ts';

type JSONMap = Record<string, unknown>;
const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A step into an object: a field or map key, or a list index. */
export type Segment = string | number;

export interface Owner {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
}

const ownerOf = ({ manager, operation, apiVersion, subresource, time }: Owner): Owner => ({
  manager,
  operation,
  apiVersion,
  ...(subresource ? { subresource } : {}),
  ...(time ? { time } : {}),
});

/**
 * The FieldsV1 path of the field that `segments` reach in `value` (list items
 * by index, named by their keys or value as managedFields names them), or
 * undefined when `value` has no such field. Inside an atomic list or map the
 * path stops at it: it is owned as one value.
 */
export function fieldPathOf(value: unknown, segments: readonly Segment[], schema: ApplySchema): FieldPath | undefined {
  let m: ApplyField | undefined = { fields: schema };
  let v = value;
  const out: PathElement[] = [];
  for (const s of segments) {
    if (Array.isArray(v)) {
      const i = typeof s === 'number' ? s : /^\d+$/.test(s) ? Number(s) : -1;
      if (i < 0 || i >= v.length) return undefined;
      const type = listTypeOf(m);
      if (type === 'atomic') return out;
      try {
        out.push(itemPE(m, v[i], () => ''));
      } catch {
        return undefined;
      }
      v = v[i];
      m = type === 'map' ? { fields: m?.fields } : undefined;
    } else if (isMap(v)) {
      const k = String(s);
      if (v[k] === undefined) return undefined;
      if (m?.mapType === 'atomic') return out;
      out.push(fieldPE(k));
      v = v[k];
      m = m?.fields?.[k];
    } else return undefined;
  }
  return out;
}

/** The subset of `set` below `path`, or undefined when nothing is. */
function below(set: FieldSet, path: FieldPath): FieldSet | undefined {
  let s: FieldSet | undefined = set;
  for (const pe of path) if (!(s = s.children.get(pe))) return undefined;
  return s;
}

const bare = (s: FieldSet | undefined) => !s || s.empty();

/**
 * The managers that own the field at `path`: those whose set has it, or has
 * an enclosing path as a member with nothing listed below it (a value owned
 * whole: a leaf, an atomic list or map). Owning a list item or a map itself
 * (`.`) is not owning every field in it.
 */
export function ownersOf(managed: Managed, path: FieldPath): Owner[] {
  const out: Owner[] = [];
  for (const m of managed.values()) {
    const owns = m.fields.has(path) || path.some((_, n) => n > 0 && m.fields.has(path.slice(0, n)) && bare(below(m.fields, path.slice(0, n))));
    if (owns) out.push(ownerOf(m));
  }
  return out;
}

/** How many owned fields each manager has strictly below `path` (for a map or list that no one owns as a whole). */
export function ownersBelow(managed: Managed, path: FieldPath): { owner: Owner; fields: number }[] {
  const out: { owner: Owner; fields: number }[] = [];
  for (const m of managed.values()) {
    const sub = path.length ? below(m.fields, path) : m.fields;
    const fields = sub ? sub.paths().length : 0;
    if (fields) out.push({ owner: ownerOf(m), fields });
  }
  return out.sort((a, b) => b.fields - a.fields || (a.owner.manager < b.owner.manager ? -1 : 1));
}

/** The fields a manager owns through apply (its Apply entry on the main resource). */
export function appliedBy(managed: Managed, manager: string): FieldSet {
  let set = new FieldSet();
  for (const m of managed.values()) if (m.manager === manager && m.operation === 'Apply' && !m.subresource) set = set.union(m.fields);
  return set;
}

/** What neither the applier nor anyone owns: identity, bookkeeping and status (reset by the main resource). */
const NOT_APPLIED = FieldSet.of(
  ['f:status'],
  ...['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink'].map((f) => ['f:metadata', `f:${f}`]),
);

/** The object without the fields an apply configuration never carries. */
function applicable(o: JSONMap): JSONMap {
  const { status: _, ...rest } = o;
  const meta = isMap(o.metadata) ? { ...o.metadata } : {};
  for (const pe of NOT_APPLIED.withPrefix('f:metadata').members) delete meta[pe.slice(2)];
  return { ...rest, metadata: meta };
}

/** Paths of `set` that are members, not descending below one. */
function topPaths(set: FieldSet, prefix: PathElement[] = []): FieldPath[] {
  const out: FieldPath[] = [];
  const keys = new Set([...set.members, ...set.children.keys()]);
  for (const pe of keys) {
    if (set.members.has(pe)) out.push([...prefix, pe]);
    else out.push(...topPaths(set.children.get(pe)!, [...prefix, pe]));
  }
  return out;
}

/** The paths of `set` with nothing below them, `prefix` itself when the set is bare. */
function leaves(set: FieldSet, prefix: FieldPath): FieldPath[] {
  const out = set.paths([...prefix]).filter((p) => bare(below(set, p.slice(prefix.length))));
  return out.length ? out : [prefix];
}

export interface ApplyPlan {
  /** The apply configuration: identity plus the fields to own. */
  config: JSONMap;
  /** Fields the user removed that apply will not remove, as no earlier apply of this manager set them. */
  kept: FieldPath[];
}

/**
 * What `manager` should apply to save `draft`, an edit of `base`: the fields
 * the user added or changed, plus those the manager already applied and the
 * draft still has (leaving one out would remove it). Fields the user did not
 * touch are not sent, so their owners keep them. With no `base` (a new
 * object) the whole draft is the configuration.
 */
export function applyPlan(base: JSONMap | undefined, draft: JSONMap, managed: Managed, manager: string, schema: ApplySchema): ApplyPlan {
  const next = applicable(draft);
  if (!base) return { config: next, kept: [] };
  const before = applicable(base);
  const c = compare(before, next, schema);
  const mine = appliedBy(managed, manager);
  const config = extractItems(next, c.added.union(c.modified).union(mine), schema);
  const meta = next.metadata as JSONMap;
  config.apiVersion = next.apiVersion;
  config.kind = next.kind;
  config.metadata = { name: meta.name, ...(meta.namespace ? { namespace: meta.namespace } : {}), ...(config.metadata as JSONMap | undefined) };
  const ordered = { apiVersion: config.apiVersion, kind: config.kind, metadata: config.metadata, ...config };
  const kept = topPaths(c.removed).filter((p) => leaves(below(c.removed, p) ?? new FieldSet(), p).some((leaf) => !mine.has(leaf)));
  return { config: ordered, kept };
}
