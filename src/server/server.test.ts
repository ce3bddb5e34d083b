// The API server over real HTTP on a temporary SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { readWatch, startTestServer, type TestServer } from './testing.ts';

/** A schema behind its `$ref` (or `allOf: [{$ref}]`), as /openapi/v3 publishes named types. */
const deref = (doc: any, node: any): any => {
  const ref: string | undefined = node?.$ref ?? node?.allOf?.[0]?.$ref;
  return ref ? doc.components.schemas[ref.split('/').pop()!] : node;
};

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const node = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: {},
  status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
});

const netpol = (name: string, spec: unknown = { podSelector: {} }) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name },
  spec,
});

const daemonSet = (name: string, image = 'nginx:1.27') => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
  },
});

const volumeAttachment = (name: string) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name },
  spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } },
});

describe('health, version, discovery', () => {
  it('answers health checks and /version', async () => {
    for (const p of ['/healthz', '/livez', '/readyz']) expect((await s.api(p)).body).toBe('ok');
    const v = await s.api('/version');
    expect(v.body.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('serves legacy discovery for every group', async () => {
    expect((await s.api('/api')).body.versions).toEqual(['v1']);
    const groups = (await s.api('/apis')).body.groups.map((g: any) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['apps', 'networking.k8s.io', 'storage.k8s.io']));
    const core = (await s.api('/api/v1')).body;
    const nodes = core.resources.find((r: any) => r.name === 'nodes');
    expect(nodes).toMatchObject({ kind: 'Node', namespaced: false, shortNames: ['no'], storageVersionHash: 'XwShjMxG9Fs=' });
    expect(core.resources.find((r: any) => r.name === 'nodes/status')).toMatchObject({ verbs: ['get', 'patch', 'update'], singularName: '' });
    const apps = (await s.api('/apis/apps/v1')).body;
    expect(apps.resources.find((r: any) => r.name === 'daemonsets')).toMatchObject({ shortNames: ['ds'], categories: ['all'], storageVersionHash: 'dd7pWHUlMKQ=' });
    const storage = (await s.api('/apis/storage.k8s.io/v1')).body;
    const va = storage.resources.find((r: any) => r.name === 'volumeattachments');
    expect(va.shortNames).toBeUndefined();
    expect(va.storageVersionHash).toBe('tJx/ezt6UDU=');
  });

  it('serves aggregated discovery with its content type', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const r = await s.api('/apis', { headers: { Accept: accept } });
    expect(r.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const apps = r.body.items.find((i: any) => i.metadata.name === 'apps');
    expect(apps.versions[0].resources.find((x: any) => x.resource === 'daemonsets').subresources[0].subresource).toBe('status');
    const etag = r.headers.get('etag')!;
    const again = await fetch(s.url + '/apis', { headers: { ...s.adminHeaders, Accept: accept, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers unknown paths with the plain 404 text', async () => {
    const r = await s.api('/apis/apps/v1/nonsense');
    expect(r.status).toBe(404);
    expect(r.body).toBe('404 page not found\n');
  });

  it('serves OpenAPI v3 with fieldValidation on every PATCH', async () => {
    const index = (await s.api('/openapi/v3')).body;
    const url = index.paths['apis/apps/v1'].serverRelativeURL;
    const doc = (await s.api(url)).body;
    const patches = Object.values<any>(doc.paths).filter((p) => p.patch).map((p) => p.patch);
    expect(patches.length).toBeGreaterThan(0);
    for (const p of patches) expect(p.parameters.some((x: any) => x.name === 'fieldValidation' && x.in === 'query')).toBe(true);
    const ds = Object.values<any>(doc.components.schemas).find((x) => x['x-kubernetes-group-version-kind']?.[0]?.kind === 'DaemonSet');
    expect(deref(doc, ds.properties.spec).properties.updateStrategy).toBeDefined();
  });

  it('lists every subresource discovery lists in OpenAPI, action subresources with their own kinds', async () => {
    const index = (await s.api('/openapi/v3')).body;
    const core = (await s.api(index.paths['api/v1'].serverRelativeURL)).body;
    const eviction = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'];
    expect(Object.keys(eviction)).toEqual(['parameters', 'post']);
    expect(eviction.post['x-kubernetes-group-version-kind']).toEqual({ group: 'policy', version: 'v1', kind: 'Eviction' });
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Binding' });
    expect(Object.keys(core.paths['/api/v1/namespaces/{name}/finalize'])).toEqual(['parameters', 'put']);
    const discovered = (await s.api('/api/v1')).body.resources.filter((r: any) => r.name.includes('/')).map((r: any) => r.name);
    const documented = Object.keys(core.paths).flatMap((p) => {
      const m = p.match(/\/([a-z]+)\/\{name\}\/([a-z]+)$/);
      return m ? [`${m[1]}/${m[2]}`] : [];
    });
    expect(documented.sort()).toEqual(discovered.sort());
  });

  it('publishes the kinds\' patch metadata and the patch types served (server-side apply among them)', async () => {
    const index = (await s.api('/openapi/v3')).body;
    const doc = (await s.api(index.paths['apis/apps/v1'].serverRelativeURL)).body;
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}'].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual(['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    const ds = doc.components.schemas['io.k8s.api.apps.v1.DaemonSet'];
    const dsSpec = deref(doc, ds.properties.spec);
    const podSpec = deref(doc, deref(doc, dsSpec.properties.template).properties.spec);
    expect(podSpec.properties.containers).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(deref(doc, podSpec.properties.containers.items).properties.ports).toMatchObject({ 'x-kubernetes-patch-merge-key': 'containerPort', 'x-kubernetes-list-map-keys': ['containerPort', 'protocol'] });
    expect(podSpec.properties.volumes['x-kubernetes-patch-strategy']).toBe('merge,retainKeys');
    expect(podSpec.properties.tolerations).toMatchObject({ 'x-kubernetes-list-type': 'atomic' });
    expect(podSpec.properties.tolerations['x-kubernetes-patch-strategy']).toBeUndefined();
    expect(deref(doc, dsSpec.properties.selector)['x-kubernetes-map-type']).toBe('atomic');
    expect(deref(doc, ds.properties.metadata).properties.finalizers).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' });
    expect(deref(doc, ds.properties.status).properties.conditions).toMatchObject({ 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-list-type': 'map' });
    const core = (await s.api(index.paths['api/v1'].serverRelativeURL)).body;
    const nodeSpec = deref(core, core.components.schemas['io.k8s.api.core.v1.Node'].properties.spec).properties;
    expect(nodeSpec.taints['x-kubernetes-list-type']).toBe('atomic');
    expect(nodeSpec.podCIDRs).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' });
    for (const op of Object.values<any>(core.paths).flatMap((p) => (p.patch ? [p.patch] : []))) {
      expect(op.requestBody.content['application/apply-patch+yaml']).toBeDefined();
    }
  });
});

describe('create, get, update, delete', () => {
  it('creates a node with server-set metadata and reads it back', async () => {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: node('n1', { zone: 'a' }) });
    expect(r.status).toBe(201);
    const m = r.body.metadata;
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(m.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.status.allocatable).toEqual(r.body.status.capacity);
    const g = await s.api('/api/v1/nodes/n1');
    expect(g.body.metadata.uid).toBe(m.uid);
    expect(Object.keys(g.body).slice(0, 3)).toEqual(['kind', 'apiVersion', 'metadata']);
  });

  it('rejects a duplicate with AlreadyExists and a missing object with NotFound', async () => {
    const dup = await s.api('/api/v1/nodes', { method: 'POST', body: node('n1') });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', message: 'nodes "n1" already exists', details: { name: 'n1', kind: 'nodes' } });
    const missing = await s.api('/apis/apps/v1/namespaces/default/daemonsets/nope');
    expect(missing.body).toMatchObject({ code: 404, reason: 'NotFound', message: 'daemonsets.apps "nope" not found', details: { group: 'apps', kind: 'daemonsets' } });
  });

  it('generates names from generateName', async () => {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { ...node(''), metadata: { generateName: 'gen-' } } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('updates with optimistic concurrency', async () => {
    const cur = (await s.api('/api/v1/nodes/n1')).body;
    cur.spec.unschedulable = true;
    const ok = await s.api('/api/v1/nodes/n1', { method: 'PUT', body: cur });
    expect(ok.status).toBe(200);
    expect(ok.body.spec.unschedulable).toBe(true);
    expect(ok.body.metadata.resourceVersion).not.toBe(cur.metadata.resourceVersion);
    const stale = await s.api('/api/v1/nodes/n1', { method: 'PUT', body: cur });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe('Operation cannot be fulfilled on nodes "n1": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('does not bump resourceVersion for a no-op update', async () => {
    const cur = (await s.api('/api/v1/nodes/n1')).body;
    const same = await s.api('/api/v1/nodes/n1', { method: 'PUT', body: cur });
    expect(same.body.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  it('keeps the stored status on a main-resource write and the spec on a status write', async () => {
    const cur = (await s.api('/api/v1/nodes/n1')).body;
    const viaMain = { ...cur, status: { ...cur.status, capacity: { cpu: '64' } } };
    const r1 = await s.api('/api/v1/nodes/n1', { method: 'PUT', body: viaMain });
    expect(r1.body.status.capacity.cpu).toBe('4');
    const viaStatus = { ...r1.body, spec: { unschedulable: false }, status: { ...r1.body.status, capacity: { cpu: '8' } } };
    delete viaStatus.metadata.resourceVersion;
    const r2 = await s.api('/api/v1/nodes/n1/status', { method: 'PUT', body: viaStatus });
    expect(r2.status).toBe(200);
    expect(r2.body.status.capacity.cpu).toBe('8');
    expect(r2.body.spec.unschedulable).toBe(true);
  });

  it('rejects a name mismatch, a wrong apiVersion and malformed JSON with 400', async () => {
    const cur = (await s.api('/api/v1/nodes/n1')).body;
    const mismatch = await s.api('/api/v1/nodes/other', { method: 'PUT', body: cur });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toBe('the name of the object (n1) does not match the name on the URL (other)');
    const wrongVersion = await s.api('/api/v1/nodes', { method: 'POST', body: { ...node('n9'), apiVersion: 'apps/v1' } });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body.message).toBe('the API version in the data (apps/v1) does not match the expected API version (v1)');
    const bad = await s.api('/api/v1/nodes', { method: 'POST', body: '{"kind":' });
    expect(bad.status).toBe(400);
    expect(bad.body.kind).toBe('Status');
    const wrongType = await s.api('/api/v1/nodes', { method: 'POST', body: { ...node('n9'), spec: { unschedulable: 'yes' } } });
    expect(wrongType.status).toBe(400);
  });

  it('answers 415 for unknown content types and 413 for bodies over 3 MiB', async () => {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: JSON.stringify(node('n8')), headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.body.reason).toBe('UnsupportedMediaType');
    const big = node('n7') as any;
    big.metadata.annotations = { big: 'x'.repeat(3 * 1024 * 1024 + 10) };
    const tooBig = await s.api('/api/v1/nodes', { method: 'POST', body: big });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
  });

  it('answers 422 with Kubernetes field paths', async () => {
    const r = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
      method: 'POST',
      body: netpol('bad', { podSelector: {}, ingress: [{ ports: [{ port: 9000, endPort: 8000 }] }] }),
    });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.details.kind).toBe('NetworkPolicy');
    expect(r.body.details.causes[0].field).toBe('spec.ingress[0].ports[0].endPort');
    expect(r.body.message).toMatch(/^NetworkPolicy\.networking\.k8s\.io "bad" is invalid: spec\.ingress\[0\]\.ports\[0\]\.endPort: Invalid value: 9000: must be greater than or equal to `port`$/);
  });

  it('honours fieldValidation Strict and Warn', async () => {
    const body = { ...netpol('fv'), spec: { podSelector: {}, bogus: 1 } };
    const strict = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies?fieldValidation=Strict', { method: 'POST', body });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('strict decoding error: unknown field "spec.bogus"');
    const warn = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { method: 'POST', body });
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.bogus\\""');
    expect(warn.body.spec.bogus).toBeUndefined();
  });

  it('creates nothing on dryRun=All but answers as if it had', async () => {
    const r = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies?dryRun=All', { method: 'POST', body: netpol('dry') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.uid).toBeDefined();
    expect(r.body.metadata.resourceVersion).toBeUndefined();
    expect(r.body.spec.policyTypes).toEqual(['Ingress']);
    expect((await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/dry')).status).toBe(404);
    const bad = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies?dryRun=Yes', { method: 'POST', body: netpol('dry') });
    expect(bad.status).toBe(422);
  });

  it('refuses writes into a namespace that does not exist', async () => {
    const r = await s.api('/apis/networking.k8s.io/v1/namespaces/nowhere/networkpolicies', { method: 'POST', body: netpol('x') });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "nowhere" not found');
    const l = await s.api('/apis/networking.k8s.io/v1/namespaces/nowhere/networkpolicies');
    expect(l.status).toBe(200);
    expect(l.body.items).toEqual([]);
  });

  it('creates the system namespaces at start', async () => {
    const names = (await s.api('/api/v1/namespaces')).body.items.map((n: any) => n.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
  });

  it('defaults and versions a DaemonSet', async () => {
    const r = await s.api('/apis/apps/v1/namespaces/default/daemonsets', { method: 'POST', body: daemonSet('ds1') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(r.body.spec.revisionHistoryLimit).toBe(10);
    expect(r.body.status).toMatchObject({ currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });
    // The DaemonSet controller writes status meanwhile: read-modify-write until the write is not stale.
    let u: Awaited<ReturnType<typeof s.api>>;
    do {
      const cur = (await s.api('/apis/apps/v1/namespaces/default/daemonsets/ds1')).body;
      cur.spec.template.spec.containers[0].image = 'nginx:1.28';
      u = await s.api('/apis/apps/v1/namespaces/default/daemonsets/ds1', { method: 'PUT', body: cur });
    } while (u.status === 409);
    expect(u.body.metadata.generation).toBe(2);
    let u2: Awaited<ReturnType<typeof s.api>>;
    do {
      const cur = (await s.api('/apis/apps/v1/namespaces/default/daemonsets/ds1')).body;
      u2 = await s.api('/apis/apps/v1/namespaces/default/daemonsets/ds1', { method: 'PUT', body: { ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } } });
    } while (u2.status === 409);
    expect(u2.body.metadata.generation).toBe(2);
  });

  it('rejects a VolumeAttachment update without resourceVersion and returns the object on delete', async () => {
    const c = await s.api('/apis/storage.k8s.io/v1/volumeattachments', { method: 'POST', body: volumeAttachment('va1') });
    expect(c.status).toBe(201);
    expect(c.body.status).toEqual({ attached: false });
    const body = { ...c.body, metadata: { name: 'va1' } };
    const u = await s.api('/apis/storage.k8s.io/v1/volumeattachments/va1', { method: 'PUT', body });
    expect(u.status).toBe(422);
    expect(u.body.message).toBe('volumeattachments.storage.k8s.io "va1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    const d = await s.api('/apis/storage.k8s.io/v1/volumeattachments/va1', { method: 'DELETE' });
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('VolumeAttachment');
  });

  it('deletes with a Success Status', async () => {
    await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { method: 'POST', body: netpol('gone') });
    const d = await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/gone', { method: 'DELETE' });
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'gone', group: 'networking.k8s.io', kind: 'networkpolicies' } });
    expect((await s.api('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/gone')).status).toBe(404);
  });

  it('keeps an object with finalizers until they are removed', async () => {
    const n = node('fin') as any;
    n.metadata.finalizers = ['example.com/hold'];
    await s.api('/api/v1/nodes', { method: 'POST', body: n });
    const d = await s.api('/api/v1/nodes/fin', { method: 'DELETE' });
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('Node');
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    const again = await s.api('/api/v1/nodes/fin', { method: 'DELETE' });
    expect(again.body.metadata.deletionTimestamp).toBe(d.body.metadata.deletionTimestamp);
    const addMore = await s.api('/api/v1/nodes/fin', { method: 'PATCH', body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(addMore.status).toBe(422);
    const release = await s.api('/api/v1/nodes/fin', { method: 'PATCH', body: [{ op: 'remove', path: '/metadata/finalizers' }], headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(release.status).toBe(200);
    expect((await s.api('/api/v1/nodes/fin')).status).toBe(404);
  });

  it('deletes a scheduled pod gracefully and an unscheduled one at once', async () => {
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { nodeName, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox:1.36' }] },
    });
    await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: pod('bound', 'n1') });
    const d = await s.api('/api/v1/namespaces/default/pods/bound', { method: 'DELETE' });
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(d.body.metadata.deletionTimestamp) - Date.now()).toBeGreaterThan(20_000);
    // A status write during the grace period must not remove it.
    const st = await s.api('/api/v1/namespaces/default/pods/bound/status', { method: 'PATCH', body: { status: { phase: 'Running' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(st.status).toBe(200);
    expect((await s.api('/api/v1/namespaces/default/pods/bound')).status).toBe(200);
    const now = await s.api('/api/v1/namespaces/default/pods/bound?gracePeriodSeconds=0', { method: 'DELETE' });
    expect(now.body.kind).toBe('Status');
    expect((await s.api('/api/v1/namespaces/default/pods/bound')).status).toBe(404);
    await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: pod('unbound') });
    const d2 = await s.api('/api/v1/namespaces/default/pods/unbound', { method: 'DELETE' });
    expect(d2.body).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  it('deletes a namespace with its contents', async () => {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } } });
    await s.api('/apis/networking.k8s.io/v1/namespaces/doomed/networkpolicies', { method: 'POST', body: netpol('p') });
    const d = await s.api('/api/v1/namespaces/doomed', { method: 'DELETE' });
    expect(d.status).toBe(200);
    expect(d.body.status.phase).toBe('Terminating');
    const refused = await s.api('/apis/networking.k8s.io/v1/namespaces/doomed/networkpolicies', { method: 'POST', body: netpol('q') });
    expect(refused.status).toBe(403);
    for (let i = 0; i < 100 && (await s.api('/api/v1/namespaces/doomed')).status !== 404; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await s.api('/api/v1/namespaces/doomed')).status).toBe(404);
    expect((await s.api('/apis/networking.k8s.io/v1/namespaces/doomed/networkpolicies')).body.items).toEqual([]);
    const protectedNs = await s.api('/api/v1/namespaces/default', { method: 'DELETE' });
    expect(protectedNs.status).toBe(403);
  });
});

describe('patch', () => {
  it('applies JSON merge patch and JSON patch', async () => {
    await s.api('/api/v1/nodes', { method: 'POST', body: node('p1') });
    const m = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: { metadata: { labels: { role: 'edge' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(m.status).toBe(200);
    expect(m.body.metadata.labels.role).toBe('edge');
    const j = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: [{ op: 'add', path: '/spec/taints', value: [{ key: 'k', effect: 'NoSchedule' }] }], headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(j.body.spec.taints).toEqual([{ key: 'k', effect: 'NoSchedule' }]);
    const failedTest = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: [{ op: 'test', path: '/spec/unschedulable', value: true }], headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(failedTest.status).toBe(422);
    expect(failedTest.body.message).toBe('the server rejected our request due to an error in our request');
  });

  it('conflicts when a patch carries a stale resourceVersion', async () => {
    const r = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: { metadata: { resourceVersion: '1' } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(409);
  });

  it('applies a strategic merge patch with the kind\'s list strategies', async () => {
    const smp = { 'Content-Type': 'application/strategic-merge-patch+json' };
    await s.api('/api/v1/nodes/p1/status', { method: 'PATCH', body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'p1' }] } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    // Node status addresses merge by type; spec.taints is replaced.
    const r = await s.api('/api/v1/nodes/p1/status', { method: 'PATCH', body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } }, headers: smp });
    expect(r.status).toBe(200);
    expect(r.body.status.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'p1' }]);
    const t = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: { spec: { taints: [{ key: 'other', effect: 'NoExecute' }] }, metadata: { finalizers: ['example.com/keep'] } }, headers: smp });
    expect(t.body.spec.taints).toEqual([{ key: 'other', effect: 'NoExecute' }]);
    const f = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/keep'] } }, headers: smp });
    expect(f.body.metadata.finalizers).toBeUndefined();
    const bad = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: { metadata: { '$setElementOrder/finalizers': 'x' } }, headers: smp });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid patch format of setElementOrder list');
    const notMap = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: [], headers: smp });
    expect(notMap.status).toBe(400);
    expect(notMap.body.message).toBe('json: cannot unmarshal array into Go value of type map[string]interface {}');
    expect((await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: 'null', headers: smp })).status).toBe(200);
    const missing = await s.api('/api/v1/nodes/none', { method: 'PATCH', body: {}, headers: smp });
    expect(missing.status).toBe(404);
  });

  it('answers 415 for patch types it does not know', async () => {
    const r = await s.api('/api/v1/nodes/p1', { method: 'PATCH', body: {}, headers: { 'Content-Type': 'application/x-nonsense' } });
    expect(r.status).toBe(415);
  });
});

describe('pods/binding and pods/eviction', () => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });
  const binding = (name: string, node: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, annotations: { 'scheduled-by': 'test' } }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
  const eviction = (name: string, deleteOptions?: object) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, deleteOptions });

  it('lists both in discovery with their own kinds', async () => {
    const core = (await s.api('/api/v1')).body.resources;
    expect(core.find((r: any) => r.name === 'pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(core.find((r: any) => r.name === 'pods/binding')).toEqual({ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
  });

  it('binds a pod to a node once', async () => {
    await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: pod('bind-me') });
    const r = await s.api('/api/v1/namespaces/default/pods/bind-me/binding', { method: 'POST', body: binding('bind-me', 'node-1') });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const p = (await s.api('/api/v1/namespaces/default/pods/bind-me')).body;
    expect(p.spec.nodeName).toBe('node-1');
    expect(p.metadata.annotations['scheduled-by']).toBe('test');
    expect(p.status.conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'True' }));
    const again = await s.api('/api/v1/namespaces/default/pods/bind-me/binding', { method: 'POST', body: binding('bind-me', 'node-2') });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "node-1"' });
    const mismatch = await s.api('/api/v1/namespaces/default/pods/bind-me/binding', { method: 'POST', body: binding('other', 'node-2') });
    expect(mismatch).toMatchObject({ status: 400, body: { message: 'name in URL does not match name in Binding object' } });
    const missing = await s.api('/api/v1/namespaces/default/pods/nope/binding', { method: 'POST', body: binding('nope', 'node-2') });
    expect(missing).toMatchObject({ status: 404, body: { message: 'pods "nope" not found' } });
  });

  it('evicts a pod through graceful deletion', async () => {
    // bind-me is on a node: eviction starts its grace period.
    const r = await s.api('/api/v1/namespaces/default/pods/bind-me/eviction', { method: 'POST', body: eviction('bind-me') });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const p = (await s.api('/api/v1/namespaces/default/pods/bind-me')).body;
    expect(p.metadata.deletionTimestamp).toBeTruthy();
    expect(p.metadata.deletionGracePeriodSeconds).toBe(30);
    // deleteOptions apply: grace 0 removes it now.
    expect((await s.api('/api/v1/namespaces/default/pods/bind-me/eviction', { method: 'POST', body: eviction('bind-me', { gracePeriodSeconds: 0 }) })).status).toBe(201);
    expect((await s.api('/api/v1/namespaces/default/pods/bind-me')).status).toBe(404);
    // An unscheduled pod goes at once; dryRun leaves it.
    await s.api('/api/v1/namespaces/default/pods', { method: 'POST', body: pod('evict-me') });
    expect((await s.api('/api/v1/namespaces/default/pods/evict-me/eviction?dryRun=All', { method: 'POST', body: eviction('evict-me') })).status).toBe(201);
    expect((await s.api('/api/v1/namespaces/default/pods/evict-me')).status).toBe(200);
    expect((await s.api('/api/v1/namespaces/default/pods/evict-me/eviction', { method: 'POST', body: eviction('evict-me') })).status).toBe(201);
    expect((await s.api('/api/v1/namespaces/default/pods/evict-me')).status).toBe(404);
    const missing = await s.api('/api/v1/namespaces/default/pods/evict-me/eviction', { method: 'POST', body: eviction('evict-me') });
    expect(missing).toMatchObject({ status: 404, body: { reason: 'NotFound', message: 'pods "evict-me" not found' } });
  });
});

describe('list', () => {
  it('filters by label and field selectors', async () => {
    for (const [n, zone] of [['l1', 'east'], ['l2', 'west'], ['l3', 'east']]) {
      await s.api('/api/v1/nodes', { method: 'POST', body: node(n, { zone, tier: n === 'l3' ? 'gpu' : 'cpu' }) });
    }
    const names = async (q: string) => (await s.api(`/api/v1/nodes?${q}`)).body.items.map((i: any) => i.metadata.name);
    expect(await names('labelSelector=' + encodeURIComponent('zone=east'))).toEqual(['l1', 'l3']);
    expect(await names('labelSelector=' + encodeURIComponent('zone in (east,west),tier!=gpu'))).toEqual(['l1', 'l2']);
    expect(await names('labelSelector=' + encodeURIComponent('!tier'))).not.toContain('l1');
    expect(await names('fieldSelector=metadata.name%3Dl2')).toEqual(['l2']);
    const badField = await s.api('/api/v1/nodes?fieldSelector=metadata.namespace%3Dx');
    expect(badField.status).toBe(400);
    expect(badField.body.message).toBe('field label not supported: metadata.namespace');
    const badLabel = await s.api('/api/v1/nodes?labelSelector=' + encodeURIComponent('a in ('));
    expect(badLabel.status).toBe(400);
  });

  it('pages with limit and continue at one consistent revision', async () => {
    const first = (await s.api('/api/v1/nodes?limit=2')).body;
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();
    expect(first.metadata.remainingItemCount).toBeGreaterThan(0);
    await s.api('/api/v1/nodes', { method: 'POST', body: node('aaa-late') });
    const seen = [...first.items.map((i: any) => i.metadata.name)];
    let token = first.metadata.continue;
    while (token) {
      const page = (await s.api(`/api/v1/nodes?limit=2&continue=${encodeURIComponent(token)}`)).body;
      expect(page.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      seen.push(...page.items.map((i: any) => i.metadata.name));
      token = page.metadata.continue;
    }
    expect(seen).not.toContain('aaa-late');
    expect(seen).toEqual([...seen].sort());
    expect((await s.api('/api/v1/nodes?continue=garbage')).status).toBe(400);
  });

  it("pages from the list its first page was cut from, after the cache moved on and the store compacted that revision", async () => {
    for (const n of ['snap-a', 'snap-b', 'snap-c', 'snap-d']) await s.api('/api/v1/nodes', { method: 'POST', body: node(n, { v: 'before' }) });
    const path = `/api/v1/nodes?limit=2&labelSelector=v`;
    const first = (await s.api(path)).body;
    expect(first.items.map((i: any) => i.metadata.name)).toEqual(['snap-a', 'snap-b']);
    // Changed, added and compacted away in the store after the first page.
    await s.api('/api/v1/nodes/snap-d', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { v: 'after' } } } });
    await s.api('/api/v1/nodes', { method: 'POST', body: node('snap-e', { v: 'after' }) });
    await s.storage.compact(s.cache.revision);
    const rest = (await s.api(`${path}&continue=${encodeURIComponent(first.metadata.continue)}`)).body;
    expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(rest.items.map((i: any) => `${i.metadata.name}=${i.metadata.labels.v}`)).toEqual(['snap-c=before', 'snap-d=before']);
    expect(rest.metadata.continue).toBeUndefined();
  });

  it('writes a pretty list (curl, ?pretty=true) as JSON.stringify of the list with two spaces, item by item', async () => {
    // More than two of its batches.
    for (let i = 0; i < 450; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => s.api('/api/v1/nodes', { method: 'POST', body: node(`pretty-${i + j}`) })));
    const plain = await (await fetch(`${s.url}/api/v1/nodes`, { headers: { Authorization: `Bearer ${s.adminToken}` } })).text();
    const rv = JSON.parse(plain).metadata.resourceVersion;
    // Both at one revision, the empty list too: the simulated kubelets post the new nodes' status meanwhile.
    for (const q of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `resourceVersion=${rv}&resourceVersionMatch=Exact&labelSelector=nothing-has-this`]) {
      const want = JSON.stringify(JSON.parse(await (await fetch(`${s.url}/api/v1/nodes?${q}`, { headers: { Authorization: `Bearer ${s.adminToken}` } })).text()), null, 2) + '\n';
      const res = await fetch(`${s.url}/api/v1/nodes?${q}`, { headers: { Authorization: `Bearer ${s.adminToken}`, 'User-Agent': 'curl/8.5.0' } });
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe(want);
    }
  });

  it('serves an empty list as items: []', async () => {
    const r = await s.api('/apis/apps/v1/namespaces/kube-public/daemonsets');
    expect(r.body).toMatchObject({ kind: 'DaemonSetList', apiVersion: 'apps/v1', items: [] });
  });

  it('validates list options', async () => {
    const r = await s.api('/api/v1/nodes?resourceVersionMatch=Exact');
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  });

  it('answers Table output with the kind\'s columns', async () => {
    const r = await s.api('/api/v1/nodes/l1', { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(expect.arrayContaining(['Name', 'Status', 'Roles', 'Age', 'Version']));
    expect(r.body.rows[0].cells[0]).toBe('l1');
    expect(r.body.rows[0].object.kind).toBe('PartialObjectMetadata');
  });
});

describe('watch', () => {
  it('streams initial events, then changes, with the initial-events-end bookmark', async () => {
    const url = `${s.url}/api/v1/nodes?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=w%3D1`;
    await s.api('/api/v1/nodes', { method: 'POST', body: node('w-existing', { w: '1' }) });
    const done = readWatch(url, (ev) => ev.some((e) => e.type === 'MODIFIED'));
    await new Promise((r) => setTimeout(r, 200));
    await s.api('/api/v1/nodes/w-existing', { method: 'PATCH', body: { spec: { unschedulable: true } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const events = await done;
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w-existing' } } });
    expect(events[1].type).toBe('BOOKMARK');
    expect(events[1].object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
    expect(events[2]).toMatchObject({ type: 'MODIFIED', object: { spec: { unschedulable: true } } });
  });

  it('resumes from a resourceVersion and reports selector transitions', async () => {
    const created = await s.api('/api/v1/nodes', { method: 'POST', body: node('w2', { w: '2' }) });
    const rv = created.body.metadata.resourceVersion;
    await s.api('/api/v1/nodes/w2', { method: 'PATCH', body: { metadata: { labels: { w: 'no' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    await s.api('/api/v1/nodes/w2', { method: 'PATCH', body: { metadata: { labels: { w: '2' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    await s.api('/api/v1/nodes/w2', { method: 'DELETE' });
    const events = await readWatch(`${s.url}/api/v1/nodes?watch=1&resourceVersion=${rv}&labelSelector=w%3D2`, (ev) => ev.length >= 3);
    expect(events.map((e) => e.type)).toEqual(['DELETED', 'ADDED', 'DELETED']);
    expect(events[0].object.metadata.labels.w).toBe('2');
    expect(Number(events[0].object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
  });

  it('resumes from the store beyond the cache window, and sends a 410 ERROR once compacted', async () => {
    const small = await startTestServer({ watchCacheSize: 2 });
    try {
      const first = await small.api('/api/v1/nodes', { method: 'POST', body: node('c1') });
      const rv = first.body.metadata.resourceVersion;
      for (const n of ['c2', 'c3', 'c4']) await small.api('/api/v1/nodes', { method: 'POST', body: node(n) });
      const replay = await readWatch(`${small.url}/api/v1/nodes?watch=1&resourceVersion=${rv}`, (ev) => ev.length >= 3);
      expect(replay.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED c2', 'ADDED c3', 'ADDED c4']);
      await small.storage.compact(small.cache.revision - 1);
      const events = await readWatch(`${small.url}/api/v1/nodes?watch=1&resourceVersion=${rv}`, (ev) => ev.length >= 1);
      expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
      expect(events[0].object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    } finally {
      await small.stop();
    }
  });

  it('closes the stream after timeoutSeconds', async () => {
    // The body ends only when the server closes the stream.
    const res = await fetch(`${s.url}/apis/apps/v1/daemonsets?watch=1&timeoutSeconds=1&resourceVersion=${s.cache.revision}`, { headers: s.adminHeaders });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});

describe('durability', () => {
  it('keeps every acknowledged write across a restart', async () => {
    const other = await startTestServer();
    await other.api('/api/v1/nodes', { method: 'POST', body: node('persisted') });
    const rv = (await other.api('/api/v1/nodes/persisted')).body.metadata.resourceVersion;
    await other.close();
    const again = await startTestServer({ dataDir: other.dataDir });
    const r = await again.api('/api/v1/nodes/persisted');
    expect(r.status).toBe(200);
    expect(r.body.metadata.resourceVersion).toBe(rv);
    await again.stop();
  });
});

describe('CORS (--cors-allowed-origins)', () => {
  const ALLOWED = 'https://app.example.com';
  let c: TestServer;
  beforeAll(async () => {
    // Anchored, as kube-apiserver requires its patterns to pin start and end of the host.
    c = await startTestServer({ corsAllowedOrigins: [/^https:\/\/app\.example\.com(:[0-9]+)?$/] });
  });
  afterAll(async () => {
    await c.stop();
  });

  const cors = (h: Headers) => Object.fromEntries([...h].filter(([k]) => k.startsWith('access-control-')));
  const upstreamHeaders = (origin: string) => ({
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
    'access-control-allow-headers': 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
    'access-control-expose-headers': 'Date',
    'access-control-allow-credentials': 'true',
  });

  it('answers a preflight from an allowed origin with 204 and the headers a PATCH with a patch content type needs', async () => {
    const r = await fetch(c.url + '/api/v1/nodes/x', {
      method: 'OPTIONS',
      headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
    expect(cors(r.headers)).toEqual(upstreamHeaders(ALLOWED));
    const allowed = r.headers.get('access-control-allow-headers')!.toLowerCase().split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    expect(r.headers.get('access-control-allow-methods')!.split(', ')).toEqual(expect.arrayContaining(['PATCH', 'PUT', 'DELETE']));
    // A port on the allowed host is the same site for the pattern.
    const port = await fetch(c.url + '/apis', { method: 'OPTIONS', headers: { Origin: `${ALLOWED}:8443` } });
    expect(port.status).toBe(204);
    expect(port.headers.get('access-control-allow-origin')).toBe(`${ALLOWED}:8443`);
  });

  it('puts the same headers on actual answers, errors and strategic merge patches included', async () => {
    const h = { Origin: ALLOWED };
    const list = await c.api('/api/v1/nodes', { headers: h });
    expect(list.status).toBe(200);
    expect(cors(list.headers)).toEqual(upstreamHeaders(ALLOWED));
    expect(list.headers.get('date')).toBeTruthy();
    const missing = await c.api('/api/v1/nodes/none', { headers: h });
    expect(missing.status).toBe(404);
    expect(cors(missing.headers)).toEqual(upstreamHeaders(ALLOWED));
    expect((await c.api('/api/v1/nodes', { method: 'POST', body: node('cors-1'), headers: h })).status).toBe(201);
    const patched = await c.api('/api/v1/nodes/cors-1', {
      method: 'PATCH',
      body: { metadata: { labels: { via: 'browser' } } },
      headers: { ...h, 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.labels.via).toBe('browser');
    expect(patched.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('gives other origins, look-alikes and requests without Origin no CORS headers at all', async () => {
    for (const origin of ['https://evil.example.org', 'https://app.example.com.evil.org', 'http://app.example.com', undefined]) {
      const headers: Record<string, string> = origin ? { Origin: origin } : {};
      const get = await c.api('/api/v1/nodes', { headers });
      expect(get.status).toBe(200);
      expect(cors(get.headers), String(origin)).toEqual({});
      const preflight = await fetch(c.url + '/api/v1/nodes', { method: 'OPTIONS', headers: { ...headers, 'Access-Control-Request-Method': 'DELETE' } });
      expect(preflight.status).not.toBe(204);
      expect(cors(preflight.headers)).toEqual({});
    }
  });

  it('lets exactly the same origins open a WebSocket watch (and the server\'s own)', async () => {
    const open = (origin?: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(c.url.replace(/^http/, 'ws') + '/api/v1/nodes?watch=true', ['v1.watch.test'], { headers: { ...c.adminHeaders, ...(origin ? { Origin: origin } : {}) } });
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('unexpected-response', (_req, res: IncomingMessage) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        ws.on('error', reject);
      });
    expect(await open(ALLOWED)).toBe(101);
    expect(await open(`${ALLOWED}:8443`)).toBe(101);
    expect(await open(undefined)).toBe(101);
    expect(await open(c.url)).toBe(101);
    expect(await open('https://evil.example.org')).toBe(403);
    expect(await open('https://app.example.com.evil.org')).toBe(403);
  });
});
