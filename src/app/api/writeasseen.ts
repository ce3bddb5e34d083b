// A write of what the user changed, conditional on what they saw. A PUT
// carrying the resourceVersion they saw is refused after any write at all, and
// controllers and node agents write status all the time: during a rollout
// across 5000 nodes a DaemonSet's status is written back to back, so a PUT from
// the page (or read again just before) meets a 409 again and again though
// nothing the user edits changed. Instead the write is one JSON patch: a
// `test` of each field the user edits as it was seen, then the fields as they
// are now. The server applies it whole or not at all on its current version,
// so status written meanwhile does not matter and a change to a field the user
// edits (or the object deleted and made again) does. kubectl's own edits and
// rollout commands avoid the same 409s with patches (without the tests).
import { groupResourceOf, type KindDefinition, type KubeObject } from '../../kinds/kind.ts';
import { deepEqual } from '../../lib/json.ts';
import { parsePointer, pointerOf } from '../../lib/patch/jsonpatch.ts';
import { api, KubeError, type Connection } from './client.ts';

/** What a user edits of an object: all but its status and the server's bookkeeping of every write. */
export function userFields(o: KubeObject) {
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = o.metadata ?? {};
  const { status: _status, ...rest } = o;
  return { ...rest, metadata };
}

type PatchOp = { op: 'test' | 'add'; path: string; value: unknown } | { op: 'remove'; path: string };

/**
 * The JSON patch from `seen` to `next`: for each field a user edits (each of
 * metadata's, each other top-level one), a test that it is as seen (null for
 * absent, which an absent field meets), then its new value if it changed.
 */
export function patchAsSeen(seen: KubeObject, next: KubeObject): PatchOp[] {
  const was = userFields(seen) as Record<string, any>;
  const now = userFields(next) as Record<string, any>;
  const ops: PatchOp[] = [];
  const field = (tokens: string[], before: unknown, after: unknown) => {
    const path = pointerOf(tokens);
    ops.push({ op: 'test', path, value: before ?? null });
    if (deepEqual(before, after)) return;
    ops.push(after === undefined ? { op: 'remove', path } : { op: 'add', path, value: after });
  };
  const keys = (a: object, b: object) => [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys(was.metadata, now.metadata)) field(['metadata', k], was.metadata[k], now.metadata[k]);
  for (const k of keys(was, now)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') field([k], was[k], now[k]);
  return ops;
}

/** What kube-apiserver answers any JSON patch that does not apply: the library's reason is not passed on. */
const PATCH_REJECTED = 'the server rejected our request due to an error in our request';

/**
 * A write of `patchAsSeen` refused because a tested field changed, as the 409
 * Conflict a PUT would have met, naming the field where the server says it
 * (ours passes on the patch library's "testing value /spec failed" as a cause;
 * kube-apiserver answers only PATCH_REJECTED, and in this patch nothing but a
 * test can fail). Anything else: undefined.
 */
export function conflictOf(e: unknown, kind: KindDefinition, name: string): KubeError | undefined {
  if (!(e instanceof KubeError && e.code === 422)) return undefined;
  const said = [e.message, ...(e.status?.details?.causes ?? []).map((c) => c.message ?? '')];
  const tested = said.map((text) => /testing value (\S+) failed/.exec(text)?.[1]).find(Boolean);
  if (!tested && e.message !== PATCH_REJECTED) return undefined;
  const field = tested ? ` (${parsePointer(tested).join('.')})` : '';
  const what = `${groupResourceOf(kind)} "${name}"`;
  return new KubeError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: `${what} was changed since you opened it${field}; look at the change and try again` });
}

/**
 * Writes `next` in place of `seen` unless a field the user edits changed
 * since: then a 409 Conflict (as a PUT would give) naming the field.
 */
export async function writeAsSeen(conn: Connection, kind: KindDefinition, seen: KubeObject, next: KubeObject, dryRun = false): Promise<KubeObject> {
  const { namespace, name } = seen.metadata;
  try {
    return await api.jsonPatch(conn, kind, namespace, name!, patchAsSeen(seen, next), dryRun);
  } catch (e) {
    throw conflictOf(e, kind, name!) ?? e;
  }
}
