// Quick timing of the SQLite store at the scale the server is sized for
// (5000 nodes): `npx tsx src/server/storage/sqlite-bench.ts [dir]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteStorage } from './sqlite.ts';

const N = 5000;
const dir = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kw-bench-'));
const file = path.join(dir, `bench-${process.pid}.db`);
const s = SqliteStorage.open(file);
const key = (i: number) => `/registry/minions/node-${String(i).padStart(5, '0')}`;
const value = (i: number, gen: number) =>
  JSON.stringify({
    kind: 'Node',
    apiVersion: 'v1',
    metadata: { name: `node-${i}`, uid: `uid-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, gen: String(gen) } },
    status: {
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date().toISOString(), reason: 'KubeletReady' }],
      addresses: [{ type: 'InternalIP', address: `10.0.${i >> 8}.${i & 255}` }],
    },
  });

/**
 * Times `fn` (the best of `runs` runs, for the read-only steps), and how much
 * of that the event loop was busy: writes run on the store's writer thread, so
 * the two differ, and the event loop's share is what the server's requests and
 * watches compete with.
 */
async function time(label: string, fn: () => Promise<unknown>, runs = 1): Promise<void> {
  let ms = Infinity;
  let busy = 0;
  for (let r = 0; r < runs; r++) {
    const e0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    await fn();
    const t = performance.now() - t0;
    if (t < ms) [ms, busy] = [t, performance.eventLoopUtilization(e0).active];
  }
  console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms, event loop busy ${busy.toFixed(0).padStart(6)} ms`);
}

let subscribed = 0;
s.subscribe((events) => (subscribed += events.length));
const revs: number[] = [];
console.log(`file: ${file}  (value ~${value(1, 0).length} bytes)`);
await time(`${N} creates, one transaction each`, async () => {
  for (let i = 0; i < N; i++) revs[i] = await s.create(key(i), value(i, 0));
});
await time(`${N} updates, one transaction each`, async () => {
  for (let i = 0; i < N; i++) revs[i] = await s.update(key(i), value(i, 1), revs[i]);
});
await time(`${N} updates, 100 at once (one group commit)`, async () => {
  for (let b = 0; b < N; b += 100) {
    const group = [];
    for (let i = b; i < b + 100; i++) group.push(s.update(key(i), value(i, 2), revs[i]).then((rev) => (revs[i] = rev)));
    await Promise.all(group);
  }
});
await time(`list ${N} keys (latest)`, () => s.list('/registry/minions/'), 5);
await time(`list ${N} keys at an older revision`, () => s.list('/registry/minions/', { revision: 7500 }), 5);
await time(`list ${N} keys in pages of 500 (with remaining)`, async () => {
  let res = await s.list('/registry/minions/', { limit: 500 });
  while (res.more) {
    const last = res.items[res.items.length - 1].key;
    res = await s.list('/registry/minions/', { limit: 500, startKey: last + '\0', revision: res.revision });
  }
}, 5);
await time(`100 gets`, async () => {
  for (let i = 0; i < 100; i++) await s.get(key(i * 37));
}, 5);
await time(`eventsSince(${N}) (${2 * N} events)`, () => s.eventsSince(N));
await time(`compact to ${2 * N} (drops ${2 * N} rows)`, () => s.compact(2 * N));
await time(`list ${N} keys after compaction`, () => s.list('/registry/minions/'), 5);
console.log(`events delivered to a subscriber: ${subscribed}`);
await s.close();
for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
