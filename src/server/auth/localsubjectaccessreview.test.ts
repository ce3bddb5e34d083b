// LocalSubjectAccessReview: "may this user do this here?", asked within one
// namespace and answered by RBAC for that namespace only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (const name of ['team', 'other']) await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name } } });
  const binding = { metadata: { name: 'alice-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] };
  expect((await s.api('/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', { method: 'POST', body: binding })).status).toBe(201);
});
afterAll(async () => {
  await s.stop();
});

const LSAR = (ns: string) => `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`;
const ask = (ns: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
  s.api(LSAR(ns), { method: 'POST', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata, spec } });

describe('LocalSubjectAccessReview', () => {
  it("answers for the user in the review's namespace, from the bindings there", async () => {
    const here = await ask('team', { user: 'alice', resourceAttributes: { verb: 'list', resource: 'daemonsets', group: 'apps' } });
    expect(here.status).toBe(201);
    expect(here.body).toMatchObject({ kind: 'LocalSubjectAccessReview', metadata: { namespace: 'team' }, spec: { resourceAttributes: { namespace: 'team', verb: 'list' } }, status: { allowed: true } });
    const elsewhere = await ask('other', { user: 'alice', resourceAttributes: { verb: 'list', resource: 'daemonsets', group: 'apps' } });
    expect(elsewhere.body.status.allowed).toBe(false);
    const write = await ask('team', { user: 'alice', resourceAttributes: { verb: 'delete', resource: 'daemonsets', group: 'apps', namespace: 'team' } });
    expect(write.body.status.allowed).toBe(false);
  });

  it('cannot ask about another namespace, nor about paths, nor without a subject', async () => {
    const across = await ask('team', { user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'other' } });
    expect(across.status).toBe(400);
    expect(across.body.message).toBe('spec.resourceAttributes.namespace must match namespace: team');
    const mismatch = await ask('team', { user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods' } }, { namespace: 'other' });
    expect(mismatch.status).toBe(400);
    const paths = await ask('team', { user: 'alice', nonResourceAttributes: { verb: 'get', path: '/version' } });
    expect(paths.status).toBe(422);
    expect(paths.body.message).toContain('spec.nonResourceAttributes: Invalid value');
    expect(paths.body.message).toContain('disallowed on this kind of request');
    const nobody = await ask('team', { resourceAttributes: { verb: 'list', resource: 'pods' } });
    expect(nobody.status).toBe(422);
    expect(nobody.body.message).toContain('at least one of user or group must be specified');
  });

  it('is served only within a namespace, and only to those who may create it there', async () => {
    const cluster = await s.api('/apis/authorization.k8s.io/v1/localsubjectaccessreviews', { method: 'POST', body: { spec: { user: 'alice' } } });
    expect(cluster.status).toBe(404);
    const asAlice = await s.api(LSAR('team'), {
      method: 'POST',
      headers: { 'Impersonate-User': 'alice' },
      body: { spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods' } } },
    });
    expect(asAlice.status).toBe(403);
  });
});
