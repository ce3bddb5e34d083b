// Large API answers are compressed for a client on another machine that asks
// for it, as kube-apiserver compresses them (gzip for Go clients, brotli for
// browsers), and the body decoded is the very body sent uncompressed; small
// answers, watches and clients on this machine get no compression. Against
// the real server, reached over TLS at this machine's own non-loopback address
// (the test is skipped on a machine that has none).
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { connect as http2Connect } from 'node:http2';
import { networkInterfaces } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor } from '../clients/kubectl.ts';
import { COMPRESSION_THRESHOLD_BYTES } from './compression.ts';

/** This machine's first IPv4 address off the loopback interface. */
const remoteAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe.skipIf(!remoteAddress)('response compression', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    s = await startTestServer({ host: '0.0.0.0' });
    port = Number(new URL(s.httpsUrl).port);
    // 200 ConfigMaps of ~1 KB: their list is past the threshold, one of them far below it.
    for (let i = 0; i < 200; i++) {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(3, '0')}`, namespace: 'default' }, data: { text: 'x'.repeat(1000) } };
      expect((await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm })).status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  /** A GET over TLS from `host` (this machine's other address by default), its body as sent. */
  function get(path: string, headers: Record<string, string>, host = remoteAddress!): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = request({ host, port, path, ca: s.ca, servername: 'localhost', headers: { Authorization: `Bearer ${s.adminToken}`, ...headers } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }
  const LIST = '/api/v1/namespaces/default/configmaps';

  it('gzips a large list for a client that asks for gzip, and brotli for one that prefers it; the body decoded is the body sent plain', async () => {
    const plain = await get(LIST, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);

    const gz = await get(LIST, { 'Accept-Encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-length']).toBeUndefined();
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gz.body.length).toBeLessThan(plain.body.length / 10);
    const unzipped = gunzipSync(gz.body);
    // The same list but for the revision it was read at (no write came between).
    expect(unzipped.equals(plain.body)).toBe(true);

    const br = await get(LIST, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    // A coding refused with q=0 is not used.
    expect((await get(LIST, { 'Accept-Encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(LIST, { 'Accept-Encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
  });

  it('compresses over HTTP/2 too (as browsers and kubectl speak it)', async () => {
    const session = http2Connect(`https://${remoteAddress}:${port}`, { ca: s.ca, servername: 'localhost' });
    try {
      const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':path': LIST, authorization: `Bearer ${s.adminToken}`, 'accept-encoding': 'br' });
        const parts: Buffer[] = [];
        let headers: Record<string, unknown> = {};
        stream.on('response', (h) => (headers = h));
        stream.on('data', (d: Buffer) => parts.push(d));
        stream.on('end', () => resolve({ headers, body: Buffer.concat(parts) }));
        stream.on('error', reject);
      });
      expect(headers[':status']).toBe(200);
      expect(headers['content-encoding']).toBe('br');
      expect(JSON.parse(brotliDecompressSync(body).toString()).items).toHaveLength(200);
    } finally {
      session.close();
    }
  });

  it('compresses a list written in slices (pretty, YAML, Table) as well', async () => {
    for (const [query, accept] of [
      ['?pretty=true', 'application/json'],
      ['', 'application/yaml'],
      ['?includeObject=Object', 'application/json;as=Table;v=v1;g=meta.k8s.io'],
    ]) {
      const plain = await get(LIST + query, { Accept: accept });
      const gz = await get(LIST + query, { Accept: accept, 'Accept-Encoding': 'gzip' });
      expect(gz.headers['content-encoding'], `${accept}${query}`).toBe('gzip');
      expect(gz.headers['content-type']).toBe(plain.headers['content-type']);
      const text = gunzipSync(gz.body).toString();
      // Tables carry each row's age, which may tick between the two reads: compare their names.
      if (accept.includes('Table')) expect(JSON.parse(text).rows.map((r: any) => r.cells[0])).toEqual(JSON.parse(plain.body.toString()).rows.map((r: any) => r.cells[0]));
      else expect(text).toBe(plain.body.toString());
    }
  });

  it('leaves small answers, watches, errors and clients on this machine uncompressed', async () => {
    const one = await get(`${LIST}/cm-000`, { 'Accept-Encoding': 'gzip' });
    expect(one.status).toBe(200);
    expect(one.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(one.body.toString()).metadata.name).toBe('cm-000');

    expect((await get(`${LIST}/missing`, { 'Accept-Encoding': 'gzip' })).headers['content-encoding']).toBeUndefined();

    const local = await get(LIST, { 'Accept-Encoding': 'gzip, br' }, '127.0.0.1');
    expect(local.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(local.body.toString()).items).toHaveLength(200);

    // A watch's answer starts at once, uncompressed, its events as they come.
    const watched = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = request({ host: remoteAddress, port, path: `${LIST}?watch=true&timeoutSeconds=1`, ca: s.ca, servername: 'localhost', headers: { Authorization: `Bearer ${s.adminToken}`, 'Accept-Encoding': 'gzip' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      });
      req.on('error', reject);
      req.end();
    });
    expect(watched['content-encoding']).toBeUndefined();
  });

  it('stops compressing for a client that goes away mid-answer, and answers the next', async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: remoteAddress, port, path: LIST, ca: s.ca, servername: 'localhost', headers: { Authorization: `Bearer ${s.adminToken}`, 'Accept-Encoding': 'gzip' } }, (res) => {
          res.once('data', () => (req.destroy(), resolve()));
        });
        req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
        req.end();
      });
    }
    const after = await get(LIST, { 'Accept-Encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(after.body).toString()).items).toHaveLength(200);
  });

  it('kubectl, which asks for gzip, reads the compressed list as the plain one', async () => {
    const remote = kubectlFor({ httpsUrl: `https://${remoteAddress}:${port}`, ca: s.ca, adminToken: s.adminToken }, { insecure: true });
    const local = kubectlFor(s);
    const [a, b] = await Promise.all([remote('get', 'configmaps', '-o', 'name', '--chunk-size=0'), local('get', 'configmaps', '-o', 'name', '--chunk-size=0')]);
    expect(a.stderr).toBe('');
    expect(a.stdout.split('\n').filter(Boolean)).toHaveLength(200);
    expect(a.stdout).toBe(b.stdout);
  });
});
