// The audit log: policy evaluation, the Events a real server writes for real
// requests (kubectl's included), and rotation by size.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor } from '../clients/kubectl.ts';
import { evaluatePolicy, parsePolicy, type RequestAttributes } from './policy.ts';
import { LogFile } from './logfile.ts';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [Panic]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: None
  users: ["quiet"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Request
  verbs: ["watch"]
- level: Metadata
  omitStages: [RequestReceived]
`;

const attrs = (over: Partial<RequestAttributes>): RequestAttributes => ({ user: { name: 'alice', groups: ['devs'] }, verb: 'get', path: '/api/v1/nodes', ...over });

describe('policy', () => {
  it('gives the level of the first rule that matches, and the stages left out', () => {
    const policy = parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  userGroups: [system:nodes]
- level: RequestResponse
  resources: [{group: apps, resources: ["daemonsets/status", "*/scale"]}]
- level: Request
  resources: [{group: "", resources: [pods], resourceNames: [web]}]
  namespaces: [shop]
  omitStages: [ResponseStarted]
- level: Metadata
  nonResourceURLs: ["/apis*"]
- level: Metadata
  verbs: [delete]
  namespaces: [""]
`);
    const pods = (o: Partial<NonNullable<RequestAttributes['resource']>>) => ({ group: '', resource: 'pods', namespace: 'shop', name: 'web', ...o });
    expect(evaluatePolicy(policy, attrs({ user: { name: 'system:node:a', groups: ['system:nodes'] } })).level).toBe('None');
    expect(evaluatePolicy(policy, attrs({ resource: { group: 'apps', resource: 'daemonsets', subresource: 'status' } })).level).toBe('RequestResponse');
    expect(evaluatePolicy(policy, attrs({ resource: { group: 'apps', resource: 'deployments', subresource: 'scale' } })).level).toBe('RequestResponse');
    expect(evaluatePolicy(policy, attrs({ resource: { group: 'apps', resource: 'daemonsets' } })).level).toBe('None');
    const r = evaluatePolicy(policy, attrs({ resource: pods({}) }));
    expect(r.level).toBe('Request');
    expect([...r.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(evaluatePolicy(policy, attrs({ resource: pods({ name: 'db' }) })).level).toBe('None');
    expect(evaluatePolicy(policy, attrs({ resource: pods({ namespace: 'data' }) })).level).toBe('None');
    expect(evaluatePolicy(policy, attrs({ path: '/apis/apps/v1' })).level).toBe('Metadata');
    expect(evaluatePolicy(policy, attrs({ path: '/openapi/v2' })).level).toBe('None');
    expect(evaluatePolicy(policy, attrs({ verb: 'delete', resource: { group: '', resource: 'nodes', name: 'n1' } })).level).toBe('Metadata');
    expect(evaluatePolicy(policy, attrs({ verb: 'delete', resource: pods({ name: 'x' }) })).level).toBe('None');
  });

  it('refuses a document that is not a valid Policy', () => {
    expect(() => parsePolicy('apiVersion: v1\nkind: ConfigMap\n')).toThrow('expected kind Policy');
    expect(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Loud}]\n')).toThrow('rules[0].level');
    expect(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, omitStages: [Later]}]\n')).toThrow('omitStages');
    expect(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, namespaces: [a], nonResourceURLs: [/x]}]\n')).toThrow('both');
  });
});

describe('the log of a running server', () => {
  let s: TestServer;
  let logPath: string;
  const events = () => readFileSync(logPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const byID = (id: string) => events().filter((e) => e.auditID === id);

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-audit-'));
    logPath = join(dir, 'audit.log');
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, 'quiet-token,quiet,7\n');
    s = await startTestServer({ tokenFile, audit: { logPath, policyFile: join(dir, 'policy.yaml') } });
  });
  afterAll(async () => {
    await s.stop();
  });

  it('records a create at RequestResponse: both stages, the objects, who, from where', async () => {
    const r = await s.api('/api/v1/namespaces/default/configmaps?fieldManager=audit-test', { method: 'POST', body: { metadata: { name: 'audited' }, data: { a: '1' } }, headers: { 'User-Agent': 'audit-test/1.0' } });
    expect(r.status).toBe(201);
    const id = r.headers.get('audit-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [received, complete] = byID(id);
    expect(received).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      stage: 'RequestReceived',
      requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=audit-test',
      verb: 'create',
      user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'audit-test/1.0',
      objectRef: { resource: 'configmaps', namespace: 'default', apiGroup: '', apiVersion: 'v1' },
    });
    expect(complete).toMatchObject({ stage: 'ResponseComplete', responseStatus: { code: 201 }, requestObject: { metadata: { name: 'audited' }, data: { a: '1' } } });
    expect(complete.responseObject).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'audited', uid: expect.any(String) } });
    expect(complete.requestReceivedTimestamp).toBe(received.requestReceivedTimestamp);
    expect(complete.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('records a failure at Metadata: the Status fields, no bodies, RequestReceived omitted', async () => {
    const r = await s.api('/api/v1/nodes/missing');
    expect(r.status).toBe(404);
    const recorded = byID(r.headers.get('audit-id')!);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ level: 'Metadata', stage: 'ResponseComplete', verb: 'get', objectRef: { resource: 'nodes', name: 'missing' }, responseStatus: { code: 404, status: 'Failure', reason: 'NotFound' } });
    expect(recorded[0].requestObject).toBeUndefined();
    expect(recorded[0].responseObject).toBeUndefined();
  });

  it('records who impersonated whom', async () => {
    const r = await s.api('/api/v1/namespaces', { headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' } });
    expect(r.status).toBe(403);
    const [e] = byID(r.headers.get('audit-id')!);
    expect(e.user.username).toBe('system:admin');
    expect(e.impersonatedUser).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
    expect(e.responseStatus).toMatchObject({ code: 403, reason: 'Forbidden' });
  });

  it('keeps the Audit-ID a client sends', async () => {
    const r = await s.api('/api/v1/nodes', { headers: { 'Audit-ID': 'my-own-id' } });
    expect(r.headers.get('audit-id')).toBe('my-own-id');
    expect(byID('my-own-id')).toHaveLength(1);
  });

  it('records a watch as RequestReceived, ResponseStarted, ResponseComplete', async () => {
    const ac = new AbortController();
    const res = await fetch(`${s.url}/api/v1/nodes?watch=1&timeoutSeconds=1`, { headers: { ...s.adminHeaders, 'Audit-ID': 'a-watch' }, signal: ac.signal });
    await res.text();
    expect(byID('a-watch').map((e) => [e.stage, e.level, e.verb, e.responseStatus?.code])).toEqual([
      ['RequestReceived', 'Request', 'watch', undefined],
      ['ResponseStarted', 'Request', 'watch', 200],
      ['ResponseComplete', 'Request', 'watch', 200],
    ]);
  });

  it('leaves out what the policy says None to, and records kubectl with its user agent', async () => {
    const before = events().length;
    expect((await s.api('/healthz')).status).toBe(200);
    expect((await s.api('/version')).status).toBe(200);
    expect((await s.api('/api/v1/nodes', { headers: { Authorization: 'Bearer quiet-token' } })).status).toBe(403);
    expect(events().length).toBe(before);
    const kubectl = kubectlFor(s);
    expect((await kubectl('get', 'configmap', 'audited', '-o', 'name')).code).toBe(0);
    const last = events().filter((e) => e.objectRef?.name === 'audited' && e.verb === 'get');
    expect(last.at(-1)).toMatchObject({ stage: 'ResponseComplete', userAgent: expect.stringMatching(/^kubectl\//), responseStatus: { code: 200 } });
  });

  it('answers who last changed an object, from what it audited (the app\'s "last changed by")', async () => {
    const last = (q: string) => s.api(`/debug/audit/last-change?${q}`);
    const created = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'changed' }, data: { a: '1' } } });
    expect(created.status).toBe(201);
    const first = await last('resource=configmaps&namespace=default&name=changed');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ kind: 'LastChange', verb: 'create', user: { username: 'system:admin' }, objectRef: { resource: 'configmaps', namespace: 'default', name: 'changed' } });
    expect(first.body.auditID).toBe(created.headers.get('audit-id'));
    // A read is no change; a change made as someone else names both.
    await s.api('/api/v1/namespaces/default/configmaps/changed');
    const patched = await s.api('/api/v1/namespaces/default/configmaps/changed', {
      method: 'PATCH',
      body: { data: { a: '2' } },
      headers: { 'Content-Type': 'application/merge-patch+json', 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' },
    });
    expect(patched.status).toBe(200);
    const second = (await last('group=&resource=configmaps&namespace=default&name=changed')).body;
    expect(second).toMatchObject({ verb: 'patch', user: { username: 'system:admin' }, impersonatedUser: { username: 'bob' } });
    // A refused change is not one.
    await s.api('/api/v1/namespaces/default/configmaps/changed', { method: 'PUT', body: { metadata: { name: 'changed', resourceVersion: '1' } } });
    expect((await last('resource=configmaps&namespace=default&name=changed')).body.verb).toBe('patch');
    const unknown = await last('resource=configmaps&namespace=default&name=never');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    expect((await last('name=changed')).status).toBe(400);
    // Like any path, it needs RBAC's permission.
    expect((await s.api('/debug/audit/last-change?resource=configmaps&namespace=default&name=changed', { headers: { 'Impersonate-User': 'alice' } })).status).toBe(403);
  });

  it('counts a change of the object, not of its status (the controllers\' and node agents\' constant report)', async () => {
    const last = () => s.api('/debug/audit/last-change?resource=nodes&name=reported');
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'reported' } } })).status).toBe(201);
    const status = await s.api('/api/v1/nodes/reported/status', { method: 'PATCH', body: { status: { capacity: { pods: '110' } } }, headers: { 'Content-Type': 'application/merge-patch+json', 'Impersonate-User': 'system:node:reported', 'Impersonate-Group': 'system:masters' } });
    expect(status.status).toBe(200);
    expect(events().some((e) => e.auditID === status.headers.get('audit-id') && e.objectRef?.subresource === 'status')).toBe(true);
    expect((await last()).body).toMatchObject({ verb: 'create', user: { username: 'system:admin' } });
    expect((await s.api('/api/v1/nodes/reported', { method: 'PATCH', body: { metadata: { labels: { a: 'b' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await last()).body).toMatchObject({ verb: 'patch' });
  });

  it('does not audit without a policy, as kube-apiserver', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-audit-'));
    const other = await startTestServer({ audit: { logPath: join(dir, 'audit.log') } });
    try {
      expect((await other.api('/api/v1/nodes')).status).toBe(200);
      // Nothing to ask about changes either: the path is not served.
      expect((await other.api('/debug/audit/last-change?resource=nodes&name=a')).status).toBe(404);
    } finally {
      await other.stop();
    }
    expect(() => statSync(join(dir, 'audit.log'))).toThrow();
  });
});

describe('rotation', () => {
  it('renames the file past the size limit and keeps the newest backups', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-audit-rot-'));
    const log = new LogFile(join(dir, 'audit.log'), { maxSizeBytes: 1000, maxBackups: 2 });
    const line = JSON.stringify({ n: 'x'.repeat(180) });
    for (let i = 0; i < 30; i++) {
      log.write(line);
      // Distinct time stamps for the backups' names.
      await new Promise((r) => setTimeout(r, 2));
    }
    log.close();
    const backups = log.backups();
    expect(backups).toHaveLength(2);
    for (const b of backups) expect(b).toMatch(/audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    for (const f of [...backups, join(dir, 'audit.log')]) expect(statSync(f).size).toBeLessThanOrEqual(1000);
    expect(readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });
});
