// `npm run bench -- etcd`: the etcd backend against the SQLite one, measured
// side by side in one run. ConfigMap create/update/get through the API server
// on SQLite and on etcd (one local member), and raw etcd puts/gets from the
// same etcd3 client the backend uses (the most the server could get out of
// etcd); then, with two replicas on that etcd, the delay from a write on
// replica A to its event on a watch on replica B.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { call, startApiServer, type Proc } from './processes.ts';
import { startEtcd } from '../src/server/testing-etcd.ts';

const N = 600;
const CONCURRENCY = 8;

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Runs op(0..n-1) on `concurrency` workers; throughput and latency quantiles in ms. */
async function run(n: number, op: (i: number) => Promise<void>, concurrency = CONCURRENCY): Promise<Result> {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) {
        const s = performance.now();
        await op(i);
        times.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { perSecond: n / seconds, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const configMap = (name: string, gen: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { app: 'bench' } },
  data: { gen: String(gen), payload: 'x'.repeat(512) },
});

/** create, update, get of N ConfigMaps through one server. */
async function throughServer(api: Proc, tag: string): Promise<Record<'create' | 'update' | 'get', Result>> {
  const CM = '/api/v1/namespaces/default/configmaps';
  const rvs: string[] = [];
  const create = await run(N, async (i) => {
    rvs[i] = (await call(api, 'POST', CM, configMap(`${tag}-${i}`, 0))).metadata.resourceVersion;
  });
  const update = await run(N, async (i) => {
    const cm = configMap(`${tag}-${i}`, 1) as any;
    cm.metadata.resourceVersion = rvs[i];
    await call(api, 'PUT', `${CM}/${tag}-${i}`, cm);
  });
  const get = await run(N * 3, async (i) => {
    await call(api, 'GET', `${CM}/${tag}-${i % N}`);
  });
  return { create, update, get };
}

/** The same number of puts and gets straight to etcd from one etcd3 client, values the size the server stores. */
async function rawEtcd(endpoints: string[]): Promise<Record<'put' | 'get', Result>> {
  const client = new Etcd3({ hosts: endpoints });
  try {
    const value = JSON.stringify(configMap('raw', 0));
    const put = await run(N, async (i) => {
      await client.put(`/bench-raw/configmaps/default/raw-${i}`).value(value);
    });
    const get = await run(N * 3, async (i) => {
      await client.get(`/bench-raw/configmaps/default/raw-${i % N}`).string();
    });
    return { put, get };
  } finally {
    client.close();
  }
}

/** Writes on `writer`, one at a time, and times each until its event arrives on a watch on `watcher`. */
async function replicaDelay(writer: Proc, watcher: Proc, samples: number, tag: string): Promise<{ delay: Result; write: Result }> {
  const CM = '/api/v1/namespaces/default/configmaps';
  const start = (await call(watcher, 'GET', CM)).metadata.resourceVersion;
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const ac = new AbortController();
  const res = await fetch(`${watcher.url}${CM}?watch=1&resourceVersion=${start}&labelSelector=delay%3Dyes`, { headers: watcher.headers, signal: ac.signal });
  const reader = res.body!.getReader();
  const pump = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const now = performance.now();
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const name = JSON.parse(line).object.metadata.name as string;
          arrived.set(name, now);
          waiting.get(name)?.();
        }
      }
    } catch {
      /* aborted */
    }
  })();
  const delays: number[] = [];
  const writes: number[] = [];
  for (let i = 0; i < samples; i++) {
    const name = `delay-${tag}-${i}`;
    const seen = new Promise<void>((resolve) => waiting.set(name, resolve));
    const cm = configMap(name, 0) as any;
    cm.metadata.labels.delay = 'yes';
    const t0 = performance.now();
    await call(writer, 'POST', CM, cm);
    writes.push(performance.now() - t0);
    await seen;
    delays.push(arrived.get(name)! - t0);
  }
  ac.abort();
  await pump;
  const summary = (xs: number[]): Result => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { perSecond: 0, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  };
  return { delay: summary(delays), write: summary(writes) };
}

const fmt = (r: Result) => `${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms`;

export async function benchEtcd() {
  const etcd = await startEtcd();
  const procs: Proc[] = [];
  try {
    const sqlite = await startApiServer(['--no-controllers']);
    procs.push(sqlite);
    const etcdArgs = ['--no-controllers', '--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')];
    const dataDir = mkdtempSync(join(tmpdir(), 'kw-bench-etcd-'));
    const onEtcd = await startApiServer(etcdArgs, dataDir);
    procs.push(onEtcd);

    // Warm both (JIT, connections), then measure one after the other on the same machine.
    await throughServer(sqlite, 'warm');
    await throughServer(onEtcd, 'warm');
    const s = await throughServer(sqlite, 'bench');
    const e = await throughServer(onEtcd, 'bench');
    const raw = await rawEtcd(etcd.endpoints);

    console.log(`etcd backend (${N} ConfigMaps, ${CONCURRENCY} concurrent clients, one local etcd member ${etcd.endpoints[0]})`);
    for (const op of ['create', 'update', 'get'] as const) {
      console.log(`  ${op.padEnd(6)} SQLite server ${fmt(s[op])}`);
      console.log(`  ${op.padEnd(6)} etcd server   ${fmt(e[op])}`);
      const rawOp = op === 'get' ? raw.get : raw.put;
      console.log(`  ${op.padEnd(6)} raw etcd ${op === 'get' ? 'get' : 'put'}  ${fmt(rawOp)}`);
      console.log(
        `         ratio: etcd server ${(e[op].perSecond / s[op].perSecond).toFixed(2)}x the SQLite server's throughput, ` +
          `${(e[op].perSecond / rawOp.perSecond).toFixed(2)}x raw etcd's (the limit)`,
      );
    }

    // A second replica on the same etcd and data dir: writes on one, watch on the other.
    const replica = await startApiServer(etcdArgs, dataDir);
    procs.push(replica);
    await replicaDelay(onEtcd, replica, 20, 'warm');
    const { delay, write } = await replicaDelay(onEtcd, replica, 300, 'bench');
    console.log(`replica A write -> event on replica B's watch (300 sequential creates):`);
    console.log(`  delay from sending the write  p50 ${delay.p50.toFixed(2)} ms  p99 ${delay.p99.toFixed(2)} ms`);
    console.log(`  the write's own round trip     p50 ${write.p50.toFixed(2)} ms  p99 ${write.p99.toFixed(2)} ms`);
    console.log(`  ratio ${(delay.p50 / write.p50).toFixed(2)}x the write's latency at p50, ${(delay.p99 / write.p99).toFixed(2)}x at p99`);
  } finally {
    for (const p of procs) p.stop();
    await etcd.stop();
  }
}
