// The server's bounds against the real server: requests in flight (read-only
// and mutating apart, watches not counted, system:masters exempt), request
// deadlines, watch timeouts, watchers that do not read, bodies too large.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer, type TestServer } from '../testing.ts';
import { parseDuration, requestDeadlineMs, watchTimeoutSeconds } from './limits.ts';

const ALICE = 'alice-token';
const alice = { Authorization: `Bearer ${ALICE}` };

/** A server whose user alice is bound to cluster-admin but is not in system:masters (so limits apply). */
async function serverWith(limits: NonNullable<Parameters<typeof startTestServer>[0]>['limits']): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'kw-limits-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${ALICE},alice,1001,"devs"\n`);
  const s = await startTestServer({ tokenFile, limits });
  const bound = await s.api('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    method: 'POST',
    body: { metadata: { name: 'alice-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] },
  });
  expect(bound.status).toBe(201);
  return s;
}

/** A POST whose body never finishes arriving: it holds a mutating slot until the socket goes. */
function stalledPost(s: TestServer, path = '/api/v1/namespaces/default/configmaps'): { socket: Socket; answer: Promise<string> } {
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  let out = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"metadata":`);
  return { socket, answer };
}

const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** Retries `fn` until it returns something `ok` accepts (the server takes a moment to see a request). */
async function eventually<T>(fn: () => Promise<T>, ok: (t: T) => boolean, tries = 100): Promise<T> {
  let last = await fn();
  for (let i = 0; i < tries && !ok(last); i++) {
    await new Promise((r) => setTimeout(r, 20));
    last = await fn();
  }
  return last;
}

describe('requests in flight', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serverWith({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
  });
  afterAll(async () => {
    await s.stop();
  });

  it('answers a mutating request past the limit 429 with Retry-After, counts reads and watches apart, exempts system:masters', async () => {
    const held = stalledPost(s);
    const refused = await eventually(
      () => s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('refused'), headers: alice }),
      (r) => r.status === 429,
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    // Read-only requests have their own limit; watches are not counted at all.
    const watches = await Promise.all([1, 2, 3].map(() => fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1`, { headers: alice })));
    for (const w of watches) expect(w.status).toBe(200);
    expect((await s.api('/api/v1/namespaces/default/configmaps', { headers: alice })).status).toBe(200);
    // The admin (system:masters) is never limited, as upstream.
    expect((await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('by-admin') })).status).toBe(201);
    for (const w of watches) await w.body?.cancel();
    // The slot comes back when the stalled client goes.
    held.socket.destroy();
    const after = await eventually(
      () => s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('after'), headers: alice }),
      (r) => r.status !== 429,
    );
    expect(after.status).toBe(201);
  });
});

describe('request deadlines', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serverWith({ requestTimeoutMs: 300, minRequestTimeoutSeconds: 1 });
  });
  afterAll(async () => {
    await s.stop();
  });

  it('answers a request past --request-timeout 504 Timeout, and frees its slot', async () => {
    const held = stalledPost(s);
    const answer = await held.answer.then((a) => a || Promise.reject(new Error('no answer')));
    expect(answer).toMatch(/^HTTP\/1\.1 504 /);
    const body = JSON.parse(answer.slice(answer.indexOf('{'), answer.lastIndexOf('}') + 1));
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504, message: 'Timeout: request did not complete within the allotted timeout' });
  }, 10_000);

  it('rejects an unparsable timeout parameter with a 400', async () => {
    const r = await s.api('/api/v1/namespaces?timeout=soon');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'invalid timeout specified in the request URL' });
    expect((await s.api('/api/v1/namespaces?timeout=32s')).status).toBe(200);
  });

  it('ends a watch that named no timeout between --min-request-timeout and twice that', async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1`, { headers: s.adminHeaders });
    const reader = res.body!.getReader();
    // Without the server's own timeout this read would not end (the test's timeout fails it).
    for (;;) if ((await reader.read()).done) break;
  }, 10_000);
});

describe('the timeout parameter', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serverWith({});
  });
  afterAll(async () => {
    await s.stop();
  });

  it('shortens the deadline of one request', async () => {
    const held = stalledPost(s, '/api/v1/namespaces/default/configmaps?timeout=200ms');
    expect(await held.answer).toMatch(/^HTTP\/1\.1 504 /);
  }, 10_000);

  it('answers a body declared over 3 MiB 413 before it is sent', async () => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE}\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`);
    await eventually(async () => out, (o) => o.includes('}'));
    socket.destroy();
    expect(out).toMatch(/^HTTP\/1\.1 413 /);
    expect(out).toContain('"reason":"RequestEntityTooLarge"');
  });

  it('answers a chunked body past 3 MiB 413 and closes the connection instead of reading on', async () => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    let out = '';
    let closed = false;
    socket.on('data', (d) => (out += d));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    // A body that never ends: 64 KiB chunks for as long as the server takes them, up to 8 s.
    const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
    const until = Date.now() + 8000;
    while (!closed && Date.now() < until) {
      if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
    }
    expect(closed).toBe(true);
    expect(out).toMatch(/^HTTP\/1\.1 413 /);
    expect(out).toMatch(/\r\nConnection: close\r\n/i);
  }, 20_000);
});

describe('watchers that do not read', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serverWith({ watchBufferBytes: 256 * 1024 });
  });
  afterAll(async () => {
    await s.stop();
  });

  const big = 'x'.repeat(100_000);
  /** Writes 60 configmaps of 100 kB each (6 MB of events, far over the bound and the sockets' buffers). */
  async function flood(prefix: string) {
    for (let i = 0; i < 60; i++) {
      expect((await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap(`${prefix}-${i}`, { big }) })).status).toBe(201);
    }
  }

  it('closes a chunked watch whose client stopped reading', async () => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    socket.write(`GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${s.cache.revision} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE}\r\n\r\n`);
    await new Promise((r) => socket.once('data', r));
    socket.pause();
    await flood('chunked');
    let received = '';
    const closed = new Promise<boolean>((resolve) => {
      socket.on('data', (d) => (received += d));
      socket.on('close', () => resolve(true));
      // A watch still open once its client caught up was not closed.
      socket.on('end', () => resolve(true));
      setTimeout(() => resolve(false), 8000);
    });
    socket.resume();
    expect(await closed).toBe(true);
    expect(received.split('"type":"ADDED"').length - 1).toBeLessThan(60);
    socket.destroy();
  }, 30_000);

  it('closes a WebSocket watch whose client stopped reading', async () => {
    const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${s.cache.revision}`, { headers: alice });
    await new Promise((r, j) => (ws.on('open', r), ws.on('error', j)));
    let received = 0;
    ws.on('message', () => received++);
    (ws as unknown as { _socket: Socket })._socket.pause();
    await flood('ws');
    const closed = new Promise<boolean>((resolve) => {
      ws.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 8000);
    });
    (ws as unknown as { _socket: Socket })._socket.resume();
    expect(await closed).toBe(true);
    expect(received).toBeLessThan(60);
  }, 30_000);
});

describe('limit arithmetic', () => {
  it('spreads watch timeouts over [min, 2·min) and keeps a client timeout', () => {
    expect(watchTimeoutSeconds(undefined, 1800, 0)).toBe(1800);
    expect(watchTimeoutSeconds(undefined, 1800, 0.9999)).toBe(3599);
    expect(watchTimeoutSeconds(0, 1800, 0.5)).toBe(2700);
    expect(watchTimeoutSeconds(5, 1800, 0.5)).toBe(5);
  });

  it('reads Go durations and caps a request deadline at --request-timeout', () => {
    expect(parseDuration('1m0s')).toBe(60_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('60')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(requestDeadlineMs('10s', 60_000)).toBe(10_000);
    expect(requestDeadlineMs('10m', 60_000)).toBe(60_000);
    expect(requestDeadlineMs(null, 60_000)).toBe(60_000);
    expect(() => requestDeadlineMs('x', 60_000)).toThrow('invalid timeout');
  });
});
