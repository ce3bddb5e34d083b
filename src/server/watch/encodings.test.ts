// Cached encodings on a real server: GET, LIST (whole and paged) and watch
// events are written from each object's cached UTF-8 bytes; these check the
// bytes on the wire (lengths with multi-byte characters, a changed object's
// new bytes, the list envelope) and that an unchanged object is encoded once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { readWatch, startTestServer, type TestServer } from '../testing.ts';
import { parse as parseYAML, stringify as toYAML } from 'yaml';
import { bytesOf, joinChunks, jsonOf, listChunks, storedJSON, watchFrame, withResourceVersion, writeList, writePrettyArray, writeYAMLList, YAML_OPTIONS } from './encodings.ts';
import { toTable, writePrettyTable } from '../table.ts';
import { nodeKind } from '../../kinds/node.ts';
import type { CachedObject } from './cache.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
});
afterAll(async () => {
  await s.stop();
});

/** The raw response: status, Content-Length and the bytes received. */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; length: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(s.url + path, { headers: { ...s.adminHeaders, ...headers } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, length: Number(res.headers['content-length']), body: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

const node = (name: string, note: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, annotations: { note } }, spec: {} });

describe('cached encodings', () => {
  it('writes GET and LIST bodies whose Content-Length counts bytes, not characters', async () => {
    for (const [i, note] of ['zürich ✓', '東京 😀', 'plain'].entries()) expect((await s.api('/api/v1/nodes', { method: 'POST', body: node(`enc-${i}`, note) })).status).toBe(201);
    const one = await raw('/api/v1/nodes/enc-1');
    expect(one.status).toBe(200);
    expect(one.body.length).toBe(one.length);
    expect(JSON.parse(one.body.toString()).metadata.annotations.note).toBe('東京 😀');
    expect(one.body.toString().endsWith('}\n')).toBe(true);

    const list = await raw('/api/v1/nodes');
    expect(list.body.length).toBe(list.length);
    const parsed = JSON.parse(list.body.toString());
    expect(parsed).toMatchObject({ kind: 'NodeList', apiVersion: 'v1' });
    expect(parsed.items.map((n: any) => n.metadata.annotations.note)).toEqual(['zürich ✓', '東京 😀', 'plain']);
    // Each item is the object GET returns, byte for byte.
    expect(JSON.stringify(parsed.items[1])).toBe(one.body.toString().trimEnd());
  });

  it('writes Table rows (kubectl get) whose metadata is the cached object\'s, byte for byte', async () => {
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const one = (await raw('/api/v1/nodes/enc-1')).body.toString().trimEnd();
    for (const path of ['/api/v1/nodes', '/api/v1/nodes?limit=2', '/api/v1/nodes/enc-1']) {
      const got = await raw(path, table);
      expect(got.body.length).toBe(got.length);
      const rows = JSON.parse(got.body.toString()).rows;
      const row = rows.find((r: any) => r.cells[0] === 'enc-1');
      expect(row.object.kind).toBe('PartialObjectMetadata');
      expect(JSON.stringify(row.object.metadata)).toBe(JSON.stringify(JSON.parse(one).metadata));
    }
  });

  it('serves a metadata informer: PartialObjectMetadata of one object, a list and a watch (bookmarks too)', async () => {
    const asPartial = (as: string) => ({ Accept: `application/json;as=${as};g=meta.k8s.io;v=v1,application/json` });
    const one = JSON.parse((await raw('/api/v1/nodes/enc-1')).body.toString());
    const partial = await raw('/api/v1/nodes/enc-1', asPartial('PartialObjectMetadata'));
    expect(partial.body.length).toBe(partial.length);
    expect(JSON.parse(partial.body.toString())).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: one.metadata });
    const list = await raw('/api/v1/nodes?limit=2', asPartial('PartialObjectMetadataList'));
    expect(list.body.length).toBe(list.length);
    const parsed = JSON.parse(list.body.toString());
    expect(parsed).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { remainingItemCount: 1 } });
    expect(parsed.items[1]).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: one.metadata });

    const watched = readWatch(
      `${s.url}/api/v1/nodes?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
      (ev) => ev.some((e) => e.type === 'BOOKMARK'),
      { headers: asPartial('PartialObjectMetadata') },
    );
    const events = await watched;
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(e.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(events.find((e) => e.object.metadata.name === 'enc-1').object.metadata).toEqual(one.metadata);
    expect(Object.keys(events.find((e) => e.object.metadata.name === 'enc-1').object)).toEqual(['kind', 'apiVersion', 'metadata']);
    expect(events.at(-1).object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('answers meta.k8s.io/v1beta1 when asked in v1beta1, and passes over a clause of another version', async () => {
    const accept = (as: string, v: string) => ({ Accept: `application/json;as=${as};g=meta.k8s.io;v=${v}` });
    const one = JSON.parse((await raw('/api/v1/nodes/enc-1')).body.toString());
    const partial = JSON.parse((await raw('/api/v1/nodes/enc-1', accept('PartialObjectMetadata', 'v1beta1'))).body.toString());
    expect(partial).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: one.metadata });
    const list = JSON.parse((await raw('/api/v1/nodes?limit=1', accept('PartialObjectMetadataList', 'v1beta1'))).body.toString());
    expect(list.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(list.items[0].apiVersion).toBe('meta.k8s.io/v1beta1');
    for (const path of ['/api/v1/nodes', '/api/v1/nodes/enc-1', '/api/v1/nodes/enc-1?pretty=true']) {
      const table = JSON.parse((await raw(path, accept('Table', 'v1beta1'))).body.toString());
      expect(table.apiVersion).toBe('meta.k8s.io/v1beta1');
      expect(table.rows[0].object.apiVersion).toBe('meta.k8s.io/v1beta1');
    }
    const watched = readWatch(
      `${s.url}/api/v1/nodes?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
      (ev) => ev.some((e) => e.type === 'BOOKMARK'),
      { headers: accept('PartialObjectMetadata', 'v1beta1') },
    );
    for (const e of await watched) expect(e.object.apiVersion).toBe('meta.k8s.io/v1beta1');
    // No transformation to a version kube-apiserver does not serve: the next clause answers, or a 406 when none is left.
    const fallback = await raw('/api/v1/nodes/enc-1', { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2,application/json' });
    expect(JSON.parse(fallback.body.toString()).kind).toBe('Node');
    expect((await s.api('/api/v1/nodes/enc-1', { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io' } })).status).toBe(406);
  });

  it('writes a list of JSON texts longer than one write, over HTTP/1.1 and HTTP/2, and serves on after a client leaves mid-list', async () => {
    const long = 'x'.repeat(40_000);
    expect((await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'texts' } } })).status).toBe(201);
    const notes = Array.from({ length: 20 }, (_, i) => `${long}${i}`);
    for (const [i, note] of notes.entries()) {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `run-${String(i).padStart(2, '0')}` }, data: { note } };
      expect((await s.api('/api/v1/namespaces/texts/configmaps', { method: 'POST', body: cm })).status).toBe(201);
    }
    const path = '/api/v1/namespaces/texts/configmaps';
    const list = await raw(path);
    expect(list.body.length).toBe(list.length);
    expect(JSON.parse(list.body.toString()).items.map((cm: any) => cm.data.note)).toEqual(notes);
    // Nobody watches these, so the list made their JSON text, which the cache keeps (no bytes).
    const cached = s.cache.get('/registry/core/configmaps/texts/run-03')!;
    expect([typeof cached.json, cached.bytes]).toEqual(['string', undefined]);

    const session = http2Connect(s.httpsUrl, { ca: s.ca, servername: 'localhost' });
    try {
      const viaH2 = await new Promise<Buffer>((resolve, reject) => {
        const req = session.request({ ':path': path, authorization: s.adminHeaders.Authorization });
        const parts: Buffer[] = [];
        req.on('data', (d: Buffer) => parts.push(d));
        req.on('end', () => resolve(Buffer.concat(parts)));
        req.on('error', reject);
      });
      expect(viaH2.equals(list.body)).toBe(true);
    } finally {
      session.close();
    }

    await new Promise<void>((resolve, reject) => {
      const req = http.get(s.url + path, { headers: s.adminHeaders }, (res) => res.once('data', () => (req.destroy(), resolve())));
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    });
    expect((await raw(path)).body.equals(list.body)).toBe(true);
  });

  it('sends a watch its initial events from the JSON text, leaving the objects without bytes until an event of theirs is framed', async () => {
    const path = '/api/v1/namespaces/texts/configmaps';
    const listed = JSON.parse((await raw(path)).body.toString()).items;
    const initial = await readWatch(`${s.url}${path}?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, (ev) => ev.some((e) => e.type === 'BOOKMARK'));
    expect(initial.filter((e) => e.type === 'ADDED').map((e) => e.object)).toEqual(listed);
    const key = '/registry/core/configmaps/texts/run-04';
    expect([typeof s.cache.get(key)!.json, s.cache.get(key)!.bytes]).toEqual(['string', undefined]);
    // A live event is framed once for every watcher, and that frame holds the new version's bytes.
    const events = readWatch(`${s.url}${path}?watch=1&resourceVersion=${initial.at(-1).object.metadata.resourceVersion}`, (ev) => ev.length >= 1);
    await s.api(`${path}/run-04`, { method: 'PATCH', body: { data: { note: 'changed' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect((await events)[0].object.data.note).toBe('changed');
    expect([s.cache.get(key)!.json, JSON.parse(s.cache.get(key)!.bytes!.toString()).data.note]).toEqual([undefined, 'changed']);
  });

  it('keeps the JSON text a Table watch made of a live event, once (its rows\' metadata is a slice of it)', async () => {
    const path = '/api/v1/namespaces/texts/configmaps';
    const rv = JSON.parse((await raw(path)).body.toString()).metadata.resourceVersion;
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const events = readWatch(`${s.url}${path}?watch=1&resourceVersion=${rv}`, (ev) => ev.length >= 1, { headers: table });
    await s.api(`${path}/run-05`, { method: 'PATCH', body: { data: { note: 'in a row' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const [e] = await events;
    expect(e.object.rows[0].cells[0]).toBe('run-05');
    const c = s.cache.get('/registry/core/configmaps/texts/run-05')!;
    expect([c.json, c.bytes, typeof c.metadataJSON]).toEqual([JSON.stringify(c.object), undefined, 'string']);
  });

  it("keeps no JSON of an Event (encoded on demand, as kube-apiserver caches none), and writes its GET, LIST, Table and watch event as any other object's", async () => {
    const path = '/api/v1/namespaces/default/events';
    const watched = readWatch(`${s.url}${path}?watch=1&resourceVersion=${JSON.parse((await raw(path)).body.toString()).metadata.resourceVersion}`, (ev) => ev.length >= 1);
    const created = await s.api(path, { method: 'POST', body: { metadata: { name: 'on-demand' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Tested', message: 'ö and ascii' } });
    expect(created.status).toBe(201);
    const [event] = await watched;
    const key = '/registry/core/events/default/on-demand';
    const c = s.cache.get(key)!;
    const expected = JSON.stringify(c.object);
    expect(JSON.stringify(event.object)).toBe(expected);
    const got = await raw(`${path}/on-demand`);
    expect([got.body.toString(), got.length]).toEqual([`${expected}\n`, Buffer.byteLength(expected) + 1]);
    const listed = JSON.parse((await raw(`${path}?fieldSelector=involvedObject.name%3Dp`)).body.toString()).items;
    expect(listed.map((o: object) => JSON.stringify(o))).toEqual([expected]);
    const table = JSON.parse((await raw(`${path}?fieldSelector=involvedObject.name%3Dp`, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).body.toString());
    expect(table.rows[0].object.metadata).toEqual(c.object.metadata);
    expect([c.onDemand, c.json, c.bytes, c.metadataJSON, c.asciiJSON]).toEqual([true, undefined, undefined, undefined, undefined]);
  });

  it('pages with the continue token and remainingItemCount in the list metadata', async () => {
    const first = await raw('/api/v1/nodes?limit=2');
    expect(first.body.length).toBe(first.length);
    const p1 = JSON.parse(first.body.toString());
    expect(p1.items.map((n: any) => n.metadata.name)).toEqual(['enc-0', 'enc-1']);
    expect(p1.metadata.remainingItemCount).toBe(1);
    const second = JSON.parse((await raw(`/api/v1/nodes?limit=2&continue=${encodeURIComponent(p1.metadata.continue)}`)).body.toString());
    expect(second.items.map((n: any) => n.metadata.name)).toEqual(['enc-2']);
    expect(second.metadata.continue).toBeUndefined();
  });

  it('serves a changed object with its new bytes, and an empty list as []', async () => {
    await s.api('/api/v1/nodes/enc-2', { method: 'PATCH', body: { metadata: { annotations: { note: 'changed ü' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const got = JSON.parse((await raw('/api/v1/nodes/enc-2')).body.toString());
    expect(got.metadata.annotations.note).toBe('changed ü');
    const listed = JSON.parse((await raw('/api/v1/nodes')).body.toString());
    expect(listed.items[2].metadata.annotations.note).toBe('changed ü');
    expect(listed.items[2].metadata.resourceVersion).toBe(got.metadata.resourceVersion);
    const empty = await raw('/api/v1/namespaces/default/configmaps');
    expect(JSON.parse(empty.body.toString()).items).toEqual([]);
    expect(empty.body.length).toBe(empty.length);
  });

  it('delivers watch events framed from the cached bytes', async () => {
    const list = (await s.api('/api/v1/nodes')).body;
    const events = readWatch(`${s.url}/api/v1/nodes?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (ev) => ev.length >= 1);
    await s.api('/api/v1/nodes/enc-0', { method: 'PATCH', body: { metadata: { annotations: { note: 'watch ✓' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const [e] = await events;
    expect(e.type).toBe('MODIFIED');
    expect(e.object.metadata.annotations.note).toBe('watch ✓');
  });
});

describe('encodings of one cached object', () => {
  const cached = (): CachedObject => ({ key: '/registry/core/nodes/a', revision: 7, object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a', resourceVersion: '7', labels: { x: 'ä' } } } });

  it('makes the bytes once and keeps one copy', () => {
    const c = cached();
    expect(jsonOf(c)).toBe(JSON.stringify(c.object));
    const b = bytesOf(c);
    expect(bytesOf(c)).toBe(b);
    expect(c.json).toBeUndefined();
    expect(jsonOf(c)).toBe(JSON.stringify(c.object));
    expect(b.length).toBe(Buffer.byteLength(JSON.stringify(c.object)));
  });

  it('frames one event once for every watcher it goes to', () => {
    const c = cached();
    const f = watchFrame('MODIFIED', c);
    expect(watchFrame('MODIFIED', c)).toBe(f);
    expect(JSON.parse(f.toString())).toEqual({ type: 'MODIFIED', object: c.object });
    expect(f.toString().endsWith('}\n')).toBe(true);
    expect(JSON.parse(watchFrame('DELETED', c).toString()).type).toBe('DELETED');
  });

  it('makes the object\'s bytes with its first frame, as the middle of that frame', () => {
    const c = cached();
    const f = watchFrame('ADDED', c);
    expect(c.bytes?.toString()).toBe(JSON.stringify(c.object));
    expect(c.json).toBeUndefined();
    expect(f.toString()).toBe(`{"type":"ADDED","object":${JSON.stringify(c.object)}}\n`);
    // The bytes are a view of the frame (the non-ASCII label counted in bytes, not characters).
    expect(c.bytes!.buffer).toBe(f.buffer);
    expect(c.bytes!.byteOffset).toBe(f.byteOffset + Buffer.byteLength('{"type":"ADDED","object":'));
    // A later frame of another type copies the bytes; both frames stay whole.
    const d = watchFrame('DELETED', c);
    expect(d.toString()).toBe(`{"type":"DELETED","object":${JSON.stringify(c.object)}}\n`);
    expect(f.toString()).toBe(`{"type":"ADDED","object":${JSON.stringify(c.object)}}\n`);
    expect(jsonOf(c)).toBe(JSON.stringify(c.object));
  });

  it('frames an object whose JSON text was made already (a write\'s private copy read it)', () => {
    const c = cached();
    const text = jsonOf(c);
    expect(c.json).toBe(text);
    expect(watchFrame('MODIFIED', c).toString()).toBe(`{"type":"MODIFIED","object":${text}}\n`);
    expect(c.json).toBeUndefined();
    expect(bytesOf(c).toString()).toBe(text);
  });

  it('lists items between the envelope and the tail, with their lengths summed', async () => {
    const a = cached();
    const b = { ...cached(), key: '/registry/core/nodes/b', object: { ...cached().object, metadata: { name: 'b' } } };
    const { chunks, length } = await listChunks({ listKind: 'NodeList', apiVersion: 'v1', resourceVersion: 9, continueToken: 'tok', remainingItemCount: 3 }, [a, b]);
    const body = joinChunks(chunks);
    expect(body.length).toBe(length);
    expect(JSON.parse(body.toString())).toEqual({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 3 }, items: [a.object, b.object] });
  });

  it('keeps the JSON text of items without bytes (not bytes: memory outside the heap), and makes bytes of text that is not ASCII', async () => {
    const ascii = { ...cached(), object: { ...cached().object, metadata: { name: 'a', labels: { x: 'a' } } } };
    const other = { ...cached(), key: '/registry/core/nodes/東京', object: { ...cached().object, metadata: { name: '東京', labels: { a: 'é' } } } };
    const framed = { ...cached(), key: '/registry/core/nodes/framed' };
    watchFrame('ADDED', framed);
    const items = [ascii, other, framed];
    const { chunks, length } = await listChunks({ listKind: 'NodeList', apiVersion: 'v1', resourceVersion: 9 }, items);
    expect(chunks.slice(1, -1).filter((c) => typeof c === 'string')).toEqual([JSON.stringify(ascii.object)]);
    expect(ascii.json).toBe(JSON.stringify(ascii.object));
    expect(ascii.bytes).toBeUndefined();
    expect(other.bytes?.toString()).toBe(JSON.stringify(other.object));
    expect(chunks).toContain(framed.bytes);
    const body = joinChunks(chunks);
    expect(body.length).toBe(length);
    expect(JSON.parse(body.toString()).items).toEqual(items.map((i) => i.object));
    // Written as an HTTP body, the text's characters are its bytes.
    expect(Buffer.byteLength(body.toString())).toBe(length);
  });
});

describe('a list whose items have no JSON yet', () => {
  // 2000 objects of 20 KB: making their JSON takes several slices of 10 ms on any machine.
  const objects = (onDemand: boolean) =>
    Array.from({ length: 2000 }, (_, i): CachedObject => ({ key: `/k/${i}`, revision: i + 1, object: { kind: 'Event', metadata: { name: `e-${i}` }, message: i === 7 ? 'ö'.repeat(10_000) : 'x'.repeat(20_000) } as any, onDemand }));
  /** Writes the list to a response that takes every write; returns the body, its headers and how many turns the event loop made meanwhile. */
  async function written(items: CachedObject[], write: (res: any) => Promise<void> | void = (res) => writeList(res, { listKind: 'EventList', apiVersion: 'v1', resourceVersion: 9 }, items)) {
    const parts: Buffer[] = [];
    let headers: Record<string, unknown> = {};
    const take = (d?: string | Buffer) => (d !== undefined && parts.push(typeof d === 'string' ? Buffer.from(d, d.length === Buffer.byteLength(d) ? 'latin1' : 'utf8') : d), true);
    const res: any = { destroyed: false, writeHead: (_: number, h: Record<string, unknown>) => (headers = h), write: take, end: take, cork() {}, uncork() {}, on() {}, off() {} };
    let turns = 0;
    let done = false;
    const turn = () => {
      turns++;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    await write(res);
    done = true;
    const text = Buffer.concat(parts).toString();
    return { text, list: headers['Content-Type'] === 'application/yaml' ? parseYAML(text) : JSON.parse(text), headers, turns };
  }

  it('makes and keeps their JSON as its body is made, letting the event loop run between slices', async () => {
    const items = objects(false);
    const { list, headers, turns } = await written(items);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(list.metadata).toEqual({ resourceVersion: '9' });
    expect(list.items).toEqual(items.map((c) => c.object));
    expect(headers['Content-Length']).toBe(items.reduce((n, c) => n + (c.bytes?.length ?? c.json!.length), 0) + 1999 + `{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]}\n`.length);
    expect([items[7].bytes?.toString(), items[8].json]).toEqual([JSON.stringify(items[7].object), JSON.stringify(items[8].object)]);
  });

  it('of objects that keep none (encoded on demand) is written as it is made, chunked, in slices', async () => {
    const items = objects(true);
    const { list, headers, turns } = await written(items);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(headers['Content-Length']).toBeUndefined();
    expect(list.items).toEqual(items.map((c) => c.object));
    expect(items.some((c) => c.json !== undefined || c.bytes !== undefined)).toBe(false);
  });

  it('as YAML, is the whole list as one YAML document, byte for byte, written in slices', async () => {
    // What YAML quotes, folds or indents: block strings (blank lines, leading spaces), look-alikes of other types, empty collections, keys that need quoting.
    const odd = { kind: 'Event', metadata: { name: 'odd', labels: { 'a/b': 'yes', n: '123', t: 'true' }, annotations: { text: 'line one\n\n  indented\nlast\n', colon: 'a: b', dash: '- x', hash: '# c', empty: '' } }, list: [[], {}, [1, [2, { x: null }]], ' lead', 'ö 東京'], nested: { deep: { deeper: ['a\nb'] } } };
    const items = [odd, ...objects(true).map((c) => c.object)].map((object, i): CachedObject => ({ key: `/k/${i}`, revision: i + 1, object: object as any, onDemand: true }));
    const env = { listKind: 'EventList', apiVersion: 'v1', resourceVersion: 9, continueToken: 'abc', remainingItemCount: 3 };
    const { text, list, headers, turns } = await written(items, (res) => writeYAMLList(res, env, items));
    expect(headers['Content-Type']).toBe('application/yaml');
    expect(turns).toBeGreaterThanOrEqual(2);
    const whole = { kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'abc', remainingItemCount: 3 }, items: items.map((c) => c.object) };
    expect(list).toEqual(whole);
    expect(text.slice(0, 20_000)).toBe(toYAML({ ...whole, items: items.slice(0, 3).map((c) => c.object) }, YAML_OPTIONS).slice(0, 20_000));
    expect(text.length).toBe(toYAML(whole, YAML_OPTIONS).length);
    const none = await written([], (res) => writeYAMLList(res, env, []));
    expect(none.text).toBe(toYAML({ ...whole, items: [] }, YAML_OPTIONS));
  });

  it('lets the event loop go within a batch of items when each takes long to make', async () => {
    // 300 items of 1 ms each (as a pod's YAML takes): a slice ends after about 10 of them, not after a batch of 200.
    const items = objects(true).slice(0, 300);
    const slow = (c: CachedObject) => {
      for (const t = performance.now(); performance.now() - t < 1; );
      return c.object;
    };
    const { list, turns } = await written(items, (res) => writePrettyArray(res, { kind: 'EventList' }, 'items', items, slow));
    expect(list.items).toHaveLength(300);
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it('as a pretty Table, is the Table JSON.stringify indents, byte for byte, written in slices', async () => {
    // Nodes without a creation time (their age reads the same whenever the rows are made), of 5 KB each: several slices of 10 ms with their objects.
    const items = Array.from({ length: 3000 }, (_, i): CachedObject => ({ key: `/k/${i}`, revision: i + 1, object: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${i}`, labels: { i: String(i) }, annotations: { note: 'x'.repeat(5_000) } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } } as any }));
    const meta = { resourceVersion: '9' };
    for (const include of ['Metadata', 'Object', 'None'] as const) {
      const { text, turns } = await written(items, (res) => writePrettyTable(res, nodeKind, items, include, 'v1', meta));
      expect(text).toBe(JSON.stringify(toTable(nodeKind, items.map((c) => c.object), include, 'v1', meta), null, 2) + '\n');
      if (include === 'Object') expect(turns).toBeGreaterThanOrEqual(2);
    }
    expect((await written([], (res) => writePrettyTable(res, nodeKind, [], 'None', 'v1', meta))).text).toBe(JSON.stringify(toTable(nodeKind, [], 'None', 'v1', meta), null, 2) + '\n');
  });
});

describe('a list asked for as YAML or pretty, from the server', () => {
  it('answers YAML, a pretty Table and a pretty PartialObjectMetadataList with what the plain JSON holds', async () => {
    const json = JSON.parse((await raw('/api/v1/nodes')).body.toString());
    const yaml = await new Promise<{ type?: string; text: string }>((resolve, reject) =>
      http.get(s.url + '/api/v1/nodes', { headers: { ...s.adminHeaders, Accept: 'application/yaml' } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => resolve({ type: res.headers['content-type'], text }));
      }).on('error', reject),
    );
    expect(yaml.type).toBe('application/yaml');
    expect(parseYAML(yaml.text)).toEqual(json);
    const partial = { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' };
    const plain = JSON.parse((await raw('/api/v1/nodes', partial)).body.toString());
    expect((await raw('/api/v1/nodes?pretty=true', partial)).body.toString()).toBe(JSON.stringify(plain, null, 2) + '\n');
    const table = JSON.parse((await raw('/api/v1/nodes?pretty=true', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).body.toString());
    expect(table.rows.map((r: any) => r.object.metadata)).toEqual(plain.items.map((o: any) => o.metadata));
  });
});

describe('the JSON a write stores', () => {
  it('is what JSON.stringify writes, and says where the metadata ends', () => {
    const o: any = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'ä "q"' } }, data: { k: 'v' }, gone: undefined, 1: 'n' };
    const { value, metadataEnd } = storedJSON(o);
    expect(value).toBe(JSON.stringify(o));
    expect(value[metadataEnd]).toBe('}');
    o.metadata.resourceVersion = '42';
    expect(withResourceVersion(value, metadataEnd, 42)).toBe(JSON.stringify(o));
  });

  it('has no place for the revision when the metadata is empty, missing or holds one already', () => {
    expect(storedJSON({ apiVersion: 'v1', kind: 'X', metadata: {} } as any).metadataEnd).toBe(-1);
    expect(storedJSON({ apiVersion: 'v1', kind: 'X' } as any).metadataEnd).toBe(-1);
    const held = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', resourceVersion: '' } } as any;
    expect(storedJSON(held)).toEqual({ value: JSON.stringify(held), metadataEnd: -1 });
  });
});
