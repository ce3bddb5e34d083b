// Watch readers of the scale bench, run in worker threads so that reading 200
// watches does not hold up the bench's own thread (which sends the marker
// writes and takes their start times), and so that readers and server can use
// both cores. Each worker reads its share of the watches over chunked HTTP,
// counts their events, checks that resourceVersions only grow, and notes when
// each marker arrives (as performance.timeOrigin + performance.now(), a clock
// every thread shares). It reads cheaply, as the readers share the server's
// cores: lines are found in the chunks as they came (only a line split across
// chunks is copied); the resourceVersion is searched for from the line's end
// (the server writes it last in the metadata, so only the status lies after
// it), and the marker label only in the objects that carry markers, known by
// their name, the first member of the metadata (searching every pod event of
// a rollout for both fields from the start took a fifth of a core).
// A path given as `ws:<path>` is watched over a WebSocket instead (as the app
// watches): each message is one event.
import http from 'node:http';
import { WebSocket } from 'ws';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parentPort, Worker, workerData } from 'node:worker_threads';

export interface ReaderSpec {
  url: string;
  headers: Record<string, string>;
  /** Paths with their query, one watch each; `ws:` before one watches it over a WebSocket. */
  paths: string[];
  /** The names of the objects whose `bench-marker` label is written (every object's when not given). */
  markerNames?: string[];
}

export interface ReaderResult {
  events: number;
  outOfOrder: number;
  closed: boolean;
  /** [marker sequence number, arrival time in ms since the epoch] */
  markers: [number, number][];
}

/** A worker reading `spec.paths`; it posts 'started', then its results when sent 'stop'. */
export function readerWorker(spec: ReaderSpec): Worker {
  // Workers run TypeScript as this process does: tsx's loader is registered first (as src/server/http/bodies.ts).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = new URL('./watchreaders.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData: spec });
}

const MARKER = Buffer.from('"bench-marker":"');
const RV = Buffer.from('"resourceVersion":"');
const NAME = Buffer.from('"name":"');

/** Whether the event's object (its first `"name"` member: the metadata's) is one of `names`. */
function named(l: Buffer, names: Buffer[]): boolean {
  const at = l.indexOf(NAME);
  if (at < 0) return false;
  const from = at + NAME.length;
  return names.some((n) => l[from + n.length] === 34 && l.compare(n, 0, n.length, from, from + n.length) === 0);
}

class Reader {
  events = 0;
  lastRv = 0;
  outOfOrder = 0;
  closed = false;
  readonly markers = new Map<number, number>();
  private req: http.ClientRequest | undefined;
  private ws: WebSocket | undefined;
  constructor(url: string, headers: Record<string, string>, path: string, markerNames?: Buffer[]) {
    let rest: Buffer[] = [];
    const line = (l: Buffer, now: number) => {
      this.events++;
      const r = l.lastIndexOf(RV);
      if (r >= 0) {
        let v = 0;
        for (let i = r + RV.length; l[i] !== 34; i++) v = v * 10 + l[i] - 48;
        if (v <= this.lastRv) this.outOfOrder++;
        this.lastRv = v;
      }
      const m = !markerNames || named(l, markerNames) ? l.indexOf(MARKER) : -1;
      if (m >= 0) {
        let seq = 0;
        for (let i = m + MARKER.length; l[i] !== 34; i++) seq = seq * 10 + l[i] - 48;
        if (!this.markers.has(seq)) this.markers.set(seq, now);
      }
    };
    if (path.startsWith('ws:')) {
      const ws = (this.ws = new WebSocket(url.replace(/^http/, 'ws') + path.slice(3), { headers, perMessageDeflate: false }));
      ws.on('message', (data: Buffer) => line(data, performance.timeOrigin + performance.now()));
      ws.on('close', () => (this.closed = true));
      ws.on('error', () => (this.closed = true));
      this.opened = new Promise((resolve) => (ws.once('open', resolve), ws.once('close', resolve)));
      return;
    }
    let opened: () => void = () => {};
    this.opened = new Promise<void>((resolve) => (opened = resolve));
    this.req = http.get(url + path, { headers }, (res) => {
      // The server registers the watch in the turn it starts the response.
      opened();
      res.on('data', (chunk: Buffer) => {
        const now = performance.timeOrigin + performance.now();
        let start = 0;
        let nl = chunk.indexOf(10);
        if (nl < 0) return void rest.push(chunk);
        if (rest.length) {
          rest.push(chunk.subarray(0, nl));
          line(Buffer.concat(rest), now);
          rest = [];
          start = nl + 1;
          nl = chunk.indexOf(10, start);
        }
        for (; nl >= 0; nl = chunk.indexOf(10, start)) {
          line(chunk.subarray(start, nl), now);
          start = nl + 1;
        }
        if (start < chunk.length) rest.push(chunk.subarray(start));
      });
      res.on('close', () => (this.closed = true));
    });
    this.req.on('error', () => ((this.closed = true), opened()));
  }
  /** Resolves once the watch is open (or failed). */
  opened: Promise<unknown> = Promise.resolve();
  result(): ReaderResult {
    return { events: this.events, outOfOrder: this.outOfOrder, closed: this.closed, markers: [...this.markers] };
  }
  stop() {
    this.req?.destroy();
    this.ws?.terminate();
  }
}

if (parentPort && workerData?.paths) {
  const spec = workerData as ReaderSpec;
  const markerNames = spec.markerNames?.map((n) => Buffer.from(n));
  const readers = spec.paths.map((p) => new Reader(spec.url, spec.headers, p, markerNames));
  parentPort.on('message', (m) => {
    if (m !== 'stop') return;
    const results = readers.map((r) => r.result());
    for (const r of readers) r.stop();
    parentPort!.postMessage(results);
  });
  void Promise.all(readers.map((r) => r.opened)).then(() => parentPort!.postMessage('started'));
}
