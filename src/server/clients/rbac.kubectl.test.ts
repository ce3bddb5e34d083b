// Who may do what, with the real kubectl as several --token-file users over
// the server's own TLS and CA: 401 without credentials, the bootstrap roles
// (view, edit, admin), status writes reserved to the system (SPEC section 5),
// the Node authorizer and NodeRestriction, escalation prevention, and
// `kubectl auth can-i` / `--as` / `whoami` agreeing with what then happens.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYAML } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let k: Kubectl;
const as = (user: string, ...args: string[]) => k('--context', user, ...args);

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-rbac-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(
    tokenFile,
    ['viewer-token,viewer,u1,viewers', 'editor-token,editor,u2,editors', 'node-a-token,system:node:node-a,u3,system:nodes', ''].join('\n'),
  );
  s = await startTestServer({ tokenFile });
  k = kubectlFor(s, {
    users: [
      { name: 'admin', token: s.adminToken },
      { name: 'viewer', token: 'viewer-token' },
      { name: 'editor', token: 'editor-token' },
      { name: 'node-a', token: 'node-a-token' },
      { name: 'stranger', token: 'not-a-token' },
    ],
  });
  const setup = [
    ['create', 'clusterrolebinding', 'viewers-view', '--clusterrole=view', '--group=viewers'],
    ['create', 'clusterrolebinding', 'editors-admin', '--clusterrole=admin', '--group=editors'],
    ['create', 'clusterrolebinding', 'editors-edit', '--clusterrole=edit', '--group=editors'],
  ];
  for (const args of setup) expect((await k(...args)).stderr).toBe('');
  const nodes = ['node-a', 'node-b'].map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { none: 'x' }, containers: [{ name: 'c', image: 'c:1' }] } } },
  };
  const va = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: 'va-1' },
    spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } },
  };
  const file = k.manifest('objects', [...nodes, ds, va].map((o) => stringifyYAML(o)).join('---\n'));
  const applied = await k('apply', '-f', file);
  expect(applied.code, applied.stderr).toBe(0);
});
afterAll(async () => {
  await s?.stop();
});

describe('authentication', () => {
  it('answers 401 without a token, and says who a user is (kubectl auth whoami)', async () => {
    const r = await as('stranger', 'get', 'pods');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    const who = JSON.parse((await as('viewer', 'auth', 'whoami', '-o', 'json')).stdout);
    expect(who.status.userInfo).toEqual({ username: 'viewer', uid: 'u1', groups: ['viewers', 'system:authenticated'] });
    expect((await k('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}')).stdout).toContain('system:masters');
  });
});

describe('the bootstrap roles', () => {
  it('lets view list but not create, and can-i says so first', async () => {
    expect((await as('viewer', 'auth', 'can-i', 'list', 'pods')).stdout.trim()).toBe('yes');
    expect((await as('viewer', 'get', 'pods')).code).toBe(0);
    const canCreate = await as('viewer', 'auth', 'can-i', 'create', 'configmaps');
    expect(canCreate.stdout.trim()).toBe('no');
    expect(canCreate.code).toBe(1);
    const r = await as('viewer', 'create', 'configmap', 'c1', '--from-literal=a=b');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('configmaps is forbidden: User "viewer" cannot create resource "configmaps" in API group "" in the namespace "default"');
    // Nothing cluster-scoped: view grants no nodes.
    expect((await as('viewer', 'get', 'nodes')).stderr).toContain('cannot list resource "nodes" in API group "" at the cluster scope');
  });

  it('keeps status writes from users with admin and edit (nodes/status, daemonsets/status)', async () => {
    expect((await as('editor', 'auth', 'can-i', 'patch', 'daemonsets', '--subresource=status')).stdout.trim()).toBe('no');
    const ds = await as('editor', 'patch', 'daemonset', 'agent', '--subresource=status', '--type=merge', '-p', '{"status":{"numberReady":5}}');
    expect(ds.code).toBe(1);
    expect(ds.stderr).toContain('daemonsets.apps "agent" is forbidden: User "editor" cannot patch resource "daemonsets/status" in API group "apps" in the namespace "default"');
    const node = await as('editor', 'patch', 'node', 'node-a', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"x"}}');
    expect(node.code).toBe(1);
    // kubectl reads the subresource first; admin and edit grant no nodes at all.
    expect(node.stderr).toContain('nodes "node-a" is forbidden: User "editor" cannot get resource "nodes/status" in API group "" at the cluster scope');
    const direct = await s.api('/api/v1/nodes/node-a/status', {
      method: 'PATCH',
      headers: { Authorization: 'Bearer editor-token', 'Content-Type': 'application/merge-patch+json' },
      body: { status: { phase: 'x' } },
    });
    expect(direct.status).toBe(403);
    expect(direct.body.message).toBe('nodes "node-a" is forbidden: User "editor" cannot patch resource "nodes/status" in API group "" at the cluster scope');
    // The same user may edit the DaemonSet itself.
    expect((await as('editor', 'label', 'daemonset', 'agent', 'team=a')).code).toBe(0);
  });

  it('lets only the attacher write volumeattachments/status', async () => {
    const patch = ['patch', 'volumeattachment', 'va-1', '--subresource=status', '--type=merge', '-p', '{"status":{"attached":true}}'];
    for (const user of ['editor', 'viewer', 'node-a']) {
      const r = await as(user, ...patch);
      expect(r.code, user).toBe(1);
      expect(r.stderr).toContain('volumeattachments.storage.k8s.io "va-1" is forbidden');
    }
    const attacher = ['--as=system:serviceaccount:kube-system:csi-attacher'];
    expect((await k('auth', 'can-i', 'patch', 'volumeattachments', '--subresource=status', ...attacher)).stdout.trim()).toBe('yes');
    expect((await k('auth', 'can-i', 'patch', 'volumeattachments', '--subresource=status', '--as=editor', '--as-group=editors')).stdout.trim()).toBe('no');
    const r = await k(...patch, ...attacher);
    expect(r.stderr).toBe('');
    expect((await k('get', 'volumeattachment', 'va-1', '-o', 'jsonpath={.status.attached}')).stdout).toBe('true');
  });
});

describe('a node identity (Node authorizer and NodeRestriction)', () => {
  it("updates its own Node's status, not another's", async () => {
    const own = await as('node-a', 'patch', 'node', 'node-a', '--subresource=status', '--type=merge', '-p', '{"status":{"capacity":{"pods":"12"}}}');
    expect(own.stderr).toBe('');
    expect((await k('get', 'node', 'node-a', '-o', 'jsonpath={.status.capacity.pods}')).stdout).toBe('12');
    const other = await as('node-a', 'patch', 'node', 'node-b', '--subresource=status', '--type=merge', '-p', '{"status":{"capacity":{"pods":"12"}}}');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"');
  });

  it('writes the status only of pods bound to it', async () => {
    const pod = (name: string, node: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'c:1' }] } });
    expect((await k('apply', '-f', k.manifest('pods', [pod('on-a', 'node-a'), pod('on-b', 'node-b')].map((o) => stringifyYAML(o)).join('---\n')))).stderr).toBe('');
    const patch = (name: string) => as('node-a', 'patch', 'pod', name, '--subresource=status', '--type=merge', '-p', '{"status":{"message":"hello"}}');
    expect((await patch('on-a')).stderr).toBe('');
    const r = await patch('on-b');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('node "node-a" can only update pod status for pods with spec.nodeName set to itself');
  });
});

describe('escalation prevention', () => {
  it('refuses a role or binding granting more than the requester holds, and allows what they hold', async () => {
    // admin holds get on pods in default: a Role with it is fine.
    expect((await as('editor', 'create', 'role', 'pod-reader', '--verb=get', '--resource=pods')).stderr).toBe('');
    const role = await as('editor', 'create', 'role', 'node-writer', '--verb=update', '--resource=nodes');
    expect(role.code).toBe(1);
    expect(role.stderr).toContain('roles.rbac.authorization.k8s.io "node-writer" is forbidden: user "editor" (groups=["editors" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
    expect(role.stderr).toContain('{APIGroups:[""], Resources:["nodes"], Verbs:["update"]}');
    expect((await as('editor', 'create', 'rolebinding', 'viewers', '--clusterrole=view', '--group=viewers')).stderr).toBe('');
    const binding = await as('editor', 'create', 'rolebinding', 'me-admin', '--clusterrole=cluster-admin', '--user=editor');
    expect(binding.code).toBe(1);
    expect(binding.stderr).toContain('rolebindings.rbac.authorization.k8s.io "me-admin" is forbidden: user "editor"');
    // Not even through the cluster: no clusterrolebindings for admin.
    expect((await as('editor', 'auth', 'can-i', 'create', 'clusterrolebindings')).stdout.trim()).toBe('no');
  });
});

describe('impersonation (kubectl --as)', () => {
  it('answers can-i for another user as their own requests are then answered', async () => {
    expect((await k('auth', 'can-i', 'delete', 'daemonsets', '--as=viewer', '--as-group=viewers')).stdout.trim()).toBe('no');
    const r = await k('delete', 'daemonset', 'agent', '--as=viewer', '--as-group=viewers');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('User "viewer" cannot delete resource "daemonsets"');
    expect((await k('auth', 'can-i', 'get', 'daemonsets', '--as=viewer', '--as-group=viewers')).stdout.trim()).toBe('yes');
    expect((await k('get', 'daemonset', 'agent', '--as=viewer', '--as-group=viewers', '-o', 'name')).stdout.trim()).toBe('daemonset.apps/agent');
    expect(JSON.parse((await k('auth', 'whoami', '--as=viewer', '-o', 'json')).stdout).status.userInfo.username).toBe('viewer');
  });

  it('needs the impersonate verb', async () => {
    const r = await as('viewer', 'get', 'pods', '--as=editor');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('users "editor" is forbidden: User "viewer" cannot impersonate resource "users" in API group "" at the cluster scope');
  });
});

describe('aggregation', () => {
  it('adds the rules of a ClusterRole labelled aggregate-to-view to view, edit and admin', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'node-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
    };
    expect((await k('apply', '-f', k.manifest('node-viewer', JSON.stringify(role)))).code).toBe(0);
    for (let i = 0; i < 100; i++) {
      if ((await as('viewer', 'auth', 'can-i', 'list', 'nodes')).stdout.trim() === 'yes') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await as('viewer', 'get', 'nodes', '-o', 'name')).stdout).toContain('node/node-a');
    expect((await k('get', 'clusterrole', 'admin', '-o', 'jsonpath={.rules[*].resources}')).stdout).toContain('"nodes"');
  });
});
