// Events during a 1000-node DaemonSet rollout: how many event writes per
// second the actors make and how much the stored events weigh, with the
// recorder's correlation (rate limit, similar-event combining, counting
// repeats into one object) and without it (every occurrence its own object,
// the baseline), measured side by side in one run on the same scenario:
// 1000 simulated nodes, 20 of which cannot pull images; the DaemonSet is
// created, then its image changed (maxUnavailable 10%). Prints numbers and
// ratios; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/server.ts';
import { broadcasterDefaults, recorderTotals } from '../src/server/events/recorder.ts';
import { daemonSetKind } from '../src/kinds/daemonset.ts';
import { eventKind } from '../src/kinds/events.ts';
import { nodeKind } from '../src/kinds/node.ts';

const NODES = Number(process.env.BENCH_EVENT_NODES ?? 1000);
const PULL_FAILING = Math.round(NODES / 50);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Result {
  writes: number;
  creates: number;
  patches: number;
  seconds: number;
  objects: number;
  bytes: number;
  recorded: number;
  dropped: string;
}

async function scenario(aggregate: boolean): Promise<Result> {
  broadcasterDefaults.aggregate = aggregate;
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-bench-events-'));
  const server = await startServer({
    port: 0,
    dataDir,
    controllers: true,
    leaderElection: false,
    simulation: { extraNodes: NODES, nodes: 'sim.k8s.io/simulated=true', heartbeatSeconds: 60, podStartSeconds: 0.2, podReadySeconds: 0.2, podStopSeconds: 0.1 },
  });
  try {
    const { client, cache, stores } = server;
    const nodePrefix = stores.get(nodeKind)!.resourcePrefix;
    const ready = () => cache.list(nodePrefix).filter((c) => ((c.object.status as any)?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True')).length;
    while (ready() < NODES) await sleep(200);
    for (let i = 1; i <= PULL_FAILING; i++) {
      await client.update(nodeKind, undefined, `sim-node-${String(i * 50).padStart(5, '0')}`, (o) => void (o.metadata.annotations = { ...o.metadata.annotations, 'sim.k8s.io/image-pull-error': 'true' }));
    }
    await sleep(500);

    const eventPrefix = stores.get(eventKind)!.resourcePrefix;
    let creates = 0;
    let patches = 0;
    const stop = await cache.watchFrom(cache.revision, { prefix: eventPrefix, deliver: (e) => (e.type === 'ADDED' ? creates++ : e.type === 'MODIFIED' ? patches++ : 0) });
    const before = structuredClone(recorderTotals);
    const t0 = performance.now();
    const dsName = 'bench-agent';
    await client.create(daemonSetKind, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: dsName, namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: dsName } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
        template: { metadata: { labels: { app: dsName } }, spec: { nodeSelector: { 'sim.k8s.io/simulated': 'true' }, containers: [{ name: 'agent', image: 'agent:1' }] } },
      },
    });
    const status = () => (client.get(daemonSetKind, 'default', dsName).status ?? {}) as any;
    const settled = (gen: number) => {
      const s = status();
      return s.observedGeneration >= gen && s.updatedNumberScheduled === NODES && s.numberAvailable >= NODES - PULL_FAILING;
    };
    while (!settled(1)) await sleep(250);
    await client.update(daemonSetKind, 'default', dsName, (o) => void ((o.spec as any).template.spec.containers[0].image = 'agent:2'));
    while (!settled(2)) await sleep(250);
    // Until the recorders' queues have drained (they write after the actors), at most 2 minutes.
    const handled = () => recorderTotals.created + recorderTotals.patched + Object.values(recorderTotals.dropped).reduce((a, b) => a + b, 0);
    for (let i = 0; i < 600 && handled() < recorderTotals.recorded; i++) await sleep(200);
    const seconds = (performance.now() - t0) / 1000;
    stop();
    const stored = cache.list(eventPrefix);
    const bytes = stored.reduce((n, c) => n + JSON.stringify(c.object).length, 0);
    const d = recorderTotals.dropped;
    const dropped = `dropped: ${d.rateLimited - before.dropped.rateLimited} rate-limited, ${d.queueFull - before.dropped.queueFull} queue full, ${d.failed - before.dropped.failed} failed`;
    return { writes: creates + patches, creates, patches, seconds, objects: stored.length, bytes, recorded: recorderTotals.recorded - before.recorded, dropped };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    broadcasterDefaults.aggregate = undefined;
  }
}

export async function benchEvents() {
  console.log(`\nevents: a DaemonSet created and rolled out on ${NODES} simulated nodes (${PULL_FAILING} cannot pull images)`);
  const off = await scenario(false);
  const on = await scenario(true);
  const line = (name: string, r: Result) =>
    console.log(
      `  ${name.padEnd(22)} ${r.recorded} events recorded (${r.dropped}); ${r.writes} event writes (${r.creates} creates, ${r.patches} patches) in ${r.seconds.toFixed(1)} s = ${(r.writes / r.seconds).toFixed(0)} writes/s; ` +
        `${r.objects} events stored, ${(r.bytes / 1024).toFixed(0)} KiB`,
    );
  line('without correlation', off);
  line('with correlation', on);
  console.log(
    `  ratio with/without: writes ${(on.writes / off.writes).toFixed(2)}, objects stored ${(on.objects / off.objects).toFixed(2)}, bytes stored ${(on.bytes / off.bytes).toFixed(2)}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchEvents();
  process.exit(0);
}
