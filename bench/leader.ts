// `npm run bench -- leader`: what leader election costs and how fast it hands over.
// 1. Start-up on SQLite with the election against without it (--leader-elect=false), side by side:
//    the election must not make start-up slower (a free or stale lease is taken at once).
// 2. With Debian's etcd and two replicas at upstream's timings (15 s lease, 10 s renew deadline,
//    2 s retry): the time from SIGKILL of the leader to the standby leading, against the lease
//    duration (expected: the lease plus up to one jittered retry), and the time from a clean stop
//    (the lease released) to the standby leading, against the retry period.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/server.ts';
import { startEtcd } from '../src/server/testing-etcd.ts';
import { startReplica, type Replica } from '../src/server/replicas.testing.ts';
import { LeaderElector, DEFAULT_TIMINGS } from '../src/server/leader.ts';
import { CONTROLLERS_LEASE } from '../src/server/controllers/index.ts';
import { leaseKind } from '../src/kinds/coordination.ts';
import { configMapKind } from '../src/kinds/configmap.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startupMs(leaderElection: boolean): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-bench-leader-'));
  try {
    const t0 = performance.now();
    const s = await startServer({ port: 0, dataDir, demo: false, simulation: false, leaderElection: leaderElection ? {} : false });
    const ms = performance.now() - t0;
    await s.close();
    return ms;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchStartup() {
  const on: number[] = [];
  const off: number[] = [];
  await startupMs(true); // warm-up: module loading and JIT
  for (let i = 0; i < 7; i++) {
    off.push(await startupMs(false));
    on.push(await startupMs(true));
  }
  // What start-up waits for: the first acquisition, on a free lease (create) and on one left by a
  // killed process (update), against a plain create of a ConfigMap on the same server.
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-bench-leader-'));
  const s = await startServer({ port: 0, dataDir, demo: false, controllers: false });
  const free: number[] = [];
  const stale: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < 50; i++) {
    for (const list of [free, stale]) {
      const elector = new LeaderElector(s.client, { ...CONTROLLERS_LEASE, ...DEFAULT_TIMINGS, identity: `bench_${i}`, exclusive: true, onStartedLeading() {}, onStoppedLeading() {} });
      const t0 = performance.now();
      await elector.start();
      list.push(performance.now() - t0);
      if (!elector.isLeader()) throw new Error('the elector did not lead at once');
      await elector.stop();
      // Stopping released the lease; the next round either finds none (free) or a holder that died (stale).
      if (list === stale) await s.client.delete(leaseKind, 'kube-system', 'kube-controller-manager');
      else await s.client.update(leaseKind, 'kube-system', 'kube-controller-manager', (o) => ((o.spec as any).holderIdentity = 'killed_1'));
    }
    const t0 = performance.now();
    await s.client.create(configMapKind, { metadata: { name: `cm-${i}`, namespace: 'default' } });
    plain.push(performance.now() - t0);
  }
  await s.close();
  rmSync(dataDir, { recursive: true, force: true });
  console.log('First acquisition on SQLite (median of 50)');
  console.log(`  a ConfigMap create (baseline)            ${median(plain).toFixed(2).padStart(6)} ms`);
  console.log(`  free lease (create)                      ${median(free).toFixed(2).padStart(6)} ms   ratio ${(median(free) / median(plain)).toFixed(2)}`);
  console.log(`  lease of a killed process (update)       ${median(stale).toFixed(2).padStart(6)} ms   ratio ${(median(stale) / median(plain)).toFixed(2)}`);
  console.log('Start-up on SQLite (fresh data dir, median of 7, alternating)');
  console.log(`  without election (--leader-elect=false)  ${median(off).toFixed(0).padStart(6)} ms`);
  console.log(`  with election                            ${median(on).toFixed(0).padStart(6)} ms   ratio ${(median(on) / median(off)).toFixed(2)}`);
}

async function benchHandover() {
  const etcd = await startEtcd();
  const dirs: string[] = [];
  const replicas: Replica[] = [];
  const start = (name: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), `kw-bench-leader-${name}-`));
    dirs.push(dataDir);
    return startReplica(name, ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--data-dir', dataDir, '--no-demo']);
  };
  const leading = (r: Replica) => /successfully acquired lease/.test(r.output());
  try {
    replicas.push(await start('r1'));
    await replicas[0].waitForLine(/successfully acquired lease/);
    replicas.push(await start('r2'));
    await replicas[1].waitForLine(/new leader elected/);
    // Let a renewal or two pass, so that the kill falls anywhere in the renew cycle.
    await new Promise((r) => setTimeout(r, 3000));
    const [leader, standby] = leading(replicas[0]) ? replicas : [replicas[1], replicas[0]];
    let t0 = performance.now();
    await leader.kill();
    await standby.waitForLine(/successfully acquired lease/, 60_000);
    const afterKill = (performance.now() - t0) / 1000;

    replicas.push(await start('r3'));
    await replicas[2].waitForLine(/new leader elected/);
    t0 = performance.now();
    await standby.stop();
    await replicas[2].waitForLine(/successfully acquired lease/, 60_000);
    const afterStop = (performance.now() - t0) / 1000;

    console.log('Handover between two replicas on etcd (upstream timings: lease 15 s, renew deadline 10 s, retry 2 s)');
    console.log(`  leader SIGKILLed -> standby leads   ${afterKill.toFixed(1).padStart(5)} s   ratio to the lease duration ${(afterKill / 15).toFixed(2)}`);
    console.log(`  leader stopped (lease released)     ${afterStop.toFixed(1).padStart(5)} s   ratio to the retry period ${(afterStop / 2).toFixed(2)}`);
  } finally {
    await Promise.all(replicas.map((r) => r.kill()));
    await etcd.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export async function benchLeader() {
  await benchStartup();
  await benchHandover();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchLeader();
  process.exit(0);
}
