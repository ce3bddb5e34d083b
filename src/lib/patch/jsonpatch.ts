// JSON Patch (RFC 6902) over JSON values. Two error classes because the server
// answers them differently: a malformed patch document (JsonPatchFormatError)
// is the client's syntax error, while an operation that cannot be applied to
// this object (JsonPatchError) is a 422.

import { clone, deepEqual } from '../json.ts';

export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

export class JsonPatchFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchFormatError';
  }
}

/** A pointer that names nothing: its parent (`path`) or its last member (`key`) is missing. */
class Missing extends Error {
  constructor(readonly what: 'path' | 'key') {
    super(`missing ${what}`);
  }
}

type Json = unknown;
type Container = Record<string, Json> | Json[];

interface Op {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: Json;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContainer = (v: Json): v is Container => typeof v === 'object' && v !== null;

/** Assigns an own property even for `__proto__`, which a plain assignment would treat as the prototype. */
export function setKey(obj: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Checks the shape of the patch document (RFC 6902 §4) before anything is applied. */
function validateOps(ops: unknown): Op[] {
  if (!Array.isArray(ops)) throw new JsonPatchFormatError('a JSON patch must be an array of operation objects');
  return ops.map((raw, i) => {
    if (!isObject(raw)) throw new JsonPatchFormatError(`operation ${i} is not an object`);
    const { op, path } = raw;
    if (typeof op !== 'string') throw new JsonPatchFormatError(`operation ${i} is missing "op"`);
    if (!OPS.has(op)) throw new JsonPatchFormatError(`operation ${i} has an unknown op ${JSON.stringify(op)}`);
    if (typeof path !== 'string') throw new JsonPatchFormatError(`operation ${i} (${op}) is missing "path"`);
    if ((op === 'move' || op === 'copy') && typeof raw.from !== 'string') throw new JsonPatchFormatError(`operation ${i} (${op}) is missing "from"`);
    if ((op === 'add' || op === 'replace' || op === 'test') && !Object.hasOwn(raw, 'value')) {
      throw new JsonPatchFormatError(`operation ${i} (${op}) is missing "value"`);
    }
    return raw as unknown as Op;
  });
}

/** RFC 6901 pointer → reference tokens (`~1` is `/`, `~0` is `~`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}: must start with '/'`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => {
      if (/~[^01]|~$/.test(t)) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}: bad escape in ${JSON.stringify(t)}`);
      return t.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** Reference tokens → RFC 6901 pointer, `parsePointer`'s inverse. */
export const pointerOf = (tokens: readonly string[]): string => tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** An array index token: digits without leading zeros. */
function arrayIndex(token: string, pointer: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new JsonPatchError(`invalid array index ${JSON.stringify(token)} in ${JSON.stringify(pointer)}`);
  return Number(token);
}

function child(node: Json, token: string, pointer: string): Json {
  if (Array.isArray(node)) {
    const i = arrayIndex(token, pointer);
    if (i >= node.length) throw new JsonPatchError(`array index ${i} out of bounds in ${JSON.stringify(pointer)}`);
    return node[i];
  }
  if (isObject(node) && Object.hasOwn(node, token)) return node[token];
  throw new Missing('path');
}

function get(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  const parent = tokens.reduce((node, t) => child(node, t, pointer), doc);
  if (last === undefined) return parent;
  if (!isContainer(parent)) throw new Missing('path');
  try {
    return child(parent, last, pointer);
  } catch (e) {
    throw e instanceof Missing ? new Missing('key') : e;
  }
}

/** The container holding the pointer's last token, plus that token. */
function parentOf(doc: Json, pointer: string): { parent: Container; token: string } {
  const tokens = parsePointer(pointer);
  const token = tokens.pop()!;
  const parent = tokens.reduce((node, t) => child(node, t, pointer), doc);
  if (!isContainer(parent)) throw new Missing('path');
  return { parent, token };
}

function add(doc: Json, pointer: string, value: Json): Json {
  if (pointer === '') return value;
  const { parent, token } = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const i = token === '-' ? parent.length : arrayIndex(token, pointer);
    if (i > parent.length) throw new JsonPatchError(`array index ${i} out of bounds in ${JSON.stringify(pointer)}`);
    parent.splice(i, 0, value);
  } else {
    setKey(parent, token, value);
  }
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  if (pointer === '') throw new JsonPatchError('cannot remove the whole document');
  const { parent, token } = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const i = arrayIndex(token, pointer);
    if (i >= parent.length) throw new JsonPatchError(`array index ${i} out of bounds in ${JSON.stringify(pointer)}`);
    parent.splice(i, 1);
  } else {
    if (!Object.hasOwn(parent, token)) throw new Missing('key');
    delete parent[token];
  }
  return doc;
}

function replace(doc: Json, pointer: string, value: Json): Json {
  if (pointer === '') return value;
  const { parent, token } = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const i = arrayIndex(token, pointer);
    if (i >= parent.length) throw new Missing('key');
    parent[i] = value;
  } else {
    if (!Object.hasOwn(parent, token)) throw new Missing('key');
    setKey(parent, token, value);
  }
  return doc;
}

/** Applies the operations in order to a copy of doc; the input is never modified. */
export function applyJsonPatch(doc: unknown, ops: unknown, opts: { accumulatedCopySizeLimit?: number } = {}): unknown {
  const operations = validateOps(ops);
  let out = clone(doc);
  // `copy` duplicates what is already there: a small patch could otherwise grow a document without bound.
  const copied = { size: 0, limit: opts.accumulatedCopySizeLimit ?? DEFAULT_COPY_SIZE_LIMIT };
  for (const op of operations) {
    try {
      out = applyOp(out, op, copied);
    } catch (e) {
      if (e instanceof Missing) throw new JsonPatchError(missingMessage(op, e.what));
      throw e;
    }
  }
  return out;
}

/**
 * The texts of the JSON patch library kube-apiserver uses (evanphx/json-patch
 * v4, errors wrapped as `<context>: <cause>`), which it passes on as the
 * cause of its 422: kubectl prints them.
 */
function missingMessage(op: Op, what: 'path' | 'key'): string {
  const token = parsePointer(op.path).at(-1) ?? '';
  switch (op.op) {
    case 'add':
      return `add operation does not apply: doc is missing path: "${op.path}": missing value`;
    case 'remove':
      return what === 'path'
        ? `remove operation does not apply: doc is missing path: "${op.path}": missing value`
        : `error in remove for path: '${op.path}': Unable to remove nonexistent key: ${token}: missing value`;
    case 'replace':
      return `replace operation does not apply: doc is missing ${what}: ${op.path}: missing value`;
    case 'test':
      return what === 'path' ? `test operation does not apply: is missing path: ${op.path}: missing value` : `testing value ${op.path} failed: test failed`;
    case 'move':
    case 'copy':
      return `${op.op} operation does not apply: doc is missing from path: ${op.from}: missing value`;
  }
}

/** The most bytes (as JSON) all `copy` operations of one patch may add, like the library's AccumulatedCopySizeLimit. */
export const DEFAULT_COPY_SIZE_LIMIT = 3 * 1024 * 1024;

function applyOp(out: Json, op: Op, copied: { size: number; limit: number }): Json {
  {
    switch (op.op) {
      case 'add':
        out = add(out, op.path, clone(op.value));
        break;
      case 'remove':
        out = remove(out, op.path);
        break;
      case 'replace':
        out = replace(out, op.path, clone(op.value));
        break;
      case 'move': {
        const from = op.from!;
        if (op.path !== from && op.path.startsWith(`${from}/`)) {
          throw new JsonPatchError(`cannot move ${JSON.stringify(from)} into its own child ${JSON.stringify(op.path)}`);
        }
        const value = get(out, from);
        if (op.path === from) break;
        out = add(remove(out, from), op.path, value);
        break;
      }
      case 'copy': {
        const json = JSON.stringify(get(out, op.from!)) ?? 'null';
        copied.size += json.length;
        if (copied.size > copied.limit) {
          throw new JsonPatchError(`Unable to complete the copy, the accumulated size increase of copy is ${copied.size}, exceeding the limit ${copied.limit}`);
        }
        out = add(out, op.path, JSON.parse(json));
        break;
      }
      case 'test': {
        // As in the library kube-apiserver uses, null is met by a key that is absent: a client can
        // make a write conditional on a field still being unset.
        let value: Json;
        try {
          value = get(out, op.path);
        } catch (e) {
          if (e instanceof Missing && e.what === 'key' && op.value === null) break;
          throw e;
        }
        if (!deepEqual(value, op.value)) throw new JsonPatchError(`testing value ${op.path} failed: test failed`);
        break;
      }
    }
  }
  return out;
}
