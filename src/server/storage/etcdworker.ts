// The etcd client thread (started by etcdthread.ts): it owns the etcd3 client
// and its gRPC channel, runs the calls the event loop sends and relays the
// watches' responses, so that gRPC's per-request work is not the event loop's.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { Etcd3, type IWatchRequest, type IWatchResponse } from 'etcd3';
import { circuitBreaker, ConsecutiveBreaker, handleWhen, retry } from 'cockatiel';
import { fromWire, toWire, toWireError, type EtcdThreadAnswer, type EtcdThreadOptions, type EtcdThreadRequest } from './etcdwire.ts';

const opts = workerData as EtcdThreadOptions;
const timeout = opts.requestTimeoutMs;

/** Whether a failed call cannot have reached etcd (no connection was made), so another member may be tried. */
function notSent(err: Error): boolean {
  return /ECONNREFUSED|No connection established|failed to connect|connect ETIMEDOUT/i.test(err.message);
}

const client = new Etcd3({
  hosts: opts.servers,
  credentials: opts.caFile
    ? {
        rootCertificate: readFileSync(opts.caFile),
        certChain: opts.certFile ? readFileSync(opts.certFile) : undefined,
        privateKey: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
      }
    : undefined,
  dialTimeout: timeout,
  // No bound on what etcd may answer (kube-apiserver's client sets the largest): gRPC's default of 4 MiB
  // cut off a watch response of 1,000 revisions of pods with their previous values, and the watch never got past it.
  // HTTP/2 flow-control windows of 32 MiB rather than grpc-js's 64 KiB. The replica's one watch brings
  // every write back, with its previous value, and 64 KiB at a time was opened again only once a busy
  // event loop had read it: at 5000 nodes the watch, not the CPU, fell 13,000-20,000 revisions behind.
  grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc-node.flow_control_window': 32 * 1024 * 1024 },
  defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
  faultHandling: {
    // Move on to another member only when the request cannot have reached
    // this one (as clientv3 retries mutations): a write that timed out may
    // have been applied, and trying it again would misreport its outcome.
    global: retry(handleWhen(notSent), { maxAttempts: Math.max(1, opts.servers.length - 1) }),
    // A member is passed over for a while only when it cannot be reached. The library's default also
    // counted calls that ran out of time: three slow answers from a busy etcd failed every call for 5 s.
    host: () => circuitBreaker(handleWhen(notSent), { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(3) }),
  },
});

const post = (m: EtcdThreadAnswer) => parentPort!.postMessage(m);

type Stream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;
/** The open watches by the event loop's number; a watch is opened by its first request. */
const watches = new Map<number, Promise<Stream | undefined>>();

function stop(stream: Stream): void {
  try {
    stream.end();
    stream.cancel();
  } catch {
    // already ended
  }
}

function openWatch(watch: number): Promise<Stream | undefined> {
  const opened = client.watchClient.watch().then(
    (stream) => {
      // Cancelled while it was being opened.
      if (watches.get(watch) !== opened) return void stop(stream);
      stream.on('data', (res: IWatchResponse) => watches.has(watch) && post({ watch, data: toWire(res) }));
      stream.on('error', (e: Error) => watches.delete(watch) && post({ watch, error: toWireError(e) }));
      stream.on('end', () => watches.delete(watch) && post({ watch, end: true }));
      return stream;
    },
    (e) => {
      if (watches.delete(watch)) post({ watch, error: toWireError(e) });
      return undefined;
    },
  );
  watches.set(watch, opened);
  return opened;
}

parentPort!.on('message', (m: EtcdThreadRequest) => {
  switch (m.op) {
    case 'range':
    case 'txn':
    case 'compact': {
      const req = fromWire(m.req) as never;
      const call = m.op === 'range' ? client.kv.range(req) : m.op === 'txn' ? client.kv.txn(req) : client.kv.compact(req);
      call.then(
        (res) => post({ id: m.id, res: toWire(res) }),
        (e) => post({ id: m.id, error: toWireError(e) }),
      );
      return;
    }
    case 'watch': {
      const opened = watches.get(m.watch) ?? openWatch(m.watch);
      void opened.then((stream) => stream?.write(fromWire(m.req) as IWatchRequest));
      return;
    }
    case 'cancel': {
      const opened = watches.get(m.watch);
      watches.delete(m.watch);
      void opened?.then((stream) => stream && stop(stream));
      return;
    }
    case 'close': {
      const open = [...watches.values()];
      watches.clear();
      void Promise.all(open.map((o) => o.then((stream) => stream && stop(stream)))).finally(() => {
        client.close();
        process.exit(0);
      });
      return;
    }
    case 'crash':
      process.exit(1);
  }
});
