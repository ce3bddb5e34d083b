// @vitest-environment jsdom
// The data layer against the real server: a list query kept live by its
// watch, a re-list after 410 Expired, and reconnection after the server
// went away.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import { SqliteStorage } from '../../server/storage/sqlite.ts';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { getConnection, setConnection } from './connection.ts';
import { onRefusal } from './client.ts';
import { useCredentialsNeeded } from './access.ts';
import { stopAllWatches, useList, useWatchHealth } from './hooks.ts';
import type { ListState } from './watch.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import { join } from 'node:path';

let s: TestServer;
let port: number;

const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });

/** The items NodeNames last rendered. */
let rendered: readonly KubeObject[] = [];

function NodeNames() {
  const { items } = useList(nodeKind);
  const health = useWatchHealth();
  rendered = items;
  return (
    <div>
      <p data-testid="health">{health}</p>
      <ul>
        {items
          .map((n) => `${n.metadata.name}${(n.spec as any)?.unschedulable ? ' (cordoned)' : ''}`)
          .sort()
          .map((n) => (
            <li key={n}>{n}</li>
          ))}
      </ul>
    </div>
  );
}

function renderList() {
  const qc = new QueryClient();
  return render(
    <QueryClientProvider client={qc}>
      <NodeNames />
    </QueryClientProvider>,
  );
}

const names = () => screen.queryAllByRole('listitem').map((li) => li.textContent);

/** What the watch's probe asks of the list (hooks.ts): no object. */
const NO_OBJECT = 'metadata.name=/';
const realFetch = globalThis.fetch;

/** The node list requests (not watches) from now on, as the test's fetch sees them (restored after each test). */
function listRequests(): string[] {
  const lists: string[] = [];
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes('/api/v1/nodes?') && !url.includes('watch=')) lists.push(url);
    return realFetch(input, init);
  }) as typeof fetch;
  return lists;
}

beforeAll(async () => {
  s = await startTestServer({ watchCacheSize: 5 });
  port = Number(new URL(s.url).port);
  setConnection({ baseUrl: s.url, token: s.adminToken });
});
afterAll(async () => {
  stopAllWatches();
  await s.stop();
});

describe('useList with its watch', () => {
  // A list's watch lingers 5 s after its view goes (so moving between pages does not relist): here
  // it would go on in the next test, which counts its health and its requests.
  afterEach(() => {
    globalThis.fetch = realFetch;
    cleanup();
    stopAllWatches();
  });

  it('applies ADDED, MODIFIED and DELETED from the watch', async () => {
    await s.api('/api/v1/nodes', { method: 'POST', body: node('first') });
    const view = renderList();
    await waitFor(() => expect(names()).toEqual(['first']));
    await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
    await act(async () => {
      await s.api('/api/v1/nodes', { method: 'POST', body: node('second') });
      await s.api('/api/v1/nodes/first', { method: 'PATCH', body: { spec: { unschedulable: true } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    });
    await waitFor(() => expect(names()).toEqual(['first (cordoned)', 'second']));
    await act(async () => {
      await s.api('/api/v1/nodes/second', { method: 'DELETE' });
    });
    await waitFor(() => expect(names()).toEqual(['first (cordoned)']));
    view.unmount();
  });

  it('each watch update says what it changed, from the items the last update left', async () => {
    const states: ListState[] = [];
    function Recorder() {
      const { data } = useList(nodeKind);
      if (data && states[states.length - 1] !== data) states.push(data);
      return <p data-testid="count">{data?.items.length ?? 0}</p>;
    }
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <Recorder />
        <NodeNames />
      </QueryClientProvider>,
    );
    try {
      // Listed (the first state), and the watch running from there.
      await waitFor(() => expect(states.length).toBeGreaterThan(0));
      await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
      await act(async () => {
        await s.api('/api/v1/nodes', { method: 'POST', body: node('changes-a') });
      });
      await waitFor(() => expect(names()).toContain('changes-a'));
      await act(async () => {
        await s.api('/api/v1/nodes/changes-a', { method: 'PATCH', body: { spec: { unschedulable: true } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      });
      await waitFor(() => expect(names()).toContain('changes-a (cordoned)'));
      await act(async () => {
        await s.api('/api/v1/nodes/changes-a', { method: 'DELETE' });
      });
      await waitFor(() => expect(names().some((n) => n?.startsWith('changes-a'))).toBe(false));
      const updates = states.slice(1);
      expect(updates.length).toBeGreaterThanOrEqual(3);
      updates.forEach(({ change, items }, i) => {
        // The very array the state before held (not a copy of it), so views can go on from what they derived.
        expect(change?.from).toBe(states[i].items);
        const after = change!.from.filter((o) => !change!.removed.includes(o)).concat(change!.added);
        expect(new Set(items)).toEqual(new Set(after));
      });
      const named = (xs: { metadata: { name?: string } }[]) => xs.map((o) => o.metadata.name);
      expect(updates.flatMap((u) => named(u.change!.added))).toEqual(['changes-a', 'changes-a']);
      expect(updates.flatMap((u) => named(u.change!.removed))).toEqual(['changes-a', 'changes-a']);
    } finally {
      view.unmount();
      stopAllWatches(qc);
    }
  });

  it('reconnects after the server restarts and re-lists when its resourceVersion was compacted, keeping the objects it held that did not change', async () => {
    const view = renderList();
    await waitFor(() => expect(names()).toEqual(['first (cordoned)']));
    await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
    const first = rendered.find((n) => n.metadata.name === 'first');
    const lists = listRequests();
    await s.close();
    await waitFor(() => expect(['reconnecting', 'offline']).toContain(screen.getByTestId('health').textContent), { timeout: 10_000 });
    // While the server is down, history moves on and is compacted away.
    const storage = SqliteStorage.open(join(s.dataDir, 'state.db'));
    for (const n of ['third', 'fourth']) {
      await storage.create(`/registry/core/nodes/${n}`, JSON.stringify({ ...node(n), metadata: { name: n, uid: `uid-${n}` } }));
    }
    await storage.compact(await storage.currentRevision());
    await storage.close();
    s = await startTestServer({ dataDir: s.dataDir, port, watchCacheSize: 5 });
    await waitFor(() => expect(names()).toEqual(['first (cordoned)', 'fourth', 'third']), { timeout: 20_000 });
    await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
    // The list was read again (not only probed), and the node read again at its resourceVersion is the object held before, not a second copy.
    expect(lists.filter((u) => new URL(u).searchParams.get('fieldSelector') !== NO_OBJECT).length).toBeGreaterThan(0);
    expect(first).toBeDefined();
    expect(rendered.find((n) => n.metadata.name === 'first')).toBe(first);
    await act(async () => {
      await s.api('/api/v1/nodes', { method: 'POST', body: node('fifth') });
    });
    await waitFor(() => expect(names()).toContain('fifth'));
    view.unmount();
  }, 40_000);

  it('after a restart that kept its history, goes on watching from its revision without reading the list again', async () => {
    const view = renderList();
    await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
    const lists = listRequests();
    try {
      await s.close();
      // Past the retries after which the watch asks the server why it fails.
      await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('offline'), { timeout: 20_000 });
      const storage = SqliteStorage.open(join(s.dataDir, 'state.db'));
      await storage.create('/registry/core/nodes/while-down', JSON.stringify({ ...node('while-down'), metadata: { name: 'while-down', uid: 'uid-while-down' } }));
      await storage.close();
      s = await startTestServer({ dataDir: s.dataDir, port, watchCacheSize: 5 });
      // What was written meanwhile comes as the resumed watch's event.
      await waitFor(() => expect(names()).toContain('while-down'), { timeout: 30_000 });
      await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
      // Only probes, lists of no object, were asked (failing while the server was down, then answered): the list was not read again.
      expect(lists.length).toBeGreaterThan(0);
      expect(lists.filter((u) => new URL(u).searchParams.get('fieldSelector') !== NO_OBJECT)).toEqual([]);
    } finally {
      view.unmount();
    }
  }, 60_000);

  it('a refused list (401) asks for credentials and is not shown as a dead connection', async () => {
    const saved = getConnection();
    setConnection({ baseUrl: s.url, token: 'not-a-token' });
    let refusals = 0;
    const off = onRefusal((code, _conn, path) => void (code === 401 && path.startsWith('/api/v1/nodes') && refusals++));
    function Probe() {
      return <p data-testid="needed">{String(useCredentialsNeeded())}</p>;
    }
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <NodeNames />
        <Probe />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('needed').textContent).toBe('true'));
    // Past the retries after which an unreachable server shows offline.
    await waitFor(() => expect(refusals).toBeGreaterThan(4), { timeout: 30_000 });
    expect(screen.getByTestId('health').textContent).not.toBe('offline');
    off();
    view.unmount();
    stopAllWatches(qc);
    setConnection(saved);
  }, 40_000);
});
