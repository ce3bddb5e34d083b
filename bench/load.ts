// A small closed-loop HTTP load generator: N keep-alive connections each
// issuing requests back to back for a fixed time. Used by every server bench
// so both sides of a ratio are measured with the same client.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
}

export async function load(url: string, opts: { connections?: number; seconds?: number; headers?: Record<string, string> } = {}): Promise<LoadResult> {
  const connections = opts.connections ?? 16;
  const until = Date.now() + (opts.seconds ?? 5) * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const target = new URL(url);
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.get({ host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers: opts.headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} from ${url}`));
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', reject);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50ms: latencies[Math.floor(latencies.length * 0.5)],
    p99ms: latencies[Math.floor(latencies.length * 0.99)],
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
