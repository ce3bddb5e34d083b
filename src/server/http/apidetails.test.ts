// kube-apiserver's answers in the details: JSON patch failures with their
// cause, GET of a resourceVersion from the future, bookmarks before a watch ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, readWatch, type TestServer } from '../testing.ts';

let s: TestServer;
const dist = mkdtempSync(join(tmpdir(), 'kw-dist-'));
const script = `export const app = ${JSON.stringify('x'.repeat(50_000))};\n`;
beforeAll(async () => {
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head><title>app</title></head><body></body></html>');
  writeFileSync(join(dist, 'assets', 'index-abc.js'), script);
  s = await startTestServer({ staticDir: dist });
  await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'cm', labels: { a: 'b' } }, data: { k: 'v' } } });
});
afterAll(async () => {
  await s.stop();
});

describe('JSON patch failures', () => {
  const patch = (ops: unknown) => s.api('/api/v1/namespaces/default/configmaps/cm', { method: 'PATCH', body: ops, headers: { 'Content-Type': 'application/json-patch+json' } });
  it('answer 422 with the library message as the cause, as upstream', async () => {
    const cases: [unknown, string][] = [
      [[{ op: 'replace', path: '/data/missing', value: 'x' }], 'replace operation does not apply: doc is missing key: /data/missing: missing value'],
      [[{ op: 'remove', path: '/metadata/labels/missing' }], "error in remove for path: '/metadata/labels/missing': Unable to remove nonexistent key: missing: missing value"],
      [[{ op: 'test', path: '/data/k', value: 'other' }], 'testing value /data/k failed: test failed'],
      [[{ op: 'add', path: '/spec/x/y', value: 1 }], 'add operation does not apply: doc is missing path: "/spec/x/y": missing value'],
    ];
    for (const [ops, cause] of cases) {
      const res = await patch(ops);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: { causes: [{ reason: 'UnexpectedServerResponse', message: cause }] } });
    }
  });
});

describe('GET with a resourceVersion', () => {
  it('waits for one newer than the store, then answers 504 Too large resource version', async () => {
    const current = Number((await s.api('/api/v1/namespaces/default/configmaps/cm')).body.metadata.resourceVersion);
    const res = await s.api(`/api/v1/namespaces/default/configmaps/cm?resourceVersion=${current + 1000}`);
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ reason: 'Timeout', message: `Timeout: Too large resource version: ${current + 1000}, current: ${current}`, details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 } });
    expect((await s.api(`/api/v1/namespaces/default/configmaps/cm?resourceVersion=${current}`)).status).toBe(200);
    expect((await s.api('/api/v1/namespaces/default/configmaps/cm?resourceVersion=abc')).status).toBe(400);
  });

  it('is answered once the revision arrives', async () => {
    const current = Number((await s.api('/api/v1/namespaces/default/configmaps/cm')).body.metadata.resourceVersion);
    const pending = s.api(`/api/v1/namespaces/default/configmaps/cm?resourceVersion=${current + 1}`);
    await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'next' } } });
    expect((await pending).status).toBe(200);
  });
});

describe('watch bookmarks', () => {
  it('come shortly before the timeout even when nothing changes', async () => {
    const rv = (await s.api('/api/v1/namespaces/default/configmaps')).body.metadata.resourceVersion;
    const events = await readWatch(`${s.url}/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=3`, () => false, { timeoutMs: 8000 });
    expect(events.map((e) => e.type)).toEqual(['BOOKMARK']);
    expect(events[0].object.metadata.resourceVersion).toBe(rv);
  });
});

describe('the web app', () => {
  it('goes out precompressed as the client accepts, with Vary, the same bytes decoded', async () => {
    const get = (enc: string) => fetch(`${s.url}/assets/index-abc.js`, { headers: { 'Accept-Encoding': enc } });
    await (await get('identity')).arrayBuffer();
    // Compression runs off the request path; wait until a request is answered compressed.
    let br: Response | undefined;
    for (let i = 0; i < 100; i++) {
      br = await get('gzip, deflate, br');
      if (br.headers.get('content-encoding')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(br!.headers.get('content-encoding')).toBe('br');
    expect(br!.headers.get('vary')).toBe('Accept-Encoding');
    // fetch decodes for us; the raw length shows it was compressed.
    expect(Number(br!.headers.get('content-length'))).toBeLessThan(script.length / 10);
    expect(await br!.text()).toBe(script);
    const gz = await get('gzip');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(script);
    const plain = await get('br;q=0, gzip;q=0');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(script);
  });

  it('answers its routes with index.html and anything else with a 404 Status', async () => {
    for (const path of ['/', '/nodes', '/nodes/n1', '/daemonsets/kube-system/x', '/edit/daemonsets/kube-system/x', '/new/nodes', '/settings', '/reachability']) {
      const res = await fetch(s.url + path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain('<base href="/">');
    }
    for (const path of ['/metrics', '/nodes/a/b/c', '/settings/x', '/unknown', '/edit/nodes']) {
      const res = await fetch(s.url + path);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toMatchObject({ kind: 'Status', code: 404 });
    }
  });
});
