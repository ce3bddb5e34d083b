// The app's tests against a real API server (server/testing.ts): one server for
// the test file, the app's connection pointed at it as its admin, and the app's
// watches and the server stopped after the file's tests.
import { afterAll, beforeAll } from 'vitest';
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
