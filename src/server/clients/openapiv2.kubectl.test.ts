// kubectl reads /openapi/v2 (as gnostic protobuf, with no JSON fallback) to
// validate on the client whatever /openapi/v3 cannot vouch for (a v1 List),
// and for `explain --output=plaintext-openapiv2`. Without it `kubectl get -o
// yaml > f && kubectl apply -f f` failed with "the server could not find the
// requested resource".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer({ controllers: false });
  k = kubectlFor(s);
});

afterAll(async () => {
  await s?.stop();
});

const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe('kubectl against /openapi/v2', () => {
  it('applies what `get -o yaml` printed (a kind: List), validating it on the client', async () => {
    ok(await k('create', '-f', k.manifest('nodes-in', 'apiVersion: v1\nkind: Node\nmetadata: {name: v2-a, labels: {pool: x}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: v2-b}\nspec: {unschedulable: true}\n')));
    const got = await k('get', 'nodes', '-o', 'yaml');
    ok(got);
    expect(got.stdout).toMatch(/^apiVersion: v1\nitems:/);
    expect(got.stdout).toMatch(/\nkind: List\n/);
    const applied = await k('apply', '-f', k.manifest('nodes', got.stdout));
    ok(applied);
    expect(applied.stdout).toContain('node/v2-a configured');
    expect(applied.stdout).toContain('node/v2-b configured');
    const after = await k('get', 'node', 'v2-a', '-o', 'jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}');
    expect(JSON.parse(after.stdout)).toMatchObject({ kind: 'Node', metadata: { name: 'v2-a', labels: { pool: 'x' } } });
  });

  const list = (configMapExtra: string, port: string) =>
    [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: v1',
      '  kind: ConfigMap',
      '  metadata: {name: v2-list-cm}',
      '  data: {a: "1"}',
      configMapExtra,
      '- apiVersion: apps/v1',
      '  kind: DaemonSet',
      '  metadata: {name: v2-list-ds}',
      '  spec:',
      '    selector: {matchLabels: {app: v2}}',
      '    template:',
      '      metadata: {labels: {app: v2}}',
      `      spec: {containers: [{name: c, image: busybox, ports: [{containerPort: ${port}}]}]}`,
      '',
    ].filter((l) => l !== '').join('\n') + '\n';

  it('refuses a List with an unknown field or a wrong type before sending anything (create --validate=true)', async () => {
    const r = await k('create', '--validate=true', '-f', k.manifest('bad-list', list('  bogus: 1', '"eighty"')));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error validating data');
    expect(r.stderr).toContain('ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap');
    expect(r.stderr).toContain(
      'ValidationError(DaemonSet.spec.template.spec.containers[0].ports[0].containerPort): invalid type for io.k8s.api.core.v1.ContainerPort.containerPort: got "string", expected "integer"',
    );
    // Nothing was created: validation happened on the client.
    expect((await k('get', 'configmap', 'v2-list-cm')).code).not.toBe(0);
  });

  it('creates a valid List with --validate=true', async () => {
    const r = await k('create', '--validate=true', '-f', k.manifest('good-list', list('', '80')));
    ok(r);
    expect(r.stdout).toContain('configmap/v2-list-cm created');
    expect(r.stdout).toContain('daemonset.apps/v2-list-ds created');
  });

  it('explains from v2 (plaintext-openapiv2) with required fields and nested types', async () => {
    const spec = await k('explain', '--output=plaintext-openapiv2', 'daemonset.spec');
    ok(spec);
    expect(spec.stdout).toContain('KIND:     DaemonSet\nVERSION:  apps/v1\n\nRESOURCE: spec <Object>');
    expect(spec.stdout).toMatch(/selector\t<Object> -required-/);
    expect(spec.stdout).toMatch(/template\t<Object> -required-/);
    expect(spec.stdout).toMatch(/updateStrategy\t<Object>\n/);
    const containers = await k('explain', '--output=plaintext-openapiv2', 'pods.spec.containers');
    ok(containers);
    expect(containers.stdout).toContain('RESOURCE: containers <[]Object>');
    expect(containers.stdout).toMatch(/name\t<string> -required-/);
    const resources = await k('explain', '--output=plaintext-openapiv2', 'pods.spec.containers.resources');
    expect(resources.stdout).toMatch(/limits\t<map\[string\]string>/);
    const va = await k('explain', '--output=plaintext-openapiv2', 'volumeattachments.spec');
    expect(va.stdout).toMatch(/attacher\t<string> -required-/);
    const np = await k('explain', '--output=plaintext-openapiv2', 'networkpolicies.spec.ingress');
    expect(np.stdout).toContain('RESOURCE: ingress <[]Object>');
    const rec = await k('explain', '--output=plaintext-openapiv2', 'nodes.spec', '--recursive');
    ok(rec);
    expect(rec.stdout).toMatch(/taints\t<\[\]Object>\n\s+effect\t<string>/);
  });
});

describe('/openapi/v2 over HTTP', () => {
  const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  const get = (accept?: string, extra: Record<string, string> = {}) =>
    fetch(`${s.url}/openapi/v2`, { headers: { ...s.adminHeaders, ...(accept ? { Accept: accept } : {}), ...extra } });

  it('answers JSON by default and protobuf to the type client-go asks for, under one ETag', async () => {
    const json = await get();
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    const doc = await json.json();
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions['io.k8s.api.apps.v1.DaemonSet']['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'DaemonSet' }]);
    const pb = await get(PB);
    expect(pb.status).toBe(200);
    expect(pb.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const body = Buffer.from(await pb.arrayBuffer());
    // Document.swagger (field 1, a string): tag 0x0a, length 3, "2.0".
    expect([...body.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from('2.0')]);
    expect((await get('application/com.github.proto-openapi.spec.v2.v1.0+protobuf')).headers.get('content-type')).toBe(pb.headers.get('content-type'));
    expect(pb.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
    expect(pb.headers.get('etag')).toBe(json.headers.get('etag'));
    expect(pb.headers.get('vary')).toBe('Accept');
  });

  it('answers 304 to the ETag it gave, and 406 to a type it cannot produce', async () => {
    const etag = (await get(PB)).headers.get('etag')!;
    const again = await get(PB, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await get(PB, { 'If-None-Match': '"other"' })).status).toBe(200);
    const refused = await get('application/xml');
    expect(refused.status).toBe(406);
    expect((await refused.json()).kind).toBe('Status');
  });

  it('is refused without credentials, as every non-resource path', async () => {
    expect((await get(undefined, { Authorization: '' })).status).toBe(401);
  });
});
