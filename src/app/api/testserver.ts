// The app's tests against a real API server (server/testing.ts): one server for
// the test file, the app's connection pointed at it as its admin, and the app's
// watches and the server stopped after the file's tests.
import { afterAll, beforeAll, vi } from 'vitest';
import type { ServerOptions } from '../../server/server.ts';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { setConnection } from './connection.ts';
import { stopAllWatches } from './hooks.ts';

/** Starts the file's server before its tests; `started` gets it (the file keeps it in a variable of its own). */
export function connectToTestServer(opts: Partial<ServerOptions>, started: (s: TestServer) => void) {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startTestServer(opts);
    started(s);
    setConnection({ baseUrl: s.url, token: s.adminToken });
  });
  afterAll(async () => {
    stopAllWatches();
    await s?.stop();
  });
}

/**
 * Records every watch stream the app opens (over fetch: jsdom's WebSocket cannot
 * reach the server), passing it on untouched: the text each received so far, by
 * `keyOf` its address (the path, unless a test says otherwise).
 */
export function recordWatches(keyOf: (url: URL) => string = (url) => url.pathname): Map<string, string> {
  const received = new Map<string, string>();
  const native = globalThis.fetch;
  vi.stubGlobal('WebSocket', undefined);
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const res = await native(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.searchParams.has('watch') || !res.ok || !res.body) return res;
    const key = keyOf(url);
    received.set(key, '');
    const decoder = new TextDecoder();
    const seen = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        received.set(key, received.get(key) + decoder.decode(chunk, { stream: true }));
        out.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(seen), { status: res.status, statusText: res.statusText, headers: res.headers });
  });
  return received;
}
