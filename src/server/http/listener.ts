// One port, two ways in. kubectl and client-go send tokens only over TLS,
// while a browser opening the printed http:// URL must see no certificate
// warning; so the listener looks at the first byte of each connection: a TLS
// handshake (0x16) goes to the HTTPS server, anything else to the plain HTTP
// server, which only loopback clients may use (a request from elsewhere is
// answered as Go's TLS server answers plain HTTP). Both serve the same
// handler, and both require credentials.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

const TLS_HANDSHAKE = 0x16;

export interface DualListener {
  /** The HTTP server (`request`/`upgrade` events) for loopback plain-HTTP clients. */
  http: HttpServer;
  https: HttpsServer;
  address(): AddressInfo;
  close(): Promise<void>;
}

/** Whether a peer address is this machine (IPv4 127/8, ::1, or IPv4-mapped loopback). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\./.test(a);
}

export async function listenDual(opts: {
  host: string;
  port: number;
  tls: { cert: string; key: string };
  onRequest: (req: IncomingMessage, res: ServerResponse) => void;
  onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  onClientError?: (err: Error, socket: Duplex) => void;
}): Promise<DualListener> {
  const http = createHttpServer({ keepAliveTimeout: 65_000 }, opts.onRequest);
  const https = createHttpsServer({ keepAliveTimeout: 65_000, cert: opts.tls.cert, key: opts.tls.key }, opts.onRequest);
  for (const s of [http, https]) {
    s.on('upgrade', opts.onUpgrade);
    if (opts.onClientError) s.on('clientError', opts.onClientError);
  }
  https.on('tlsClientError', (_e, socket) => socket.destroy());
  const sockets = new Set<Socket>();
  const net: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      // Put the bytes back: the server that takes the socket reads them first.
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) https.emit('connection', socket);
      else if (isLoopback(socket.remoteAddress)) {
        http.emit('connection', socket);
        // node:http does not resume a socket it is handed paused.
        socket.resume();
      }
      else socket.end('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    net.once('error', reject);
    net.listen(opts.port, opts.host, resolve);
  });
  return {
    http,
    https,
    address: () => net.address() as AddressInfo,
    async close() {
      http.closeAllConnections();
      https.closeAllConnections();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => net.close(() => resolve()));
    },
  };
}
