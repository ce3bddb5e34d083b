// The kubectl commands that send strategic merge patches (and drain, which
// adds evictions), with the real kubectl against the real server.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

const kubectl = (args: string[], env: NodeJS.ProcessEnv = {}) => k.run(args, { env });

const ok = async (...args: string[]) => {
  const r = await kubectl(args);
  expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
};

const getJSON = async (...args: string[]) => JSON.parse(await ok('get', ...args, '-o', 'json'));

function file(name: string, text: string): string {
  const f = join(k.dir, name);
  writeFileSync(f, text);
  return f;
}

const nodeYAML = (name: string) => `apiVersion: v1
kind: Node
metadata: {name: ${name}, labels: {zone: east}}
spec: {}
`;

describe('kubectl commands that send strategic merge patches', () => {
  it('labels and annotates, overwrites and removes', async () => {
    await ok('create', '-f', file('n1.yaml', nodeYAML('smp-1')));
    await ok('label', 'node', 'smp-1', 'tier=gpu');
    await ok('annotate', 'node', 'smp-1', 'owner=team-a');
    let n = await getJSON('node', 'smp-1');
    expect(n.metadata.labels).toEqual({ zone: 'east', tier: 'gpu' });
    expect(n.metadata.annotations.owner).toBe('team-a');
    expect((await kubectl(['label', 'node', 'smp-1', 'tier=cpu'])).stderr).toContain("'tier' already has a value (gpu)");
    await ok('label', 'node', 'smp-1', 'tier=cpu', '--overwrite');
    await ok('label', 'node', 'smp-1', 'zone-');
    await ok('annotate', 'node', 'smp-1', 'owner-');
    n = await getJSON('node', 'smp-1');
    expect(n.metadata.labels).toEqual({ tier: 'cpu' });
    expect(n.metadata.annotations?.owner).toBeUndefined();
  });

  it('cordons and uncordons', async () => {
    expect(await ok('cordon', 'smp-1')).toContain('node/smp-1 cordoned');
    expect((await getJSON('node', 'smp-1')).spec.unschedulable).toBe(true);
    expect(await ok('get', 'node', 'smp-1')).toContain('SchedulingDisabled');
    expect(await ok('uncordon', 'smp-1')).toContain('node/smp-1 uncordoned');
    expect((await getJSON('node', 'smp-1')).spec.unschedulable).toBeUndefined();
  });

  it('adds and removes taints', async () => {
    expect(await ok('taint', 'nodes', 'smp-1', 'dedicated=gpu:NoSchedule')).toContain('node/smp-1 tainted');
    await ok('taint', 'nodes', 'smp-1', 'maintenance:NoExecute');
    let taints = (await getJSON('node', 'smp-1')).spec.taints;
    // kubectl puts the taints it adds first.
    expect(taints).toEqual([
      expect.objectContaining({ key: 'maintenance', effect: 'NoExecute' }),
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ]);
    expect(await ok('taint', 'nodes', 'smp-1', 'dedicated-')).toContain('node/smp-1 untainted');
    taints = (await getJSON('node', 'smp-1')).spec.taints;
    expect(taints.map((t: any) => t.key)).toEqual(['maintenance']);
    await ok('taint', 'nodes', 'smp-1', 'maintenance:NoExecute-');
    expect((await getJSON('node', 'smp-1')).spec.taints).toBeUndefined();
  });

  it('applies a manifest twice: creates, then updates and removes what the manifest dropped', async () => {
    const v1 = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: applied
  labels: {app: applied, stage: one}
spec:
  selector: {matchLabels: {app: applied}}
  template:
    metadata: {labels: {app: applied}}
    spec:
      containers:
      - name: main
        image: "agent:1.0"
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
      - name: sidecar
        image: "side:1.0"
`;
    expect(await ok('apply', '-f', file('ds1.yaml', v1))).toContain('daemonset.apps/applied created');
    const v2 = v1
      .replace('  labels: {app: applied, stage: one}', '  labels: {app: applied}')
      .replace('agent:1.0', 'agent:2.0')
      .replace(', {name: B, value: "2"}', '')
      .replace('      - name: sidecar\n        image: "side:1.0"\n', '');
    expect(await ok('apply', '-f', file('ds2.yaml', v2))).toContain('daemonset.apps/applied configured');
    const ds = await getJSON('ds', 'applied');
    expect(ds.metadata.labels).toEqual({ app: 'applied' });
    expect(ds.spec.template.spec.containers.map((c: any) => `${c.name} ${c.image}`)).toEqual(['main agent:2.0']);
    expect(ds.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(JSON.parse(ds.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).metadata.labels).toEqual({ app: 'applied' });
    expect(ds.metadata.generation).toBe(2);
    expect(await ok('apply', '-f', file('ds2.yaml', v2))).toContain('daemonset.apps/applied unchanged');
  });

  it('switches a volume source on apply ($retainKeys) and merges ports by containerPort', async () => {
    const v1 = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: volumes}
spec:
  selector: {matchLabels: {app: volumes}}
  template:
    metadata: {labels: {app: volumes}}
    spec:
      containers:
      - name: main
        image: "agent:1.0"
        ports: [{containerPort: 80, name: http}, {containerPort: 443, name: https}]
        volumeMounts: [{name: data, mountPath: /data}]
      volumes: [{name: data, emptyDir: {}}]
`;
    await ok('apply', '-f', file('vol1.yaml', v1));
    const v2 = v1.replace('emptyDir: {}', 'hostPath: {path: /var/data}').replace(', {containerPort: 443, name: https}', '').replace('name: http}', 'name: web}');
    await ok('apply', '-f', file('vol2.yaml', v2));
    const spec = (await getJSON('ds', 'volumes')).spec.template.spec;
    expect(spec.volumes).toEqual([{ name: 'data', hostPath: { path: '/var/data', type: '' } }]);
    expect(spec.containers[0].ports).toEqual([{ containerPort: 80, name: 'web', protocol: 'TCP' }]);
  });

  it('restarts a DaemonSet rollout by annotating its template', async () => {
    expect(await ok('rollout', 'restart', 'ds/applied')).toContain('daemonset.apps/applied restarted');
    const ds = await getJSON('ds', 'applied');
    expect(ds.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(ds.spec.template.spec.containers[0].image).toBe('agent:2.0');
  });

  it('edits with $EDITOR', async () => {
    const editor = file('editor.sh', '#!/bin/sh\nsed -i -e "s/agent:2.0/agent:3.0/" -e "s/^  labels:$/  labels:\\n    edited: \\"yes\\"/" "$1"\n');
    chmodSync(editor, 0o755);
    const r = await kubectl(['edit', 'ds', 'applied'], { EDITOR: editor, KUBE_EDITOR: editor });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('daemonset.apps/applied edited');
    const ds = await getJSON('ds', 'applied');
    expect(ds.spec.template.spec.containers[0].image).toBe('agent:3.0');
    expect(ds.metadata.labels.edited).toBe('yes');
  });

  it('rolls a DaemonSet back to its previous revision', async () => {
    // The DaemonSet controller records a ControllerRevision per template; undo patches one back in.
    const until = async (pred: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await pred()); i++) await new Promise((r) => setTimeout(r, 50));
    };
    // Revisions: created (1.0), applied (2.0), restarted, edited (3.0).
    const revisions = async () => (await ok('rollout', 'history', 'ds/applied')).split('\n').filter((l) => /^\d+\s/.test(l)).length;
    await until(async () => (await revisions()) >= 4);
    expect(await revisions()).toBe(4);
    expect(await ok('rollout', 'undo', 'ds/applied')).toContain('daemonset.apps/applied rolled back');
    const ds = await getJSON('ds', 'applied');
    expect(ds.spec.template.spec.containers[0].image).toBe('agent:2.0');
    expect(ds.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBeTruthy();
  });

  it('patches (strategic by default) and sets images, merging containers by name', async () => {
    await ok('patch', 'ds', 'applied', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"helper","image":"helper:1"}]}}}}');
    let containers = (await getJSON('ds', 'applied')).spec.template.spec.containers;
    expect(containers.map((c: any) => c.name).sort()).toEqual(['helper', 'main']);
    expect(await ok('set', 'image', 'ds/applied', 'helper=helper:2')).toContain('daemonset.apps/applied image updated');
    containers = (await getJSON('ds', 'applied')).spec.template.spec.containers;
    expect(containers.find((c: any) => c.name === 'helper').image).toBe('helper:2');
    await ok('patch', 'ds', 'applied', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"helper","$patch":"delete"}]}}}}');
    containers = (await getJSON('ds', 'applied')).spec.template.spec.containers;
    expect(containers.map((c: any) => c.name)).toEqual(['main']);
    // kubectl patch sends no fieldValidation: the default (Warn) drops the field with a warning.
    const unknown = await kubectl(['patch', 'ds', 'applied', '-p', '{"spec":{"bogus":1}}']);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stderr).toContain('Warning: unknown field "spec.bogus"');
    expect(unknown.stdout).toContain('daemonset.apps/applied patched (no change)');
  });

  it('drains a node: cordon, then evict its pods', async () => {
    await ok('create', '-f', file('n2.yaml', nodeYAML('drain-me')));
    const pod = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: drain-me
  containers: [{name: c, image: "busybox:1"}]
${extra}`;
    await ok('create', '-f', file('p1.yaml', pod('plain')));
    await ok('create', '-f', file('p2.yaml', pod('scratchy', '  volumes: [{name: tmp, emptyDir: {}}]\n')));
    const r = await kubectl(['drain', 'drain-me', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--grace-period=0', '--timeout=30s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('node/drain-me cordoned');
    expect(r.stdout).toContain('evicting pod default/plain');
    expect(r.stdout).toContain('pod/plain evicted');
    expect(r.stdout).toContain('node/drain-me drained');
    expect((await getJSON('node', 'drain-me')).spec.unschedulable).toBe(true);
    expect((await kubectl(['get', 'pod', 'plain'])).stderr).toContain('NotFound');
    expect((await kubectl(['get', 'pod', 'scratchy'])).stderr).toContain('NotFound');
  });
});
