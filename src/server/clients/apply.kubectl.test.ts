// Server-side apply and managed fields with the real kubectl against the real
// server: apply --server-side (create, update, removal, conflicts and
// --force-conflicts), diff --server-side, get --show-managed-fields, and the
// move from client-side to server-side apply; plus the HTTP answers kubectl
// does not show (status subresource, missing fieldManager, the 409's causes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer();
  k = kubectlFor(s, { timeoutMs: 40_000 });
});
afterAll(async () => {
  await s.stop();
});

const ok = async (...args: string[]) => {
  const r = await k(...args);
  expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
};
const getJSON = async (...args: string[]) => JSON.parse(await ok('get', ...args, '-o', 'json', '--show-managed-fields'));
const managers = (o: any) => (o.metadata.managedFields ?? []).map((m: any) => `${m.manager}/${m.operation}${m.subresource ? `/${m.subresource}` : ''}`).sort();
const fieldsOf = (o: any, manager: string, operation = 'Apply') => o.metadata.managedFields.find((m: any) => m.manager === manager && m.operation === operation)?.fieldsV1;

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) =>
  k.manifest(name + Math.random().toString(36).slice(2, 6), `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
${Object.keys(labels).length ? `  labels: ${JSON.stringify(labels)}\n` : ''}data: ${JSON.stringify(data)}
`);

const daemonSet = (name: string, containers: string[], labels: Record<string, string> = {}) =>
  k.manifest(name + Math.random().toString(36).slice(2, 6), `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
  labels: ${JSON.stringify({ app: name, ...labels })}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
${containers.map((c) => `      - {name: ${c}, image: "registry.k8s.io/${c}:1", ports: [{containerPort: 80}]}`).join('\n')}
`);

describe('kubectl apply --server-side', () => {
  it('creates, updates, and removes a field it no longer applies; managed fields name kubectl', async () => {
    expect(await ok('apply', '--server-side', '-f', configMap('ssa-1', { a: '1', b: '2' }, { team: 'x' }))).toContain('configmap/ssa-1 serverside-applied');
    let cm = await getJSON('configmap', 'ssa-1');
    expect(cm.data).toEqual({ a: '1', b: '2' });
    expect(managers(cm)).toEqual(['kubectl/Apply']);
    expect(fieldsOf(cm, 'kubectl')).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    expect(cm.metadata.managedFields[0]).toMatchObject({ apiVersion: 'v1', fieldsType: 'FieldsV1' });
    expect(Date.parse(cm.metadata.managedFields[0].time)).not.toBeNaN();

    await ok('apply', '--server-side', '-f', configMap('ssa-1', { a: '3' }));
    cm = await getJSON('configmap', 'ssa-1');
    expect(cm.data).toEqual({ a: '3' });
    expect(cm.metadata.labels).toBeUndefined();
  });

  it('conflicts with another manager name the field and manager; --force-conflicts takes the field', async () => {
    await ok('apply', '--server-side', '-f', configMap('ssa-2', { a: '1', b: '1' }));
    const r = await k('apply', '--server-side', '--field-manager=other', '-f', configMap('ssa-2', { a: '2' }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect((await getJSON('configmap', 'ssa-2')).data).toEqual({ a: '1', b: '1' });

    await ok('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', configMap('ssa-2', { a: '2' }));
    const cm = await getJSON('configmap', 'ssa-2');
    expect(cm.data).toEqual({ a: '2', b: '1' });
    expect(fieldsOf(cm, 'other')).toEqual({ 'f:data': { 'f:a': {} } });
    expect(fieldsOf(cm, 'kubectl')).toEqual({ 'f:data': { 'f:b': {} } });
  });

  it('map-list items by key (ports by containerPort and the defaulted protocol): a container no longer applied goes', async () => {
    await ok('apply', '--server-side', '-f', daemonSet('ssa-ds', ['web', 'sidecar']));
    let ds = await getJSON('daemonset', 'ssa-ds');
    expect(Object.keys(fieldsOf(ds, 'kubectl')['f:spec']['f:template']['f:spec']['f:containers'])).toEqual(['k:{"name":"sidecar"}', 'k:{"name":"web"}']);
    expect(fieldsOf(ds, 'kubectl')['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:ports']).toEqual({ 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } });
    await ok('apply', '--server-side', '-f', daemonSet('ssa-ds', ['web']));
    ds = await getJSON('daemonset', 'ssa-ds');
    expect(ds.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['web']);
    expect(ds.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('diff --server-side shows what the apply would change and changes nothing', async () => {
    await ok('apply', '--server-side', '-f', configMap('ssa-3', { a: '1' }));
    const r = await k('diff', '--server-side', '-f', configMap('ssa-3', { a: '2' }));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/-\s+a: "1"/);
    expect(r.stdout).toMatch(/\+\s+a: "2"/);
    expect((await getJSON('configmap', 'ssa-3')).data).toEqual({ a: '1' });
    const same = await k('diff', '--server-side', '-f', configMap('ssa-3', { a: '1' }));
    expect(same.code, same.stderr + same.stdout).toBe(0);
  });

  it('get hides managed fields unless --show-managed-fields', async () => {
    await ok('apply', '--server-side', '-f', configMap('ssa-4', { a: '1' }));
    expect(await ok('get', 'configmap', 'ssa-4', '-o', 'yaml')).not.toContain('managedFields');
    const shown = await ok('get', 'configmap', 'ssa-4', '-o', 'yaml', '--show-managed-fields');
    expect(shown).toContain('managedFields');
    expect(shown).toContain('manager: kubectl');
    expect(shown).toContain('operation: Apply');
  });

  it('every write records its manager: create, label, annotate, patch', async () => {
    await ok('create', 'configmap', 'ssa-5', '--from-literal=a=1');
    await ok('label', 'configmap', 'ssa-5', 'x=y');
    await ok('annotate', 'configmap', 'ssa-5', 'n=m');
    await ok('patch', 'configmap', 'ssa-5', '--type=merge', '-p', '{"data":{"b":"2"}}');
    const cm = await getJSON('configmap', 'ssa-5');
    expect(managers(cm)).toEqual(['kubectl-annotate/Update', 'kubectl-create/Update', 'kubectl-label/Update', 'kubectl-patch/Update']);
    expect(fieldsOf(cm, 'kubectl-create', 'Update')).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
    expect(fieldsOf(cm, 'kubectl-label', 'Update')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } });
    expect(fieldsOf(cm, 'kubectl-patch', 'Update')).toEqual({ 'f:data': { 'f:b': {} } });
    // Applying a value an updater set conflicts with that updater, named with its apiVersion.
    const r = await k('apply', '--server-side', '-f', configMap('ssa-5', { a: '9' }));
    expect(r.stderr).toContain('conflict with "kubectl-create" using v1: .data.a');
  });

  it('moves from client-side apply to server-side apply, then removes what it stops applying', async () => {
    await ok('apply', '-f', daemonSet('ssa-csa', ['web'], { tier: 'a' }));
    let ds = await getJSON('daemonset', 'ssa-csa');
    // The DaemonSet controller writes status through its subresource, as kube-controller-manager.
    expect(managers(ds)).toEqual(['kube-controller-manager/Update/status', 'kubectl-client-side-apply/Update']);
    expect(ds.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBeTruthy();

    await ok('apply', '--server-side', '-f', daemonSet('ssa-csa', ['web'], { tier: 'a' }));
    ds = await getJSON('daemonset', 'ssa-csa');
    expect(managers(ds)).toContain('kubectl/Apply');
    expect(managers(ds)).not.toContain('kubectl-client-side-apply/Update');

    await ok('apply', '--server-side', '-f', daemonSet('ssa-csa', ['web']));
    ds = await getJSON('daemonset', 'ssa-csa');
    expect(ds.metadata.labels).toEqual({ app: 'ssa-csa' });
    // The client-side annotation follows kubectl's applies, so a later client-side apply agrees.
    expect(JSON.parse(ds.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).metadata.labels).toEqual({ app: 'ssa-csa' });
  });
});

describe('apply over HTTP', () => {
  const applyYAML = (path: string, body: string, query = 'fieldManager=test') =>
    s.api(`${path}?${query}`, { method: 'PATCH', body, headers: { 'Content-Type': 'application/apply-patch+yaml' } });

  it('requires a field manager (422 PatchOptions)', async () => {
    const r = await applyYAML('/api/v1/namespaces/default/configmaps/h1', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h1}\n', '');
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('fieldManager: Required value: is required for apply patch');
  });

  it('creates with 201, answers 200 after, and a conflict is a 409 with a cause per field', async () => {
    const path = '/api/v1/namespaces/default/configmaps/h2';
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h2}\ndata: {a: "1", b: "1"}\n', 'fieldManager=one')).status).toBe(201);
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h2}\ndata: {a: "1", b: "1"}\n', 'fieldManager=one')).status).toBe(200);
    const r = await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h2}\ndata: {a: "2", b: "2"}\n', 'fieldManager=two');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
    expect(r.body.message).toBe('Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b');
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.b' },
    ]);
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h2}\ndata: {a: "2"}\n', 'fieldManager=two&force=true')).status).toBe(200);
  });

  it('refuses a wrong apiVersion and managedFields in the configuration', async () => {
    const path = '/api/v1/namespaces/default/configmaps/h3';
    expect((await applyYAML(path, 'apiVersion: v2\nkind: ConfigMap\nmetadata: {name: h3}\n')).status).toBe(400);
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h3, managedFields: [{manager: x}]}\n')).body.message).toBe('metadata.managedFields must be nil');
  });

  it('applies to the status subresource under its own entry, and spec there is not taken', async () => {
    const ds = JSON.parse(await ok('get', 'daemonset', 'ssa-ds', '-o', 'json'));
    const path = '/apis/apps/v1/namespaces/default/daemonsets/ssa-ds/status';
    const r = await applyYAML(path, `apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ssa-ds}\nspec: {minReadySeconds: 99}\nstatus: {conditions: [{type: Stuck, status: "True"}]}\n`, 'fieldManager=status-writer');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.spec.minReadySeconds ?? 0).toBe(ds.spec.minReadySeconds ?? 0);
    const entry = r.body.metadata.managedFields.find((m: any) => m.manager === 'status-writer');
    expect(entry).toMatchObject({ operation: 'Apply', subresource: 'status' });
    expect(entry.fieldsV1).toEqual({ 'f:status': { 'f:conditions': { 'k:{"type":"Stuck"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } });
  });

  it('managedFields [{}] clears them; the object stays untracked until an apply credits what it had to before-first-apply', async () => {
    const path = '/api/v1/namespaces/default/configmaps/h5';
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h5}\ndata: {a: "1"}\n', 'fieldManager=one')).status).toBe(201);
    const merge = (body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const cleared = await merge({ metadata: { managedFields: [{}] } });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.metadata.managedFields).toBeUndefined();
    expect((await merge({ data: { b: '2' } })).body.metadata.managedFields).toBeUndefined();
    const r = await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h5}\ndata: {a: "2"}\n', 'fieldManager=one');
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it('managedFields [] resets them as [{}] does (PUT, merge patch); on create the creator is recorded', async () => {
    const path = '/api/v1/namespaces/default/configmaps/h6';
    expect((await applyYAML(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h6, labels: {a: b}}\ndata: {a: "1"}\n', 'fieldManager=one')).status).toBe(201);
    const stored = (await s.api(path)).body;
    const put = await s.api(path, { method: 'PUT', body: { ...stored, metadata: { ...stored.metadata, managedFields: [] } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.metadata.managedFields).toBeUndefined();
    expect(put.body.metadata.labels).toEqual({ a: 'b' });
    // Sending them back tracks again; a merge patch of [] clears them once more.
    const back = await s.api(path, { method: 'PUT', body: { ...stored, metadata: { ...stored.metadata, resourceVersion: undefined } } });
    expect(back.body.metadata.managedFields.map((m: any) => m.manager)).toEqual(['one']);
    const merged = await s.api(path, { method: 'PATCH', body: { metadata: { managedFields: [] } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(merged.status).toBe(200);
    expect(merged.body.metadata.managedFields).toBeUndefined();
    const created = await s.api('/api/v1/namespaces/default/configmaps?fieldManager=maker', { method: 'POST', body: { metadata: { name: 'h7', managedFields: [] }, data: { a: '1' } } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toEqual(['maker/Update']);
  });

  it('a create records no "." for structs the Go type holds by value (pod template, update strategy), as upstream', async () => {
    const r = await s.api('/apis/apps/v1/namespaces/default/daemonsets?fieldManager=maker', {
      method: 'POST',
      body: { metadata: { name: 'h8' }, spec: { selector: { matchLabels: { app: 'h8' } }, template: { metadata: { labels: { app: 'h8' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
    });
    expect(r.status).toBe(201);
    const spec = r.body.metadata.managedFields[0].fieldsV1['f:spec'];
    expect(Object.keys(spec['f:template'])).toEqual(['f:metadata', 'f:spec']);
    expect(spec['f:template']['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    expect(spec['f:updateStrategy']).toEqual({ 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
  });

  it("what the strategy sets on create is the server's, not the creator's (a DaemonSet's template-generation annotation)", async () => {
    const r = await s.api('/apis/apps/v1/namespaces/default/daemonsets?fieldManager=maker', {
      method: 'POST',
      body: { metadata: { name: 'h9', annotations: { mine: 'yes' } }, spec: { selector: { matchLabels: { app: 'h9' } }, template: { metadata: { labels: { app: 'h9' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.annotations['deprecated.daemonset.template.generation']).toBe('1');
    expect(r.body.metadata.managedFields[0].fieldsV1['f:metadata']['f:annotations']).toEqual({ '.': {}, 'f:mine': {} });
  });

  it('an update without fieldManager is credited to the User-Agent up to its first slash', async () => {
    const r = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'h4' }, data: { a: '1' } }, headers: { 'User-Agent': 'my-tool/1.2 (linux)' } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toEqual(['my-tool/Update']);
  });
});
