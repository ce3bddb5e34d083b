// @vitest-environment jsdom
// The access answers against the real server's RBAC: asked per object, kept
// while nothing changes, asked again after any request is refused with 403;
// and who the user is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { nodeKind } from '../../kinds/node.ts';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { setConnection } from './connection.ts';
import { api, KubeError } from './client.ts';
import { deniedMessage, reviewSelf, useAccessRefreshOnRefusal, useCanI } from './access.ts';
import { stopAllWatches, useList, useObject } from './hooks.ts';
import { useCredentialsNeeded } from './access.ts';

let s: TestServer;
let dir: string;
const conn = () => ({ baseUrl: s.url, token: 'carol-token' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-access-'));
  writeFileSync(join(dir, 'tokens.csv'), 'carol-token,carol,c-1,node-watchers\ndave-token,dave,d-1,node-watchers\n');
  s = await startTestServer({ tokenFile: join(dir, 'tokens.csv') });
  setConnection(conn());
  await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
  await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } } });
});
afterAll(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(s.dataDir, { recursive: true, force: true });
});

function Gate({ name }: { name: string }) {
  useAccessRefreshOnRefusal();
  const access = useCanI('delete', nodeKind, undefined, undefined, name);
  return <p data-testid={name}>{access === undefined ? 'asking' : access.allowed ? 'allowed' : access.message}</p>;
}

const grantDelete = (name: string) =>
  s.api('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    method: 'POST',
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['delete'], resourceNames: ['n1'] }] },
  });

describe('useCanI', () => {
  it('asks per object, keeps the answer, and asks again after a 403', async () => {
    const qc = new QueryClient();
    render(
      <QueryClientProvider client={qc}>
        <Gate name="n1" />
        <Gate name="n2" />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('n1').textContent).toBe('carol may not delete nodes "n1"'));
    await waitFor(() => expect(screen.getByTestId('n2').textContent).toBe('carol may not delete nodes "n2"'));

    // Granted behind the app's back: the cached answer stands until something is refused.
    await grantDelete('delete-n1');
    const bind = await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'carol-delete-n1' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'delete-n1' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }],
      },
    });
    expect(bind.status).toBe(201);
    expect(screen.getByTestId('n1').textContent).toMatch(/may not/);

    // Any refusal makes every answer stale: n1 is now allowed, n2 still not (the rule names n1 only).
    await act(async () => {
      await expect(api.list(conn(), nodeKind)).rejects.toMatchObject({ code: 403 });
    });
    await waitFor(() => expect(screen.getByTestId('n1').textContent).toBe('allowed'));
    expect(screen.getByTestId('n2').textContent).toBe('carol may not delete nodes "n2"');
  });
});

describe('useObject', () => {
  it('reads an object the user may get but not list by itself', async () => {
    await s.api('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      method: 'POST',
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'get-n2' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'], resourceNames: ['n2'] }] },
    });
    await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'carol-get-n2' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'get-n2' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }],
      },
    });
    function One({ name }: { name: string }) {
      const { object, error } = useObject(nodeKind, undefined, name);
      return <p data-testid={`one-${name}`}>{object ? `found ${object.metadata.name}` : error ? `error ${(error as KubeError).code}` : 'waiting'}</p>;
    }
    render(
      <QueryClientProvider client={new QueryClient()}>
        <One name="n2" />
        <One name="n1" />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('one-n2').textContent).toBe('found n2'), { timeout: 10_000 });
    await waitFor(() => expect(screen.getByTestId('one-n1').textContent).toBe('error 403'), { timeout: 10_000 });
  });
});

describe('credentials', () => {
  it('a token the server stops accepting mid-session asks for credentials (the live watch relists and hears 401)', async () => {
    await s.api('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      method: 'POST',
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'list-nodes' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] }] },
    });
    await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      method: 'POST',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'dave-list-nodes' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'list-nodes' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dave' }],
      },
    });
    setConnection({ baseUrl: s.url, token: 'dave-token' });
    function Names() {
      const { items } = useList(nodeKind);
      return (
        <p data-testid="names">
          {items.length} {String(useCredentialsNeeded())}
        </p>
      );
    }
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <Names />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('names').textContent).toBe('2 false'), { timeout: 10_000 });
    // The server comes back without dave's token.
    const port = Number(new URL(s.url).port);
    await s.close();
    writeFileSync(join(dir, 'tokens.csv'), 'carol-token,carol,c-1,node-watchers\n');
    s = await startTestServer({ dataDir: s.dataDir, port, tokenFile: join(dir, 'tokens.csv') });
    await waitFor(() => expect(screen.getByTestId('names').textContent).toBe('2 true'), { timeout: 30_000 });
    view.unmount();
    stopAllWatches(qc);
  }, 40_000);
});

describe('reviewSelf', () => {
  it('says who the token signs in as; a refused token is a 401', async () => {
    expect(await reviewSelf(conn())).toMatchObject({ username: 'carol', groups: expect.arrayContaining(['node-watchers', 'system:authenticated']) });
    await expect(reviewSelf({ baseUrl: s.url, token: 'nobody' })).rejects.toBeInstanceOf(KubeError);
  });
});

describe('deniedMessage', () => {
  it('names the user, verb, resource with its group, object and namespace', () => {
    const ds = { ...nodeKind, group: 'apps', plural: 'daemonsets', scope: 'Namespaced' as const };
    expect(deniedMessage({ verb: 'update', kind: ds, namespace: 'shop', name: 'x', subresource: 'status' }, 'vera')).toBe('vera may not update daemonsets.apps/status "x" in namespace "shop"');
    expect(deniedMessage({ verb: 'create', kind: ds }, undefined, 'RBAC: role "r" not found')).toBe('You may not create daemonsets.apps in all namespaces (RBAC: role "r" not found)');
  });
});
