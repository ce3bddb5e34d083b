// /healthz, /livez and /readyz over real HTTP, in k8s.io/apiserver's format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { serveHealth, type HealthCheck } from './healthz.ts';

let server: Server;
let base: string;
let failing = true;
const checks: HealthCheck[] = [
  { name: 'leaderElection', endpoints: ['healthz', 'readyz'], check: () => ({ detail: 'leading' }) },
  { name: 'etcd', endpoints: ['healthz', 'livez', 'readyz'], check: async () => (failing ? { error: 'no quorum' } : {}) },
];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    void serveHealth(url.pathname, url.searchParams, checks, res).then((served) => served || res.writeHead(418).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as any).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = async (path: string) => {
  const res = await fetch(base + path);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
};

describe('health endpoints', () => {
  it('list every check with the reason withheld when one fails (500), and say ok when all pass', async () => {
    failing = true;
    expect(await get('/readyz')).toEqual({
      status: 500,
      body: '[+]ping ok\n[+]leaderElection ok: leading\n[-]etcd failed: reason withheld\nreadyz check failed\n',
      type: 'text/plain; charset=utf-8',
    });
    expect(await get('/readyz?exclude=etcd')).toMatchObject({ status: 200, body: 'ok' });
    failing = false;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get('/readyz?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\n[+]leaderElection ok: leading\n[+]etcd ok\nreadyz check passed\n' });
  });

  it('run only their own checks, and one check by name', async () => {
    failing = false;
    expect((await get('/livez?verbose')).body).toBe('[+]ping ok\n[+]etcd ok\nlivez check passed\n');
    expect(await get('/healthz/leaderElection')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get('/livez/leaderElection')).status).toBe(404);
    expect((await get('/healthz/nothing')).status).toBe(404);
    expect((await get('/healthzz')).status).toBe(418);
  });
});
