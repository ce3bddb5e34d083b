// @vitest-environment jsdom
// What a rollout plan of a DaemonSet change reads (the editor's review, the
// strategy editor): its own pods by its selector and, while its own rollouts
// are too few to pace the plan, the pods of the other DaemonSets whose rollouts
// do; never the namespace's pods whole (ten DaemonSets on 5000 nodes are 50,000
// pods), and nothing planned until each list is read whole. Against the real
// server, the controllers off so that the test sets revisions and statuses.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { paceFor } from '../../../lib/rolloutplan.ts';
import type { TestServer } from '../../../server/testing.ts';
import { connectToTestServer } from '../../api/testserver.ts';
import { setConnection } from '../../api/connection.ts';
import { listPaging, stopAllWatches } from '../../api/hooks.ts';
import { useClusterView } from './RolloutPlanView.tsx';

let s: TestServer;
// erin may read her namespace's pods, revisions and events and change one DaemonSet by name, as a team's role grants: not list DaemonSets, nor (at first) nodes.
const tokens = join(mkdtempSync(join(tmpdir(), 'kw-planview-')), 'tokens.csv');
writeFileSync(tokens, 'erin-token,erin,e-1,\n');
connectToTestServer({ controllers: false, tokenFile: tokens }, (started) => (s = started));

const NS = 'plans';
const merge = { 'Content-Type': 'application/merge-patch+json' };
const paging = listPaging.next;
afterAll(() => void (listPaging.next = paging));

async function daemonSet(name: string, desired: number): Promise<KubeObject> {
  const body = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NS },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: `${name}:1` }] } } },
  };
  const ds = (await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets`, { method: 'POST', body })).body;
  await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets/${name}/status`, { method: 'PATCH', headers: merge, body: { status: { desiredNumberScheduled: desired, currentNumberScheduled: desired, numberMisscheduled: 0, numberReady: 0 } } });
  return ds;
}

const owner = (ds: KubeObject) => [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid, controller: true }];

async function revision(ds: KubeObject, n: number) {
  const body = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: `${ds.metadata.name}-r${n}`, namespace: NS, labels: { 'controller-revision-hash': `r${n}` }, ownerReferences: owner(ds) }, revision: n, data: {} };
  await s.api(`/apis/apps/v1/namespaces/${NS}/controllerrevisions`, { method: 'POST', body });
}

async function pod(ds: KubeObject, name: string, hash: string, app = ds.metadata.name!, ready = false) {
  const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { app, 'controller-revision-hash': hash }, ownerReferences: owner(ds) }, spec: { nodeName: name, containers: [{ name: 'c', image: 'x' }] } };
  await s.api(`/api/v1/namespaces/${NS}/pods`, { method: 'POST', body });
  if (ready) await s.api(`/api/v1/namespaces/${NS}/pods/${name}/status`, { method: 'PATCH', headers: merge, body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } } });
}

/** The pods lists (not watches) the app asks for, by their labelSelector ('(all)' without one). */
function recordPodLists(): string[] {
  const native = globalThis.fetch;
  const lists: string[] = [];
  vi.stubGlobal('WebSocket', undefined);
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname === `/api/v1/namespaces/${NS}/pods` && !url.searchParams.has('watch')) lists.push(url.searchParams.get('labelSelector') ?? '(all)');
    return native(input, init);
  });
  return lists;
}

/** Renders useClusterView(ds); `seen` gets each render's answer. */
/** Renders the view; `done.more()` mounts one more beside it, as a page's later parts mount on the same lists. */
function renderView(ds: KubeObject, seen: (v: ReturnType<typeof useClusterView>) => void) {
  function Plan() {
    seen(useClusterView(ds, true));
    return null;
  }
  const qc = new QueryClient();
  const tree = (n: number) => <QueryClientProvider client={qc}>{Array.from({ length: n }, (_, i) => <Plan key={i} />)}</QueryClientProvider>;
  const view = render(tree(1));
  let views = 1;
  return Object.assign(
    () => {
      view.unmount();
      stopAllWatches(qc);
      vi.unstubAllGlobals();
    },
    { more: () => view.rerender(tree(++views)) },
  );
}

describe("a DaemonSet change's plan", () => {
  it("reads its own pods and the pods of the DaemonSets that give the cluster's pace, each whole before planning", async () => {
    await s.api('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
    // mine: one rollout (its first: no hand-offs), 150 pods, more than a list's first page.
    const mine = await daemonSet('mine', 150);
    await revision(mine, 1);
    for (let i = 0; i < 150; i++) await pod(mine, `mine-${i}`, 'r1');
    // rolled: its second rollout done on three nodes; a stray pod of the namespace no plan reads.
    const rolled = await daemonSet('rolled', 3);
    await revision(rolled, 1);
    await revision(rolled, 2);
    for (const n of ['a', 'b', 'c']) await pod(rolled, `rolled-${n}`, 'r2', 'rolled', true);
    await s.api(`/api/v1/namespaces/${NS}/pods`, { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', namespace: NS, labels: { app: 'stray' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } });

    listPaging.next = 10;
    const podLists = recordPodLists();
    const renders: { loaded: boolean; mine: number; pods: number }[] = [];
    let last: ReturnType<typeof useClusterView> | undefined;
    const done = renderView(mine, (v) => {
      last = v;
      const pods = v.read().pods as KubeObject[];
      renders.push({ loaded: v.loaded, mine: pods.filter((p) => p.metadata.labels?.app === 'mine').length, pods: pods.length });
    });
    try {
      await waitFor(() => expect(last?.loaded).toBe(true), { timeout: 10_000 });
      // Every render that said loaded had every list whole: mine's 150 pods and rolled's 3.
      expect(renders.filter((r) => r.loaded).every((r) => r.mine === 150 && r.pods === 153)).toBe(true);
      // Its pods were shown in part before (the first page), and the plan was not made from them.
      expect(renders.some((r) => !r.loaded && r.mine > 0 && r.mine < 150)).toBe(true);
      // By selector only: its own, then rolled's once its own were read; never the namespace's.
      expect(new Set(podLists)).toEqual(new Set(['app=mine', 'app=rolled']));
      expect(podLists.indexOf('app=rolled')).toBeGreaterThan(podLists.lastIndexOf('app=mine'));
      expect(paceFor(mine as never, last!.read()).source).toMatch(/^the cluster's last rollout \(3 pods\)/);
    } finally {
      done();
    }
  });

  it("reads no other DaemonSet's pods once its own rollouts pace the plan", async () => {
    const rolled = (await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets/rolled`)).body as KubeObject;
    const podLists = recordPodLists();
    let last: ReturnType<typeof useClusterView> | undefined;
    const done = renderView(rolled, (v) => (last = v));
    try {
      await waitFor(() => expect(last?.loaded).toBe(true), { timeout: 10_000 });
      expect(podLists).toEqual(['app=rolled']);
      expect(paceFor(rolled as never, last!.read()).source).toMatch(/^this DaemonSet's last rollout \(3 pods\)/);
    } finally {
      done();
    }
  });
  it('says which list it cannot read instead of waiting; DaemonSets it may not list leave the pace to its own', async () => {
    const mine = (await s.api(`/apis/apps/v1/namespaces/${NS}/daemonsets/mine`)).body as KubeObject;
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'mine-owner', namespace: NS }, rules: [
      { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: ['mine'], verbs: ['get', 'update', 'patch'] },
    ] };
    expect((await s.api(`${rbac}/namespaces/${NS}/roles`, { method: 'POST', body: role })).status).toBe(201);
    const binding = (kind: string, name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: `${kind}Binding`, metadata: { name, ...(kind === 'Role' && { namespace: NS }) }, subjects: [{ kind: 'User', name: 'erin' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name } });
    expect((await s.api(`${rbac}/namespaces/${NS}/rolebindings`, { method: 'POST', body: binding('Role', 'mine-owner') })).status).toBe(201);
    setConnection({ baseUrl: s.url, token: 'erin-token' });
    const native = globalThis.fetch;
    const nodeLists: string[] = [];
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/api/v1/nodes') nodeLists.push(url.search);
      return native(input, init);
    });
    let last: ReturnType<typeof useClusterView> | undefined;
    let done = renderView(mine, (v) => (last = v));
    try {
      await waitFor(() => expect(last?.unreadable).toMatch(/^the nodes could not be read \(.*forbidden/), { timeout: 10_000 });
      expect(last!.loaded).toBe(false);
      // A refusal is not retried (a failure otherwise is, once), nor asked for again by the views that
      // mount on it just after (React Query's retryOnMount): one request, where it was three, and one
      // more a view. (The watch asks again, backing off from a second on, as access may be granted.)
      expect(nodeLists).toHaveLength(1);
      done.more();
      done.more();
      await new Promise((r) => setTimeout(r, 300));
      expect(nodeLists).toHaveLength(1);
    } finally {
      done();
    }
    const nodeReader = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }] };
    expect((await s.api(`${rbac}/clusterroles`, { method: 'POST', body: nodeReader })).status).toBe(201);
    expect((await s.api(`${rbac}/clusterrolebindings`, { method: 'POST', body: binding('ClusterRole', 'node-reader') })).status).toBe(201);
    done = renderView(mine, (v) => (last = v));
    try {
      await waitFor(() => expect(last?.loaded).toBe(true), { timeout: 10_000 });
      expect(last!.unreadable).toBeUndefined();
      // No other DaemonSet's pods to pace it by: mine's own starts are none (its pods never ready), so the default.
      expect(paceFor(mine as never, last!.read()).source).toMatch(/^no rollout observed; assumed/);
    } finally {
      done();
      setConnection({ baseUrl: s.url, token: s.adminToken });
    }
  });
});
