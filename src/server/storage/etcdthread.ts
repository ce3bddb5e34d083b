// The event loop's side of the etcd client thread (etcdworker.ts). The thread
// owns the etcd3 client: gRPC and HTTP/2 cost about a quarter of a millisecond
// of CPU per request in grpc-js and Node's http2 (stream set-up, headers,
// protobuf, deadlines), which at 5000 nodes took the event loop from
// everything else. EtcdThread offers the few calls EtcdStorage makes, shaped
// as etcd3's (`kv.range`, `kv.txn`, `kv.compact`, `watchClient.watch()`), and
// passes each to the thread and its answer back (threadrequests.ts: should the
// thread die, what waits on it fails with Unavailable and the next call starts
// a new thread); its watches then end with that error, and EtcdStorage's watch
// loop resumes from the last revision it delivered.
import { EventEmitter } from 'node:events';
import type { IRangeRequest, IRangeResponse, ITxnRequest, ITxnResponse, ICompactionRequest, ICompactionResponse, IWatchRequest } from 'etcd3';
import { fromWire, fromWireError, toWire, type EtcdCall, type EtcdThreadAnswer, type EtcdThreadOptions, type EtcdThreadRequest } from './etcdwire.ts';
import { ThreadRequests } from './threadrequests.ts';

/** A watch stream on the thread: as etcd3's, `write` a create request, then `data`, `error` or `end`. */
export class ThreadWatch extends EventEmitter {
  private ended = false;
  constructor(
    private readonly thread: EtcdThread,
    readonly watch: number,
  ) {
    super();
  }
  write(req: IWatchRequest): void {
    this.thread.send({ op: 'watch', watch: this.watch, req: toWire(req) as IWatchRequest });
  }
  /** Ends the watch on the thread and, as a cancelled gRPC call does, fails it with CANCELLED. */
  cancel(): void {
    if (this.ended) return;
    this.close();
    if (this.listenerCount('error')) this.emit('error', Object.assign(new Error('1 CANCELLED: Cancelled on client'), { code: 1 }));
  }
  private close(): void {
    this.ended = true;
    this.thread.endWatch(this);
  }
  /** What the thread says of this watch. */
  receive(m: EtcdThreadAnswer): void {
    if (this.ended) return;
    if ('data' in m) this.emit('data', fromWire(m.data));
    else if ('error' in m) this.fail(fromWireError(m.error));
    else if ('end' in m) (this.close(), this.emit('end'));
  }
  fail(err: Error): void {
    if (this.ended) return;
    this.close();
    this.emit('error', err);
  }
}

export class EtcdThread {
  private readonly thread: ThreadRequests<Extract<EtcdThreadRequest, { id: number }>, EtcdThreadAnswer>;
  private nextWatch = 1;
  private readonly watches = new Map<number, ThreadWatch>();
  private closed = false;

  constructor(opts: EtcdThreadOptions) {
    this.thread = new ThreadRequests({
      from: import.meta.url,
      entry: './etcdworker.ts',
      workerData: opts,
      name: 'the etcd client thread',
      onOther: (m) => 'watch' in m && this.watches.get(m.watch)?.receive(m),
      // Its watches end with the error its calls got.
      onStopped: (err) => [...this.watches.values()].forEach((w) => w.fail(err)),
    });
  }

  readonly kv = {
    range: (req: IRangeRequest) => this.call({ op: 'range', req }) as Promise<IRangeResponse>,
    txn: (req: ITxnRequest) => this.call({ op: 'txn', req }) as Promise<ITxnResponse>,
    compact: (req: ICompactionRequest) => this.call({ op: 'compact', req }) as Promise<ICompactionResponse>,
  };

  readonly watchClient = {
    watch: async (): Promise<ThreadWatch> => {
      const w = new ThreadWatch(this, this.nextWatch++);
      this.watches.set(w.watch, w);
      return w;
    },
  };

  private async call(c: EtcdCall): Promise<unknown> {
    if (this.closed) throw new Error('the etcd client is closed');
    const m = await this.thread.request({ ...c, req: toWire(c.req) } as EtcdCall);
    if ('error' in m) throw fromWireError(m.error);
    return 'res' in m ? fromWire(m.res) : undefined;
  }

  /** Posts to the thread (starting one if there is none). */
  send(m: EtcdThreadRequest): void {
    if (!this.closed) this.thread.post(m);
  }

  endWatch(w: ThreadWatch): void {
    if (this.watches.delete(w.watch)) this.thread.postIfRunning({ op: 'cancel', watch: w.watch } satisfies EtcdThreadRequest);
  }

  /** The thread exits at once, as if it had crashed (tests of what callers and watches get). */
  crashForTest(): void {
    this.thread.postIfRunning({ op: 'crash' } satisfies EtcdThreadRequest);
  }

  /** Closes the client on the thread and ends it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread.close({ op: 'close' } satisfies EtcdThreadRequest, 5_000);
  }
}
