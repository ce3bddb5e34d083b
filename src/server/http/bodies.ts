// Request bodies into objects: parsing per Content-Type (JSON, YAML,
// protobuf, the patch types), patching the current object, and decoding the
// result into the kind's typed object. This is the CPU-heavy part of a write,
// proportional to the body: small bodies are decoded in place, large ones in
// a worker thread (bodyworker.ts runs these same functions), so that one 3 MiB
// body cannot stall every other request on the event loop.
import type { Worker } from 'node:worker_threads';
import { isScalar, LineCounter, visit } from 'yaml';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { kindFor } from '../../kinds/registry.ts';
import { patchMetaFor } from '../../kinds/patchmeta.ts';
import { clone, jsonDuplicateKeys, jsonTextDeeperThan, jsonTextShape, memberCount, valueDeeperThan } from '../../lib/json.ts';
import { jsonOf } from '../watch/encodings.ts';
import type { CachedObject } from '../watch/cache.ts';
import { MAX_DEPTH, parseDocumentWithin } from '../../lib/yamldepth.ts';
import { applyJsonPatch, JsonPatchError, JsonPatchFormatError } from '../../lib/patch/jsonpatch.ts';
import { applyMergePatch } from '../../lib/patch/mergepatch.ts';
import { applyStrategicMergePatch, StrategicMergePatchError } from '../../lib/patch/strategicmerge.ts';
import { decodeObject, type FieldValidation } from '../registry/decode.ts';
import { applyConfig, dropOnCreate, recordUpdateNow, type ApplyOptions } from '../registry/apply.ts';
import { decodeKubeProtobuf, ProtobufError, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';
import { ApiError, errors } from './status.ts';
import { MAX_OBJECT_BYTES } from '../storage/storage.ts';
import { yieldToEventLoop } from '../registry/turns.ts';
import { startTsxWorker } from '../tsxworker.ts';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** How deeply a body may nest, checked before anything recursive touches it (yamldepth.ts says why 200). */
export { MAX_DEPTH };
export const BODY_TYPES = ['application/json', 'application/yaml'];
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
export const SUPPORTED_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

type KindRef = Pick<KindDefinition, 'group' | 'version' | 'plural' | 'kind'>;

/**
 * The write whose managed fields a decode or patch job records (recordUpdate)
 * when it runs in the worker: the field manager, and the stored object's JSON
 * (none for a create; a patch's is its `current`).
 */
export interface RecordJob {
  manager: string;
  subresource?: string;
  live?: StoredObject;
}

/**
 * The stored object a job starts from: the cache's, whose JSON is made only
 * if the job goes to the worker (jobs done here copy the object instead), or
 * its JSON text.
 */
export type StoredObject = CachedObject | string;
const storedSize = (s: StoredObject | undefined) => (s === undefined ? 0 : typeof s === 'string' ? s.length : (s.size ?? jsonOf(s).length));
/** A copy of the stored object for the job to change. */
const storedCopy = (s: StoredObject) => (typeof s === 'string' ? JSON.parse(s) : clone(s.object)) as KubeObject;
/** The stored object as JSON text, as the worker is sent it. */
const storedText = (s: StoredObject | undefined) => (s === undefined || typeof s === 'string' ? s : jsonOf(s));

export type BodyJob =
  /** A body read as-is (reviews, action subresources). */
  | { op: 'parse'; kind: Pick<KindDefinition, 'kind' | 'version'>; contentType: string; body: Uint8Array }
  /** A create or update body decoded into the kind's object. */
  | { op: 'decode'; kind: KindRef; contentType: string; body: Uint8Array; fieldValidation: FieldValidation; record?: RecordJob }
  /** A patch applied to the current object (its JSON), the result decoded; `name` is the URL's. */
  | { op: 'patch'; kind: KindRef; contentType: string; body: Uint8Array; fieldValidation: FieldValidation; current: StoredObject; name: string; record?: RecordJob }
  /** A server-side apply body (YAML) merged into the current object (none: a create), decoded, with its managed fields (applyConfig). */
  | { op: 'apply'; kind: KindRef; body: Uint8Array; current?: StoredObject; options: ApplyOptions };

export interface BodyResult {
  value: unknown;
  warnings: string[];
  /** Large enough to be decoded in the worker: the write's later steps yield between them (WriteContext.large). */
  large?: boolean;
  /** The managed fields the job recorded for the write (RecordJob); `value` is still the object as sent. */
  recorded?: { managedFields: unknown[] | undefined };
}

const kindOf = (ref: KindRef): KindDefinition => {
  const k = kindFor(ref.group, ref.version, ref.plural);
  if (!k) throw errors.internal(`no kind serves ${ref.group}/${ref.version} ${ref.plural}`);
  return k;
};

const cannotHandle = (kind: Pick<KindDefinition, 'kind' | 'version'>, why: string) =>
  errors.badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${why}`);

/**
 * Parses a create/update body per Content-Type; one is required (a form post
 * has none of these, 415 as upstream). `duplicates` receives the keys a map
 * repeats (go-yaml's texts for YAML, Go's strict JSON decoder's for JSON),
 * which fieldValidation then judges.
 */
export function parseBody(kind: Pick<KindDefinition, 'kind' | 'version'>, contentType: string, buf: Uint8Array, duplicates: string[] = []): unknown {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (contentType === PROTOBUF_MEDIA_TYPE) {
    let obj: Record<string, unknown> | undefined;
    try {
      obj = decodeKubeProtobuf(bytes);
    } catch (e) {
      if (e instanceof ProtobufError) throw cannotHandle(kind, e.message);
      throw e;
    }
    // Kinds whose messages are not described here cannot be read from protobuf.
    if (!obj) throw errors.unsupportedMediaType(BODY_TYPES);
    return obj;
  }
  if (!BODY_TYPES.includes(contentType)) throw errors.unsupportedMediaType([...BODY_TYPES, PROTOBUF_MEDIA_TYPE]);
  const text = bytes.toString('utf8');
  let value: unknown;
  if (contentType === 'application/yaml') {
    try {
      // uniqueKeys off: the library checks each key against every other (quadratic in the
      // keys); repeated keys are found below with one set per map, and the last value wins.
      const lineCounter = new LineCounter();
      const doc = parseDocumentWithin(text, MAX_DEPTH, { uniqueKeys: false, lineCounter });
      if (doc.errors.length) throw doc.errors[0];
      visit(doc, {
        Map(_, map) {
          const seen = new Set<string>();
          for (const item of map.items) {
            const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
            const at = (item.key as { range?: [number] } | null)?.range?.[0] ?? 0;
            if (seen.has(key)) duplicates.push(`line ${lineCounter.linePos(at).line}: key ${JSON.stringify(key)} already set in map`);
            seen.add(key);
          }
        },
      });
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw cannotHandle(kind, e instanceof RangeError ? 'exceeded max depth' : (e as Error).message);
    }
    if (valueDeeperThan(value, MAX_DEPTH)) throw cannotHandle(kind, 'exceeded max depth');
    return value;
  }
  const shape = jsonTextShape(text, MAX_DEPTH);
  if (shape.deeper) throw cannotHandle(kind, 'exceeded max depth');
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw cannotHandle(kind, (e as Error).message);
  }
  // Repeated keys are looked for by name only when some object lost a member to one.
  if (memberCount(value) !== shape.members) for (const k of jsonDuplicateKeys(text)) duplicates.push(`duplicate field ${JSON.stringify(k)}`);
  return value;
}

function parsePatch(type: string, buf: Uint8Array): unknown {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8');
  if (jsonTextDeeperThan(text, MAX_DEPTH)) throw errors.badRequest('exceeded max depth');
  try {
    return JSON.parse(text);
  } catch {
    throw errors.badRequest(type === 'application/json-patch+json' ? 'invalid JSON patch' : 'invalid JSON document');
  }
}

/** Applies a strategic merge patch, with the apiserver's answers for its errors (interpretStrategicMergePatchError). */
function strategicMergePatch(kind: KindDefinition, current: KubeObject, patch: unknown): unknown {
  // `null` decodes into Go's map as an empty patch.
  if (patch === null) return current;
  if (typeof patch !== 'object' || Array.isArray(patch)) {
    throw errors.badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch === 'string' ? 'string' : typeof patch} into Go value of type map[string]interface {}`);
  }
  try {
    return applyStrategicMergePatch(current, patch, patchMetaFor(kind));
  } catch (e) {
    if (!(e instanceof StrategicMergePatchError)) throw e;
    if (e.kind === 'BadRequest') throw errors.badRequest(e.message);
    if (e.kind === 'Invalid') throw rejected(e.message);
    throw errors.internal(e.message);
  }
}

/** NewGenericServerResponse(422, …): the patch library's message travels as the one cause, which kubectl prints. */
const rejected = (why: string) =>
  new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ reason: 'UnexpectedServerResponse', message: why }] });

function applyPatch(kind: KindDefinition, type: string, current: KubeObject, patch: unknown): unknown {
  if (type === 'application/json-patch+json') {
    if (Array.isArray(patch) && patch.length > 10000) {
      throw errors.tooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${patch.length}`);
    }
    try {
      return applyJsonPatch(current, patch);
    } catch (e) {
      if (e instanceof JsonPatchFormatError) throw errors.badRequest(e.message);
      if (e instanceof JsonPatchError) throw rejected(e.message);
      throw e;
    }
  }
  if (type === 'application/strategic-merge-patch+json') return strategicMergePatch(kind, current, patch);
  return applyMergePatch(current, patch);
}

/** Runs one job here, on this thread. */
export function runBodyJob(job: BodyJob): BodyResult {
  const warnings: string[] = [];
  // Reviews and action bodies (Eviction, Binding) are no stored kind: they are only parsed.
  if (job.op === 'parse') return { value: parseBody(job.kind, job.contentType, job.body), warnings };
  const kind = kindOf(job.kind);
  if (job.op === 'apply') {
    const config = parseBody(kind, 'application/yaml', job.body);
    return { value: applyConfig(kind, job.current === undefined ? undefined : storedCopy(job.current), config, job.options, warnings), warnings };
  }
  const result = decodeOrPatch(kind, job, warnings);
  if (!job.record) return result;
  // The fields are recorded on a copy: the object as sent stays the store's, should it record them again.
  const obj = result.value as KubeObject;
  const next = { ...obj, metadata: { ...obj.metadata } };
  const live = job.op === 'patch' ? job.current : job.record.live;
  if (live === undefined) dropOnCreate(kind, next);
  recordUpdateNow(kind, live === undefined ? undefined : storedCopy(live), next, job.record.manager, job.record.subresource);
  return { ...result, recorded: { managedFields: next.metadata.managedFields } };
}

function decodeOrPatch(kind: KindDefinition, job: Extract<BodyJob, { op: 'decode' | 'patch' }>, warnings: string[]): BodyResult {
  if (job.op === 'decode') {
    const duplicates: string[] = [];
    const raw = parseBody(kind, job.contentType, job.body, duplicates);
    const yaml = job.contentType === 'application/yaml';
    if (yaml && duplicates.length && job.fieldValidation === 'Strict') {
      throw cannotHandle(kind, `strict decoding error: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
    }
    if (job.fieldValidation === 'Warn') warnings.push(...duplicates);
    // JSON's strict errors are reported together with the unknown fields, as one decoder finds both.
    const strictErrors = yaml || job.fieldValidation !== 'Strict' ? [] : duplicates;
    // The parsed body is this job's own: its nulls are dropped in place.
    return { value: decodeObject(kind, raw, { fieldValidation: job.fieldValidation, warnings, strictErrors, owned: true }), warnings };
  }
  if (!SUPPORTED_PATCH_TYPES.includes(job.contentType)) {
    throw errors.unsupportedMediaType(PATCH_TYPES.includes(job.contentType) ? SUPPORTED_PATCH_TYPES : PATCH_TYPES);
  }
  const patch = parsePatch(job.contentType, job.body);
  const raw = applyPatch(kind, job.contentType, storedCopy(job.current), patch);
  // JSON patch copies can nest the result deeper than the patch.
  if (valueDeeperThan(raw, MAX_DEPTH)) throw errors.badRequest('exceeded max depth');
  const obj = decodeObject(kind, raw, { fieldValidation: job.fieldValidation, warnings, patch: true });
  if (obj.metadata.name !== job.name) {
    throw errors.badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${job.name})`);
  }
  return { value: obj, warnings };
}

export const STACK_OVERFLOW = 'stack overflow';
const tooDeep = () => errors.badRequest('the request body nests too deeply: exceeded max depth');

/** Bodies at least this large (with the current object, for patches) are decoded in the worker. */
export const WORKER_THRESHOLD_BYTES = 64 * 1024;
/**
 * YAML costs far more per byte than JSON: 20 KB nested 10,000 deep takes the
 * parser ~100 ms before it is refused, so YAML goes to the worker from here.
 */
const YAML_WORKER_THRESHOLD_BYTES = 4 * 1024;

const isYAML = (job: BodyJob) => job.op === 'apply' || (job.op !== 'patch' && job.contentType === 'application/yaml');
/** A body still decoding after this long is refused, and its worker replaced. */
const JOB_TIMEOUT_MS = 20_000;

/**
 * What the worker posts back: the result as JSON texts, its managed fields
 * apart (they can be as large as the rest), each parsed on the event loop in
 * a turn of its own.
 */
export interface WorkerAnswer {
  json: string;
  /** The result's metadata.managedFields. */
  managed?: string;
  /** BodyResult.recorded's managed fields (`null`: none). */
  recorded?: string;
  warnings: string[];
}

/** A job's result as the worker posts it (WorkerAnswer), refused if the storage would refuse the object. */
export function answerOf(result: BodyResult, stored: boolean): WorkerAnswer {
  let value = result.value as { metadata?: { managedFields?: unknown } } | null;
  let managed: string | undefined;
  if (value?.metadata?.managedFields !== undefined) {
    managed = JSON.stringify(value.metadata.managedFields);
    const { managedFields: _, ...meta } = value.metadata;
    value = { ...value, metadata: meta };
  }
  const json = JSON.stringify(value ?? null);
  const recorded = result.recorded && JSON.stringify(result.recorded.managedFields ?? null);
  // An object the storage would refuse is refused here, before the event loop parses it back.
  const parts = [json, recorded ?? managed ?? ''];
  if (stored && parts[0].length + parts[1].length > MAX_OBJECT_BYTES) throw errors.objectTooLarge(MAX_OBJECT_BYTES, Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[1]));
  return { json, managed, recorded, warnings: result.warnings };
}

interface Pending {
  resolve: (r: WorkerAnswer) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Decodes bodies: in place when small, else in one worker thread (jobs queue
 * there; the machine's other cores serve requests). The worker starts on the
 * first large body.
 */
/** A JSON patch with `copy` operations can make a result far larger than its inputs (up to the copy limit). */
const mayGrow = (job: BodyJob) =>
  job.op === 'patch' && job.contentType === 'application/json-patch+json' && /"op"\s*:\s*"copy"/.test(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8'));

export class BodyDecoder {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  async run(job: BodyJob): Promise<BodyResult> {
    const size = job.body.byteLength + storedSize(job.op === 'patch' || job.op === 'apply' ? job.current : job.op === 'decode' ? job.record?.live : undefined);
    if (size < (isYAML(job) ? YAML_WORKER_THRESHOLD_BYTES : WORKER_THRESHOLD_BYTES) && !mayGrow(job)) {
      try {
        // Here the store records the managed fields itself, as cheaply.
        return runBodyJob(job.op === 'decode' || job.op === 'patch' ? { ...job, record: undefined } : job);
      } catch (e) {
        // Recursion in decoding or patching ran out of stack: the body nests too deeply for us.
        if (e instanceof RangeError && e.message.includes('call stack')) throw tooDeep();
        throw e;
      }
    }
    const worker = this.start();
    const id = this.nextId++;
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(errors.tooLarge(`Request entity too large: the body took more than ${JOB_TIMEOUT_MS / 1000}s to decode`));
        // The worker is stuck in that body: replace it (the other jobs fail and are answered).
        this.stop(new Error('the body decoder was restarted'));
      }, JOB_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      // Only data crosses: the kind travels as its name (the worker has the same registry).
      const k = job.kind as Partial<KindRef>;
      const sent = { ...job, kind: { group: k.group, version: k.version, plural: k.plural, kind: k.kind } } as BodyJob;
      if (sent.op === 'patch' || sent.op === 'apply') sent.current = storedText(sent.current);
      if (sent.op !== 'parse' && sent.op !== 'apply' && sent.record) sent.record = { ...sent.record, live: storedText(sent.record.live) };
      worker.postMessage({ id, job: sent });
    });
    // Parsing the result is the one step left on this thread, a turn per part; yield first so waiting requests go ahead.
    await yieldToEventLoop();
    const value = JSON.parse(answer.json);
    if (answer.managed !== undefined) {
      await yieldToEventLoop();
      value.metadata.managedFields = JSON.parse(answer.managed);
    }
    let recorded: BodyResult['recorded'];
    if (answer.recorded !== undefined) {
      await yieldToEventLoop();
      recorded = { managedFields: JSON.parse(answer.recorded) ?? undefined };
    }
    return { value, warnings: answer.warnings, large: true, recorded };
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = startTsxWorker(import.meta.url, './bodyworker.ts');
    w.unref();
    w.on('message', (m: { id: number; answer?: WorkerAnswer; error?: SerializedError; failure?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error) p.reject(deserializeError(m.error));
      else if (m.failure !== undefined) p.reject(m.failure === STACK_OVERFLOW ? tooDeep() : new Error(m.failure));
      else p.resolve(m.answer!);
    });
    w.on('error', (e) => this.stop(e));
    w.on('exit', () => {
      if (this.worker === w) this.stop(new Error('the body decoder exited'));
    });
    this.worker = w;
    return w;
  }

  /** Ends the worker; jobs in it fail with `why`. */
  stop(why: unknown = new Error('the server is shutting down')) {
    const w = this.worker;
    this.worker = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(why);
      this.pending.delete(id);
    }
    void w?.terminate();
  }
}

/** An ApiError as plain data (what a worker can post), and back. */
export interface SerializedError {
  code: number;
  reason?: string;
  message: string;
  details?: ApiError['details'];
}
export const serializeError = (e: ApiError): SerializedError => ({ code: e.code, reason: e.reason, message: e.message, details: e.details });
export const deserializeError = (e: SerializedError) => new ApiError(e.code, e.reason, e.message, e.details);
