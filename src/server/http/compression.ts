// API responses compressed as kube-apiserver compresses them (its APIResponseCompression
// feature, on by default): a body of 128 KiB or more, for a client whose Accept-Encoding takes
// it (Go clients, kubectl included, ask for gzip; browsers for brotli and gzip), at the fastest
// level. Pods are JSON of much the same shape: a page of 2,000 (8.7 MB) is 0.56 MB gzipped at level 1
// in 30 ms and 0.34 MB as brotli at quality 1 in 17 ms, so a list of 60,000 pods crosses a network
// as ~17 MB instead of 262 MB. The compressor runs on libuv's thread pool, not the event loop.
// Watches are not compressed (their events leave as they come).
//
// One departure from kube-apiserver: a client on this machine (loopback) is answered
// uncompressed. There the bytes cost nothing and the compression does: Chromium read 30 such
// pages from loopback in the same ~3 s either way, while gzip took the server 1 s more CPU.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import { isLoopback } from './listener.ts';
import { chooseEncoding } from './static.ts';

/** kube-apiserver's defaultGzipThresholdBytes: smaller bodies are not worth a compressor. */
export const COMPRESSION_THRESHOLD_BYTES = 128 * 1024;

/** The coding each response marked by offerCompression may use for a large body. */
const codings = new WeakMap<ServerResponse, 'br' | 'gzip'>();

/** Marks `res` as one whose large body is compressed: its client asks for a coding we make and is not on this machine. */
export function offerCompression(req: IncomingMessage, res: ServerResponse) {
  if (isLoopback(req.socket?.remoteAddress)) return;
  const coding = chooseEncoding(req.headers['accept-encoding']);
  if (coding !== 'identity') codings.set(res, coding);
}

/**
 * Writes the status line and headers of a body and returns where the body is to be written: the
 * response itself, or a compressor piped into it when the response was offered compression and
 * the body is large. `size`: what is known of the body's size (Infinity when it comes in parts
 * whose first does not end it, as a list written in slices); `length`: its Content-Length, when known.
 */
export function bodyStream(res: ServerResponse, code: number, headers: Record<string, string | string[] | number>, size: number, length?: number): Writable {
  const coding = size >= COMPRESSION_THRESHOLD_BYTES ? codings.get(res) : undefined;
  if (!coding) {
    res.writeHead(code, length === undefined ? headers : { ...headers, 'Content-Length': length });
    return res;
  }
  res.writeHead(code, { ...headers, 'Content-Encoding': coding, Vary: 'Accept-Encoding' });
  const compressor =
    coding === 'br'
      ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1, ...(length !== undefined && { [constants.BROTLI_PARAM_SIZE_HINT]: length }) } })
      : createGzip({ level: 1 });
  compressor.pipe(res);
  // A client gone stops the compressor with it; a compressor that fails ends the answer (never the server).
  res.once('close', () => compressor.destroy());
  compressor.on('error', () => res.destroy());
  return compressor;
}
