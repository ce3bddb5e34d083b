// kubectl auth can-i against the real server, as token-file users: the answers
// come from the authorizer that also decides the users' real requests.
// kubectl sends credentials only over TLS (clientcmd drops user auth for an
// http:// server), so the users reach the server through a TLS pipe with a
// throwaway self-signed certificate.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { createServer as createTLSServer, type Server as TLSServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl, type KubectlResult } from './kubectl.ts';
import { allowAll, makeAuthorizer } from '../auth/authz.ts';

const run = promisify(execFile);

/** A stand-in for RBAC: user `viewer` may only read (and ask); everyone else may do everything. */
const viewerOnly = makeAuthorizer({
  decide(user, a) {
    if (user.name !== 'viewer') return { allowed: true, reason: '' };
    if (!a.resource || ['get', 'list', 'watch'].includes(a.verb)) return { allowed: true, reason: '' };
    if (a.group === 'authorization.k8s.io' && a.verb === 'create') return { allowed: true, reason: '' };
    return { allowed: false, reason: 'viewers only read' };
  },
  rulesFor(user, namespace) {
    if (user.name !== 'viewer') return allowAll.rulesFor(user, namespace);
    return {
      resourceRules: [
        { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['daemonsets'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version', '/api', '/api/*', '/apis', '/apis/*'] }],
      incomplete: false,
    };
  },
});

let s: TestServer;
let tls: TLSServer;
let dir: string;
let k: Kubectl;

/** A TLS front for the plain-HTTP test server; answers its https URL. */
async function tlsPipe(target: URL): Promise<string> {
  const key = join(dir, 'tls.key');
  const cert = join(dir, 'tls.crt');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost']);
  tls = createTLSServer({ key: readFileSync(key), cert: readFileSync(cert) }, (client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
  });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-kubectl-auth-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, 'admin-token,admin,1,"system:masters"\nviewer-token,viewer,2\n');
  s = await startTestServer({ tokenFile, authorizer: viewerOnly });
  const url = await tlsPipe(new URL(s.url));
  k = kubectlFor(url, { insecure: true, users: [{ name: 'admin', token: 'admin-token' }, { name: 'viewer', token: 'viewer-token' }, { name: 'stranger', token: 'wrong-token' }] });
});
afterAll(async () => {
  await new Promise((resolve) => tls?.close(resolve));
  await s?.stop();
});

const kubectl = (...args: string[]): Promise<KubectlResult> => k(...args);

describe('kubectl auth can-i', () => {
  it('says yes to the admin, for a subresource too', async () => {
    for (const args of [['update', 'daemonsets/status'], ['update', 'daemonsets', '--subresource=status'], ['create', 'nodes'], ['*', '*', '--all-namespaces'], ['get', '/version']]) {
      const r = await kubectl('auth', 'can-i', ...args);
      expect(r.stdout.trim(), `${args.join(' ')}: ${r.stderr}`).toBe('yes');
      expect(r.code).toBe(0);
    }
  });

  it("answers for the token-file user who asks, as that user's real requests are answered", async () => {
    const no = await kubectl('--context=viewer', 'auth', 'can-i', 'update', 'daemonsets', '--subresource=status');
    expect(no.stdout.trim()).toBe('no - viewers only read');
    expect(no.code).toBe(1);
    const yes = await kubectl('--context=viewer', 'auth', 'can-i', 'list', 'daemonsets');
    expect(yes.stdout.trim()).toBe('yes');
    expect(yes.code).toBe(0);
    const quiet = await kubectl('--context=viewer', 'auth', 'can-i', 'delete', 'nodes', '--quiet');
    expect(quiet).toMatchObject({ stdout: '', code: 1 });

    const list = await kubectl('--context=viewer', 'get', 'ds');
    expect(list.code, list.stderr).toBe(0);
    const create = await kubectl('--context=viewer', 'create', 'namespace', 'x');
    expect(create.code).toBe(1);
    expect(create.stderr).toContain('Error from server (Forbidden): namespaces is forbidden: User "viewer" cannot create resource "namespaces" in API group "" at the cluster scope: viewers only read');
  });

  it('lists what the user may do (--list)', async () => {
    const admin = await kubectl('auth', 'can-i', '--list');
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual(
      expect.arrayContaining([
        ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs'],
        ['*.*', '[]', '[]', '[*]'],
        ['[*]', '[]', '[*]'],
      ]),
    );
    const viewer = await kubectl('--context=viewer', 'auth', 'can-i', '--list', '--no-headers');
    expect(viewer.code, viewer.stderr).toBe(0);
    expect(viewer.stdout).toMatch(/^daemonsets\.apps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(viewer.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(viewer.stdout).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
  });

  it('explains the reviews and lists them with their verbs', async () => {
    const explain = await kubectl('explain', 'selfsubjectaccessreview.spec.resourceAttributes');
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toMatch(/KIND:\s+SelfSubjectAccessReview/);
    expect(explain.stdout).toMatch(/^\s+subresource\s+<string>/m);
    const wide = await kubectl('api-resources', '-o', 'wide');
    expect(wide.code, wide.stderr).toBe(0);
    const line = (name: string) => wide.stdout.split('\n').find((l) => l.startsWith(name + ' '))?.trim().split(/\s+/);
    expect(line('selfsubjectaccessreviews')).toEqual(['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview', 'create']);
    expect(line('selfsubjectrulesreviews')).toEqual(['selfsubjectrulesreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectRulesReview', 'create']);
    expect(line('pods')).toEqual(['pods', 'po', 'v1', 'true', 'Pod', 'create,delete,deletecollection,get,list,patch,update,watch', 'all']);
    expect(line('namespaces')).toEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace', 'create,delete,get,list,patch,update,watch']);
    expect(line('daemonsets')).toEqual(['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet', 'create,delete,deletecollection,get,list,patch,update,watch', 'all']);
  });

  it('fails for an unknown token', async () => {
    const r = await kubectl('--context=stranger', 'auth', 'can-i', 'get', 'pods');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
