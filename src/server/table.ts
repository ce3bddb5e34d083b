// Server-side printing: metav1.Table built from the kinds' printer columns.
import type { KindDefinition, KubeObject } from '../kinds/kind.ts';
import { errors } from './http/status.ts';

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

export function tableRow(kind: KindDefinition, o: KubeObject, include: IncludeObject, now: Date) {
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
