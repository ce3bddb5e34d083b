// The main thread's side of the wire worker (wireserve.ts): list pages read
// and cut into runs of items, and watch sockets whose messages come in
// batches. Where there is no worker (tests under jsdom, a browser that will
// not start it) the same calls run on the main thread.
import type { KubeObject } from '../../kinds/kind.ts';
import { answerOf, apiBase, kubeFetch, requestHeaders, unreachable, type Connection, type KubeList } from './client.ts';
import type { WireAnswer, WireRequest } from './wireserve.ts';

/** Items per run of a page: ~3 ms of JSON.parse for pods on a quiet core. */
const RUN = 200;

interface Wire {
  worker: Worker;
  next: number;
  answers: Map<number, (a: WireAnswer | 'failed') => void>;
}

let wire: Wire | null | undefined;

function wireWorker(): Wire | null {
  if (wire !== undefined) return wire;
  if (typeof Worker === 'undefined') return (wire = null);
  try {
    const worker = new Worker(new URL('./wire.worker.ts', import.meta.url), { type: 'module', name: 'wire' });
    const w: Wire = { worker, next: 0, answers: new Map() };
    worker.onmessage = (e: MessageEvent<WireAnswer>) => w.answers.get(e.data.id)?.(e.data);
    // A worker that fails (its script did not load) is given up: what it held is told, and the main thread does it from then on.
    worker.onerror = () => {
      wire = null;
      worker.terminate();
      for (const answer of w.answers.values()) answer('failed');
      w.answers.clear();
    };
    return (wire = w);
  } catch {
    return (wire = null);
  }
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

function ask(w: Wire, req: WithoutId<WireRequest>, answer: (a: WireAnswer | 'failed') => void): number {
  const id = ++w.next;
  w.answers.set(id, answer);
  w.worker.postMessage({ ...req, id });
  return id;
}

/** A page of a list: its metadata, and its items in runs, each parsed when called. */
export interface ListPage {
  metadata: KubeList['metadata'];
  runs: (() => KubeObject[])[];
}

/** Reads a page of a list (a KubeError when refused, as kubeFetch). */
export function readListPage(conn: Connection, path: string): Promise<ListPage> {
  const w = wireWorker();
  if (!w) return readHere(conn, path);
  return new Promise<ListPage>((resolve, reject) => {
    const headers = Object.fromEntries(requestHeaders(conn));
    const id = ask(w, { op: 'page', url: apiBase(conn) + path, headers, per: RUN }, (a) => {
      w.answers.delete(id);
      if (a === 'failed') return readHere(conn, path).then(resolve, reject);
      if (a.op !== 'page') return;
      if (a.status === 0) return reject(unreachable(conn, new Error(a.error)));
      try {
        if (a.head === undefined) answerOf(conn, path, a.status, a.statusText, a.text ?? '');
        const list = answerOf<KubeList>(conn, path, a.status, a.statusText, a.head ?? '');
        resolve({ metadata: list.metadata, runs: (a.runs ?? []).map((run) => () => JSON.parse(run) as KubeObject[]) });
      } catch (e) {
        reject(e);
      }
    });
  });
}

async function readHere(conn: Connection, path: string): Promise<ListPage> {
  const list = await kubeFetch<KubeList>(conn, path);
  return { metadata: list.metadata, runs: [() => list.items] };
}

export interface SocketHandlers {
  onOpen(): void;
  /** The socket's messages, parsed, in order: a batch at a time. */
  onMessages(messages: unknown[]): void;
  /** The socket closed (or could not open: `opened` false). */
  onClose(opened: boolean): void;
}

/** Opens a WebSocket whose text messages are JSON (in the wire worker where there is one). */
export function openSocket(url: string, protocols: string[], h: SocketHandlers): { close(): void } {
  const w = wireWorker();
  if (!w) return openHere(url, protocols, h);
  let done = false;
  const id = ask(w, { op: 'watch', url, protocols }, (a) => {
    if (done) return;
    if (a === 'failed' || a.op === 'closed') {
      done = true;
      w.answers.delete(id);
      h.onClose(a !== 'failed' && a.opened);
    } else if (a.op === 'open') h.onOpen();
    else if (a.op === 'messages') h.onMessages(JSON.parse(a.batch));
  });
  return {
    close: () => {
      if (done) return;
      done = true;
      w.answers.delete(id);
      w.worker.postMessage({ op: 'close', id } satisfies WireRequest);
    },
  };
}

function openHere(url: string, protocols: string[], h: SocketHandlers): { close(): void } {
  let opened = false;
  let done = false;
  const ws = new WebSocket(url, protocols);
  ws.onopen = () => {
    opened = true;
    h.onOpen();
  };
  ws.onmessage = (m) => {
    if (typeof m.data === 'string') h.onMessages([JSON.parse(m.data)]);
  };
  ws.onclose = () => {
    if (done) return;
    done = true;
    h.onClose(opened);
  };
  return {
    close: () => {
      done = true;
      ws.close();
    },
  };
}
