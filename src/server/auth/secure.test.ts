// A server secure from its first start: the credentials it writes, one port
// for TLS and loopback plain HTTP, 401 without a token, --anonymous-auth, and
// the bootstrap policy reconciled on every start.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYAML } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { isLoopback } from '../http/listener.ts';
import { AUTOUPDATE } from './bootstrap.ts';
import { controllerIdentity } from '../controllers/context.ts';
import { configMapKind } from '../../kinds/configmap.ts';
import { podKind } from '../../kinds/pod.ts';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'kw-secure-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** GET over TLS trusting `ca`, with an optional token. */
function httpsGet(url: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('first start', () => {
  it('writes an admin token, a CA and serving certificate, and a kubeconfig with both; secrets 0600 and kept across restarts', async () => {
    const dataDir = freshDir();
    let s: TestServer | undefined = await startTestServer({ dataDir, host: '127.0.0.1' });
    try {
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      expect(token).toBe(s.adminToken);
      expect(token.length).toBeGreaterThanOrEqual(32);
      for (const f of ['admin-token', 'kubeconfig', 'pki/ca.key', 'pki/apiserver.key']) expect(statSync(join(dataDir, f)).mode & 0o777, f).toBe(0o600);
      const cert = new X509Certificate(readFileSync(join(dataDir, 'pki/apiserver.crt')));
      const ca = new X509Certificate(readFileSync(join(dataDir, 'pki/ca.crt')));
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.subjectAltName).toContain('DNS:localhost');
      expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
      const kc = parseYAML(readFileSync(join(dataDir, 'kubeconfig'), 'utf8'));
      expect(kc.clusters[0].cluster.server).toBe(s.httpsUrl);
      expect(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(ca.toString());
      expect(kc.users[0].user.token).toBe(token);
      // The API over TLS, verified against the written CA, with the written token.
      const r = await httpsGet(`${s.httpsUrl}/api/v1/namespaces`, ca.toString(), token);
      expect(r.status).toBe(200);
      await s.stop();
      s = await startTestServer({ dataDir, host: '127.0.0.1' });
      expect(s.adminToken).toBe(token);
      expect(new X509Certificate(s.ca).fingerprint256).toBe(ca.fingerprint256);
    } finally {
      await s?.stop();
    }
  });
});

describe('authentication', () => {
  it('answers 401 without valid credentials, over TLS and plain HTTP, except health and version endpoints', async () => {
    const s = await startTestServer();
    try {
      const none = { headers: { Authorization: '' } };
      const r = await s.api('/api/v1/nodes', none);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      expect((await s.api('/api/v1/nodes', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await httpsGet(`${s.httpsUrl}/api/v1/nodes`, s.ca)).status).toBe(401);
      expect((await httpsGet(`${s.httpsUrl}/api/v1/nodes`, s.ca, s.adminToken)).status).toBe(200);
      for (const path of ['/healthz', '/livez', '/readyz', '/version']) expect((await s.api(path, none)).status, path).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('with --anonymous-auth, judges requests without credentials as system:anonymous by RBAC', async () => {
    const s = await startTestServer({ anonymousAuth: true });
    try {
      const none = { headers: { Authorization: '' } };
      expect((await s.api('/version', none)).status).toBe(200); // system:public-info-viewer
      const r = await s.api('/api/v1/nodes', none);
      expect(r.status).toBe(403);
      expect(r.body.message).toBe('nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope');
      // A wrong token is still a 401, not anonymous.
      expect((await s.api('/api/v1/nodes', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    } finally {
      await s.stop();
    }
  });

  it('accepts plain HTTP from loopback only', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.1', 'fe80::1', undefined].some(isLoopback)).toBe(false);
  });
});

describe('the in-process controllers', () => {
  it('act only through their roles', async () => {
    const s = await startTestServer({ controllers: false });
    try {
      const dsController = s.client.as(controllerIdentity('daemon-set-controller'));
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'c:1' }] } };
      await expect(dsController.create(podKind, pod)).resolves.toMatchObject({ metadata: { name: 'p' } });
      await expect(dsController.create(configMapKind, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } })).rejects.toMatchObject({
        code: 403,
        message: 'configmaps is forbidden: User "system:serviceaccount:kube-system:daemon-set-controller" cannot create resource "configmaps" in API group "" in the namespace "default"',
      });
    } finally {
      await s.stop();
    }
  });
});

describe('bootstrap policy', () => {
  it('is reconciled on every start: missing rules come back, autoupdate "false" keeps the admin\'s version', async () => {
    const dataDir = freshDir();
    let s = await startTestServer({ dataDir });
    const path = (name: string) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
    try {
      const basic = (await s.api(path('system:basic-user'))).body;
      expect(basic.metadata.annotations[AUTOUPDATE]).toBe('true');
      const discovery = (await s.api(path('system:discovery'))).body;
      // Strip both; keep discovery's change by turning autoupdate off.
      expect((await s.api(path('system:basic-user'), { method: 'PUT', body: { ...basic, rules: [] } })).status).toBe(200);
      const kept = { ...discovery, metadata: { ...discovery.metadata, annotations: { [AUTOUPDATE]: 'false' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] };
      expect((await s.api(path('system:discovery'), { method: 'PUT', body: kept })).status).toBe(200);
      await s.stop();
      s = await startTestServer({ dataDir });
      expect((await s.api(path('system:basic-user'))).body.rules).toEqual(basic.rules.flatMap((r: any) => r.resources.map((res: string) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: [res] }))));
      expect((await s.api(path('system:discovery'))).body.rules).toEqual(kept.rules);
    } finally {
      await s.stop();
    }
  });
});
