// The API server process of the cluster benches: N simulated nodes (and the
// web app when a static dir is given). Answers `stats` on stdin with a
// `STATS {…}` line: Lease renewal latencies as the agents measured them
// in-process, and how many nodes report Ready; `reset` clears the latencies;
// `profile-start` and `profile-stop <file>` take a V8 CPU profile of a phase;
// `loop-reset` starts the event-loop delay histogram over (its p50/p99/max are in STATS).
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startServer } from '../src/server/server.ts';
import { heartbeatStats, resetHeartbeatStats } from '../src/server/controllers/nodeagent.ts';

const [dataDir, nodes, heartbeatSeconds, staticDir] = process.argv.slice(2);
const server = await startServer({
  port: 0,
  dataDir,
  demo: false,
  staticDir: staticDir ? resolve(staticDir) : undefined,
  simulation: { extraNodes: Number(nodes), heartbeatSeconds: Number(heartbeatSeconds) },
});
console.log(`cluster: ${server.url} ${server.adminToken}`);

const nodePrefix = '/registry/core/nodes/';
let profiler: Session | undefined;
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
const gcSummary = (ds: number[]) => ({ count: ds.length, totalMs: ds.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...ds), over50: ds.filter((d) => d > 50).length });
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'reset') resetHeartbeatStats();
  if (line === 'loop-reset') (loop.reset(), (gc = { minor: [], major: [] }));
  if (line === 'profile-start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  if (line.startsWith('profile-stop ') && profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(line.slice('profile-stop '.length), JSON.stringify(profile));
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
    console.log(`STATS ${JSON.stringify({ ready, heartbeat: heartbeatStats(), loopDelay, gc: { minor: gcSummary(gc.minor), major: gcSummary(gc.major) } })}`);
  }
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
