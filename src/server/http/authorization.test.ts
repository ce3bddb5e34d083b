// SelfSubjectAccessReview / SelfSubjectRulesReview over plain HTTP: answered
// by the authorizer the pipeline uses, for the user who asks.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { allowAll, makeAuthorizer, type Attributes } from '../auth/authz.ts';
import type { UserInfo } from '../auth/authn.ts';
import { decodeKubeProtobuf } from './protobuf.ts';

/**
 * A stand-in for RBAC: `viewer` may read resources, read any path and ask
 * the reviews; everyone else may do everything.
 */
const READ_VERBS = ['get', 'list', 'watch'];
const viewerOnly = makeAuthorizer({
  decide(user: UserInfo, a: Attributes) {
    if (user.name !== 'viewer') return { allowed: true, reason: '' };
    if (!a.resource) return a.verb === 'get' ? { allowed: true, reason: 'paths are public' } : { allowed: false, reason: '' };
    if (READ_VERBS.includes(a.verb)) return { allowed: true, reason: 'viewers read' };
    if (a.group === 'authorization.k8s.io' && a.verb === 'create' && a.resource.startsWith('selfsubject')) return { allowed: true, reason: '' };
    return { allowed: false, reason: 'viewers only read' };
  },
  rulesFor(user) {
    if (user.name !== 'viewer') return allowAll.rulesFor(user, '');
    return {
      resourceRules: [
        { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        { verbs: READ_VERBS, apiGroups: ['*'], resources: ['*'], resourceNames: [] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  },
});

let s: TestServer;
const ADMIN_TOKEN = 'admin-token';
const VIEWER_TOKEN = 'viewer-token';
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-authz-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${ADMIN_TOKEN},admin,1,"system:masters"\n${VIEWER_TOKEN},viewer,2,"readers"\n`);
  s = await startTestServer({ tokenFile, authorizer: viewerOnly });
});
afterAll(async () => {
  await s.stop();
});

const review = (resourceAttributes: Record<string, string>) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: { resourceAttributes },
});

describe('SelfSubjectAccessReview', () => {
  it('answers allowed for the asking user and echoes the spec, with 201', async () => {
    const r = await s.api(SSAR, { method: 'POST', headers: auth(ADMIN_TOKEN), body: review({ verb: 'update', group: 'apps', resource: 'daemonsets', subresource: 'status', namespace: 'default' }) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { verb: 'update', group: 'apps', resource: 'daemonsets', subresource: 'status', namespace: 'default' } },
      status: { allowed: true },
    });
  });

  it('says no, with the reason, exactly when the pipeline answers 403', async () => {
    const attrs = { verb: 'update', group: 'apps', resource: 'daemonsets', subresource: 'status', namespace: 'default', name: 'x' };
    const r = await s.api(SSAR, { method: 'POST', headers: auth(VIEWER_TOKEN), body: review(attrs) });
    expect(r.status).toBe(201);
    expect(r.body.status).toEqual({ allowed: false, reason: 'viewers only read' });
    const put = await s.api('/apis/apps/v1/namespaces/default/daemonsets/x/status', { method: 'PUT', headers: auth(VIEWER_TOKEN), body: {} });
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({
      reason: 'Forbidden',
      message: 'daemonsets.apps "x" is forbidden: User "viewer" cannot update resource "daemonsets/status" in API group "apps" in the namespace "default": viewers only read',
      details: { name: 'x', group: 'apps', kind: 'daemonsets' },
    });

    const read = await s.api(SSAR, { method: 'POST', headers: auth(VIEWER_TOKEN), body: review({ verb: 'list', group: 'apps', resource: 'daemonsets' }) });
    expect(read.body.status).toEqual({ allowed: true, reason: 'viewers read' });
    expect((await s.api('/apis/apps/v1/daemonsets', { headers: auth(VIEWER_TOKEN) })).status).toBe(200);
  });

  it('answers non-resource questions from the same decision the pipeline uses for paths', async () => {
    const ask = (verb: string) =>
      s.api(SSAR, { method: 'POST', headers: auth(VIEWER_TOKEN), body: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { nonResourceAttributes: { path: '/version', verb } } } });
    expect((await ask('get')).body).toMatchObject({ spec: { nonResourceAttributes: { path: '/version', verb: 'get' } }, status: { allowed: true, reason: 'paths are public' } });
    expect((await ask('post')).body.status).toEqual({ allowed: false });
    expect((await s.api('/version', { headers: auth(VIEWER_TOKEN) })).status).toBe(200);
    const post = await s.api('/version', { method: 'POST', headers: auth(VIEWER_TOKEN), body: {} });
    expect(post.status).toBe(403);
    expect(post.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: 'forbidden: User "viewer" cannot post path "/version"', code: 403 });
  });

  it('rejects a spec with neither or both attribute sets as upstream validation does', async () => {
    const neither = await s.api(SSAR, { method: 'POST', headers: auth(ADMIN_TOKEN), body: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: {} } });
    expect(neither.status).toBe(422);
    expect(neither.body).toMatchObject({
      reason: 'Invalid',
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      details: { group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' },
    });
    const both = await s.api(SSAR, {
      method: 'POST',
      headers: auth(ADMIN_TOKEN),
      body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' }, nonResourceAttributes: { path: '/x', verb: 'get' } } },
    });
    expect(both.status).toBe(422);
    expect(both.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', message: 'Invalid value: {"path":"/x","verb":"get"}: cannot be specified in combination with resourceAttributes' },
    ]);
    const wrongKind = await s.api(SSAR, { method: 'POST', headers: auth(ADMIN_TOKEN), body: { kind: 'Pod', apiVersion: 'v1', spec: {} } });
    expect(wrongKind.status).toBe(400);
  });

  it('is create-only, cluster-scoped and still needs credentials', async () => {
    expect((await s.api(SSAR, { headers: auth(ADMIN_TOKEN) })).status).toBe(405);
    expect((await s.api('/apis/authorization.k8s.io/v1/namespaces/default/selfsubjectaccessreviews', { method: 'POST', headers: auth(ADMIN_TOKEN), body: review({ verb: 'get', resource: 'pods' }) })).status).toBe(404);
    expect((await s.api(SSAR, { method: 'POST', headers: { Authorization: '' }, body: review({ verb: 'get', resource: 'pods' }) })).status).toBe(401);
    expect((await s.api(SSAR, { method: 'POST', headers: auth('nobody'), body: review({ verb: 'get', resource: 'pods' }) })).status).toBe(401);
  });

  it('reads what kubectl auth can-i sends (protobuf)', () => {
    // kubectl auth can-i update daemonsets --subresource=status -n kube-system, captured with -v=9.
    const body = Buffer.from(
      [
        '6b 38 73 00 0a 32 0a 17 61 75 74 68 6f 72 69 7a',
        '61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12',
        '17 53 65 6c 66 53 75 62 6a 65 63 74 41 63 63 65',
        '73 73 52 65 76 69 65 77 12 53 0a 10 0a 00 12 00',
        '1a 00 22 00 2a 00 32 00 38 00 42 00 12 35 0a 33',
        '0a 0b 6b 75 62 65 2d 73 79 73 74 65 6d 12 06 75',
        '70 64 61 74 65 1a 04 61 70 70 73 22 00 2a 0a 64',
        '61 65 6d 6f 6e 73 65 74 73 32 06 73 74 61 74 75',
        '73 3a 00 1a 08 08 00 12 00 1a 00 20 00 1a 00 22',
        '00',
      ].join(' ').replace(/ /g, ''),
      'hex',
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'kube-system', verb: 'update', group: 'apps', resource: 'daemonsets', subresource: 'status' } },
    });
  });
});

describe('SelfSubjectRulesReview', () => {
  it("lists the asking user's rules in the namespace", async () => {
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } };
    const admin = await s.api(SSRR, { method: 'POST', headers: auth(ADMIN_TOKEN), body });
    expect(admin.status).toBe(201);
    expect(admin.body).toEqual({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
    const viewer = await s.api(SSRR, { method: 'POST', headers: auth(VIEWER_TOKEN), body });
    expect(viewer.body.status.resourceRules[1]).toEqual({ verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] });
  });

  it('needs a namespace', async () => {
    const r = await s.api(SSRR, { method: 'POST', headers: auth(ADMIN_TOKEN), body: { spec: {} } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ reason: 'BadRequest', message: 'no namespace on request' });
  });
});

describe('discovery of the reviews', () => {
  it('lists authorization.k8s.io/v1 with create-only, storage-less resources, legacy and aggregated', async () => {
    const h = auth(ADMIN_TOKEN);
    const groups = (await s.api('/apis', { headers: h })).body.groups.map((g: any) => g.name);
    expect(groups).toContain('authorization.k8s.io');
    expect((await s.api('/apis/authorization.k8s.io', { headers: h })).body).toMatchObject({ kind: 'APIGroup', name: 'authorization.k8s.io', preferredVersion: { groupVersion: 'authorization.k8s.io/v1' } });
    expect((await s.api('/apis/authorization.k8s.io/v1', { headers: h })).body).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'authorization.k8s.io/v1',
      resources: [
        { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
        { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
        { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
      ],
    });
    const agg = await s.api('/apis', { headers: { ...h, Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const group = agg.body.items.find((i: any) => i.metadata.name === 'authorization.k8s.io');
    expect(group.versions[0].resources).toEqual([
      { resource: 'localsubjectaccessreviews', responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview' }, scope: 'Namespaced', singularResource: 'localsubjectaccessreview', verbs: ['create'] },
      { resource: 'selfsubjectaccessreviews', responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }, scope: 'Cluster', singularResource: 'selfsubjectaccessreview', verbs: ['create'] },
      { resource: 'selfsubjectrulesreviews', responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview' }, scope: 'Cluster', singularResource: 'selfsubjectrulesreview', verbs: ['create'] },
      { resource: 'subjectaccessreviews', responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' }, scope: 'Cluster', singularResource: 'subjectaccessreview', verbs: ['create'] },
    ]);
  });
});

describe('OpenAPI of the reviews', () => {
  it('publishes authorization.k8s.io/v1 with a create-only path and the review schemas', async () => {
    const h = auth(ADMIN_TOKEN);
    const index = (await s.api('/openapi/v3', { headers: h })).body;
    expect(Object.keys(index.paths)).toContain('apis/authorization.k8s.io/v1');
    const doc = (await s.api(index.paths['apis/authorization.k8s.io/v1'].serverRelativeURL, { headers: h })).body;
    expect(Object.keys(doc.paths)).toEqual([
      '/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    ]);
    const path = doc.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'];
    expect(Object.keys(path)).toEqual(['post']);
    expect(path.post).toMatchObject({ 'x-kubernetes-action': 'post', 'x-kubernetes-group-version-kind': { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' } });
    const schema = doc.components.schemas['io.k8s.api.authorization.v1.SelfSubjectAccessReview'];
    expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }]);
    expect(Object.keys(schema.properties.spec.properties.resourceAttributes.properties)).toEqual(
      expect.arrayContaining(['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']),
    );
    expect(doc.components.schemas['io.k8s.api.authorization.v1.SelfSubjectRulesReview'].properties.status.required).toEqual(['resourceRules', 'nonResourceRules', 'incomplete']);
  });
});
