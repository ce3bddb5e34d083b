// Table output from cached JSON: every row, list and watch event is the same
// bytes JSON.stringify gives the Table toTable builds, for each includeObject,
// from an object's JSON text (ASCII, kept until bytes are made) or its bytes.
import { describe, expect, it } from 'vitest';
import { kindFor } from '../kinds/registry.ts';
import { partialEvent, partialListChunks, partialObjectMetadata, tableChunks, tableEvent, toTable, type IncludeObject } from './table.ts';
import { bytesOf, joinChunks, watchFrame } from './watch/encodings.ts';
import type { CachedObject } from './watch/cache.ts';
import type { MetaVersion } from './http/negotiate.ts';

const pods = kindFor('', 'v1', 'pods')!;
const nodes = kindFor('', 'v1', 'nodes')!;

const pod = (name: string): CachedObject => ({
  key: `/registry/core/pods/default/${name}`,
  revision: 12,
  object: {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace: 'default',
      resourceVersion: '12',
      creationTimestamp: '2026-12-01T10:00:00Z',
      labels: { app: 'a "quoted" }{' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-12-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }],
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }], template: { metadata: { name: 'not this one' } } },
    status: { phase: 'Running', podIP: '10.0.0.1', containerStatuses: [{ name: 'c', ready: true, restartCount: 2 }] },
  },
});

const includes: IncludeObject[] = ['Metadata', 'Object', 'None'];
const versions: MetaVersion[] = ['v1', 'v1beta1'];

describe('Table from cached JSON', () => {
  it('lists the bytes JSON.stringify gives toTable, for each includeObject and version', async () => {
    for (const include of includes) {
      for (const version of versions) {
        const items = [pod('a'), pod('東京'), pod('c')];
        const meta = { resourceVersion: '12', continue: 'tok', remainingItemCount: 4 };
        const { chunks, length } = await tableChunks(pods, items, include, version, meta, Buffer.from(']}\n'));
        const body = joinChunks(chunks);
        expect(body.length).toBe(length);
        expect(body.toString()).toBe(JSON.stringify(toTable(pods, items.map((i) => i.object), include, version, meta)) + '\n');
        const table = JSON.parse(body.toString());
        expect(table.apiVersion).toBe(`meta.k8s.io/${version}`);
        if (include === 'Metadata') expect(table.rows[0].object.apiVersion).toBe(`meta.k8s.io/${version}`);
      }
    }
  });

  it('reads the metadata of an object whose bytes are a view into its watch frame', async () => {
    const c = pod('framed');
    watchFrame('ADDED', c);
    const { chunks } = await tableChunks(pods, [c], 'Metadata', 'v1', {}, Buffer.from(']}'));
    expect(joinChunks(chunks).toString()).toBe(JSON.stringify(toTable(pods, [c.object], 'Metadata', 'v1', {})));
  });

  it('reads the metadata from the JSON text of an object that has no bytes, and from its bytes once made', async () => {
    const c = pod('text');
    const table = async () => joinChunks((await tableChunks(pods, [c], 'Metadata', 'v1', {}, Buffer.from(']}'))).chunks).toString();
    const expected = JSON.stringify(toTable(pods, [c.object], 'Metadata', 'v1', {}));
    expect(await table()).toBe(expected);
    expect(typeof c.json).toBe('string');
    expect(c.bytes).toBeUndefined();
    expect(typeof c.metadataJSON).toBe('string');
    bytesOf(c);
    // The text goes with the bytes made, and the metadata sliced from it with it (a slice keeps its whole text alive).
    expect(c.json).toBeUndefined();
    expect(c.metadataJSON).toBeUndefined();
    expect(await table()).toBe(expected);
    expect(Buffer.isBuffer(c.metadataJSON)).toBe(true);
  });

  it('frames a watch event of one row, the columns only when asked', () => {
    const c: CachedObject = { key: '/registry/core/nodes/n', revision: 3, object: { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n', resourceVersion: '3' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } } };
    for (const withColumns of [true, false]) {
      const t = toTable(nodes, [c.object], 'Metadata', 'v1beta1', { resourceVersion: '3' }, withColumns);
      expect(tableEvent('MODIFIED', nodes, c, 'Metadata', 'v1beta1', withColumns).toString()).toBe(JSON.stringify({ type: 'MODIFIED', object: t }) + '\n');
    }
  });

  it('writes PartialObjectMetadata lists and watch events from the same bytes', async () => {
    const items = [pod('a'), pod('東京')];
    const meta = { resourceVersion: '12' };
    for (const version of versions) {
      const { chunks, length } = await partialListChunks(items, version, meta);
      const body = joinChunks(chunks);
      expect(body.length).toBe(length);
      const partials = items.map((i) => partialObjectMetadata(i.object, version));
      expect(body.toString()).toBe(JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${version}`, metadata: meta, items: partials }) + '\n');
      expect(partialEvent('DELETED', items[1], version).toString()).toBe(JSON.stringify({ type: 'DELETED', object: partials[1] }) + '\n');
      expect(partials[1].apiVersion).toBe(`meta.k8s.io/${version}`);
    }
  });
});
