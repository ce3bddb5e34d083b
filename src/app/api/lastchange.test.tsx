// @vitest-environment jsdom
// "Last changed by" asks the server's audit log again with every change of the
// object; a server that has no such path (started without an audit log, or a
// real cluster) is asked once, not once per change. Against the real server.
import { expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import type { TestServer } from '../../server/testing.ts';
import { connectToTestServer } from './testserver.ts';
import { getConnection } from './connection.ts';
import { useLastChange } from './lastchange.ts';

let s: TestServer;
connectToTestServer({ controllers: false }, (started) => (s = started));

function LastChangeOf({ rv }: { rv: string }) {
  const { data, isFetched } = useLastChange(getConnection(), nodeKind, undefined, 'n-1', rv);
  return <p data-testid="change">{isFetched ? `${rv}: ${data === null ? 'none' : data?.verb}` : 'asking'}</p>;
}

it('asks a server without the audit path once, however often the object changes', async () => {
  const native = globalThis.fetch;
  const asked: string[] = [];
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes('/debug/audit/last-change')) asked.push(url);
    return native(input, init);
  });
  try {
    const qc = new QueryClient();
    const view = render(
      <QueryClientProvider client={qc}>
        <LastChangeOf rv="1" />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('change').textContent).toBe('1: none'));
    for (const rv of ['2', '3', '4']) {
      view.rerender(
        <QueryClientProvider client={qc}>
          <LastChangeOf rv={rv} />
        </QueryClientProvider>,
      );
      await waitFor(() => expect(screen.getByTestId('change').textContent).toBe(`${rv}: none`));
    }
    // The server answers the path with a bare 404, as kube-apiserver answers a path it does not serve.
    const res = await native(`${s.url}/debug/audit/last-change?resource=nodes&name=n-1`, { headers: { Authorization: `Bearer ${s.adminToken}` } });
    expect(res.status).toBe(404);
    expect(asked).toHaveLength(1);
  } finally {
    vi.unstubAllGlobals();
  }
});
