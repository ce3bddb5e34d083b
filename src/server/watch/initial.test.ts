// A watch's initial events (sendInitialEvents, or the snapshot of a watch
// from resourceVersion 0) are written as the client takes them, and do not
// count as the live events a slow watcher is cut off for: a client that
// reads a large snapshot slowly gets all of it, then the live events.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer, type TestServer } from '../testing.ts';
import { configMapKind } from '../../kinds/configmap.ts';
import { parseListQuery } from '../registry/options.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ limits: { watchBufferBytes: 256 * 1024 } });
  const big = 'x'.repeat(100_000);
  // 6 MB of initial events: far over the bound and what the sockets' buffers take.
  for (let i = 0; i < 60; i++) {
    const r = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: `big-${String(i).padStart(2, '0')}` }, data: { big } } });
    expect(r.status).toBe(201);
  }
});
afterAll(() => s.stop());

const QUERY = 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
const count = (text: string, what: string) => text.split(what).length - 1;

describe('initial events of a watch', () => {
  it('reach a client that reads them slowly over chunked HTTP, followed by live events', async () => {
    const socket: Socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (d) => (received += d));
    socket.on('close', () => (closed = true));
    socket.write(`GET /api/v1/namespaces/default/configmaps?${QUERY} HTTP/1.1\r\nHost: 127.0.0.1\r\n${s.adminHeaders.Authorization ? `Authorization: ${s.adminHeaders.Authorization}\r\n` : ''}\r\n`);
    socket.pause();
    // While the client reads nothing, a live event arrives behind the snapshot.
    await new Promise((r) => setTimeout(r, 500));
    expect((await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'live-1' }, data: { a: 'b' } } })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    socket.resume();
    const deadline = Date.now() + 20_000;
    while (!received.includes('"name":"live-1"') && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    expect(closed).toBe(false);
    expect(count(received, '"type":"ADDED"')).toBe(61);
    // In order: the 60 of the snapshot, the bookmark that ends them, then the live one.
    expect(received.indexOf('k8s.io/initial-events-end')).toBeGreaterThan(received.lastIndexOf('big-59'));
    expect(received.indexOf('"name":"live-1"')).toBeGreaterThan(received.indexOf('k8s.io/initial-events-end'));
  }, 30_000);

  it('stop being read once the client has gone, and leave no watcher behind', async () => {
    const q = parseListQuery(configMapKind, new URLSearchParams(QUERY));
    let events = 0;
    const sink = { event: () => void events++, bookmark: () => {}, error: () => {}, gone: () => events >= 5 };
    const stop = await s.stores.get(configMapKind)!.watch('default', q, sink);
    // Of the 60 objects, the scan offered five: the client had gone after them.
    expect(events).toBe(5);
    const r = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'after-gone' }, data: { a: 'b' } } });
    expect(r.status).toBe(201);
    expect(await s.cache.waitFor(Number(r.body.metadata.resourceVersion))).toBe(true);
    expect(events).toBe(5);
    stop();
  });

  it('reach a client that reads them slowly over a WebSocket', async () => {
    const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/configmaps?${QUERY}`, { headers: s.adminHeaders });
    const messages: string[] = [];
    let closed = false;
    ws.on('message', (m) => messages.push(m.toString()));
    ws.on('close', () => (closed = true));
    await new Promise((r, j) => (ws.on('open', r), ws.on('error', j)));
    (ws as unknown as { _socket: Socket })._socket.pause();
    await new Promise((r) => setTimeout(r, 1000));
    (ws as unknown as { _socket: Socket })._socket.resume();
    const deadline = Date.now() + 20_000;
    while (!messages.some((m) => m.includes('k8s.io/initial-events-end')) && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    ws.terminate();
    expect(closed).toBe(false);
    expect(messages.filter((m) => m.includes('"type":"ADDED"')).length).toBeGreaterThanOrEqual(60);
  }, 30_000);
});
