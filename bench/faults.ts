// `npm run bench -- faults`: the long runs of the fault tests the suite runs
// short (src/server/faults.test.ts, src/server/fuzz.test.ts). Prints what was
// done and what went wrong; exits 1 if anything did.
import { spawnSync } from 'node:child_process';
import { crashUnderWriters, readModifyWrite } from '../src/server/faults.ts';
import { startTestServer } from '../src/server/testing.ts';

export async function benchFaults() {
  let failed = false;
  const kills = Number(process.env.FAULT_KILLS ?? 12);
  const t0 = Date.now();
  const crash = await crashUnderWriters({ kills, writers: 16, roundMs: 1500 });
  console.log(
    `faults/crash: ${crash.kills} SIGKILLs under 16 writers: ${crash.acknowledged} creates acknowledged, lost ${crash.lost.length}, ` +
      `resourceVersions reused ${crash.reused.length}, watch events ${crash.watched} (missed ${crash.missedByWatch.length}, out of order ${crash.outOfOrder}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  failed ||= crash.lost.length > 0 || crash.reused.length > 0 || crash.missedByWatch.length > 0 || crash.outOfOrder > 0;

  const s = await startTestServer();
  try {
    const t1 = Date.now();
    const rmw = await readModifyWrite(s.url, s.adminHeaders, { clients: 50, updatesEach: 20 });
    console.log(`faults/rmw: ${rmw.clients} clients x ${rmw.updatesEach} read-modify-writes: counter ${rmw.final} (want ${rmw.clients * rmw.updatesEach}), ${rmw.conflicts} conflicts retried, in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    failed ||= rmw.final !== rmw.clients * rmw.updatesEach;
  } finally {
    await s.stop();
  }

  const runs = process.env.FUZZ_RUNS ?? '5000';
  const fuzz = spawnSync('npx', ['vitest', 'run', 'src/server/fuzz.test.ts'], { env: { ...process.env, FUZZ_RUNS: runs }, stdio: 'inherit' });
  console.log(`faults/fuzz: ${runs} malformed requests: ${fuzz.status === 0 ? 'all below 500, failures as Status, nothing invalid stored' : 'FAILED (see above)'}`);
  failed ||= fuzz.status !== 0;
  if (failed) process.exitCode = 1;
}
