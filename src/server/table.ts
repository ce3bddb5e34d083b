// Server-side printing (metav1.Table built from the kinds' printer columns) and
// PartialObjectMetadata, both written from a cached object's JSON where it has it.
import type { KindDefinition, KubeObject } from '../kinds/kind.ts';
import { errors } from './http/status.ts';
import type { CachedObject, EventType } from './watch/cache.ts';
import { eventFrame, itemChunks, LIST_TAIL, metadataJSONOf, textOf, writeChunks, type Chunks, type JSONChunk } from './watch/encodings.ts';
import type { ServerResponse } from 'node:http';

export type IncludeObject = 'Metadata' | 'Object' | 'None';

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'Object' || v === 'None') return v;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

export function partialObjectMetadata(o: KubeObject) {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export function columnDefinitions(kind: KindDefinition) {
  return kind.printerColumns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description,
    priority: c.priority,
  }));
}

function tableRow(kind: KindDefinition, o: KubeObject, include: IncludeObject, now: Date) {
  const row: Record<string, unknown> = { cells: kind.printerColumns.map((c) => c.cell(o, now)) };
  if (include === 'Object') row.object = o;
  else if (include === 'Metadata') row.object = partialObjectMetadata(o);
  return row;
}

export function toTable(
  kind: KindDefinition,
  objects: KubeObject[],
  include: IncludeObject,
  listMeta: Record<string, unknown>,
  withColumns = true,
) {
  const now = new Date();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: withColumns ? columnDefinitions(kind) : null,
    rows: objects.map((o) => tableRow(kind, o, include, now)),
  };
}

const PARTIAL_HEAD = Buffer.from('{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":');
const CLOSE = Buffer.from('}');
/**
 * partialObjectMetadata of a cached object as JSON chunks: its metadata is a
 * part of the object's cached JSON, not serialised again.
 */
export function partialChunks(c: CachedObject, out: JSONChunk[]): number {
  const metadata = metadataJSONOf(c);
  out.push(PARTIAL_HEAD, metadata, CLOSE);
  return PARTIAL_HEAD.length + metadata.length + CLOSE.length;
}

/** The PartialObjectMetadataList of cached objects as JSON chunks (the same bytes JSON.stringify gives), a newline after them. */
export function partialListChunks(items: readonly CachedObject[], listMeta: Record<string, unknown>): Chunks {
  return itemChunks(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(listMeta)},"items":[`, items, partialChunks, LIST_TAIL);
}

/** A watch event whose object is the cached object's PartialObjectMetadata (a metadata informer's watch). */
export function partialEvent(type: EventType, c: CachedObject): Buffer {
  const chunks: JSONChunk[] = [];
  partialChunks(c, chunks);
  return eventFrame(type, chunks);
}

/**
 * A cached object's Table row as JSON chunks, the same bytes JSON.stringify
 * gives tableRow's row: its cells are computed, and its object is the
 * object's cached JSON (Object) or the part of it that is its metadata
 * (Metadata), not serialised again: `kubectl get` of 50,000 pods serialised
 * every pod's metadata, managed fields and all, for each of its pages.
 */
function rowChunks(kind: KindDefinition, c: CachedObject, include: IncludeObject, now: Date, out: JSONChunk[]): number {
  const cells = `{"cells":${JSON.stringify(kind.printerColumns.map((col) => col.cell(c.object, now)))}`;
  const head = Buffer.from(include === 'None' ? cells : `${cells},"object":`);
  out.push(head);
  let length = head.length;
  if (include === 'Object') {
    const json = textOf(c);
    out.push(json);
    length += json.length;
  } else if (include === 'Metadata') length += partialChunks(c, out);
  out.push(CLOSE);
  return length + CLOSE.length;
}

/**
 * toTable of cached objects as JSON chunks (the rows' object parts are the
 * cached JSON itself, written without a copy), ended by `tail`.
 */
export function tableChunks(kind: KindDefinition, items: readonly CachedObject[], include: IncludeObject, listMeta: Record<string, unknown>, withColumns: boolean, tail: Buffer): Chunks {
  const now = new Date();
  const head = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(listMeta)},"columnDefinitions":${withColumns ? JSON.stringify(columnDefinitions(kind)) : 'null'},"rows":[`;
  return itemChunks(head, items, (c, out) => rowChunks(kind, c, include, now, out), tail);
}

/** Writes a Table of cached objects as writeBody writes toTable's (the same bytes, a newline after them). */
export function writeTable(res: ServerResponse, code: number, kind: KindDefinition, items: readonly CachedObject[], include: IncludeObject, listMeta: Record<string, unknown>, headers?: Record<string, string | string[]>) {
  return writeChunks(res, code, tableChunks(kind, items, include, listMeta, true, LIST_TAIL), headers);
}

const TABLE_END = Buffer.from(']}');

/** A Table watch event of one row, as upstream frames it (the columns only with the first). */
export function tableEvent(type: EventType, kind: KindDefinition, c: CachedObject, include: IncludeObject, withColumns: boolean): Buffer {
  return eventFrame(type, tableChunks(kind, [c], include, { resourceVersion: c.object.metadata.resourceVersion }, withColumns, TABLE_END).chunks);
}
