// What the wire worker (wire.worker.ts) does off the main thread, for the
// main thread's wire.ts:
// - reads the later pages of a list as their bytes arrive: decodes them and
//   cuts them into runs of items (listsplit.ts), each handed over as soon as it
//   is whole, and the list's head (its metadata, with the continue token) as
//   soon as the items begin, so that the main thread parses the first runs and
//   asks for the next page while the rest of this one is still on its way;
// - holds the watch sockets and hands their messages over in batches: while
//   the main thread has not yet taken the last batch, what arrives waits and
//   goes as the next one. At 5000 nodes a rollout sends hundreds of messages a
//   second; one task each, they queued behind the page's renders and long
//   tasks (the DaemonSet page's own share of write -> DOM was p95 310 ms, 43 ms
//   of it after its socket handler ran). A message to a main thread that keeps
//   up goes at once: a fixed window (16 ms) held every message of a steady
//   stream for up to a frame, and the Pods list's write -> row p95 rose.
// Messages stay text (one JSON array per batch, parsed by the main thread):
// structured clone of parsed objects costs ~3x a JSON.parse to deserialise.
// Both lose their objects' managedFields here unless asked to keep them
// (unmanaged.ts): 40% of a page of pods, not copied or parsed by the main thread.
import { ListSplitter } from './listsplit.ts';
import { withoutManagedFields } from './unmanaged.ts';

export type WireRequest =
  | { op: 'page'; id: number; url: string; headers: Record<string, string>; per: number; managedFields: boolean }
  | { op: 'watch'; id: number; url: string; protocols: string[]; managedFields: boolean }
  /** The main thread has taken the socket's last batch. */
  | { op: 'taken'; id: number }
  | { op: 'close'; id: number };

export type WireAnswer =
  /** A page not read in parts: a refusal (not 2xx) with its body `text`, or status 0 and `error` when there was no answer or the body was cut off. */
  | { id: number; op: 'page'; status: number; statusText: string; text?: string; error?: string }
  /** A 2xx page's list as it stands when its items begin, closed with no items (`head` at `end` when it had no items array). */
  | { id: number; op: 'head'; status: number; statusText: string; head: string }
  /** The page's next run of items, as one JSON array's text. */
  | { id: number; op: 'run'; run: string }
  /** The page is read: the whole list with `"items":[]`. */
  | { id: number; op: 'end'; head: string }
  | { id: number; op: 'open' }
  /** The socket's messages since the last batch, in order, as one JSON array's text. */
  | { id: number; op: 'messages'; batch: string }
  | { id: number; op: 'closed'; opened: boolean };

interface Socket {
  ws: WebSocket;
  batch: string[];
  /** A batch was handed over and the main thread has not said it took it. */
  handed: boolean;
  opened: boolean;
}

/** Serves requests, answering through `post`; `WS` is the WebSocket class to use. */
export function serveWire(post: (a: WireAnswer) => void, WS: typeof WebSocket = WebSocket): (req: WireRequest) => void {
  const sockets = new Map<number, Socket>();

  const hand = (id: number, s: Socket) => {
    if (!s.batch.length) return;
    post({ id, op: 'messages', batch: `[${s.batch.join(',')}]` });
    s.batch = [];
    s.handed = true;
  };

  async function page(req: Extract<WireRequest, { op: 'page' }>) {
    const { id } = req;
    const failed = (e: unknown) => post({ id, op: 'page', status: 0, statusText: '', error: (e as Error)?.message ?? String(e) });
    let res: Response;
    try {
      res = await fetch(req.url, { headers: req.headers });
      if (!res.ok || !res.body) return post({ id, op: 'page', status: res.status, statusText: res.statusText, text: await res.text() });
    } catch (e) {
      return failed(e);
    }
    const split = new ListSplitter(req.per);
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    let headSent = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        const runs = split.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
        const head = split.head;
        if (!headSent && head !== undefined) {
          post({ id, op: 'head', status: res.status, statusText: res.statusText, head });
          headSent = true;
        }
        for (const run of runs) post({ id, op: 'run', run: req.managedFields ? run : withoutManagedFields(run) });
        if (done) break;
      }
    } catch (e) {
      // (A body cut off mid-read: answered as no answer, never left unanswered.)
      return failed(e);
    }
    const { head } = split.end();
    if (!headSent) post({ id, op: 'head', status: res.status, statusText: res.statusText, head });
    post({ id, op: 'end', head });
  }

  function watch(req: Extract<WireRequest, { op: 'watch' }>) {
    const s: Socket = { ws: new WS(req.url, req.protocols), batch: [], handed: false, opened: false };
    sockets.set(req.id, s);
    s.ws.onopen = () => {
      s.opened = true;
      post({ id: req.id, op: 'open' });
    };
    s.ws.onmessage = (m: MessageEvent) => {
      if (typeof m.data !== 'string') return;
      s.batch.push(req.managedFields ? m.data : withoutManagedFields(m.data));
      if (!s.handed) hand(req.id, s);
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
    else if (req.op === 'taken') {
      const s = sockets.get(req.id);
      if (s) ((s.handed = false), hand(req.id, s));
    } else {
      const s = sockets.get(req.id);
      sockets.delete(req.id);
      s?.ws.close();
    }
  };
}
