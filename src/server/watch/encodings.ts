// Serialised forms of cached objects, made once per object state and shared by
// every response: the UTF-8 JSON bytes of an object (GET, watch events), or
// for an object no watch event has carried, its JSON text (LIST items; see
// textOf). A LIST is the concatenation of its items' JSON between a head and
// a tail, written without joining them; a watch event is the same bytes
// framed once and written to every watcher (kube-apiserver's cachingObject
// does the same: one serialisation per object version, per encoding).
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { KubeObject } from '../../kinds/kind.ts';
import type { CachedObject, EventType } from './cache.ts';
import { memberSpan } from '../../lib/json.ts';
import { stringify as toYAML } from 'yaml';
import { scan, SLICE_MS, yieldToEventLoop } from '../registry/turns.ts';
import { bodyStream } from '../http/compression.ts';

/**
 * JSON as a response writes it: bytes, or ASCII text (one byte a character,
 * written as latin1, so that its length is its length in bytes and writing it
 * is a copy, not an encoding).
 */
export type JSONChunk = Buffer | string;

/**
 * The object's JSON as UTF-8 bytes. Once made, the bytes are the one copy kept
 * (the JSON text is decoded from them when asked), so an object costs its
 * parsed form plus one serialisation.
 */
export function bytesOf(c: CachedObject): Buffer {
  if (c.bytes) return c.bytes;
  const bytes = Buffer.from(c.json ?? JSON.stringify(c.object));
  keepBytes(c, bytes);
  return bytes;
}

/** The object's bytes are made: its text goes (and a metadata text sliced from it, which would keep it alive). Nothing is kept for an object encoded on demand. */
function keepBytes(c: CachedObject, bytes: Buffer) {
  if (c.onDemand) return;
  c.bytes = bytes;
  c.json = undefined;
  if (typeof c.metadataJSON === 'string') c.metadataJSON = undefined;
}

/**
 * The object's JSON for a list, a Table row or a metadata view: its bytes when
 * it has them (a watch event made them), else its JSON text, made once and
 * kept as a string on the V8 heap. Bytes are memory outside the heap, and V8
 * marks its whole heap again for every 64 MB more of it that stays: the first
 * LIST of 50,000 pods nobody had watched made ~220 MB of bytes at once and
 * took 26 CPU-s in a server of 2.8 GB (most of it marking), against 4.4 with
 * the text kept. Text that is not ASCII is made bytes (its length in bytes is
 * not its length).
 */
export function textOf(c: CachedObject): JSONChunk {
  if (c.bytes) return c.bytes;
  if (c.onDemand) {
    const json = c.json ?? JSON.stringify(c.object);
    return Buffer.byteLength(json) === json.length ? json : Buffer.from(json);
  }
  const json = (c.json ??= JSON.stringify(c.object));
  // Checked once: a scan of each item's text was a tenth of a later LIST's time.
  c.asciiJSON ??= Buffer.byteLength(json) === json.length;
  return c.asciiJSON ? json : bytesOf(c);
}

/**
 * The object's metadata as JSON: a part of its JSON (found by walking its
 * top-level members once; a view of the bytes or a slice of the text), so
 * that a Table row's PartialObjectMetadata serialises nothing the object's
 * JSON already holds.
 */
export function metadataJSONOf(c: CachedObject): JSONChunk {
  if (c.metadataJSON !== undefined) return c.metadataJSON;
  // Nothing kept to take a part of: the metadata alone is made.
  if (c.onDemand) return Buffer.from(JSON.stringify(c.object.metadata) ?? 'null');
  const json = textOf(c);
  const span = memberSpan(json, 'metadata');
  return (c.metadataJSON = !span ? Buffer.from(JSON.stringify(c.object.metadata) ?? 'null') : typeof json === 'string' ? json.slice(span[0], span[1]) : json.subarray(span[0], span[1]));
}

/**
 * An object's JSON as the storage keeps it (without resourceVersion, which
 * the storage's revision gives), written member by member as JSON.stringify
 * writes it, so that where its metadata ends is known: `metadataEnd` is the
 * index of the metadata's closing brace, or -1 when there is no non-empty
 * metadata object or it holds a resourceVersion already.
 */
export function storedJSON(o: KubeObject): { value: string; metadataEnd: number } {
  let value = '{';
  let metadataEnd = -1;
  const members = o as unknown as Record<string, unknown>;
  for (const k of Object.keys(members)) {
    const v = JSON.stringify(members[k]);
    if (v === undefined) continue;
    value += (value.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + v;
    if (k === 'metadata' && v.length > 2 && v[0] === '{' && !Object.hasOwn(o.metadata, 'resourceVersion')) metadataEnd = value.length - 1;
  }
  return { value: value + '}', metadataEnd };
}

/**
 * The JSON of a stored object once its revision is set as its metadata's last
 * member (as the watch cache sets it), made from the stored JSON without
 * serialising the object again (see storedJSON).
 */
export function withResourceVersion(value: string, metadataEnd: number, revision: number): string {
  return `${value.slice(0, metadataEnd)},"resourceVersion":"${revision}"${value.slice(metadataEnd)}`;
}

/** The object's JSON text. */
export function jsonOf(c: CachedObject): string {
  if (c.json !== undefined) return c.json;
  if (c.bytes) return c.bytes.toString();
  const json = JSON.stringify(c.object);
  if (!c.onDemand) c.json = json;
  return json;
}

/** What a list carries besides its items. */
export interface ListEnvelope {
  listKind: string;
  apiVersion: string;
  resourceVersion: number;
  continueToken?: string;
  remainingItemCount?: number;
}

/** A list's metadata: its revision, and where a paged one goes on. */
export function listMetadata(page: Pick<ListEnvelope, 'resourceVersion' | 'continueToken' | 'remainingItemCount'>): Record<string, unknown> {
  const meta: Record<string, unknown> = { resourceVersion: String(page.resourceVersion) };
  if (page.continueToken) meta.continue = page.continueToken;
  if (page.remainingItemCount !== undefined) meta.remainingItemCount = page.remainingItemCount;
  return meta;
}

const COMMA = Buffer.from(',');
/** The end of a list's items and of the list, and the newline every body ends with. */
export const LIST_TAIL = Buffer.from(']}\n');

/** A response body as chunks (cached bytes and texts among them, not copied) and its length in bytes. */
export interface Chunks {
  chunks: JSONChunk[];
  length: number;
}

/**
 * A JSON body of items between a head and a tail, commas between them, as
 * chunks: `each` pushes an item's chunks and returns their length in bytes.
 * Made 10 ms of the event loop at a time (scan): an item's JSON is made here when it
 * has none yet (none read since the server started), and the first list of
 * 60,000 pods after a restart made theirs in one turn of 3.4 s (of 635,000
 * Events, 6.5 s) while every other request, Lease renewals among them, waited.
 */
export async function itemChunks(head: string, items: readonly CachedObject[], each: (c: CachedObject, out: JSONChunk[]) => number, tail: Buffer): Promise<Chunks> {
  const first = Buffer.from(head);
  const chunks: JSONChunk[] = [first];
  let length = first.length + tail.length;
  let written = 0;
  await scan(items, 0, (c) => {
    if (written++ > 0) {
      chunks.push(COMMA);
      length++;
    }
    length += each(c, chunks);
    return true;
  });
  chunks.push(tail);
  return { chunks, length };
}

/** The JSON of `envelope` with an array `field` after its members, up to the array's first item: a list's, a Table's. */
export const arrayHead = (envelope: object, field: string) => `${JSON.stringify(envelope).slice(0, -1)},${JSON.stringify(field)}:[`;

/** A list without its items. */
const listEnvelope = (env: ListEnvelope) => ({ kind: env.listKind, apiVersion: env.apiVersion, metadata: listMetadata(env) });

/** A list's JSON up to its first item. */
const listHead = (env: ListEnvelope) => arrayHead(listEnvelope(env), 'items');

/** A list's body as chunks (head, items with commas, tail) and its length in bytes. */
export function listChunks(env: ListEnvelope, items: readonly CachedObject[]): Promise<Chunks> {
  return itemChunks(listHead(env), items, (c, out) => {
    const json = textOf(c);
    out.push(json);
    return json.length;
  }, LIST_TAIL);
}

/** Chunks as one buffer. */
export function joinChunks(chunks: readonly JSONChunk[]): Buffer {
  return Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c)));
}

/** Until `out` (the response, or its compressor) takes more, or the response is gone (the listeners that did not fire removed). */
const drainOrClose = (res: ServerResponse, out: Writable) =>
  new Promise<void>((resolve) => {
    const done = () => {
      out.off('drain', done);
      res.off('close', done);
      resolve();
    };
    out.on('drain', done);
    res.on('close', done);
  });

/** Characters of text a body's write holds at most (see writeChunks). */
const TEXT_RUN = 256 * 1024;
/** A body up to this size goes in one write of one buffer, copied (see writeChunks). */
const SMALL_BODY_BYTES = 16 * 1024;

/**
 * Writes a JSON body given as chunks, cached bytes as they are, in corked
 * writes (one writev each). Node copies a write's text into memory of its
 * own, fresh for each write: a list of 50,000 texts in one write took 112 MB
 * of it, faulted in page by page (three times the time of the same list as
 * bytes). So a write ends after about 256 KB of text, and the next begins
 * once the socket took it; a body of bytes alone is one write, and a small
 * body one buffer.
 */
export async function writeChunks(res: ServerResponse, code: number, body: Chunks, headers: Record<string, string | string[]> = {}) {
  if (res.destroyed) return; // gone while the body was made
  // A large body to a client that takes compression goes through a compressor (http/compression.ts).
  const out = bodyStream(res, code, { 'Content-Type': 'application/json', ...headers }, body.length, body.length);
  const { chunks } = body;
  // Each write is an HTTP/2 DATA frame, or a TLS record, of its own: a small body is worth one copy to go in one.
  if (body.length <= SMALL_BODY_BYTES) return void out.end(Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c)), body.length));
  if (out !== res) return writeJoined(res, out, chunks);
  let i = 0;
  for (;;) {
    let text = 0;
    let drained = true;
    out.cork();
    for (; i < chunks.length && text < TEXT_RUN; i++) {
      const c = chunks[i];
      if (typeof c === 'string') {
        text += c.length;
        drained = out.write(c, 'latin1');
      } else drained = out.write(c);
    }
    if (i === chunks.length) return void out.end(); // uncorks
    out.uncork();
    if (!drained) await drainOrClose(res, out);
    if (res.destroyed) return;
  }
}

/** Bytes a compressor is given in one write (see writeJoined). */
const COMPRESSOR_RUN = 256 * 1024;

/**
 * Writes chunks to a compressor joined in runs of COMPRESSOR_RUN bytes: each write to it is a job
 * of the thread pool with its callbacks, and the list of 60,000 pods given as each item's bytes
 * (120,000 writes) took the server 7 s of CPU to gzip, where the same bytes in runs take ~1 s.
 */
async function writeJoined(res: ServerResponse, out: Writable & { flush?: () => void }, chunks: readonly JSONChunk[]) {
  // The head first, flushed: a paged list's continue token is in it, and a client reading ahead (the
  // app) asks for the next page as soon as it has it, not once the compressor's buffers fill.
  const bytes = (c: JSONChunk) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c);
  out.write(bytes(chunks[0]));
  out.flush?.();
  let run: Buffer[] = [];
  let size = 0;
  for (let i = 1; i < chunks.length; i++) {
    const b = bytes(chunks[i]);
    run.push(b);
    size += b.length;
    if (size < COMPRESSOR_RUN && i + 1 < chunks.length) continue;
    const drained = out.write(Buffer.concat(run, size));
    [run, size] = [[], 0];
    if (!drained && i + 1 < chunks.length) await drainOrClose(res, out);
    if (res.destroyed) return;
  }
  out.end();
}

/**
 * Writes a JSON list response. The items' cached JSON goes to the socket as
 * it is, so a 50,000-item list costs no serialisation and, for items with
 * bytes, no copy on our side. Items that keep no JSON (encoded on demand)
 * are written as `writePrettyList` writes, their JSON made as the list goes.
 */
export async function writeList(res: ServerResponse, env: ListEnvelope, items: readonly CachedObject[], headers: Record<string, string | string[]> = {}) {
  if (items[0]?.onDemand) return writeInSlices(res, items, { head: listHead(env), item: (c, k) => (k ? ',' : '') + jsonOf(c), tail: ']}\n', headers });
  return writeChunks(res, 200, await listChunks(env, items), headers);
}

/** Items a list written in slices puts in one write at most. */
const SLICE_BATCH = 200;

/** A body writeInSlices writes: `head`, each item's text (its separator included), `tail`; `empty` instead when there are no items. */
interface SlicedBody {
  head: string;
  item: (c: CachedObject, k: number) => string;
  tail: string;
  empty?: string;
  headers?: Record<string, string | string[]>;
}

/**
 * Writes a list whose items' JSON is made as it goes (`item` gives the k-th
 * item's text, separator included), in batches, waiting for the socket to
 * drain, in slices of the event loop, chunked (its length is known only at
 * its end). Made in one turn, 635,000 Events took 9 s of it (controllers
 * lose their leader lease to turns far shorter), and as one string 300,000
 * of them were past V8's longest string.
 */
async function writeInSlices(res: ServerResponse, items: readonly CachedObject[], body: SlicedBody) {
  const { head, item, tail, headers = {} } = body;
  const heads = { 'Content-Type': 'application/json', ...headers };
  if (!items.length && body.empty !== undefined) return void bodyStream(res, 200, heads, body.empty.length).end(body.empty);
  // The head is written with the first slice: a body that takes more than one is a large one (compressed
  // for a client that takes it), one that fits in one is judged by its size.
  let out: Writable | undefined;
  let sliceStart = performance.now();
  let text = head;
  for (let k = 0; k < items.length; k++) {
    text += item(items[k], k);
    // The clock is read after each item: an item's YAML takes about 1 ms, and a batch of them was 200 ms of one turn.
    if (k + 1 === items.length || ((k + 1) % SLICE_BATCH !== 0 && performance.now() - sliceStart <= SLICE_MS)) continue;
    out ??= bodyStream(res, 200, heads, Infinity);
    const drained = out.write(text);
    text = '';
    if (res.destroyed) return;
    if (!drained) await drainOrClose(res, out);
    else if (performance.now() - sliceStart > SLICE_MS) await yieldToEventLoop();
    else continue;
    if (res.destroyed) return;
    sliceStart = performance.now();
  }
  const last = text + tail;
  (out ?? bodyStream(res, 200, heads, last.length)).end(last);
}

/**
 * Writes `JSON.stringify({ ...envelope, [field]: items.map(item) }, null, 2)`, item by item in
 * slices (see writeInSlices): a pretty list (what `curl` gets, and `?pretty=true`), Table and
 * PartialObjectMetadataList. Made in one turn, a pretty Table of 60,000 pods held every other request.
 */
export function writePrettyArray(res: ServerResponse, envelope: object, field: string, items: readonly CachedObject[], item: (c: CachedObject) => unknown, headers: Record<string, string | string[]> = {}) {
  const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);
  // The envelope's JSON without its closing brace, the array's member after its last.
  const head = `${JSON.stringify(envelope, null, 2).slice(0, -2)},\n  ${JSON.stringify(field)}: [`;
  const itemText = (c: CachedObject, k: number) => `${k ? ',\n' : ''}    ${indent(JSON.stringify(item(c), null, 2), '    ')}`;
  return writeInSlices(res, items, { head: `${head}\n`, item: itemText, tail: '\n  ]\n}\n', empty: `${head}]\n}\n`, headers });
}

/** A list as `JSON.stringify(list, null, 2)` writes it (writePrettyArray). */
export const writePrettyList = (res: ServerResponse, env: ListEnvelope, items: readonly CachedObject[], headers: Record<string, string | string[]> = {}) =>
  writePrettyArray(res, listEnvelope(env), 'items', items, (c) => c.object, headers);

/**
 * A list as YAML (`Accept: application/yaml`), as the `yaml` package writes the whole list, item by
 * item in slices (see writeInSlices). The whole list as one document, 60,000 pods, ran the server out
 * of its 4 GB heap.
 */
export function writeYAMLList(res: ServerResponse, env: ListEnvelope, items: readonly CachedObject[], headers: Record<string, string | string[]> = {}) {
  const head = toYAML(listEnvelope(env), YAML_OPTIONS);
  // Each item a member of the sequence: its first line after `  - `, the others (blank lines aside) indented to match.
  const item = (c: CachedObject) => `  - ${toYAML(c.object, YAML_OPTIONS).replace(/\n(?=[^\n])/g, '\n    ')}`;
  return writeInSlices(res, items, { head: `${head}items:\n`, item, tail: '', empty: `${head}items: []\n`, headers: { 'Content-Type': 'application/yaml', ...headers } });
}

/** YAML as the server writes it: long strings are not folded over lines. */
export const YAML_OPTIONS = { lineWidth: 0 };

const FRAME_HEAD = { ADDED: Buffer.from('{"type":"ADDED","object":'), MODIFIED: Buffer.from('{"type":"MODIFIED","object":'), DELETED: Buffer.from('{"type":"DELETED","object":') };
const FRAME_TAIL = Buffer.from('}\n');
let lastFrame: { type: EventType; c: CachedObject; frame: Buffer } | undefined;

/**
 * A frame around an object that has no bytes yet: one buffer, the object's
 * JSON encoded straight into it between the head and the tail, and the
 * object's bytes are that middle part (a view, no copy). Made apart, the
 * bytes and then the frame copied from them were two allocations and two
 * copies of every object an event carries (a 5000-node rollout's ~40,000
 * events: allocating them was ~1.2% of the server's CPU, more in its GC).
 */
function frameAndBytes(type: EventType, c: CachedObject): Buffer {
  const json = c.json ?? JSON.stringify(c.object);
  const head = FRAME_HEAD[type];
  const length = Buffer.byteLength(json);
  const frame = Buffer.allocUnsafe(head.length + length + FRAME_TAIL.length);
  head.copy(frame, 0);
  frame.write(json, head.length, length);
  FRAME_TAIL.copy(frame, head.length + length);
  keepBytes(c, frame.subarray(head.length, head.length + length));
  return frame;
}

/** A JSON watch event, newline-terminated, whose object is the given chunks' JSON (an object's bytes, a Table, a PartialObjectMetadata). */
export function eventFrame(type: EventType, object: readonly JSONChunk[]): Buffer {
  return joinChunks([FRAME_HEAD[type], ...object, FRAME_TAIL]);
}

/**
 * A JSON watch event for one watcher's initial events (the objects of a
 * snapshot or of replayed history, sent as the client takes them): framed
 * from the object's bytes or its text, without making bytes to keep, as a
 * list writes it (see textOf); a frame sent and gone is the young
 * generation's to collect.
 */
export function snapshotFrame(type: EventType, c: CachedObject): Buffer {
  return eventFrame(type, [textOf(c)]);
}

/**
 * A JSON watch event for the object, newline-terminated. The cache delivers
 * one event to every watcher in turn, so the frame made for the first is
 * reused by the rest (a one-entry memo keeps nothing alive for long).
 */
export function watchFrame(type: EventType, c: CachedObject): Buffer {
  if (lastFrame && lastFrame.c === c && lastFrame.type === type) return lastFrame.frame;
  const frame = c.bytes ? eventFrame(type, [c.bytes]) : frameAndBytes(type, c);
  lastFrame = { type, c, frame };
  return frame;
}
