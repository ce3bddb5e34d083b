// The object an edit sends: the stored object plus the user's edits, and
// nothing else. Widgets never write on their own (no value is read back from
// an input when it mounts), and an edit that empties a field the stored
// object did not have removes it instead of leaving `false`, `''` or `{}`
// behind, so a label edit cannot touch the pod template. Pure functions over
// JSON values, with paths as segment lists (`['spec', 'ingress', 0, 'from']`).
import { deepEqual } from '../../../lib/json.ts';

export type Segment = string | number;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function getIn(value: unknown, path: readonly Segment[]): unknown {
  let cur = value;
  for (const s of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[s as string];
  }
  return cur;
}

/**
 * A copy of `value` with `path` set to `next` (undefined removes an object
 * member); only the containers along the path are copied, so untouched parts
 * keep their identity and fields subscribed to them do not re-render.
 */
export function setIn<T>(value: T, path: readonly Segment[], next: unknown): T {
  if (path.length === 0) return next as T;
  const [head, ...rest] = path;
  const container: any = Array.isArray(value) ? [...value] : isObject(value) ? { ...value } : typeof head === 'number' ? [] : {};
  const child = setIn(container[head], rest, next);
  if (child === undefined && !Array.isArray(container)) delete container[head];
  else container[head] = child;
  return container;
}

/** What a form field holds when it is left empty: the zero values Go omits. */
export const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || v === false || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * The user typed, picked or cleared a value at `path`. An empty value where
 * the stored object has nothing removes the field (and the containers the form
 * created on the way to it); an empty value the stored object also had is
 * kept as stored.
 */
export function editField<T>(current: T, stored: unknown, path: readonly Segment[], next: unknown): T {
  if (!isEmpty(next)) return setIn(current, path, next);
  const before = getIn(stored, path);
  if (before !== undefined && isEmpty(before) && sameKind(before, next)) return setIn(current, path, before);
  return pruneEmptyAncestors(setIn(current, path, undefined), stored, path.slice(0, -1));
}

const sameKind = (a: unknown, b: unknown) => b === undefined || typeof a === typeof b || (a === null && b === undefined);

/** Removes objects left empty along `path` that the stored object does not have (a list item is never removed this way). */
function pruneEmptyAncestors<T>(value: T, stored: unknown, path: readonly Segment[]): T {
  let out = value;
  for (let p = path; p.length > 0 && typeof p.at(-1) === 'string'; p = p.slice(0, -1)) {
    const v = getIn(out, p);
    if (!isObject(v) || Object.keys(v).length > 0 || getIn(stored, p) !== undefined) break;
    out = setIn(out, p, undefined);
  }
  return out;
}

/** Removes item `index` of the list at `path`; the list goes when its last item does (unless stored as an empty list). */
export function removeItem<T>(current: T, stored: unknown, path: readonly Segment[], index: number): T {
  const list = (getIn(current, path) as unknown[] | undefined) ?? [];
  const next = list.filter((_, i) => i !== index);
  return next.length ? setIn(current, path, next) : editField(current, stored, path, undefined);
}

/** The Kubernetes field paths (`spec.template.spec.containers[0].image`) where `after` differs from `before`. */
export function changedPaths(before: unknown, after: unknown, path: Segment[] = []): string[] {
  if (deepEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changedPaths(before[k], after[k], [...path, k]));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((b, i) => changedPaths(b, after[i], [...path, i]));
  }
  return [k8sPath(path)];
}

/** ['spec', 'ingress', 0, 'from'] -> `spec.ingress[0].from`. */
export function k8sPath(path: readonly Segment[]): string {
  let out = '';
  for (const s of path) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** The key errors and fields are matched by: `spec.ingress.0.from` (dots only, as Zod and the form name paths). */
export const fieldKey = (path: readonly Segment[]) => path.join('.');
