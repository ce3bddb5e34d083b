// What the wire worker (wire.worker.ts) does off the main thread, for the
// main thread's wire.ts:
// - reads the later pages of a list: fetches, decodes and cuts each into runs
//   of items (listsplit.ts) that the main thread parses one at a time, with
//   frames in between;
// - holds the watch sockets and hands their messages over in batches: one
//   main-thread task per batch instead of one per message. At 5000 nodes a
//   rollout sends hundreds of messages a second; one task each, they queued
//   behind the page's renders and long tasks (the DaemonSet page's own share of
//   write -> DOM was p95 310 ms, 43 ms of it after its socket handler ran).
// Messages stay text (one JSON array per batch, parsed by the main thread):
// structured clone of parsed objects costs ~3x a JSON.parse to deserialise.
import { splitList } from './listsplit.ts';

export type WireRequest =
  | { op: 'page'; id: number; url: string; headers: Record<string, string>; per: number }
  | { op: 'watch'; id: number; url: string; protocols: string[] }
  | { op: 'close'; id: number };

export type WireAnswer =
  /** A page: `head` and `runs` when 2xx, else the body `text`; status 0 and `error` when there was no answer. */
  | { id: number; op: 'page'; status: number; statusText: string; text?: string; head?: string; runs?: string[]; error?: string }
  | { id: number; op: 'open' }
  /** The socket's messages since the last batch, in order, as one JSON array's text. */
  | { id: number; op: 'messages'; batch: string }
  | { id: number; op: 'closed'; opened: boolean };

/** A socket's messages are handed over at most this often; a message after a quiet spell goes at once. */
export const BATCH_MS = 16;

interface Socket {
  ws: WebSocket;
  batch: string[];
  timer: ReturnType<typeof setTimeout> | undefined;
  /** When the last batch went. */
  last: number;
  opened: boolean;
}

/** Serves requests, answering through `post`; `WS` is the WebSocket class to use. */
export function serveWire(post: (a: WireAnswer) => void, WS: typeof WebSocket = WebSocket): (req: WireRequest) => void {
  const sockets = new Map<number, Socket>();

  const hand = (id: number, s: Socket) => {
    clearTimeout(s.timer);
    s.timer = undefined;
    if (!s.batch.length) return;
    post({ id, op: 'messages', batch: `[${s.batch.join(',')}]` });
    s.batch = [];
    s.last = performance.now();
  };

  async function page(req: Extract<WireRequest, { op: 'page' }>) {
    let res: Response;
    let text: string;
    try {
      res = await fetch(req.url, { headers: req.headers });
      // (A body cut off mid-read fails here: answered as no answer, never left unanswered.)
      text = await res.text();
    } catch (e) {
      return post({ id: req.id, op: 'page', status: 0, statusText: '', error: (e as Error).message ?? String(e) });
    }
    if (!res.ok) return post({ id: req.id, op: 'page', status: res.status, statusText: res.statusText, text });
    const { head, runs } = splitList(text, req.per);
    post({ id: req.id, op: 'page', status: res.status, statusText: res.statusText, head, runs });
  }

  function watch(req: Extract<WireRequest, { op: 'watch' }>) {
    const s: Socket = { ws: new WS(req.url, req.protocols), batch: [], timer: undefined, last: -Infinity, opened: false };
    sockets.set(req.id, s);
    s.ws.onopen = () => {
      s.opened = true;
      post({ id: req.id, op: 'open' });
    };
    s.ws.onmessage = (m: MessageEvent) => {
      if (typeof m.data !== 'string') return;
      s.batch.push(m.data);
      if (s.timer !== undefined) return;
      const wait = s.last + BATCH_MS - performance.now();
      if (wait <= 0) hand(req.id, s);
      else s.timer = setTimeout(() => hand(req.id, s), wait);
    };
    s.ws.onclose = () => {
      if (sockets.get(req.id) !== s) return;
      sockets.delete(req.id);
      hand(req.id, s);
      post({ id: req.id, op: 'closed', opened: s.opened });
    };
  }

  return (req) => {
    if (req.op === 'page') void page(req);
    else if (req.op === 'watch') watch(req);
    else {
      const s = sockets.get(req.id);
      sockets.delete(req.id);
      if (s) (clearTimeout(s.timer), s.ws.close());
    }
  };
}
