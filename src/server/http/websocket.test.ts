// Watch over WebSocket against the real server, with the `ws` client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer, type TestServer } from '../testing.ts';
import { BEARER_PROTOCOL_PREFIX } from './websocket.ts';

let s: TestServer;
const TOKEN = 'admin-token';
const auth = { Authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ws-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},admin,1,"system:masters"\n`);
  s = await startTestServer({ tokenFile });
});
afterAll(async () => {
  await s.stop();
});

const node = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: {} });
const post = (path: string, body: unknown, server = s) => server.api(path, { method: 'POST', body, headers: auth });
const tokenProtocol = (token: string) => BEARER_PROTOCOL_PREFIX + Buffer.from(token).toString('base64url');
const wsUrl = (path: string, server = s) => server.url.replace(/^http/, 'ws') + path;

interface Session {
  ws: WebSocket;
  events: any[];
  /** Resolves when `until` holds for the events so far. */
  waitFor(until: (events: any[]) => boolean): Promise<any[]>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a WebSocket watch; rejects with the HTTP response when the server refuses the upgrade. */
function openWatch(url: string, protocols: string[] = ['v1.watch.test', tokenProtocol(TOKEN)], headers: Record<string, string> = {}): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    const events: any[] = [];
    const waiters: Array<() => void> = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (data, binary) => {
      expect(binary).toBe(false);
      events.push(JSON.parse(data.toString()));
      for (const w of [...waiters]) w();
    });
    ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: body ? JSON.parse(body) : undefined })));
    });
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        events,
        closed,
        waitFor: (until) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`timed out with events ${JSON.stringify(events.map((e) => e.type))}`)), 5000);
            const check = () => {
              if (!until(events)) return;
              clearTimeout(timer);
              waiters.splice(waiters.indexOf(check), 1);
              done(events);
            };
            waiters.push(check);
            check();
          }),
      }),
    );
  });
}

describe('watch over WebSocket', () => {
  it('streams initial events and changes, one JSON event per text message, echoing the non-token protocol', async () => {
    await post('/api/v1/nodes', node('ws-a', { ws: '1' }));
    const w = await openWatch(wsUrl('/api/v1/nodes?watch=true&labelSelector=ws%3D1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'));
    expect(w.ws.protocol).toBe('v1.watch.test');
    await w.waitFor((ev) => ev.length >= 2);
    await s.api('/api/v1/nodes/ws-a', { method: 'PATCH', body: { spec: { unschedulable: true } }, headers: { ...auth, 'Content-Type': 'application/merge-patch+json' } });
    await post('/api/v1/nodes', node('ws-b', { ws: '1' }));
    const events = await w.waitFor((ev) => ev.length >= 4);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`)).toEqual(['ADDED ws-a', 'BOOKMARK ', 'MODIFIED ws-a', 'ADDED ws-b']);
    expect(events[1].object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(events[2].object).toMatchObject({ kind: 'Node', apiVersion: 'v1', spec: { unschedulable: true } });
    w.ws.close();
  });

  it('accepts the Authorization header and no subprotocol at all', async () => {
    const w = await openWatch(wsUrl('/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dws-a'), [], auth);
    expect(w.ws.protocol).toBe('');
    const [e] = await w.waitFor((ev) => ev.length >= 1);
    expect(e).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'ws-a' } } });
    w.ws.close();
  });

  it('serves the legacy /watch/ path for one object', async () => {
    const w = await openWatch(wsUrl('/api/v1/watch/nodes/ws-b'));
    const [e] = await w.waitFor((ev) => ev.length >= 1);
    expect(e).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'ws-b' } } });
    w.ws.close();
  });

  it('frames events with 16-bit and 64-bit payload lengths as whole messages', async () => {
    // A Node's event is over 125 bytes (16-bit length); one with a 70 KB annotation is over 65535 (64-bit length).
    const w = await openWatch(wsUrl('/api/v1/nodes?watch=1&labelSelector=wl%3D1'));
    await post('/api/v1/nodes', node('ws-l1', { wl: '1' }));
    const big = node('ws-l2', { wl: '1' }) as any;
    big.metadata.annotations = { big: 'x'.repeat(70_000) };
    await post('/api/v1/nodes', big);
    await post('/api/v1/nodes', node('ws-l3', { wl: '1' }));
    const events = await w.waitFor((ev) => ev.length >= 3);
    expect(events.map((e) => e.object.metadata.name)).toEqual(['ws-l1', 'ws-l2', 'ws-l3']);
    expect(events[1].object.metadata.annotations.big).toHaveLength(70_000);
    w.ws.close();
  });

  it('resumes from a resourceVersion', async () => {
    const created = await post('/api/v1/nodes', node('ws-r', { wr: '1' }));
    const rv = created.body.metadata.resourceVersion;
    await s.api('/api/v1/nodes/ws-r', { method: 'DELETE', headers: auth });
    const w = await openWatch(wsUrl(`/api/v1/nodes?watch=1&labelSelector=wr%3D1&resourceVersion=${rv}`));
    const events = await w.waitFor((ev) => ev.length >= 1);
    expect(events[0]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'ws-r' } } });
    expect(Number(events[0].object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    w.ws.close();
  });

  it('sends a 410 ERROR event and closes for a compacted resourceVersion', async () => {
    const small = await startTestServer({ watchCacheSize: 2 });
    try {
      const first = await small.api('/api/v1/nodes', { method: 'POST', body: node('c1') });
      for (const n of ['c2', 'c3', 'c4']) await small.api('/api/v1/nodes', { method: 'POST', body: node(n) });
      await small.storage.compact(small.cache.revision - 1);
      const w = await openWatch(wsUrl(`/api/v1/nodes?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`, small), [], small.adminHeaders);
      const [e] = await w.waitFor((ev) => ev.length >= 1);
      expect(e).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' } });
      expect((await w.closed).code).toBe(1000);
      expect(w.events).toHaveLength(1);
    } finally {
      await small.stop();
    }
  });

  it('closes cleanly after timeoutSeconds', async () => {
    const w = await openWatch(wsUrl(`/apis/apps/v1/daemonsets?watch=1&timeoutSeconds=1&resourceVersion=${s.cache.revision}`));
    const started = Date.now();
    expect((await w.closed).code).toBe(1000);
    expect(Date.now() - started).toBeGreaterThan(800);
    expect(w.events).toEqual([]);
  });

  it('refuses a bad token, a token with no other protocol, and bad options with an HTTP Status', async () => {
    const url = wsUrl('/api/v1/nodes?watch=1');
    await expect(openWatch(url, ['v1.watch.test', tokenProtocol('wrong')])).rejects.toMatchObject({ status: 401, body: { kind: 'Status', reason: 'Unauthorized', code: 401 } });
    await expect(openWatch(url, [tokenProtocol(TOKEN)])).rejects.toMatchObject({ status: 401 });
    await expect(openWatch(url, [])).rejects.toMatchObject({ status: 401 });
    await expect(openWatch(wsUrl('/api/v1/nodes?watch=1&labelSelector=a%20in%20('))).rejects.toMatchObject({ status: 400, body: { reason: 'BadRequest' } });
    await expect(openWatch(url, undefined, { Origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
  });

  it('answers a non-watch request that asks to upgrade as plain HTTP', async () => {
    await expect(openWatch(wsUrl('/api/v1/nodes/ws-a'))).rejects.toMatchObject({ status: 200, body: { kind: 'Node' } });
  });
});
