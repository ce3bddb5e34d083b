// @vitest-environment jsdom
// A large list against the real server: the first page (FIRST_PAGE) is shown before
// the rest is read, the complete list then replaces it, and the watch starts
// from the list's revision only once the list is complete.
import { beforeAll, describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import type { KubeObject } from '../../kinds/kind.ts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer } from './testserver.ts';
import { keepNewest, type ListState, type Newest } from './watch.ts';
import { FIRST_PAGE, listPaging, queryKeys, useList, useObject } from './hooks.ts';
import { getConnection } from './connection.ts';

const NODES = 620;
let s: TestServer;
const seen: { count: number; partial: boolean; total?: number }[] = [];

function NodeCount() {
  const { items, partial, total } = useList(nodeKind);
  seen.push({ count: items.length, partial, total });
  return <p data-testid="count">{`${items.length}${partial ? ' partial' : ''}`}</p>;
}

connectToTestServer({ controllers: false }, (started) => (s = started));
beforeAll(async () => {
  for (let i = 0; i < NODES; i += 40) {
    await Promise.all(Array.from({ length: Math.min(40, NODES - i) }, (_, j) => s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${String(i + j).padStart(4, '0')}` } } })));
  }
}, 120_000);

describe('a list of more than one page', () => {
  it('shows the first page, then the whole list, then what the watch brings', async () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <NodeCount />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('count').textContent).toBe(String(NODES)), { timeout: 20_000 });
    expect(seen.some((r) => r.partial && r.count === FIRST_PAGE)).toBe(true);
    // Each part says how many the server holds (the first page's remainingItemCount); the whole list needs not.
    expect(seen.filter((r) => r.partial).every((r) => r.total === NODES)).toBe(true);
    expect(seen.at(-1)!.total).toBeUndefined();
    // Nothing complete was ever replaced by a part.
    const firstComplete = seen.findIndex((r) => !r.partial && r.count === NODES);
    expect(seen.slice(firstComplete).every((r) => !r.partial)).toBe(true);
    // The watch runs from the list's revision: a node made now appears.
    await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-late' } } });
    await waitFor(() => expect(screen.getByTestId('count').textContent).toBe(String(NODES + 1)), { timeout: 20_000 });
  }, 60_000);

  it('holds its objects without managedFields, listed or watched; an object read with them keeps them', async () => {
    const labelled = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { team: 'a' } } });
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: labelled('n-owned') })).status).toBe(201);
    const qc = new QueryClient();
    let listed: KubeObject[] = [];
    let alone: KubeObject | undefined;
    function Both() {
      listed = useList(nodeKind).items;
      alone = useObject(nodeKind, undefined, 'n-owned', { managedFields: true }).object;
      return null;
    }
    render(
      <QueryClientProvider client={qc}>
        <Both />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(listed.length >= NODES && alone !== undefined).toBe(true), { timeout: 20_000 });
    await s.api('/api/v1/nodes', { method: 'POST', body: labelled('n-watched') });
    await waitFor(() => expect(listed.some((o) => o.metadata.name === 'n-watched')).toBe(true), { timeout: 20_000 });
    const stored = (await s.api('/api/v1/nodes/n-owned')).body;
    expect(stored.metadata.managedFields.length).toBeGreaterThan(0);
    expect(alone).toEqual(stored);
    expect(listed.filter((o) => o.metadata.managedFields !== undefined).map((o) => o.metadata.name)).toEqual([]);
    // Nothing else is lost.
    const { managedFields: _, ...metadata } = stored.metadata;
    expect(listed.find((o) => o.metadata.name === 'n-owned')).toEqual({ ...stored, metadata });
  }, 60_000);

  it('shows a list of many pages in parts, each an addition to the last, as it grows by an eighth, and the whole in order', async () => {
    listPaging.next = 50;
    try {
      const qc = new QueryClient();
      const states: ListState[] = [];
      const key = queryKeys.list(getConnection(), nodeKind);
      qc.getQueryCache().subscribe((e) => {
        const data = e.query.state.data as ListState | undefined;
        if (e.type === 'updated' && e.query.queryKey.join() === key.join() && data && data !== states.at(-1)) states.push(data);
      });
      render(
        <QueryClientProvider client={qc}>
          <NodeCount />
        </QueryClientProvider>,
      );
      await waitFor(() => expect(states.some((st) => !st.partial)).toBe(true), { timeout: 20_000 });
      const complete = states.find((st) => !st.partial)!;
      const parts = states.slice(0, states.indexOf(complete));
      const direct = (await s.api('/api/v1/nodes')).body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
      // The whole list, each node once, in the server's order.
      expect(complete.items.map((o) => o.metadata.name)).toEqual(direct.slice(0, complete.items.length));
      expect(complete.items.length).toBeGreaterThanOrEqual(NODES);
      // Each state adds to the one before it: its items are those and what it says it added.
      let before = parts[0].change!.from;
      expect(before).toEqual([]);
      for (const st of [...parts, complete]) {
        expect(st.change!.from).toBe(before);
        expect(st.items).toEqual([...before, ...st.change!.added]);
        before = st.items;
      }
      // Shown first at the first page, then only as it grew by an eighth: fewer parts than pages.
      expect(parts[0].items.length).toBe(FIRST_PAGE);
      for (const p of parts.slice(1)) expect(p.change!.added.length).toBeGreaterThanOrEqual(p.items.length / 8);
      const pages = 1 + Math.ceil((complete.items.length - FIRST_PAGE) / 50);
      expect(parts.length).toBeLessThan(pages - 1);
    } finally {
      listPaging.next = 2_000;
    }
  }, 60_000);

  it('reads the whole list in idle time, even where every idle period is one that timed out (a page never idle)', async () => {
    listPaging.next = 50;
    const g = globalThis as { requestIdleCallback?: unknown };
    const before = g.requestIdleCallback;
    let calls = 0;
    // Each wait for idle time ends by its timeout, with no time left: one run of items per wait.
    g.requestIdleCallback = (cb: (d: { timeRemaining(): number; didTimeout: boolean }) => void) =>
      setTimeout(() => (calls++, cb({ timeRemaining: () => 0, didTimeout: true })), 1);
    try {
      const qc = new QueryClient();
      const key = queryKeys.list(getConnection(), nodeKind);
      render(
        <QueryClientProvider client={qc}>
          <NodeCount />
        </QueryClientProvider>,
      );
      await waitFor(
        () => {
          const data = qc.getQueryData<ListState>(key);
          expect(data && !data.partial).toBe(true);
        },
        { timeout: 20_000 },
      );
      const direct = (await s.api('/api/v1/nodes')).body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
      expect(qc.getQueryData<ListState>(key)!.items.map((o) => o.metadata.name)).toEqual(direct);
      // Every later page's run waited for its own idle callback.
      expect(calls).toBeGreaterThanOrEqual(Math.ceil((direct.length - FIRST_PAGE) / 50));
    } finally {
      g.requestIdleCallback = before;
      listPaging.next = 2_000;
    }
  }, 60_000);

  it('kept to its newest: lets the oldest go as it reads and as the watch adds, and counts them all', async () => {
    listPaging.next = 50;
    // The node's number is its age here; the newest 100 are kept.
    const at = (o: KubeObject) => Number(/\d+$/.exec(o.metadata.name!)?.[0] ?? -1);
    const newest: Newest = { max: 100, at };
    const qc = new QueryClient();
    const key = queryKeys.list(getConnection(), nodeKind, undefined, undefined, newest);
    const states: ListState[] = [];
    qc.getQueryCache().subscribe((e) => {
      const data = e.query.state.data as ListState | undefined;
      if (e.type === 'updated' && e.query.queryKey.join() === key.join() && data && data !== states.at(-1)) states.push(data);
    });
    const sizes: number[] = [];
    function Newest() {
      const { items, total } = useList(nodeKind, undefined, undefined, newest);
      sizes.push(items.length);
      return <p data-testid="newest">{`${items.length} of ${total}`}</p>;
    }
    const byAge = (names: string[]) => names.sort((a, b) => at({ metadata: { name: b } }) - at({ metadata: { name: a } }));
    const view = render(
      <QueryClientProvider client={qc}>
        <Newest />
      </QueryClientProvider>,
    );
    try {
      await waitFor(
        () => {
          const data = qc.getQueryData<ListState>(key);
          expect(data && !data.partial).toBe(true);
        },
        { timeout: 20_000 },
      );
      const direct: string[] = (await s.api('/api/v1/nodes')).body.items.map((o: KubeObject) => o.metadata.name);
      const listed = [...direct]; // byAge sorts in place
      const kept = qc.getQueryData<ListState>(key)!;
      expect(kept.total).toBe(direct.length);
      // The newest `max`, exactly, once read whole.
      expect(byAge(kept.items.map((o) => o.metadata.name!))).toEqual(byAge(direct).slice(0, 100));
      // Never more than its slack while read.
      expect(Math.max(...sizes)).toBeLessThanOrEqual(125);
      // Shown while read after letting the oldest go (pages of 50 trim it before it grows by an eighth),
      // each part the newest of what was read so far, saying how many that is.
      const parts = states.filter((st) => st.partial);
      const trimmed = parts.filter((st) => st.read! > st.items.length);
      expect(trimmed.length).toBeGreaterThan(1);
      for (const st of trimmed) expect(byAge(st.items.map((o) => o.metadata.name!))).toEqual(byAge(listed.slice(0, st.read)).slice(0, st.items.length));
      expect(parts.map((st) => st.read)).toEqual(parts.map((st) => st.read).sort((a, b) => a! - b!));
      // Each part after the first is told as a change from the one before, a trim's too (what it let go
      // as removed), so that views go on from what they derived instead of deriving the part afresh.
      const names = (os: Iterable<KubeObject>) => [...os].map((o) => o.metadata.name!).sort();
      for (let i = 1; i < parts.length; i++) {
        const { from, removed, added } = parts[i].change!;
        expect(from).toBe(parts[i - 1].items);
        const after = new Set(from);
        for (const o of removed) expect(after.delete(o)).toBe(true);
        for (const o of added) after.add(o);
        expect(names(after)).toEqual(names(parts[i].items));
      }
      expect(trimmed.filter((st) => st.change?.removed.length).length).toBeGreaterThan(0);
      // Thirty newer ones from the watch: the oldest go once past the slack, and all are counted.
      for (let i = 0; i < 30; i++) await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${2000 + i}` } } });
      await waitFor(() => expect(screen.getByTestId('newest').textContent).toMatch(new RegExp(` of ${direct.length + 30}$`)), { timeout: 20_000 });
      const now = qc.getQueryData<ListState>(key)!;
      expect(now.items.length).toBeLessThanOrEqual(125);
      expect(byAge(now.items.map((o) => o.metadata.name!))).toEqual(byAge([...direct, ...Array.from({ length: 30 }, (_, i) => `n-${2000 + i}`)]).slice(0, now.items.length));
      // One of those let go is deleted: counted, though not held.
      await s.api(`/api/v1/nodes/${byAge(direct).at(-1)}`, { method: 'DELETE' });
      await waitFor(() => expect(qc.getQueryData<ListState>(key)!.total).toBe(direct.length + 29), { timeout: 20_000 });
    } finally {
      view.unmount();
      listPaging.next = 2_000;
    }
  }, 60_000);
});

describe('keepNewest', () => {
  const o = (name: string) => ({ metadata: { name } }) as KubeObject;
  const newest = (max: number): Newest => ({ max, at: (x) => Number(x.metadata.name!.split('.')[0]) });
  it('keeps a list within its slack as it is, else the newest `max`, ties at the cutoff in list order', () => {
    const items = ['1', '5', '3', '5.b', '4', '2'].map(o);
    expect(keepNewest(items, newest(5))).toBe(items);
    expect(keepNewest(items, newest(3)).map((x) => x.metadata.name)).toEqual(['5', '5.b', '4']);
    expect(keepNewest(items, newest(1)).map((x) => x.metadata.name)).toEqual(['5']);
    expect(keepNewest(items, newest(2)).map((x) => x.metadata.name)).toEqual(['5', '5.b']);
    // Without slack: exactly `max`.
    expect(keepNewest(items, newest(5), 1).map((x) => x.metadata.name)).toEqual(['5', '3', '5.b', '4', '2']);
  });
});
