// @vitest-environment jsdom
// A list read in pages is watched from its revision once its first page is in, not once it is
// whole: what changes meanwhile waits, and is applied to the whole list. Against a server whose
// history is short (as 5000 nodes' Lease renewals make it), a watch from the revision of a list
// that took long to read got 410 Expired, and the list was read again.
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { KubeObject } from '../../kinds/kind.ts';
import { nodeKind } from '../../kinds/node.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer } from './testserver.ts';
import { getConnection } from './connection.ts';
import { listPaging, queryKeys, useList } from './hooks.ts';
import type { ListState } from './watch.ts';

const NODES = 300;
let s: TestServer;
connectToTestServer({ controllers: false, watchCacheSize: 20 }, (started) => (s = started));
beforeAll(async () => {
  for (let i = 0; i < NODES; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${String(i + j).padStart(4, '0')}` } } })));
  }
}, 60_000);
afterEach(() => {
  vi.unstubAllGlobals();
  listPaging.next = 2_000;
});

function Nodes() {
  useList(nodeKind);
  return null;
}

it("watches from the list's revision while its later pages are read, and applies what came meanwhile to the whole list", async () => {
  listPaging.next = 50;
  // The later pages wait for idle time, which the test gives only once it has changed the nodes.
  let gated = true;
  const waiting: (() => void)[] = [];
  const idle = (cb: (d: { timeRemaining(): number; didTimeout: boolean }) => void) => {
    const run = () => cb({ timeRemaining: () => 50, didTimeout: false });
    if (gated) waiting.push(run);
    else setTimeout(run, 0);
    return 0;
  };
  vi.stubGlobal('requestIdleCallback', idle);
  // Every request the app makes, and whether the list was whole when a watch was asked for.
  const qc = new QueryClient();
  const key = queryKeys.list(getConnection(), nodeKind);
  const asked: { url: URL; listWhole: boolean }[] = [];
  const native = globalThis.fetch;
  vi.stubGlobal('WebSocket', undefined);
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    asked.push({ url: new URL(input instanceof Request ? input.url : String(input)), listWhole: qc.getQueryData<ListState>(key)?.partial === false });
    return native(input, init);
  });
  const view = render(
    <QueryClientProvider client={qc}>
      <Nodes />
    </QueryClientProvider>,
  );
  try {
    await vi.waitFor(() => expect(asked.some((a) => a.url.searchParams.has('watch'))).toBe(true), { timeout: 10_000 });
    const watch = asked.find((a) => a.url.searchParams.has('watch'))!;
    expect(watch.listWhole).toBe(false);
    const first = qc.getQueryData<ListState>(key)!;
    expect(first.partial).toBe(true);
    expect(watch.url.searchParams.get('resourceVersion')).toBe(first.resourceVersion);

    // Meanwhile: nodes made, changed and deleted, past the server's history of 20 revisions, compacted.
    for (let i = 0; i < 30; i++) await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `late-${i}` } } });
    await s.api('/api/v1/nodes/n-0000', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { changed: 'yes' } } } });
    await s.api(`/api/v1/nodes/n-${String(NODES - 1).padStart(4, '0')}`, { method: 'DELETE' });
    await s.storage.compact(s.cache.revision);

    gated = false;
    waiting.splice(0).forEach((run) => run());
    const direct: KubeObject[] = (await s.api('/api/v1/nodes')).body.items;
    await vi.waitFor(
      () => {
        const now = qc.getQueryData<ListState>(key)!;
        expect(now.partial).toBeFalsy();
        expect(now.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort()).toEqual(direct.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort());
      },
      { timeout: 10_000 },
    );
    // One list, one watch: no 410 Expired made the app read the list again.
    // (The test's own requests ask for no limit.)
    const lists = asked.filter((a) => a.url.searchParams.has('limit') && !a.url.searchParams.has('continue'));
    expect(lists).toHaveLength(1);
    expect(asked.filter((a) => a.url.searchParams.has('watch'))).toHaveLength(1);
  } finally {
    view.unmount();
  }
}, 60_000);
