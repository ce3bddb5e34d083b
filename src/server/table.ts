// Server-side printing (metav1.Table built from the kinds' printer columns) and
// PartialObjectMetadata, both written from a cached object's JSON where it has it.
import type { KindDefinition, KubeObject } from '../kinds/kind.ts';
import { errors } from './http/status.ts';
import type { CachedObject, EventType } from './watch/cache.ts';
import { arrayHead, eventFrame, itemChunks, LIST_TAIL, metadataJSONOf, textOf, writeChunks, writePrettyArray, type Chunks, type JSONChunk } from './watch/encodings.ts';
import type { ServerResponse } from 'node:http';
import type { MetaVersion } from './http/negotiate.ts';

export type IncludeObject = 'Metadata' | 'Object' | 'None';

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'Object' || v === 'None') return v;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

export function partialObjectMetadata(o: KubeObject, version: MetaVersion) {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: o.metadata };
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

function tableRow(kind: KindDefinition, o: KubeObject, include: IncludeObject, version: MetaVersion, now: Date) {
  const row: Record<string, unknown> = { cells: kind.printerColumns.map((c) => c.cell(o, now)) };
  if (include === 'Object') row.object = o;
  else if (include === 'Metadata') row.object = partialObjectMetadata(o, version);
  return row;
}

export function toTable(
  kind: KindDefinition,
  objects: KubeObject[],
  include: IncludeObject,
  version: MetaVersion,
  listMeta: Record<string, unknown>,
  withColumns = true,
) {
  const now = new Date();
  // The rows' PartialObjectMetadata are in the Table's own version, as upstream's asTable sets them.
  return { ...tableEnvelope(kind, version, listMeta, withColumns), rows: objects.map((o) => tableRow(kind, o, include, version, now)) };
}

/** A Table without its rows. */
const tableEnvelope = (kind: KindDefinition, version: MetaVersion, listMeta: Record<string, unknown>, withColumns = true) => ({
  kind: 'Table',
  apiVersion: `meta.k8s.io/${version}`,
  metadata: listMeta,
  columnDefinitions: withColumns ? columnDefinitions(kind) : null,
});

/** A Table as `JSON.stringify(toTable(...), null, 2)` writes it, row by row in slices of the event loop (writePrettyArray). */
export function writePrettyTable(res: ServerResponse, kind: KindDefinition, items: readonly CachedObject[], include: IncludeObject, version: MetaVersion, listMeta: Record<string, unknown>) {
  const now = new Date();
  return writePrettyArray(res, tableEnvelope(kind, version, listMeta), 'rows', items, (c) => tableRow(kind, c.object, include, version, now));
}

const PARTIAL_HEAD: Record<MetaVersion, Buffer> = {
  v1: Buffer.from('{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":'),
  v1beta1: Buffer.from('{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":'),
};
const CLOSE = Buffer.from('}');
/**
 * partialObjectMetadata of a cached object as JSON chunks: its metadata is a
 * part of the object's cached JSON, not serialised again.
 */
export function partialChunks(c: CachedObject, version: MetaVersion, out: JSONChunk[]): number {
  const metadata = metadataJSONOf(c);
  const head = PARTIAL_HEAD[version];
  out.push(head, metadata, CLOSE);
  return head.length + metadata.length + CLOSE.length;
}

/** A PartialObjectMetadataList without its items. */
const partialListEnvelope = (version: MetaVersion, listMeta: Record<string, unknown>) => ({ kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${version}`, metadata: listMeta });

/** The PartialObjectMetadataList of cached objects as JSON chunks (the same bytes JSON.stringify gives), a newline after them. */
export function partialListChunks(items: readonly CachedObject[], version: MetaVersion, listMeta: Record<string, unknown>): Promise<Chunks> {
  return itemChunks(arrayHead(partialListEnvelope(version, listMeta), 'items'), items, (c, out) => partialChunks(c, version, out), LIST_TAIL);
}

/** A PartialObjectMetadataList as `JSON.stringify(list, null, 2)` writes it, item by item in slices of the event loop (writePrettyArray). */
export function writePrettyPartialList(res: ServerResponse, items: readonly CachedObject[], version: MetaVersion, listMeta: Record<string, unknown>) {
  return writePrettyArray(res, partialListEnvelope(version, listMeta), 'items', items, (c) => partialObjectMetadata(c.object, version));
}

/** A watch event whose object is the cached object's PartialObjectMetadata (a metadata informer's watch). */
export function partialEvent(type: EventType, c: CachedObject, version: MetaVersion): Buffer {
  const chunks: JSONChunk[] = [];
  partialChunks(c, version, chunks);
  return eventFrame(type, chunks);
}

/**
 * A cached object's Table row as JSON chunks, the same bytes JSON.stringify
 * gives tableRow's row: its cells are computed, and its object is the
 * object's cached JSON (Object) or the part of it that is its metadata
 * (Metadata), not serialised again: `kubectl get` of 50,000 pods serialised
 * every pod's metadata, managed fields and all, for each of its pages.
 */
function rowChunks(kind: KindDefinition, c: CachedObject, include: IncludeObject, version: MetaVersion, now: Date, out: JSONChunk[]): number {
  const cells = `{"cells":${JSON.stringify(kind.printerColumns.map((col) => col.cell(c.object, now)))}`;
  const head = Buffer.from(include === 'None' ? cells : `${cells},"object":`);
  out.push(head);
  let length = head.length;
  if (include === 'Object') {
    const json = textOf(c);
    out.push(json);
    length += json.length;
  } else if (include === 'Metadata') length += partialChunks(c, version, out);
  out.push(CLOSE);
  return length + CLOSE.length;
}

/** A Table's JSON up to its first row. */
const tableHead = (kind: KindDefinition, version: MetaVersion, listMeta: Record<string, unknown>, withColumns: boolean) => arrayHead(tableEnvelope(kind, version, listMeta, withColumns), 'rows');

/**
 * toTable of cached objects as JSON chunks (the rows' object parts are the
 * cached JSON itself, written without a copy), ended by `tail`.
 */
export function tableChunks(kind: KindDefinition, items: readonly CachedObject[], include: IncludeObject, version: MetaVersion, listMeta: Record<string, unknown>, tail: Buffer): Promise<Chunks> {
  const now = new Date();
  return itemChunks(tableHead(kind, version, listMeta, true), items, (c, out) => rowChunks(kind, c, include, version, now, out), tail);
}

/** Writes a Table of cached objects as writeBody writes toTable's (the same bytes, a newline after them). */
export async function writeTable(res: ServerResponse, code: number, kind: KindDefinition, items: readonly CachedObject[], include: IncludeObject, version: MetaVersion, listMeta: Record<string, unknown>, headers?: Record<string, string | string[]>) {
  return writeChunks(res, code, await tableChunks(kind, items, include, version, listMeta, LIST_TAIL), headers);
}

const TABLE_END = Buffer.from(']}');

/** A Table watch event of one row, as upstream frames it (the columns only with the first). */
export function tableEvent(type: EventType, kind: KindDefinition, c: CachedObject, include: IncludeObject, version: MetaVersion, withColumns: boolean): Buffer {
  const chunks: JSONChunk[] = [tableHead(kind, version, { resourceVersion: c.object.metadata.resourceVersion }, withColumns)];
  rowChunks(kind, c, include, version, new Date(), chunks);
  chunks.push(TABLE_END);
  return eventFrame(type, chunks);
}
