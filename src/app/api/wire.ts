// The main thread's side of the wire worker (wireserve.ts): list pages read
// and cut into runs of items as they arrive, and watch sockets whose messages
// come in batches. Where there is no worker (tests under jsdom, a browser that will
// not start it) the same calls run on the main thread.
import type { KubeObject } from '../../kinds/kind.ts';
import { answerOf, apiBase, kubeFetch, requestHeaders, unreachable, type Connection, type KubeList } from './client.ts';
import type { WireAnswer, WireRequest } from './wireserve.ts';
import { dropManagedFields, withoutManagedFields } from './unmanaged.ts';

/**
 * Items per run of a page: ~1.5 ms of JSON.parse for pods on a quiet core. The main thread parses
 * runs in its idle time (idletime.ts), a run only where it fits: while the list is scrolled, a
 * frame leaves a few ms, where runs of 200 (~3 ms, more on a busy core) often did not fit.
 */
const RUN = 100;

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

/** A page of a list: its metadata, and its items in runs as they arrive. */
export interface ListPage {
  metadata: KubeList['metadata'];
  /** The page's next run of items (parsed when called); undefined once the page is read. Rejects when the rest of the page does not come. */
  nextRun(): Promise<(() => KubeObject[]) | undefined>;
}

/** Runs of a page as they come, taken one at a time. */
class Runs {
  private queue: string[] = [];
  private ended = false;
  private failure: unknown;
  private waiter: (() => void) | undefined;

  add(run: string) {
    this.queue.push(run);
    this.wake();
  }

  end(failure?: unknown) {
    this.ended = true;
    this.failure = failure;
    this.wake();
  }

  private wake() {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async next(): Promise<(() => KubeObject[]) | undefined> {
    while (!this.queue.length && !this.ended) await new Promise<void>((r) => (this.waiter = r));
    const run = this.queue.shift();
    if (run !== undefined) return () => JSON.parse(run) as KubeObject[];
    if (this.failure) throw this.failure;
    return undefined;
  }
}

/**
 * Reads a page of a list (a KubeError when refused, as kubeFetch). It resolves
 * as soon as the list's metadata is in, before its items (when the server
 * writes the metadata first, as kube-apiserver does), so the next page can be
 * asked for while this one is still arriving.
 */
export function readListPage(conn: Connection, path: string, managedFields: boolean): Promise<ListPage> {
  const w = wireWorker();
  if (!w) return readHere(conn, path, managedFields);
  return new Promise<ListPage>((resolve, reject) => {
    const headers = Object.fromEntries(requestHeaders(conn));
    const runs = new Runs();
    let status = 0;
    let statusText = '';
    let resolved = false;
    const give = (head: string, final: boolean) => {
      if (resolved) return;
      const list = answerOf<KubeList>(conn, path, status, statusText, head);
      // An early head without metadata (a server that writes it after the items) waits for the end.
      if (!final && !list.metadata) return;
      resolved = true;
      resolve({ metadata: list.metadata, nextRun: () => runs.next() });
    };
    const id = ask(w, { op: 'page', url: apiBase(conn) + path, headers, per: RUN, managedFields }, (a) => {
      if (a === 'failed' || a.op === 'page') w.answers.delete(id);
      if (a === 'failed') {
        // The worker is gone: the page is read here, unless it had begun to come (then it is no answer).
        if (resolved) return runs.end(unreachable(conn, new Error('the wire worker failed')));
        return readHere(conn, path, managedFields).then(resolve, reject);
      }
      try {
        if (a.op === 'page') {
          const failure = a.status === 0 ? unreachable(conn, new Error(a.error)) : undefined;
          if (resolved) return runs.end(failure ?? new Error('page answered twice'));
          if (failure) return reject(failure);
          answerOf(conn, path, a.status, a.statusText, a.text ?? '');
          return reject(new Error(`HTTP ${a.status} without a list`));
        }
        if (a.op === 'head') {
          ({ status, statusText } = a);
          give(a.head, false);
        } else if (a.op === 'run') runs.add(a.run);
        else if (a.op === 'end') {
          w.answers.delete(id);
          give(a.head, true);
          runs.end();
        }
      } catch (e) {
        w.answers.delete(id);
        if (!resolved) reject(e);
        else runs.end(e);
      }
    });
  });
}

async function readHere(conn: Connection, path: string, managedFields: boolean): Promise<ListPage> {
  const list = await kubeFetch<KubeList>(conn, path);
  let read = false;
  return { metadata: list.metadata, nextRun: async () => (read ? undefined : ((read = true), () => (managedFields ? list.items : list.items.map(dropManagedFields)))) };
}

export interface SocketHandlers {
  onOpen(): void;
  /** The socket's messages, parsed, in order: a batch at a time. */
  onMessages(messages: unknown[]): void;
  /** The socket closed (or could not open: `opened` false). */
  onClose(opened: boolean): void;
}

/**
 * Opens a WebSocket whose text messages are JSON watch events (in the wire worker where there is
 * one), their objects without managedFields unless `managedFields`.
 */
export function openSocket(url: string, protocols: string[], managedFields: boolean, h: SocketHandlers): { close(): void } {
  const w = wireWorker();
  if (!w) return openHere(url, protocols, managedFields, h);
  let done = false;
  const id = ask(w, { op: 'watch', url, protocols, managedFields }, (a) => {
    if (done) return;
    if (a === 'failed' || a.op === 'closed') {
      done = true;
      w.answers.delete(id);
      h.onClose(a !== 'failed' && a.opened);
    } else if (a.op === 'open') h.onOpen();
    else if (a.op === 'messages') {
      // Taken: the worker may hand over what came meanwhile (it holds it until then).
      w.worker.postMessage({ op: 'taken', id } satisfies WireRequest);
      h.onMessages(JSON.parse(a.batch));
    }
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

function openHere(url: string, protocols: string[], managedFields: boolean, h: SocketHandlers): { close(): void } {
  let opened = false;
  let done = false;
  const ws = new WebSocket(url, protocols);
  ws.onopen = () => {
    opened = true;
    h.onOpen();
  };
  ws.onmessage = (m) => {
    if (typeof m.data === 'string') h.onMessages([JSON.parse(managedFields ? m.data : withoutManagedFields(m.data))]);
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
