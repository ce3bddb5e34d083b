// The chunked watch wire over a real node:http server and client: a flush
// reaches each watcher's socket as one whole HTTP/1.1 chunk, the same bytes
// for every watcher of the same events, and the stream stays valid chunked
// encoding that an HTTP client reads (the headers before, the last chunk after).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkedWatchSink } from './watch.ts';
import type { WatchSink } from './watchsink.ts';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? (server.closeAllConnections(), server.close(() => r())) : r())));

/** A server whose every request becomes a chunked watch sink; resolves once `n` are open, with what their sockets were given. */
async function watches(n: number) {
  const sinks: WatchSink[] = [];
  const written: unknown[][] = [];
  let opened: () => void = () => {};
  const allOpen = new Promise<void>((r) => (opened = r));
  server = http.createServer((_req, res) => {
    sinks.push(chunkedWatchSink(res, 1 << 20));
    const socket = res.socket as Socket;
    const calls: unknown[] = [];
    written.push(calls);
    const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
    // Records each write the socket gets from here on: the events' (the headers went out as the sink was made).
    socket.write = ((chunk: unknown, ...rest: unknown[]) => (calls.push(chunk), write(chunk, ...rest))) as typeof socket.write;
    if (sinks.length === n) opened();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const bodies = Array.from(
    { length: n },
    () =>
      new Promise<string>((resolve, reject) => {
        const req = http.get({ port, host: '127.0.0.1', path: '/', agent: false }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve(body));
        });
        req.on('error', reject);
      }),
  );
  await allOpen;
  return { sinks, written, bodies };
}

describe('chunked watch wire', () => {
  it('writes a flush as one whole chunk per watcher, the same buffer for all, and ends with the last chunk', async () => {
    const { sinks, written, bodies } = await watches(3);
    const events = ['{"type":"ADDED","object":{"n":1}}\n', '{"type":"MODIFIED","object":{"n":2}}\n'].map((e) => Buffer.from(e));
    for (const s of sinks) for (const e of events) s.send(e);
    await Promise.all(sinks.map((s) => s.drained()));
    const data = events.map(String).join('');
    for (const calls of written) {
      expect(calls).toHaveLength(1);
      expect(String(calls[0])).toBe(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
      // Framed once: every watcher's socket got the very same Buffer.
      expect(calls[0]).toBe(written[0][0]);
    }
    for (const s of sinks) s.end();
    // The stream ends with the last chunk (0, CRLF, CRLF), written by res.end() after the events.
    for (const calls of written) expect(String(calls.at(-1))).toMatch(/^0\r\n\r\n$/);
    for (const body of await Promise.all(bodies)) expect(body).toBe(data);
  });
});
