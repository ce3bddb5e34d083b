// @vitest-environment jsdom
// A large list against the real server: the first page (FIRST_PAGE) is shown before
// the rest is read, the complete list then replaces it, and the watch starts
// from the list's revision only once the list is complete.
import { beforeAll, describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer } from './testserver.ts';
import { FIRST_PAGE, useList } from './hooks.ts';

const NODES = 620;
let s: TestServer;
const seen: { count: number; partial: boolean }[] = [];

function NodeCount() {
  const { items, partial } = useList(nodeKind);
  seen.push({ count: items.length, partial });
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
    // Nothing complete was ever replaced by a part.
    const firstComplete = seen.findIndex((r) => !r.partial && r.count === NODES);
    expect(seen.slice(firstComplete).every((r) => !r.partial)).toBe(true);
    // The watch runs from the list's revision: a node made now appears.
    await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-late' } } });
    await waitFor(() => expect(screen.getByTestId('count').textContent).toBe(String(NODES + 1)), { timeout: 20_000 });
  }, 60_000);
});
