// One port, two ways in. kubectl and client-go send tokens only over TLS,
// while a browser opening the printed http:// URL must see no certificate
// warning; so the listener looks at the first byte of each connection: a TLS
// handshake (0x16) goes to the HTTPS server, anything else to the plain HTTP
// server, which only loopback clients may use (a request from elsewhere is
// answered as Go's TLS server answers plain HTTP). Both serve the same
// handler, and both require credentials.
//
// The TLS side speaks HTTP/2 to clients that offer it in ALPN (kubectl and
// client-go do) and HTTP/1.1 to the rest (WebSocket upgrades included); it
// accepts TLS 1.2 and 1.3 only, with forward-secret AEAD ciphers; it asks for
// a client certificate when a client CA is configured (the handshake accepts
// any, so that token clients still connect: authentication judges it); and
// its certificate, key and client CA can be replaced while it runs.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Duplex } from 'node:stream';

const TLS_HANDSHAKE = 0x16;

/**
 * TLS 1.2 suites with ECDHE and AEAD only, as the "intermediate" profiles
 * recommend (TLS 1.3 has only such suites and is configured apart).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export interface TlsMaterial {
  /** PEM serving certificate (and chain) and its key. */
  cert: string;
  key: string;
  /** PEM CA bundle that signs client certificates (--client-ca-file); none: no certificate is asked for. */
  clientCA?: string;
}

const secureContext = (tls: TlsMaterial): SecureContextOptions => ({
  cert: tls.cert,
  key: tls.key,
  ...(tls.clientCA ? { ca: tls.clientCA } : {}),
  minVersion: 'TLSv1.2',
  ciphers: TLS12_CIPHERS,
  honorCipherOrder: true,
});

export interface DualListener {
  /** The HTTP server (`request`/`upgrade` events) for loopback plain-HTTP clients. */
  http: HttpServer;
  https: Http2SecureServer;
  /** Serves new certificates (and client CA) from the next handshake on; throws if they do not make a context. */
  setTls(tls: TlsMaterial): void;
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
  tls: TlsMaterial;
  onRequest: (req: IncomingMessage, res: ServerResponse) => void;
  onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  onClientError?: (err: Error, socket: Duplex) => void;
}): Promise<DualListener> {
  const http = createHttpServer({ keepAliveTimeout: 65_000 }, opts.onRequest);
  const https = createSecureServer(
    {
      ...secureContext(opts.tls),
      allowHTTP1: true,
      // Asked for whenever a client CA is set: setSecureContext cannot turn this on later.
      requestCert: opts.tls.clientCA !== undefined,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const r = req as unknown as IncomingMessage;
      // HTTP/2 names the host in :authority; the pipeline reads Host.
      if (req.httpVersionMajor === 2 && r.headers.host === undefined) r.headers.host = req.authority;
      opts.onRequest(r, res as unknown as ServerResponse);
    },
  );
  http.on('upgrade', opts.onUpgrade);
  https.on('upgrade', opts.onUpgrade);
  if (opts.onClientError) {
    http.on('clientError', opts.onClientError);
    // HTTP/1.1 requests over TLS are parsed by the same node:http code, which reports here.
    https.on('clientError' as never, opts.onClientError);
  }
  https.on('tlsClientError', (_e, socket) => socket.destroy());
  const sockets = new Set<Socket>();
  // Without TCP_NODELAY (which node:http sets on the sockets it accepts itself, and Go's net package on every
  // connection), a response written in more than one write waits out the client's delayed ACK: pages of a
  // list written in runs (encodings.ts) took 44 ms instead of 2.
  const net: NetServer = createNetServer({ noDelay: true }, (socket) => {
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
    setTls: (tls) => https.setSecureContext(secureContext(tls)),
    address: () => net.address() as AddressInfo,
    async close() {
      http.closeAllConnections();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => net.close(() => resolve()));
    },
  };
}
