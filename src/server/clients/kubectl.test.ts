// The real kubectl against the real server: what a user types must work.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer();
  k = kubectlFor(s);
});
afterAll(async () => {
  await s.stop();
});

const kubectl = (...args: string[]) => k(...args);
const manifest = (name: string, text: string) => k.manifest(name, text);

const manifests = {
  node: `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: {zone: east, node-role.kubernetes.io/worker: ""}
spec: {}
`,
  netpol: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-web}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: a}}}]
    ports: [{port: 8000, endPort: 8080}]
`,
  ds: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1.0"}]
`,
  va: `apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec:
  attacher: csi.example.com
  nodeName: worker-1
  source: {persistentVolumeName: pv-1}
`,
};

describe('kubectl', () => {
  it('lists the API resources with their short names', async () => {
    const r = await kubectl('api-resources');
    expect(r.code, r.stderr).toBe(0);
    const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(name + ' '))?.split(/\s+/);
    expect(line('nodes')).toEqual(['nodes', 'no', 'v1', 'false', 'Node']);
    expect(line('daemonsets')).toEqual(['daemonsets', 'ds', 'apps/v1', 'true', 'DaemonSet']);
    expect(line('networkpolicies')).toEqual(['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy']);
    expect(line('volumeattachments')).toEqual(['volumeattachments', 'storage.k8s.io/v1', 'false', 'VolumeAttachment']);
  });

  for (const [kind, resource, name] of [
    ['node', 'node', 'worker-1'],
    ['netpol', 'networkpolicy', 'allow-web'],
    ['ds', 'daemonset', 'agent'],
    ['va', 'volumeattachment', 'va-1'],
  ] as const) {
    it(`creates, gets, replaces and deletes a ${resource}`, async () => {
      const file = manifest(kind, manifests[kind]);
      const c = await kubectl('create', '-f', file);
      expect(c.code, c.stderr).toBe(0);
      expect(c.stdout.trim()).toMatch(new RegExp(`${name} created$`));
      const g = await kubectl('get', resource, name, '-o', 'json');
      expect(g.code, g.stderr).toBe(0);
      const obj = JSON.parse(g.stdout);
      expect(obj.metadata.name).toBe(name);
      obj.metadata.labels = { ...obj.metadata.labels, replaced: 'yes' };
      const edited = join(k.dir, `${kind}-edited.json`);
      writeFileSync(edited, JSON.stringify(obj));
      const rep = await kubectl('replace', '-f', edited);
      expect(rep.code, rep.stderr).toBe(0);
      const table = await kubectl('get', resource, name);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^${name}\\s`));
      if (kind !== 'node') {
        const d = await kubectl('delete', resource, name);
        expect(d.code, d.stderr).toBe(0);
        expect(d.stdout).toContain('deleted');
        expect((await kubectl('get', resource, name)).code).not.toBe(0);
      }
    });
  }

  it('prints the Node columns kubectl users expect', async () => {
    const r = await kubectl('get', 'nodes', '-o', 'wide');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(
      expect.arrayContaining(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'OS-IMAGE']),
    );
    expect(r.stdout).toMatch(/worker-1\s+Unknown\s+worker\s/);
  });

  it('prints the DaemonSet columns of kube-apiserver, with containers, images and selector in -o wide', async () => {
    const ds = manifests.ds.replace('name: agent}', 'name: wide}').replaceAll('app: agent', 'app: wide')
      .replace('containers: [{name: agent, image: "agent:1.0"}]', 'containers: [{name: a, image: "a:1"}, {name: b, image: "b:2"}]\n      nodeSelector: {disk: ssd}');
    expect((await kubectl('create', '-f', manifest('ds-wide', ds))).code).toBe(0);
    const r = await kubectl('get', 'ds', 'wide', '-o', 'wide');
    expect(r.code, r.stderr).toBe(0);
    const [header, row] = r.stdout.split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(row).toMatch(/^wide\s+0\s+0\s+0\s+0\s+0\s+disk=ssd\s+\S+\s+a,b\s+a:1,b:2\s+app=wide$/);
    const narrow = await kubectl('get', 'ds', 'wide');
    expect(narrow.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    expect((await kubectl('delete', 'ds', 'wide')).code).toBe(0);
  });

  it('serves an OpenAPI v3 index whose documents exist and cover exactly the served group-versions', async () => {
    const index = await kubectl('get', '--raw', '/openapi/v3');
    expect(index.code, index.stderr).toBe(0);
    const paths: Record<string, { serverRelativeURL: string }> = JSON.parse(index.stdout).paths;
    const versions = await kubectl('api-versions');
    expect(versions.code, versions.stderr).toBe(0);
    const served = versions.stdout.trim().split('\n');
    expect(Object.keys(paths).map((p) => p.replace(/^apis?\//, '')).sort()).toEqual([...served].sort());
    for (const [gv, { serverRelativeURL }] of Object.entries(paths)) {
      expect(serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]+$`));
      const doc = await kubectl('get', '--raw', serverRelativeURL);
      expect(doc.code, doc.stderr).toBe(0);
      const parsed = JSON.parse(doc.stdout);
      expect(parsed.openapi).toBe('3.0.0');
      for (const p of Object.keys(parsed.paths)) expect(p.startsWith(`/${gv}/`), p).toBe(true);
      // Every reference resolves within the document.
      const refs = [...doc.stdout.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of new Set(refs)) expect(parsed.components.schemas[ref], ref).toBeDefined();
    }
  });

  it('selects by label and by field', async () => {
    await kubectl('create', '-f', manifest('n2', manifests.node.replace('worker-1', 'worker-2').replace('east', 'west')));
    const byLabel = await kubectl('get', 'nodes', '-l', 'zone=west', '-o', 'name');
    expect(byLabel.stdout.trim()).toBe('node/worker-2');
    const byField = await kubectl('get', 'nodes', '--field-selector', 'metadata.name=worker-1', '-o', 'name');
    expect(byField.stdout.trim()).toBe('node/worker-1');
    const setBased = await kubectl('get', 'nodes', '-l', 'zone in (east,west),zone!=east', '-o', 'name');
    expect(setBased.stdout.trim()).toBe('node/worker-2');
  });

  it('fails a stale replace with Conflict', async () => {
    const stale = JSON.parse((await kubectl('get', 'node', 'worker-2', '-o', 'json')).stdout);
    await kubectl('patch', 'node', 'worker-2', '--type', 'merge', '-p', '{"metadata":{"labels":{"bump":"1"}}}');
    const file = join(k.dir, 'stale.json');
    writeFileSync(file, JSON.stringify(stale));
    const r = await kubectl('replace', '-f', file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (Conflict)');
    expect(r.stderr).toContain('the object has been modified');
  });

  it('patches with --type merge and --type json', async () => {
    const m = await kubectl('patch', 'node', 'worker-2', '--type', 'merge', '-p', '{"spec":{"unschedulable":true}}');
    expect(m.code, m.stderr).toBe(0);
    expect((await kubectl('get', 'node', 'worker-2')).stdout).toContain('SchedulingDisabled');
    const j = await kubectl('patch', 'node', 'worker-2', '--type', 'json', '-p', '[{"op":"add","path":"/spec/taints","value":[{"key":"gpu","value":"true","effect":"NoSchedule"}]}]');
    expect(j.code, j.stderr).toBe(0);
    const taint = await kubectl('get', 'node', 'worker-2', '-o', 'jsonpath={.spec.taints[0].key}');
    expect(taint.stdout).toBe('gpu');
  });

  it('shows validation errors with field paths', async () => {
    const bad = manifests.netpol.replace('endPort: 8080', 'endPort: 7000').replace('allow-web', 'bad-range');
    const r = await kubectl('create', '-f', manifest('bad', bad));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is invalid: spec.ingress[0].ports[0].endPort: Invalid value: 8000: must be greater than or equal to `port`');
  });

  it('rejects unknown fields (kubectl validates server-side through OpenAPI)', async () => {
    const r = await kubectl('create', '-f', manifest('unknown', manifests.va.replace('va-1', 'va-2').replace('nodeName:', 'bogus: 1\n  nodeName:')));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "spec.bogus"');
  });

  it('explains fields from the OpenAPI documents', async () => {
    const r = await kubectl('explain', 'daemonset.spec.updateStrategy');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('rollingUpdate');
    const np = await kubectl('explain', 'networkpolicy.spec.ingress.ports');
    expect(np.code, np.stderr).toBe(0);
    expect(np.stdout).toContain('endPort');
  });

  it('watches (get -w) a change made by another client', async () => {
    const child = spawn('kubectl', ['get', 'nodes', '-w', '--output-watch-events'], { env: k.env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const until = async (pred: () => boolean) => {
      for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    };
    await until(() => out.includes('worker-2'));
    const r = await s.api('/api/v1/nodes/worker-1', { method: 'PATCH', body: { spec: { unschedulable: true } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    await until(() => /MODIFIED\s+worker-1\s+Unknown,SchedulingDisabled/.test(out));
    child.kill();
    expect(out).toMatch(/MODIFIED\s+worker-1\s+Unknown,SchedulingDisabled/);
  });

  it('deletes a namespace and what it holds', async () => {
    // `kubectl create namespace` and `create configmap` send protobuf bodies (typed clients), with no JSON fallback.
    const ns = await kubectl('create', 'namespace', 'scratch');
    expect(ns.code, ns.stderr).toBe(0);
    expect(ns.stdout.trim()).toBe('namespace/scratch created');
    const cm = await kubectl('create', 'configmap', 'settings', '-n', 'scratch', '--from-literal=mode=fast');
    expect(cm.code, cm.stderr).toBe(0);
    expect(JSON.parse((await kubectl('get', 'configmap', 'settings', '-n', 'scratch', '-o', 'json')).stdout).data).toEqual({ mode: 'fast' });
    const again = await kubectl('create', 'namespace', 'scratch');
    expect(again.stderr).toContain('Error from server (AlreadyExists): namespaces "scratch" already exists');
    expect((await kubectl('create', '-n', 'scratch', '-f', manifest('np2', manifests.netpol))).code).toBe(0);
    const d = await kubectl('delete', 'namespace', 'scratch', '--timeout=20s');
    expect(d.code, d.stderr).toBe(0);
    expect((await kubectl('get', 'namespace', 'scratch')).stderr).toContain('NotFound');
  });
});
