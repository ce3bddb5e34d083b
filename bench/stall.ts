// Does a large request body stall everyone else? The server (its own process)
// is sent the largest body it accepts in each format, one at a time, while a
// second client asks /healthz every 5 ms; the bench prints the worst /healthz
// latency seen during each body, beside the worst one with no body in flight
// (the baseline measured in the same run). Goal: under 100 ms for every format.
import { spawn } from 'node:child_process';
import { startApiServer, type Proc } from './processes.ts';

/** The server's own longest event-loop block since the last call (bench/loop-delay.mjs). */
function loopDelay(server: Proc): Promise<number> {
  return new Promise((resolve) => {
    const onData = (d: Buffer) => {
      const m = /loop-delay-max ([\d.]+)/.exec(String(d));
      if (!m) return;
      server.child.stdout!.off('data', onData);
      resolve(Number(m[1]));
    };
    server.child.stdout!.on('data', onData);
    server.child.kill('SIGUSR2');
  });
}

const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** A ConfigMap whose JSON is just under `bytes`, with many small keys (the worst case for parsers). */
function bigConfigMap(name: string, bytes: number): Record<string, unknown> {
  const data: Record<string, string> = {};
  let size = 200;
  for (let i = 0; size < bytes - 64; i++) {
    const k = `key-${i}`;
    const v = `value-${i}`;
    data[k] = v;
    size += k.length + v.length + 6;
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

function yamlOf(cm: Record<string, unknown>): string {
  const data = cm.data as Record<string, string>;
  const meta = cm.metadata as { name: string; namespace: string };
  let s = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${meta.name}\n  namespace: ${meta.namespace}\ndata:\n`;
  for (const [k, v] of Object.entries(data)) s += `  ${k}: ${v}\n`;
  return s;
}

/** The protobuf envelope kubectl sends (k8s magic, runtime.Unknown, the ConfigMap message). */
function protobufOf(cm: Record<string, unknown>): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 127) {
      out.push((n & 127) | 128);
      n >>>= 7;
    }
    out.push(n);
    return Buffer.from(out);
  };
  const field = (n: number, b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b) : b;
    return Buffer.concat([varint((n << 3) | 2), varint(buf.length), buf]);
  };
  const meta = cm.metadata as { name: string; namespace: string };
  const entries = Object.entries(cm.data as Record<string, string>).map(([k, v]) => field(2, Buffer.concat([field(1, k), field(2, v)])));
  const raw = Buffer.concat([field(1, Buffer.concat([field(1, meta.name), field(3, meta.namespace)])), ...entries]);
  return Buffer.concat([Buffer.from('k8s\0'), field(1, Buffer.concat([field(1, 'v1'), field(2, 'ConfigMap')])), field(2, raw)]);
}

interface Latency {
  worst: number;
  median: number;
}

interface Probe {
  stop(): Promise<Latency>;
}

// The prober is a process of its own: in this one, building and sending a 3 MiB
// body would delay the probes and be taken for the server's stall.
const PROBER = `
  let running = false;
  let samples = [];
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', async (cmd) => {
    if (cmd.startsWith('start')) {
      running = true;
      samples = [];
      while (running) {
        const t0 = performance.now();
        await (await fetch(process.argv[1] + '/healthz')).text();
        samples.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 5));
      }
      const sorted = samples.sort((a, b) => a - b);
      process.stdout.write(JSON.stringify({ worst: sorted.at(-1) ?? 0, median: sorted[Math.floor(sorted.length / 2)] ?? 0 }) + '\\n');
    } else running = false;
  });`;

/** Asks /healthz back to back (5 ms apart, from another process) and reports the slowest and the median answer. */
function prober(url: string) {
  const child = spawn(process.execPath, ['-e', PROBER, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  return {
    start(): Probe {
      child.stdin!.write('start\n');
      return {
        stop: () =>
          new Promise<Latency>((resolve) => {
            child.stdout!.once('data', (d) => resolve(JSON.parse(String(d))));
            child.stdin!.write('stop\n');
          }),
      };
    },
    close: () => child.kill(),
  };
}

async function send(server: Proc, path: string, method: string, type: string, body: string | Buffer): Promise<number> {
  const res = await fetch(server.url + path, { method, headers: { ...server.headers, "Content-Type": type }, body: body as unknown as BodyInit });
  await res.text();
  return res.status;
}

export async function benchStall(): Promise<void> {
  // The server process measures its own event loop (bench/loop-delay.mjs, loaded through NODE_OPTIONS).
  const options = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${options ?? ''} --import ./bench/loop-delay.mjs`.trim();
  const server = await startApiServer().finally(() => {
    if (options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = options;
  });
  try {
    await (await fetch(`${server.url}/healthz`)).text(); // connection and JIT warm-up, not measured
    const probes = prober(server.url);
    const idle = probes.start();
    await new Promise((r) => setTimeout(r, 2000));
    const baseline = await idle.stop();
    const idleBlock = await loopDelay(server);

    const cm = bigConfigMap('big', MAX_BODY_BYTES - 1024);
    const json = JSON.stringify(cm);
    const yaml = yamlOf(cm);
    const proto = protobufOf(cm);
    // Patches go to a small object that exists; their own size is the load.
    await send(server, '/api/v1/namespaces/default/configmaps', 'POST', 'application/json', JSON.stringify({ metadata: { name: 'small' }, data: { a: 'b' } }));
    const patchData = JSON.stringify({ data: cm.data });
    const ops: unknown[] = [];
    for (let i = 0; i < 10_000; i++) ops.push({ op: 'add', path: `/data/k${i}`, value: 'x'.repeat(250) });
    // The largest ConfigMap the server stores: 800 KiB of data in small keys, whose managedFields
    // (one entry per key) bring the stored object near the 1.5 MiB storage limit.
    const storedCM = bigConfigMap('big', 800 * 1024);
    const stored = JSON.stringify(storedCM);
    const storedChanged = JSON.stringify({ ...storedCM, data: Object.fromEntries(Object.entries(storedCM.data as Record<string, string>).map(([k, v]) => [k, `${v}!`])) });
    const cases: [string, string, string, string | Buffer][] = [
      ['JSON create (stored)', 'POST', 'application/json', stored],
      ['JSON update (stored)', 'PUT', 'application/json', storedChanged],
      ['YAML create (stored)', 'POST', 'application/yaml', yamlOf(storedCM)],
      ['server-side apply (stored)', 'APPLY', 'application/apply-patch+yaml', stored],
      ['JSON create', 'POST', 'application/json', json.slice(0, MAX_BODY_BYTES)],
      ['YAML create', 'POST', 'application/yaml', yaml.length > MAX_BODY_BYTES ? yaml.slice(0, yaml.lastIndexOf('\n', MAX_BODY_BYTES)) : yaml],
      ['protobuf create', 'POST', 'application/vnd.kubernetes.protobuf', proto.length > MAX_BODY_BYTES ? protobufOf(bigConfigMap('big', MAX_BODY_BYTES - 40_000)) : proto],
      ['merge patch', 'PATCH', 'application/merge-patch+json', patchData],
      ['strategic merge patch', 'PATCH', 'application/strategic-merge-patch+json', patchData],
      ['JSON patch (10000 ops)', 'PATCH', 'application/json-patch+json', JSON.stringify(ops)],
      // Small, but as deep as Go's decoder would take: refused for its depth, after the parser saw it.
      ['YAML nested 9,999 deep', 'POST', 'application/yaml', `metadata: {name: deep}\ndata: ${'['.repeat(9999)}${']'.repeat(9999)}\n`],
    ];
    console.log(`\n/healthz latency while the largest accepted body is processed (worst of many probes)`);
    console.log(`  baseline, nothing in flight: worst ${baseline.worst.toFixed(1)} ms, median ${baseline.median.toFixed(1)} ms; server's event loop blocked at most ${idleBlock.toFixed(1)} ms`);
    for (const [label, method, type, body] of cases) {
      const collection = '/api/v1/namespaces/default/configmaps';
      // The update replaces the stored object created just before it; the others start without one.
      if (method === 'PUT') await send(server, collection, 'POST', 'application/json', stored);
      await loopDelay(server);
      const p = probes.start();
      const t0 = performance.now();
      const path = method === 'POST' ? collection : method === 'PATCH' ? `${collection}/small` : `${collection}/big${method === 'APPLY' ? '?fieldManager=bench' : ''}`;
      const status = await send(server, path, method === 'APPLY' ? 'PATCH' : method, type, body);
      const took = performance.now() - t0;
      const { worst, median } = await p.stop();
      const blocked = await loopDelay(server);
      await send(server, '/api/v1/namespaces/default/configmaps/big', 'DELETE', 'application/json', '{}');
      console.log(
        `  ${label.padEnd(28)} body ${(Buffer.byteLength(body) / 1024 / 1024).toFixed(2)} MiB -> ${status} in ${took.toFixed(0)} ms; ` +
          `/healthz worst ${worst.toFixed(1)} ms (${(worst / Math.max(baseline.worst, 0.1)).toFixed(1)}x baseline), median ${median.toFixed(1)} ms; ` +
          `event loop blocked at most ${blocked.toFixed(1)} ms${worst > 100 ? '  (/healthz OVER 100 ms)' : ''}`,
      );
    }
    probes.close();
  } finally {
    server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchStall();
  process.exit(0);
}
