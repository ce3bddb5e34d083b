// Lossless objects: the DaemonSet corpus (src/kinds/testdata/daemonsets) sent
// through the real server on a real SQLite file, with fieldValidation Strict
// and Warn and with the real kubectl, must come back with every field as sent
// (defaults may be added), through @kubernetes/client-node as well, and the
// pods the DaemonSet controller makes from the templates must carry them too.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

const dir = join(import.meta.dirname, '..', '..', 'kinds', 'testdata', 'daemonsets');
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8'), obj: parse(readFileSync(join(dir, file), 'utf8')) }));

/**
 * The paths at which `got` lacks or changes something `sent` has: objects may
 * gain keys (defaults), lists keep their length and order.
 */
export function lostFields(sent: unknown, got: unknown, path = ''): string[] {
  if (sent === null || sent === undefined) return [];
  if (Array.isArray(sent)) {
    if (!Array.isArray(got) || got.length !== sent.length) return [`${path} (${JSON.stringify(got)?.slice(0, 80)})`];
    return sent.flatMap((v, i) => lostFields(v, got[i], `${path}[${i}]`));
  }
  if (typeof sent === 'object') {
    if (!got || typeof got !== 'object' || Array.isArray(got)) return [`${path} (${JSON.stringify(got)?.slice(0, 80)})`];
    return Object.entries(sent).flatMap(([k, v]) => lostFields(v, (got as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  return sent === got ? [] : [`${path}: sent ${JSON.stringify(sent)}, got ${JSON.stringify(got)}`];
}

let s: TestServer;
let k: Kubectl;

beforeAll(async () => {
  s = await startTestServer();
  k = kubectlFor(s);
  for (const ns of new Set(corpus.map((c) => c.obj.metadata.namespace))) {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } });
  }
  // One node without taints or labels: each DaemonSet whose template may run there gets a pod.
  await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'worker-1', labels: { 'kubernetes.io/os': 'linux' } } } });
});
afterAll(async () => {
  await s?.stop();
});

const path = (ns: string, name = '') => `/apis/apps/v1/namespaces/${ns}/daemonsets${name ? `/${name}` : ''}`;

describe.each(corpus)('$file', ({ obj, text }) => {
  const ns = obj.metadata.namespace;

  it('is accepted with fieldValidation=Strict and comes back unchanged', async () => {
    const body = { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.name}-strict` } };
    const res = await s.api(`${path(ns)}?fieldValidation=Strict`, { method: 'POST', body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('warning')).toBeNull();
    expect(lostFields(body, res.body)).toEqual([]);
    const got = await s.api(path(ns, body.metadata.name));
    expect(lostFields(body, got.body)).toEqual([]);
  });

  it('is accepted with fieldValidation=Warn without warnings and comes back unchanged', async () => {
    const body = { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.name}-warn` } };
    const res = await s.api(path(ns), { method: 'POST', body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('warning')).toBeNull();
    expect(lostFields(body, (await s.api(path(ns, body.metadata.name))).body)).toEqual([]);
  });

  it('is created by @kubernetes/client-node (fieldValidation Warn) and comes back unchanged', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'local', server: s.httpsUrl, caData: Buffer.from(s.ca).toString('base64') }],
      users: [{ name: 'admin', token: s.adminToken }],
      contexts: [{ name: 'local', cluster: 'local', user: 'admin' }],
      currentContext: 'local',
    });
    const body = { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.name}-client` } };
    await kc.makeApiClient(k8s.AppsV1Api).createNamespacedDaemonSet({ namespace: ns, body });
    expect(lostFields(body, (await s.api(path(ns, body.metadata.name))).body)).toEqual([]);
  });

  it('applies with kubectl (server-side Strict validation) and reads back unchanged', async () => {
    const r = await k('apply', '-f', k.manifest(obj.metadata.name, text));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/unknown field|Warning/);
    const got = await k('get', 'daemonset', '-n', ns, obj.metadata.name, '-o', 'json');
    expect(got.code, got.stderr).toBe(0);
    const { annotations, ...meta } = obj.metadata;
    expect(lostFields({ ...obj, metadata: meta }, JSON.parse(got.stdout))).toEqual([]);
    // A re-apply of the same file changes nothing: no field was lost to be
    // added again, so the template (and the generation) stay as they are.
    // (kubectl may still send a patch: a list without merge key, such as
    // downwardAPI items, differs from the live one by its defaults.)
    const again = await k('apply', '-f', k.manifest(obj.metadata.name, text));
    expect(again.code, again.stderr).toBe(0);
    const after = JSON.parse((await k('get', 'daemonset', '-n', ns, obj.metadata.name, '-o', 'json')).stdout);
    expect(after.metadata.generation).toBe(1);
    expect(after.spec).toEqual(JSON.parse(got.stdout).spec);
  });
});

describe('kubectl apply of a changed volume source', () => {
  it('replaces the source (volumes retain only the keys sent: $retainKeys)', async () => {
    const manifest = (source: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: retain, namespace: default}
spec:
  selector: {matchLabels: {app: retain}}
  template:
    metadata: {labels: {app: retain}}
    spec:
      containers: [{name: c, image: "c:1", volumeMounts: [{name: data, mountPath: /data}]}]
      volumes:
      - name: data
        ${source}
`;
    expect((await k('apply', '-f', k.manifest('retain', manifest('hostPath: {path: /var/lib/data}')))).code).toBe(0);
    const r = await k('apply', '-f', k.manifest('retain', manifest('csi: {driver: secrets-store.csi.k8s.io, readOnly: true}')));
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse((await k('get', 'daemonset', 'retain', '-o', 'json')).stdout);
    expect(got.spec.template.spec.volumes).toEqual([{ name: 'data', csi: { driver: 'secrets-store.csi.k8s.io', readOnly: true } }]);
  });
});

describe('pods made from the corpus templates', () => {
  it('carry every template field', async () => {
    const deadline = Date.now() + 20_000;
    const owners = corpus.map((c) => `${c.obj.metadata.namespace}/${c.obj.metadata.name}`);
    let pods: any[] = [];
    // The GPU plugin's required node affinity keeps it off worker-1.
    const expected = owners.filter((o) => !o.includes('nvidia'));
    while (Date.now() < deadline) {
      pods = (await s.api('/api/v1/pods')).body.items;
      const made = new Set(pods.map((p: any) => `${p.metadata.namespace}/${p.metadata.ownerReferences?.[0]?.name}`));
      if (expected.every((o) => made.has(o))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const c of corpus) {
      const pod = pods.find((p) => p.metadata.namespace === c.obj.metadata.namespace && p.metadata.ownerReferences?.[0]?.name === c.obj.metadata.name);
      if (c.file.startsWith('nvidia')) {
        expect(pod).toBeUndefined();
        continue;
      }
      expect(pod, c.file).toBeDefined();
      // The controller adds a node affinity term and the daemon tolerations.
      const { affinity, tolerations, ...template } = c.obj.spec.template.spec;
      for (const t of tolerations ?? []) expect(pod.spec.tolerations, c.file).toContainEqual(t);
      // Pods of hostNetwork templates get hostPort = containerPort (SetDefaults_Pod).
      expect(lostFields(template, pod.spec).filter((f) => !/\.hostPort: sent undefined/.test(f)), c.file).toEqual([]);
    }
  });
});
