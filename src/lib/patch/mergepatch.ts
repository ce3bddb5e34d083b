// JSON Merge Patch (RFC 7386): objects merge recursively, null deletes a
// member, anything else (arrays included) replaces wholesale.

import { clone, deepEqual } from '../json.ts';
import { setKey } from './jsonpatch.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns the patched document; neither argument is modified. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  // One copy of the document, merged into in place: copying again at every level costs size x depth.
  return mergeInto(isObject(doc) ? clone(doc) : {}, patch);
}

function mergeInto(out: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isObject(v)) setKey(out, k, mergeInto(Object.hasOwn(out, k) && isObject(out[k]) ? out[k] : {}, v));
    else setKey(out, k, clone(v));
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
