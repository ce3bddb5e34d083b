// Test support: a real server on an ephemeral port over a temporary SQLite file.
// Requests made through these helpers carry the server's admin token unless a
// test sends an Authorization header of its own (an empty one sends none).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ApiServer, type ServerOptions } from './server.ts';
import { sharedEtcd, uniqueEtcdPrefix } from './testing-etcd.ts';
import { jsonLines as watchEvents } from '../lib/ndjson.ts';

export { watchEvents };

/**
 * The backend test servers run on: `KW_TEST_STORAGE=etcd` puts each on a
 * prefix of its own in one etcd per test process (see server.etcd.test.ts).
 */
export const testStorage = (): 'sqlite' | 'etcd' => (process.env.KW_TEST_STORAGE === 'etcd' ? 'etcd' : 'sqlite');

export interface TestServer extends ApiServer {
  dataDir: string;
  /** `Authorization: Bearer <admin token>`, for fetches of one's own. */
  adminHeaders: Record<string, string>;
  /** fetch against the server, JSON in and out. */
  api(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export async function startTestServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kw-server-'));
  // The simulated kubelets and attacher only when a test asks for them (`simulation: {…}`), and
  // the controllers without leader election unless asked (`leaderElection: {…}`: its lease is
  // renewed every 2 s), so that tests of the bare API see only their own writes.
  const etcd =
    !opts.storage && testStorage() === 'etcd'
      ? ({ storage: 'etcd', etcd: { servers: (await sharedEtcd()).endpoints, prefix: etcdPrefixOf(dataDir) } } as const)
      : {};
  const server = await startServer({ port: 0, controllers: true, simulation: false, leaderElection: false, ...etcd, ...opts, dataDir });
  const adminHeaders = { Authorization: `Bearer ${server.adminToken}` };
  adminTokens.set(new URL(server.url).origin, server.adminToken);
  const api: TestServer['api'] = async (path, init = {}) => {
    const headers: Record<string, string> = withCredentials(server.url, init.headers);
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(server.url + path, { method: init.method ?? 'GET', headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* plain text answers stay text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...server,
    dataDir,
    adminHeaders,
    api,
    async stop() {
      adminTokens.delete(new URL(server.url).origin);
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A server restarted on the same data dir finds its objects: the data dir names its etcd prefix. */
const etcdPrefixes = new Map<string, string>();
const etcdPrefixOf = (dataDir: string) => etcdPrefixes.get(dataDir) ?? etcdPrefixes.set(dataDir, uniqueEtcdPrefix()).get(dataDir)!;

/** Admin tokens of the running test servers by origin, so that helpers given only a URL can sign in. */
const adminTokens = new Map<string, string>();

/** The headers with the admin token of the server at `url` added, unless they carry an Authorization (empty: none). */
export function withCredentials(url: string, headers: Record<string, string> = {}): Record<string, string> {
  const own = Object.keys(headers).find((h) => h.toLowerCase() === 'authorization');
  if (own !== undefined) {
    if (headers[own]) return { ...headers };
    const { [own]: _, ...rest } = headers;
    return rest;
  }
  const token = adminTokens.get(new URL(url).origin);
  return token ? { ...headers, Authorization: `Bearer ${token}` } : { ...headers };
}

/** Reads newline-delimited watch events from a streaming response until `until` says stop. */
export async function readWatch(
  url: string,
  until: (events: any[]) => boolean,
  opts: { signal?: AbortSignal; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<any[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs ?? 10_000);
  const events: any[] = [];
  try {
    const res = await fetch(url, { signal: ac.signal, headers: withCredentials(url, opts.headers) });
    for await (const ev of watchEvents(res.body!)) {
      events.push(ev);
      if (until(events)) {
        ac.abort();
        return events;
      }
    }
    return events;
  } catch (e) {
    if ((e as Error).name === 'AbortError') return events;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads until `ok` holds (every few milliseconds), then returns what was read;
 * after `timeoutMs` fails naming `what` and the last value read.
 */
export async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 20_000, everyMs = 25): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)?.slice(0, 3000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
