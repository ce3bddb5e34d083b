// Input an attacker would send, against the real server: nothing ends the
// process, nothing is a 500, other origins cannot act.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestServer, readWatch, type TestServer } from '../testing.ts';
import { encodeContinue } from '../registry/options.ts';

let s: TestServer;
let port: number;
beforeAll(async () => {
  s = await startTestServer({ acceptHosts: ['kube.example.com'] });
  port = Number(new URL(s.url).port);
});
afterAll(async () => {
  await s.stop();
});

/** The admin's credentials as a raw header line. */
const auth = () => `Authorization: Bearer ${s.adminToken}\r\n`;

/** Sends raw bytes and returns what the server answered before closing (or a pause). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    sock.on('data', (d) => {
      out += d;
      if (/\r\n\r\n/.test(out)) setTimeout(() => sock.destroy(), 50);
    });
    sock.on('close', () => resolve(out));
    sock.on('error', reject);
    sock.write(request);
    setTimeout(() => sock.destroy(), 3000);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1]);
const bodyOf = (answer: string) => {
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  const start = text.indexOf('{');
  return start < 0 ? undefined : JSON.parse(text.slice(start, text.lastIndexOf('}') + 1));
};

describe('request lines', () => {
  const targets = ['http://[', '//[x]', 'http://a:b:c/', 'http://%zz/', 'http://x:99999/api', '/%ZZ', '/api/v1/namespaces/%E0%A4%A/configmaps', 'nonsense'];
  for (const target of targets) {
    it(`answers ${JSON.stringify(target)} with a 400 Status and keeps serving`, async () => {
      const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(statusOf(answer)).toBe(400);
      expect(bodyOf(answer)).toMatchObject({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest' });
      expect((await s.api('/healthz')).status).toBe(200);
    });
    it(`answers ${JSON.stringify(target)} as a WebSocket upgrade with a 400 and keeps serving`, async () => {
      const answer = await raw(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      expect(statusOf(answer)).toBe(400);
      expect((await s.api('/healthz')).status).toBe(200);
    });
  }

  it('answers malformed headers with a 400 Status (oversized ones 431) and keeps serving', async () => {
    for (const head of ['Content-Length: abc\r\n', 'Bad Header\r\n', `X-Big: ${'a'.repeat(100_000)}\r\n`, 'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n']) {
      const answer = await raw(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\nhello`);
      expect([400, 431], head.slice(0, 30)).toContain(statusOf(answer));
      expect(bodyOf(answer), head.slice(0, 30)).toMatchObject({ kind: 'Status', status: 'Failure' });
      expect((await s.api('/healthz')).status).toBe(200);
    }
  });

  it('serves an absolute-form target by its path', async () => {
    const answer = await raw(`GET http://127.0.0.1:${port}/api/v1/namespaces/default HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}Connection: close\r\n\r\n`);
    expect(statusOf(answer)).toBe(200);
    expect(bodyOf(answer)).toMatchObject({ kind: 'Namespace', metadata: { name: 'default' } });
  });
});

describe('Host names', () => {
  const get = (host: string, upgrade = false) =>
    raw(
      `GET /api/v1/namespaces/default/configmaps${upgrade ? '?watch=true' : ''} HTTP/1.1\r\nHost: ${host}\r\n${auth()}` +
        (upgrade ? 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' : 'Connection: close\r\n') +
        '\r\n',
    );

  it('serves IP addresses, localhost names and the names it was told', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'app.localhost', `[::1]:${port}`, '10.1.2.3', 'kube.example.com', 'KUBE.example.com.:443']) {
      expect(statusOf(await get(host)), host).toBe(200);
    }
  });

  it('refuses other names with a 403 Status, WebSocket upgrades included (DNS rebinding)', async () => {
    const answer = await get('attacker.example');
    expect(statusOf(answer)).toBe(403);
    expect(bodyOf(answer)).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: expect.stringContaining('--accept-hosts=attacker.example') });
    expect(statusOf(await get('attacker.example', true))).toBe(403);
    expect(statusOf(await get('127.0.0.1.attacker.example'))).toBe(403);
    expect(statusOf(await get('localhost.attacker.example'))).toBe(403);
  });
});

describe('writes need a body type', () => {
  it('refuses a POST without Content-Type (what a no-cors page can send) with 415 and creates nothing', async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: s.adminHeaders,
      body: new Blob([JSON.stringify({ metadata: { name: 'csrf' } })]),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ reason: 'UnsupportedMediaType' });
    const plain = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'csrf' } }, headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect((await s.api('/api/v1/namespaces/default/configmaps/csrf')).status).toBe(404);
  });
});

describe('unknown paths', () => {
  it("answer kube-apiserver's 404 Status, not the app", async () => {
    for (const path of ['/metrics', '/debug/pprof', '/logs/', '/nodes/x/y/z', '/assets/missing.js']) {
      const res = await s.api(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    }
  });
});

describe('bad input is a 4xx', () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const cm = (name: string, extra = '') => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}${extra}}`;

  it('refuses JSON nested 10^5 deep on create, merge, strategic merge and JSON patch with a 400', async () => {
    const created = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('deep-target') });
    expect(created.status).toBe(201);
    const create = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('deep', `,"data":${deep(100_000)}`) });
    expect(create.status).toBe(400);
    expect(create.body.message).toContain('exceeded max depth');
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const res = await s.api('/api/v1/namespaces/default/configmaps/deep-target', { method: 'PATCH', body: `{"data":${deep(100_000)}}`, headers: { 'Content-Type': type } });
      expect(res.status, type).toBe(400);
    }
    const jp = await s.api('/api/v1/namespaces/default/configmaps/deep-target', {
      method: 'PATCH',
      body: `[{"op":"add","path":"/metadata/labels","value":${deep(100_000)}}]`,
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(jp.status).toBe(400);
    // YAML too, and a body just inside the limit does not crash either.
    const yaml = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: `metadata: {name: y}\ndata: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`, headers: { 'Content-Type': 'application/yaml' } });
    expect(yaml.status).toBe(400);
    const inside = await s.api('/api/v1/namespaces/default/configmaps/deep-target', { method: 'PATCH', body: `{"metadata":{"annotations":${deep(9_990)}}}`, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(inside.status).toBeGreaterThanOrEqual(400);
    expect(inside.status).toBeLessThan(500);
    expect((await s.api('/healthz')).status).toBe(200);
  });

  it('reads YAML with repeated keys in linear time: the last wins, Warn names them, Strict refuses them', async () => {
    const yaml = (name: string) => `metadata:\n  name: ${name}\ndata:\n  a: "1"\n  b: "2"\n  a: "3"\n`;
    const warn = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: yaml('dup-warn'), headers: { 'Content-Type': 'application/yaml' } });
    expect(warn.status).toBe(201);
    expect(warn.body.data).toEqual({ a: '3', b: '2' });
    expect(warn.headers.get('warning')).toContain('line 6: key \\"a\\" already set in map');
    const strict = await s.api('/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { method: 'POST', body: yaml('dup-strict'), headers: { 'Content-Type': 'application/yaml' } });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 6: key "a" already set in map');
  });

  it('reads JSON with repeated keys as Go does: the last wins, Warn names each once, Strict refuses them with the unknown fields', async () => {
    const json = (name: string) => `{"metadata":{"name":"${name}"},"data":{"a":"1","b":"2","a":"3"},"bogus":1,"data":{"a":"4","a":"5"}}`;
    const warn = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: json('json-dup-warn') });
    expect(warn.status).toBe(201);
    expect(warn.body.data).toEqual({ a: '5' });
    expect(warn.headers.get('warning')).toBe('299 - "duplicate field \\"a\\"", 299 - "duplicate field \\"data\\"", 299 - "unknown field \\"bogus\\""');
    const strict = await s.api('/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { method: 'POST', body: json('json-dup-strict') });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "a", duplicate field "data", unknown field "bogus"');
    const ignored = await s.api('/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', { method: 'POST', body: json('json-dup-ignore') });
    expect(ignored.status).toBe(201);
    expect(ignored.headers.get('warning')).toBeNull();
  });

  it('refuses malformed delete and delete-collection bodies and preconditions with a 400', async () => {
    await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: cm('del') });
    for (const body of ['{', '[1,2]', '"x"', '{"preconditions":"x"}', '{"preconditions":{"uid":5}}', '{"preconditions":{"resourceVersion":{}}}', '{"gracePeriodSeconds":"soon"}', '{"orphanDependents":"yes"}']) {
      const one = await s.api('/api/v1/namespaces/default/configmaps/del', { method: 'DELETE', body });
      expect(one.status, body).toBe(400);
      expect(one.body.kind).toBe('Status');
      const all = await s.api('/api/v1/namespaces/default/configmaps', { method: 'DELETE', body });
      expect(all.status, body).toBe(400);
    }
    expect((await s.api('/api/v1/namespaces/default/configmaps/del')).status).toBe(200);
    // A well-formed precondition still decides.
    const stale = await s.api('/api/v1/namespaces/default/configmaps/del', { method: 'DELETE', body: { preconditions: { resourceVersion: '1' } } });
    expect(stale.status).toBe(409);
  });

  it('refuses forged continue tokens with a 400, and follows the -1 token to the latest revision', async () => {
    const token = (rv: number) => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: 'default/' })).toString('base64url');
    for (const rv of [1e300, 0, -2, 1.5, 2 ** 60, 10_000_000]) {
      const res = await s.api(`/api/v1/namespaces/default/configmaps?limit=1&continue=${token(rv)}`);
      expect(res.status, String(rv)).toBe(400);
      expect(res.body.reason).toBe('BadRequest');
    }
    const latest = await s.api(`/api/v1/configmaps?limit=1&continue=${encodeContinue(-1, 'default/')}`);
    expect(latest.status).toBe(200);
  });

  it("refuses binaryData that is not base64 as Go's decoder does, naming the byte", async () => {
    const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'not-base64' }, binaryData: { a: 'YWJj', b: '===x' } } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0');
    const ok = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'base64' }, binaryData: { a: 'YWJj\nZGVm' } } });
    expect(ok.status).toBe(201);
  });

  it('reads a resourceVersion as a uint64: past it a 400, below it but past ours a 504 that prints its digits', async () => {
    const over = await s.api('/api/v1/namespaces/default/configmaps?resourceVersion=18446744073709551616');
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('invalid resource version: 18446744073709551616');
    const far = await s.api('/api/v1/namespaces/default/configmaps?resourceVersion=10000000000000000000');
    expect(far.status).toBe(504);
    expect(far.body.message).toMatch(/^Timeout: Too large resource version: 10000000000000000000, current: \d+$/);
  }, 10_000);

  it('caps a watch timeout too large for a timer instead of closing at once', async () => {
    const events = await readWatch(`${s.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=99999999999`, (e) => e.length >= 1, { timeoutMs: 3000, headers: s.adminHeaders });
    expect(events.length).toBeGreaterThanOrEqual(1);
  });

  it('answers an object over the storage limit with a 413 that does not name the storage key', async () => {
    const big = 'x'.repeat(900_000);
    const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'huge' }, data: { a: big, b: big } } });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe('RequestEntityTooLarge');
    expect(JSON.stringify(res.body)).not.toContain('/registry/');
    // Within every ConfigMap limit, but over storage's once annotations are added (binaryData is stored as base64).
    const created = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'grows' }, binaryData: { a: Buffer.alloc(1_000_000).toString('base64') } } });
    expect(created.status).toBe(201);
    const grown = await s.api('/api/v1/namespaces/default/configmaps/grows', {
      method: 'PATCH',
      body: { metadata: { annotations: { a: 'y'.repeat(250_000) } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(grown.status).toBe(413);
    expect(JSON.stringify(grown.body)).not.toContain('/registry/');
    // A small JSON patch whose copies would grow a small object past the limit.
    await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'copied' }, data: { a: 'z'.repeat(60_000) } } });
    const copies = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data/a', path: `/data/c${i}` }));
    const copied = await s.api('/api/v1/namespaces/default/configmaps/copied', { method: 'PATCH', body: copies, headers: { 'Content-Type': 'application/json-patch+json' } });
    expect([413, 422]).toContain(copied.status);
    expect(JSON.stringify(copied.body)).not.toContain('/registry/');
  });
});
