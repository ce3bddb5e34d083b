// Watch over WebSocket, as kube-apiserver serves it: a watch request sent with
// `Upgrade: websocket` gets one JSON event per text message. Browsers use it
// because a streamed HTTP watch holds one of the six connections an origin
// gets. They cannot set an Authorization header on a WebSocket, so the bearer
// token may travel as a subprotocol (AS/pkg/authentication/request/websocket).
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Sender, WebSocketServer, WebSocket, type SenderFrameOptions } from 'ws';
import { WatchSink, untilDrained, type Framing, type WatchWire } from './watchsink.ts';
import { originMatches } from './cors.ts';

export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket' && /\bupgrade\b/i.test(req.headers.connection ?? '');
}

const protocolsOf = (req: IncomingMessage) =>
  (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);

/**
 * The bearer token carried in a `base64url.bearer.authorization.k8s.io.<base64url(token)>`
 * subprotocol. As upstream: at most one such protocol, the token base64url-encoded
 * without padding, and at least one other protocol offered, because the token
 * must not be echoed back and a browser fails a handshake that offered
 * protocols and got none.
 */
export function bearerTokenFromProtocols(req: IncomingMessage): { token?: string; error?: string } {
  if (!isWebSocketRequest(req)) return {};
  const protocols = protocolsOf(req);
  const carriers = protocols.filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (!carriers.length) return {};
  if (carriers.length > 1) return { error: 'multiple base64.bearer.authorization tokens specified' };
  const encoded = carriers[0].slice(BEARER_PROTOCOL_PREFIX.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return { error: 'invalid base64.bearer.authorization token encoding' };
  const token = Buffer.from(encoded, 'base64url').toString('utf8');
  if (!token) return {};
  if (protocols.length === carriers.length) return { error: 'missing additional subprotocol' };
  return { token };
}

/**
 * The same-origin rule browsers do not apply to WebSockets: a page from another
 * origin could otherwise open a watch with the user's ambient access. Clients
 * that send no Origin (kubectl, client libraries) are not browsers and pass;
 * other origins pass exactly when CORS would let them read the same watch.
 */
export function originAllowed(req: IncomingMessage, allowed: readonly RegExp[]): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    if (new URL(origin).host === req.headers.host) return true;
  } catch {
    return false;
  }
  return originMatches(origin, allowed);
}

/** A response written onto the raw socket of an upgrade request that is refused. */
export function refusalResponse(req: IncomingMessage, socket: Duplex): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as never);
  res.on('finish', () => {
    res.detachSocket(socket as never);
    socket.end();
  });
  return res;
}

/** How long a closing handshake may take before the socket is dropped (the client stopped answering). */
const CLOSE_GRACE_MS = 2000;

export class WatchSockets {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // Clients send nothing on a watch socket; anything large is not a watch client.
    maxPayload: 64 * 1024,
    // Echo the first protocol offered that is not the token: upstream echoes the
    // one left once the token is removed. Framing does not depend on it: JSON
    // events are text messages whichever protocol was chosen.
    handleProtocols: (protocols) => [...protocols].find((p) => !p.startsWith(BEARER_PROTOCOL_PREFIX)) ?? false,
  });

  /**
   * Completes the handshake; the watch's events go out through the shared
   * sink (watchsink.ts), each as one text message, and the connection is
   * dropped when more than `bufferLimit` bytes wait for the client.
   */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, bufferLimit: number): Promise<WatchSink> {
    return new Promise((resolve) => {
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        // Errors (a protocol violation, a reset) are followed by 'close', which ends the watch.
        ws.on('error', () => {});
        ws.on('message', () => {});
        resolve(new WatchSink(webSocketWire(ws, socket), bufferLimit));
      });
    });
  }
}

/**
 * One text message per event, the newline upstream's JSON encoder writes
 * included: a run of events is their messages back to back, written to the
 * socket at once (one system call for many messages, each still decoded
 * alone by any WebSocket client). ws frames each (`Sender.frame`, public for
 * broadcasts that frame once; a server's frames are final and unmasked, and
 * `readOnly` leaves the shared event bytes as they are).
 */
const TEXT: SenderFrameOptions = { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false };
const textMessages: Framing = {
  frame(events) {
    const parts: Buffer[] = [];
    for (const event of events) for (const part of Sender.frame(event, TEXT)) parts.push(part);
    return Buffer.concat(parts);
  },
};

/**
 * A WebSocket as a watch's wire. The sink's messages are framed here and
 * written to the connection's socket itself, in order with what ws writes
 * there (the close handshake, pongs: ws sends at once, without a queue of its
 * own when it does not compress), so that many messages cost one write.
 */
function webSocketWire(ws: WebSocket, socket: Duplex): WatchWire {
  return {
    framing: textMessages,
    writable: () => ws.readyState === WebSocket.OPEN,
    write: (bytes) => void socket.write(bytes),
    writableLength: () => ws.bufferedAmount,
    drained: () => (ws.readyState === WebSocket.OPEN ? untilDrained(socket) : Promise.resolve()),
    destroy: () => ws.terminate(),
    end() {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.close(1000);
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    },
    onGone: (fn) => void ws.on('close', fn),
  };
}
