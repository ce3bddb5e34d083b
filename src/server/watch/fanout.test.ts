// Fanning events out to many watchers: the events that come together (a group
// commit's writes) leave for each watch as one write — over chunked HTTP one
// chunk of several newline-terminated events, over a WebSocket several text
// messages in one socket write — instead of a write and a system call per
// event per watcher; every watcher still gets every event, in order, and over
// a WebSocket each event is still a message of its own.
import { connect, Socket, type NetConnectOpts } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer, until, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

/** A raw HTTP/1.1 watch, so that its chunked framing can be read as it came. */
function rawWatch(path: string): { socket: Socket; text: () => string } {
  const socket: Socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d));
  const auth = s.adminHeaders.Authorization ? `Authorization: ${s.adminHeaders.Authorization}\r\n` : '';
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`);
  return { socket, text: () => received };
}

/** The body of a chunked response: its chunks' payloads. */
function chunks(raw: string): string[] {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const out: string[] = [];
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.slice(at, eol), 16);
    if (!size || eol + 2 + size + 2 > raw.length) break;
    out.push(raw.slice(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return out;
}

describe('watch fan-out', () => {
  it('writes the events that come together to each watcher as one chunk, all of them, in order', async () => {
    const rv = (await s.api('/api/v1/namespaces/default/configmaps')).body.metadata.resourceVersion;
    const watches = Array.from({ length: 20 }, () => rawWatch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`));
    await until(() => watches.every((w) => w.text().includes('\r\n\r\n')), Boolean, 'watch responses started');
    // 60 writes at once: they commit in a few groups, each group's events delivered in one turn.
    const N = 60;
    const created = await Promise.all(Array.from({ length: N }, (_, i) => s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: `fan-${i}` }, data: { i: String(i) } } })));
    expect(created.every((r) => r.status === 201)).toBe(true);
    const revisions = created.map((r) => Number(r.body.metadata.resourceVersion)).sort((a, b) => a - b);
    await until(() => watches.every((w) => chunks(w.text()).join('').split('\n').length - 1 >= N), Boolean, 'every event delivered');
    for (const w of watches) {
      const body = chunks(w.text());
      const events = body.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      expect(events.map((e) => Number(e.object.metadata.resourceVersion))).toEqual(revisions);
      // Each chunk ends at an event's end; fewer chunks than events: they went out together.
      expect(body.every((c) => c.endsWith('\n'))).toBe(true);
      expect(body.length).toBeLessThan(N);
      w.socket.destroy();
    }
  }, 30_000);

  it('writes the events that come together to each WebSocket watcher in one socket write, one message per event, all in order', async () => {
    const rv = (await s.api('/api/v1/namespaces/default/configmaps')).body.metadata.resourceVersion;
    // The server's side of each watch socket writes through net.Socket's _write/_writev (each a system call,
    // unless the kernel's buffer is full); they are counted for the ports our clients connect from.
    const ports = new Set<number>();
    const writes = new Map<number, number>();
    const proto = Socket.prototype as unknown as Record<'_write' | '_writev', (this: Socket, ...args: unknown[]) => void>;
    const original = { _write: proto._write, _writev: proto._writev };
    for (const m of ['_write', '_writev'] as const) {
      proto[m] = function (this: Socket, ...args: unknown[]) {
        const port = this.remotePort;
        if (port !== undefined && ports.has(port)) writes.set(port, (writes.get(port) ?? 0) + 1);
        return original[m].apply(this, args);
      };
    }
    try {
      const url = `${s.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`;
      const watches = await Promise.all(
        Array.from(
          { length: 20 },
          () =>
            new Promise<{ ws: WebSocket; port: number; events: any[] }>((resolve, reject) => {
              let port = 0;
              const ws = new WebSocket(url, {
                headers: s.adminHeaders,
                createConnection: ((o: NetConnectOpts) => {
                  const socket = connect(o);
                  socket.on('connect', () => ports.add((port = socket.localPort!)));
                  return socket;
                }) as typeof connect,
              });
              const events: any[] = [];
              ws.on('message', (data, binary) => {
                expect(binary).toBe(false);
                events.push(JSON.parse(data.toString()));
              });
              ws.on('error', reject);
              ws.on('open', () => resolve({ ws, port, events }));
            }),
        ),
      );
      for (const w of watches) writes.set(w.port, 0);
      const N = 60;
      const created = await Promise.all(Array.from({ length: N }, (_, i) => s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: `ws-fan-${i}` }, data: { i: String(i) } } })));
      expect(created.every((r) => r.status === 201)).toBe(true);
      const revisions = created.map((r) => Number(r.body.metadata.resourceVersion)).sort((a, b) => a - b);
      await until(() => watches.every((w) => w.events.length >= N), Boolean, 'every event delivered');
      for (const w of watches) {
        expect(w.events.map((e) => e.type)).toEqual(Array(N).fill('ADDED'));
        expect(w.events.map((e) => Number(e.object.metadata.resourceVersion))).toEqual(revisions);
        // Fewer writes than events: the messages went out together.
        expect(writes.get(w.port)).toBeGreaterThan(0);
        expect(writes.get(w.port)).toBeLessThan(N);
        w.ws.terminate();
      }
    } finally {
      Object.assign(proto, original);
    }
  }, 30_000);
});
