// The TLS side of the listener against the real server and the real kubectl:
// client certificates (--client-ca-file), certificate rotation without a
// restart, TLS 1.2+ with modern ciphers only, and HTTP/2 (watches included).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor } from '../clients/kubectl.ts';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, writeFileAtomic, type KeyPair } from '../auth/credentials.ts';

const dir = mkdtempSync(join(tmpdir(), 'kw-tls-'));
const clientCA = createCertificateAuthority('test-client-ca');
const servingCA = createCertificateAuthority('test-serving-ca');
const caFile = join(dir, 'client-ca.crt');
const certFile = join(dir, 'serving.crt');
const keyFile = join(dir, 'serving.key');
writeFileSync(caFile, clientCA.cert);
const first = issueServingCertificate(servingCA, ['localhost', '127.0.0.1']);
writeFileSync(certFile, first.cert);
writeFileSync(keyFile, first.key);

let s: TestServer;
let port: number;
beforeAll(async () => {
  s = await startTestServer({ clientCAFile: caFile, tlsCertFile: certFile, tlsPrivateKeyFile: keyFile });
  port = Number(new URL(s.httpsUrl).port);
});
afterAll(async () => {
  await s.stop();
});

/** Writes a key pair to files and returns kubectl flags presenting it. */
function certFlags(name: string, pair: KeyPair): string[] {
  const crt = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  writeFileSync(crt, pair.cert);
  writeFileSync(key, pair.key);
  return [`--client-certificate=${crt}`, `--client-key=${key}`];
}

/** kubectl trusting the serving CA with no token: only a certificate can sign it in. */
const noToken = () => kubectlFor({ httpsUrl: s.httpsUrl, ca: servingCA.cert, adminToken: '' }, { users: [{ name: 'cert-user' }] });

/** The outcome of a TLS handshake with the server. */
function handshake(opts: ConnectionOptions): Promise<{ ok: true; fingerprint: string; protocol: string | null; alpn: string | false } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: servingCA.cert, servername: 'localhost', ...opts }, () => {
      const result = { ok: true as const, fingerprint: socket.getPeerCertificate().fingerprint256, protocol: socket.getProtocol(), alpn: socket.alpnProtocol ?? false };
      socket.end();
      resolve(result);
    });
    socket.on('error', (e) => resolve({ ok: false, error: e.message }));
  });
}

describe('client certificates', () => {
  it('authenticate kubectl as the CN, in the O groups', async () => {
    const kubectl = noToken();
    const alice = issueClientCertificate(clientCA, 'alice', ['devs', 'ops']);
    const who = await kubectl('auth', 'whoami', '-o', 'json', ...certFlags('alice', alice));
    expect(who.code, who.stderr).toBe(0);
    const status = JSON.parse(who.stdout).status.userInfo;
    expect(status.username).toBe('alice');
    expect(status.groups).toEqual(['devs', 'ops', 'system:authenticated']);
    // RBAC judges the certificate's user like any other: alice may not list nodes…
    const denied = await kubectl('get', 'nodes', ...certFlags('alice', alice));
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('User "alice" cannot list resource "nodes"');
    // …and a certificate in system:masters may do anything.
    const admin = await kubectl('get', 'namespaces', 'default', '-o', 'name', ...certFlags('root', issueClientCertificate(clientCA, 'root', ['system:masters'])));
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout.trim()).toBe('namespace/default');
  });

  it('authenticate over HTTP/2 as over HTTP/1.1', async () => {
    const root = issueClientCertificate(clientCA, 'root', ['system:masters']);
    for (const alpn of [['h2'], ['http/1.1']]) {
      const r = await new Promise<{ status: number; alpn: string | false }>((resolve, reject) => {
        if (alpn[0] === 'h2') {
          const session = http2Connect(s.httpsUrl, { ca: servingCA.cert, servername: 'localhost', cert: root.cert, key: root.key });
          const stream = session.request({ ':path': '/api/v1/namespaces/default' });
          stream.on('response', (h) => {
            resolve({ status: Number(h[':status']), alpn: (session.socket as import('node:tls').TLSSocket).alpnProtocol ?? false });
            session.close();
          });
          stream.on('error', reject);
          stream.end();
        } else {
          import('node:https').then(({ request }) => {
            const req = request(`${s.httpsUrl}/api/v1/namespaces/default`, { ca: servingCA.cert, servername: 'localhost', cert: root.cert, key: root.key }, (res) => {
              res.resume();
              resolve({ status: res.statusCode!, alpn: (res.socket as import('node:tls').TLSSocket).alpnProtocol ?? false });
            });
            req.on('error', reject);
            req.end();
          }, reject);
        }
      });
      expect(r, alpn[0]).toEqual({ status: 200, alpn: alpn[0] === 'h2' ? 'h2' : false });
    }
  });

  it('refuse a certificate another CA signed (401), and tokens still work alongside', async () => {
    const kubectl = noToken();
    const stranger = issueClientCertificate(createCertificateAuthority('someone-else'), 'mallory', ['system:masters']);
    const r = await kubectl('get', 'namespaces', ...certFlags('mallory', stranger));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
    const withToken = kubectlFor({ httpsUrl: s.httpsUrl, ca: servingCA.cert, adminToken: s.adminToken });
    expect((await withToken('get', 'namespaces', 'default', '-o', 'name')).stdout.trim()).toBe('namespace/default');
  });
});

describe('a certificate the client CA did not sign, with anonymous requests allowed', () => {
  let open: TestServer;
  beforeAll(async () => {
    open = await startTestServer({ clientCAFile: caFile, tlsCertFile: certFile, tlsPrivateKeyFile: keyFile, anonymousAuth: true });
  });
  afterAll(async () => {
    await open.stop();
  });

  /** The status of a GET over HTTPS presenting `pair` (or no certificate). */
  const statusWith = (path: string, pair?: KeyPair) =>
    new Promise<number>((resolve, reject) => {
      import('node:https').then(({ request }) => {
        const req = request(`${open.httpsUrl}${path}`, { ca: servingCA.cert, servername: 'localhost', ...(pair ? { cert: pair.cert, key: pair.key } : {}) }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });

  it('is refused (401), not taken for an anonymous request, as upstream fails on the certificate error', async () => {
    const stranger = issueClientCertificate(createCertificateAuthority('someone-else'), 'mallory', ['system:masters']);
    expect(await statusWith('/api/v1/namespaces', stranger)).toBe(401);
    expect(await statusWith('/version', stranger)).toBe(401);
    // Without a certificate the request is anonymous: known, if not allowed to list namespaces.
    expect(await statusWith('/api/v1/namespaces')).toBe(403);
    expect(await statusWith('/version')).toBe(200);
  });
});

describe('TLS versions and ciphers', () => {
  it('refuses TLS 1.1 and 1.0', async () => {
    for (const v of ['TLSv1', 'TLSv1.1'] as const) {
      const r = await handshake({ minVersion: v, maxVersion: v });
      expect(r.ok, v).toBe(false);
    }
  });

  it('speaks TLS 1.2 with ECDHE AEAD ciphers only, and TLS 1.3', async () => {
    expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).toMatchObject({ ok: true, protocol: 'TLSv1.2' });
    for (const weak of ['AES128-SHA', 'AES256-GCM-SHA384', 'ECDHE-RSA-AES128-SHA', 'DHE-RSA-AES128-GCM-SHA256']) {
      expect((await handshake({ maxVersion: 'TLSv1.2', ciphers: weak })).ok, weak).toBe(false);
    }
    expect(await handshake({})).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });
});

describe('HTTP/2', () => {
  it('is chosen by ALPN when offered, HTTP/1.1 otherwise', async () => {
    expect(await handshake({ ALPNProtocols: ['h2', 'http/1.1'] })).toMatchObject({ ok: true, alpn: 'h2' });
    expect(await handshake({ ALPNProtocols: ['http/1.1'] })).toMatchObject({ ok: true, alpn: 'http/1.1' });
  });

  it('serves requests and watches over one HTTP/2 connection', async () => {
    const session = http2Connect(s.httpsUrl, { ca: servingCA.cert, servername: 'localhost' });
    try {
      const request = (path: string, method = 'GET', body?: unknown) =>
        session.request({ ':path': path, ':method': method, authorization: `Bearer ${s.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) }, { endStream: !body });
      const read = (stream: ReturnType<typeof request>) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          let status = 0;
          let text = '';
          stream.on('response', (h) => (status = Number(h[':status'])));
          stream.on('data', (d) => (text += d));
          stream.on('end', () => resolve({ status, text }));
          stream.on('error', reject);
        });
      const got = await read(request('/api/v1/namespaces/default'));
      expect(got.status).toBe(200);
      expect(JSON.parse(got.text).metadata.name).toBe('default');
      const watch = request(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${s.cache.revision}`);
      const events: any[] = [];
      const seen = new Promise<void>((resolve) => {
        let buf = '';
        watch.on('data', (d) => {
          buf += d;
          for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
            events.push(JSON.parse(buf.slice(0, nl)));
            buf = buf.slice(nl + 1);
            if (events.some((e) => e.object?.metadata?.name === 'over-h2')) resolve();
          }
        });
      });
      const create = request('/api/v1/namespaces/default/configmaps', 'POST', true);
      create.end(JSON.stringify({ metadata: { name: 'over-h2' }, data: { a: 'b' } }));
      expect((await read(create)).status).toBe(201);
      await seen;
      expect(events.find((e) => e.object.metadata.name === 'over-h2').type).toBe('ADDED');
      watch.close();
    } finally {
      session.close();
    }
  });

  it('writes a pretty list larger than its stream takes at once (curl asks for HTTP/2 too)', async () => {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'pretty-h2' } } });
    for (let i = 0; i < 450; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => s.api('/api/v1/namespaces/pretty-h2/configmaps', { method: 'POST', body: { metadata: { name: `cm-${i + j}` }, data: { text: 'x'.repeat(2000) } } })),
      );
    }
    const session = http2Connect(s.httpsUrl, { ca: servingCA.cert, servername: 'localhost' });
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/api/v1/namespaces/pretty-h2/configmaps', authorization: `Bearer ${s.adminToken}`, 'user-agent': 'curl/8.5.0' });
        let body = '';
        stream.on('data', (d) => (body += d));
        stream.on('end', () => resolve(body));
        stream.on('error', reject);
      });
      const list = JSON.parse(text);
      expect(list.items).toHaveLength(450);
      expect(text).toBe(JSON.stringify(list, null, 2) + '\n');
    } finally {
      session.close();
    }
  });

  it('carries kubectl get -w (kubectl speaks HTTP/2 by default)', async () => {
    const kubectl = kubectlFor({ httpsUrl: s.httpsUrl, ca: servingCA.cert, adminToken: s.adminToken });
    const child = spawn('kubectl', ['get', 'configmaps', '-w', '-o', 'name', '--request-timeout=0'], { env: kubectl.env });
    let out = '';
    const seen = new Promise<void>((resolve) => child.stdout.on('data', (d) => ((out += d), out.includes('configmap/watched-by-kubectl') && resolve())));
    try {
      // The watch is open once kubectl printed the list it starts from.
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      expect((await kubectl('create', 'configmap', 'watched-by-kubectl', '--from-literal=a=b')).code).toBe(0);
      await seen;
    } finally {
      child.kill();
    }
    expect(out).toContain('configmap/watched-by-kubectl');
  });
});

describe('certificate rotation', () => {
  it('serves a new certificate written over the files, without a restart', async () => {
    const before = await handshake({});
    expect(before.ok).toBe(true);
    const next = issueServingCertificate(servingCA, ['localhost', '127.0.0.1']);
    writeFileAtomic(keyFile, next.key);
    writeFileAtomic(certFile, next.cert);
    const { X509Certificate } = await import('node:crypto');
    const want = new X509Certificate(next.cert).fingerprint256;
    let now = await handshake({});
    for (let i = 0; i < 100 && !(now.ok && now.fingerprint === want); i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = await handshake({});
    }
    expect(now).toMatchObject({ ok: true, fingerprint: want });
    // And kubectl, trusting the same CA, carries on.
    const kubectl = kubectlFor({ httpsUrl: s.httpsUrl, ca: servingCA.cert, adminToken: s.adminToken });
    expect((await kubectl('get', 'namespaces', 'default', '-o', 'name')).stdout.trim()).toBe('namespace/default');
  });
});
