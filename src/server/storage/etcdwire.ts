// What the event loop and the etcd client thread (etcdthread.ts, etcdworker.ts)
// send each other: calls and their answers, watches' requests and responses,
// failures, with etcd's keys and values as one-byte strings.
import type { IRangeRequest, ITxnRequest, ICompactionRequest, IWatchRequest } from 'etcd3';

/** What the thread is started with (see EtcdStorageOptions). */
export interface EtcdThreadOptions {
  servers: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  requestTimeoutMs: number;
}

export type EtcdCall = { op: 'range'; req: IRangeRequest } | { op: 'txn'; req: ITxnRequest } | { op: 'compact'; req: ICompactionRequest };

/** To the thread: a call, a watch's requests, a watch's end, the end. */
export type EtcdThreadRequest =
  | (EtcdCall & { id: number })
  | { op: 'watch'; watch: number; req: IWatchRequest }
  | { op: 'cancel'; watch: number }
  | { op: 'close' }
  | { op: 'crash' };

/** A failure as it crosses threads: etcd3's error class name, its message and gRPC status code. */
export interface WireError {
  name: string;
  message: string;
  code?: number;
}

/** From the thread: a call's answer or failure, or a watch's response, failure or end. */
export type EtcdThreadAnswer =
  | { id: number; res: unknown }
  | { id: number; error: WireError }
  | { watch: number; data: unknown }
  | { watch: number; error: WireError }
  | { watch: number; end: true };

/**
 * Buffers (etcd keys and values) cross as latin1 strings, one character per byte: a Buffer
 * made from a short string is a view of Node's shared 8 KB pool, and structured cloning
 * copies a view's whole backing store.
 */
const BYTES = '\u0000b';
export function toWire(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { [BYTES]: v.toString('latin1') };
  if (Array.isArray(v)) return v.map(toWire);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k in v) out[k] = toWire((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}
export function fromWire(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromWire);
  if (v && typeof v === 'object') {
    const bytes = (v as Record<string, unknown>)[BYTES];
    if (typeof bytes === 'string') return Buffer.from(bytes, 'latin1');
    const out: Record<string, unknown> = {};
    for (const k in v) out[k] = fromWire((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

export const toWireError = (e: unknown): WireError => {
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as { code?: unknown }).code;
  return { name: err.constructor?.name ?? err.name, message: err.message, code: typeof code === 'number' ? code : undefined };
};
export const fromWireError = (w: WireError): Error => Object.assign(new Error(w.message), { name: w.name, code: w.code });
