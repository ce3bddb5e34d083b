// The API server process of the cluster benches: N simulated nodes (and the
// web app when a static dir is given). Answers `stats` on stdin with a
// `STATS {…}` line: Lease renewal latencies as the agents measured them
// in-process, and how many nodes report Ready; `reset` clears the latencies;
// `profile-start` and `profile-stop <file>` take a V8 CPU profile of a phase,
// `heap-start` and `heap-stop <file>` a sampling profile of what it allocates (garbage included);
// `loop-reset` starts the event-loop delay histogram and the list of long turns over (both are in STATS).
// Flags after the positional arguments: `--token-file=<csv>` (kube-apiserver's token file, for clients
// with identities of their own) and `--simulate-nodes=<selector>` (the nodes whose kubelet is simulated).
import { openSync, readSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startServer } from '../src/server/server.ts';
import { heartbeatStats, resetHeartbeatStats } from '../src/server/controllers/nodeagent.ts';
// A namespace import: a clone of an older commit without these runs the same bench (A/B).
import * as watchSink from '../src/server/http/watchsink.ts';
import * as commitStats from '../src/server/storage/commitstats.ts';
import * as recorder from '../src/server/events/recorder.ts';

const args = process.argv.slice(2);
const [dataDir, nodes, heartbeatSeconds, staticDir] = args.filter((a) => !a.startsWith('--'));
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const server = await startServer({
  port: 0,
  dataDir,
  demo: false,
  staticDir: staticDir ? resolve(staticDir) : undefined,
  tokenFile: flag('token-file'),
  simulation: { extraNodes: Number(nodes), heartbeatSeconds: Number(heartbeatSeconds), nodes: flag('simulate-nodes') },
});
// The CA's PEM in base64: one word of the line.
console.log(`cluster: ${server.url} ${server.adminToken} ${server.httpsUrl} ${Buffer.from(server.ca).toString('base64')}`);

const nodePrefix = '/registry/core/nodes/';
// When each marker write of scale-cluster.ts (a `bench-marker` label on one node and one pod) was
// applied in the watch cache: from then on its event is the watch path's to deliver (in STATS as
// `markersInCache`, [sequence number, ms since the epoch], the clock the bench's readers use).
let markersInCache = new Map<number, number>();
for (const prefix of [`${nodePrefix}sim-node-00042`, '/registry/core/pods/default/bench-marker']) {
  server.cache.watchLive({
    prefix,
    deliver(e) {
      const seq = e.object.object.metadata.labels?.['bench-marker'];
      if (seq !== undefined && !markersInCache.has(Number(seq))) markersInCache.set(Number(seq), performance.timeOrigin + performance.now());
    },
  });
}
/**
 * When each marker's event was written to the watchers: the end of the first watch flush that took the
 * sinks' events after the cache handed it to them ([sequence number, ms since the epoch]; an older server
 * does not say). Splits the watch path's part in two: the server's (the cache to the sockets) and the
 * way to the readers (the kernel, and the readers' threads getting a core).
 */
function markersWritten(): [number, number][] {
  const times = watchSink.watchFlushTimes?.();
  if (!times) return [];
  const origin = performance.timeOrigin;
  const out: [number, number][] = [];
  for (const [seq, at] of markersInCache) {
    const flush = times.find(([took]) => took + origin >= at);
    if (flush) out.push([seq, flush[1] + origin]);
  }
  return out;
}
// When each marker request (its `X-Bench-Marker` header) reached the handler and when its response was
// sent, on the same clock: the write's way through the server, apart from the way there and back.
let markersAtServer = new Map<number, [number, number]>();
server.listener.http.prependListener('request', (req, res) => {
  const seq = req.headers['x-bench-marker'];
  if (typeof seq !== 'string') return;
  const at = performance.timeOrigin + performance.now();
  res.once('finish', () => markersAtServer.set(Number(seq), [at, performance.timeOrigin + performance.now()]));
});
let profiler: Session | undefined;
let heapProfiler: Session | undefined;
// How late the server's event loop ran timers: a write, an event's delivery, all wait behind the turn in progress.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
// Garbage collection pauses since `loop-reset`: the major ones (mark-compact of a heap of hundreds of MB) are the event loop's longest stalls candidates.
let gc = { minor: [] as number[], major: [] as number[] };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    (kind === constants.NODE_PERFORMANCE_GC_MAJOR ? gc.major : gc.minor).push(e.duration);
  }
}).observe({ entryTypes: ['gc'] });
// The event loop's long turns since `loop-reset`: a 5 ms interval timer that fired late, how long it waited, and how
// much of that the main thread ran (its CPU) or waited for a core (runnable, not running), from the kernel's schedstat
// (ns on CPU, ns on a run queue). A long turn is our code when its CPU is most of it, the machine's load when its wait is.
// With a CPU profile (profile-stop), the turns go beside it (<file>.turns.json), their times on the profile's clock.
const LONG_TURN_MS = 50;
// Read 200 times a second: one pread of a file kept open, not readFileSync's open, stat, read and close.
const schedstatFd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
const schedstatBuf = Buffer.alloc(128);
const schedstat = () => {
  const n = readSync(schedstatFd, schedstatBuf, 0, schedstatBuf.length, 0);
  const [run, wait] = schedstatBuf.toString('latin1', 0, n).split(' ').map(Number);
  return { run, wait };
};
let longTurns: { startUs: number; ms: number; cpuMs: number; waitMs: number }[] = [];
let lastTick = process.hrtime.bigint();
let lastSched = schedstat();
setInterval(() => {
  const now = process.hrtime.bigint();
  const sched = schedstat();
  const ms = Number(now - lastTick) / 1e6;
  if (ms > LONG_TURN_MS) longTurns.push({ startUs: Number(lastTick / 1000n), ms, cpuMs: (sched.run - lastSched.run) / 1e6, waitMs: (sched.wait - lastSched.wait) / 1e6 });
  lastTick = now;
  lastSched = sched;
}, 5).unref();
const turnSummary = () => {
  const byLength = [...longTurns].sort((a, b) => b.ms - a.ms);
  const sum = (f: (t: (typeof longTurns)[number]) => number) => longTurns.reduce((a, t) => a + f(t), 0);
  return { count: longTurns.length, ms: sum((t) => t.ms), cpuMs: sum((t) => t.cpuMs), waitMs: sum((t) => t.waitMs), longest: byLength.slice(0, 5).map((t) => ({ ms: t.ms, cpuMs: t.cpuMs, waitMs: t.waitMs })) };
};
const gcSummary = (ds: number[]) => ({ count: ds.length, totalMs: ds.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...ds), over50: ds.filter((d) => d > 50).length });
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'reset') resetHeartbeatStats();
  if (line === 'loop-reset') (loop.reset(), (gc = { minor: [], major: [] }), (longTurns = []), watchSink.resetWatchFlushStats?.(), commitStats.resetCommitStats?.(), (markersInCache = new Map()), (markersAtServer = new Map()));
  if (line === 'profile-start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  if (line === 'heap-start') {
    heapProfiler = new Session();
    heapProfiler.connect();
    await heapProfiler.post('HeapProfiler.enable');
    // Objects a collection freed stay in the profile: the young garbage is what the minor collections cost.
    await heapProfiler.post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  }
  if (line.startsWith('heap-stop ') && heapProfiler) {
    const { profile } = await heapProfiler.post('HeapProfiler.stopSampling');
    writeFileSync(line.slice('heap-stop '.length), JSON.stringify(profile));
    heapProfiler.disconnect();
    heapProfiler = undefined;
  }
  if (line.startsWith('profile-stop ') && profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(line.slice('profile-stop '.length), JSON.stringify(profile));
    writeFileSync(line.slice('profile-stop '.length) + '.turns.json', JSON.stringify(longTurns));
    profiler.disconnect();
    profiler = undefined;
  }
  if (line === 'stats') {
    let ready = 0;
    for (const c of server.cache.list(nodePrefix)) {
      if (((c.object.status as any)?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True')) ready++;
    }
    const ms = (ns: number) => ns / 1e6;
    const loopDelay = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
    console.log(`STATS ${JSON.stringify({ ready, heartbeat: heartbeatStats(), loopDelay, gc: { minor: gcSummary(gc.minor), major: gcSummary(gc.major) }, longTurns: turnSummary(), watchFlush: watchSink.watchFlushStats?.(), commit: commitStats.commitStats?.(), events: recorder.recorderTotals, markersInCache: [...markersInCache], markersWritten: markersWritten(), markersAtServer: [...markersAtServer] })}`);
  }
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
