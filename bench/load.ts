// A small closed-loop HTTP load generator: N keep-alive connections each
// issuing requests back to back for a fixed time. Used by every server bench
// so both sides of a ratio are measured with the same client. Also the
// benches' reads of a whole response or of every page of a list, as bytes.
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

/** A GET read to the end as bytes (no decoding, no parsing): what the server and the wire cost. */
export function getBytes(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(url, { headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode} from ${url}`));
          resolve({ ms: performance.now() - t0, body: Buffer.concat(parts) });
        });
      })
      .on('error', reject);
  });
}

/**
 * Every page of a paged LIST at `url` (`limit` items a page), read to the end as bytes: only each
 * page's continue token is read, as parsing the items would measure this client. `items` is what the
 * first page said the list holds (its items and remainingItemCount).
 */
export async function readPages(url: string, headers: Record<string, string>, limit = 500): Promise<{ ms: number; items?: number }> {
  const t0 = performance.now();
  let token = '';
  let items: number | undefined;
  const sep = url.includes('?') ? '&' : '?';
  do {
    const head = (await getBytes(`${url}${sep}limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, headers)).body.subarray(0, 4096).toString();
    token = head.match(/"continue":"([^"]*)"/)?.[1] ?? '';
    const remaining = head.match(/"remainingItemCount":(\d+)/)?.[1];
    if (items === undefined && remaining !== undefined) items = limit + Number(remaining);
  } while (token);
  return { ms: performance.now() - t0, items };
}
