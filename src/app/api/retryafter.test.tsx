// @vitest-environment jsdom
// A server that answers a list with 429 and Retry-After (as one loading its
// store does, or one whose requests in flight are all taken) is asked again
// after the seconds it said, as client-go does: the app says it is
// reconnecting, not offline, and the list fills as soon as the server takes
// it. Here the real server's only read-only slot (--max-requests-inflight 1)
// is held by a list of 12 MB to a client that does not read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { nodeKind } from '../../kinds/node.ts';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { setConnection } from './connection.ts';
import { stopAllWatches, useList, useWatchHealth } from './hooks.ts';

const READER_TOKEN = 'reader-token';
const NODES = 60;

let s: TestServer;

function NodeCount() {
  const { items } = useList(nodeKind);
  const health = useWatchHealth();
  return (
    <p>
      <span data-testid="health">{health}</span> <span data-testid="count">{items.length}</span>
    </p>
  );
}

/** The reader's list of every node, its answer left unread: the server waits on the socket, holding the slot. */
function holdReadSlot(): Socket {
  const { port } = new URL(s.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(`GET /api/v1/nodes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${READER_TOKEN}\r\n\r\n`);
  socket.pause();
  return socket;
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-retryafter-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${READER_TOKEN},reader,uid-reader,\n`);
  s = await startTestServer({ tokenFile, limits: { maxRequestsInflight: 1 } });
  await s.api('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    method: 'POST',
    body: { metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }] },
  });
  await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    method: 'POST',
    body: { metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' }, subjects: [{ kind: 'User', name: 'reader', apiGroup: 'rbac.authorization.k8s.io' }] },
  });
  // 200 KB of annotations each: a list larger than the socket buffers take.
  const filler = 'x'.repeat(200 * 1024);
  for (let i = 0; i < NODES; i++) {
    const r = await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}`, annotations: { filler } } } });
    expect(r.status).toBe(201);
  }
  setConnection({ baseUrl: s.url, token: READER_TOKEN });
}, 60_000);

afterAll(async () => {
  cleanup();
  stopAllWatches();
  await s.stop();
});

describe('a list answered 429 with Retry-After', () => {
  it('is asked again after the seconds the server said, reconnecting rather than offline, and fills once the server takes it', async () => {
    const holder = holdReadSlot();
    const asReader = () => fetch(`${s.url}/api/v1/namespaces?limit=1`, { headers: { Authorization: `Bearer ${READER_TOKEN}` } }).then(async (r) => [r.status, r.headers.get('retry-after'), (await r.json()).reason]);
    await waitFor(async () => expect(await asReader()).toEqual([429, '1', 'TooManyRequests']));
    const qc = new QueryClient();
    render(
      <QueryClientProvider client={qc}>
        <NodeCount />
      </QueryClientProvider>,
    );
    // Backing off (1, 2, then 4 s) the watch called the server offline at its third failure, about 3 s in.
    const seen = new Set<string>();
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      seen.add(screen.getByTestId('health').textContent!);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.has('reconnecting')).toBe(true);
    expect(seen.has('offline')).toBe(false);
    expect(screen.getByTestId('count').textContent).toBe('0');
    holder.destroy();
    await waitFor(() => expect(screen.getByTestId('count').textContent).toBe(String(NODES)), { timeout: 5000 });
    await waitFor(() => expect(screen.getByTestId('health').textContent).toBe('live'));
  }, 30_000);
});
