// JSON Merge Patch (RFC 7386): objects merge recursively, null deletes a
// member, anything else (arrays included) replaces wholesale.

import { clone, deepEqual } from '../json.ts';
import { setKey } from './jsonpatch.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns the patched document; neither argument is modified. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(doc) ? clone(doc) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setKey(out, k, applyMergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/**
 * The smallest merge patch turning `from` into `to`. A null member inside `to`
 * cannot be expressed (null means delete in a merge patch), so it becomes a deletion.
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return clone(to);
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k)) setKey(patch, k, null);
  for (const [k, v] of Object.entries(to)) {
    if (!Object.hasOwn(from, k)) setKey(patch, k, clone(v));
    else if (!deepEqual(from[k], v)) setKey(patch, k, isObject(from[k]) && isObject(v) ? createMergePatch(from[k], v) : clone(v));
  }
  return patch;
}
