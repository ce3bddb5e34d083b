// The app's files carry the browser security headers; API answers carry nosniff.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { CONTENT_SECURITY_POLICY } from './static.ts';

let s: TestServer;
beforeAll(async () => {
  const dist = mkdtempSync(join(tmpdir(), 'kw-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body></body></html>');
  writeFileSync(join(dist, 'assets', 'app.js'), 'console.log(1)');
  s = await startTestServer({ staticDir: dist });
});
afterAll(async () => {
  await s.stop();
});

describe('security headers', () => {
  for (const path of ['/', '/nodes', '/assets/app.js']) {
    it(`are sent with ${path}`, async () => {
      const res = await fetch(s.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    });
  }

  it('allow no inline or evaluated script, workers only from the app, and no framing', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('worker-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
  });

  it('API answers are nosniff too, as kube-apiserver', async () => {
    const res = await s.api('/api/v1/namespaces/default');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const err = await s.api('/api/v1/namespaces/nope');
    expect(err.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
