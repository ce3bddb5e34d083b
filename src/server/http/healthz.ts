// /healthz, /livez and /readyz as k8s.io/apiserver's healthz package writes
// them: `ok` when every check passes; with `?verbose`, or when one fails
// (500), a `[+]name ok` / `[-]name failed: reason withheld` line per check and
// a closing `<endpoint> check passed|failed`. `/<endpoint>/<name>` runs one
// check. A check may add a detail after `ok` (which replica leads, say).
import type { ServerResponse } from 'node:http';

export interface HealthCheck {
  name: string;
  /** Which endpoints run it (the leader election is in /healthz and /readyz, not /livez). */
  endpoints: readonly ('healthz' | 'livez' | 'readyz')[];
  /** `error` fails the check; `detail` is shown after `ok`. */
  check: () => { error?: string; detail?: string } | Promise<{ error?: string; detail?: string }>;
}

const ping: HealthCheck = { name: 'ping', endpoints: ['healthz', 'livez', 'readyz'], check: () => ({}) };

/** Answers a health path; false when `path` is not one. */
export async function serveHealth(path: string, query: URLSearchParams, checks: readonly HealthCheck[], res: ServerResponse): Promise<boolean> {
  const m = /^\/(healthz|livez|readyz)(?:\/([^/]+))?$/.exec(path);
  if (!m) return false;
  const endpoint = m[1] as HealthCheck['endpoints'][number];
  const excluded = new Set(query.getAll('exclude'));
  let run = [ping, ...checks].filter((c) => c.endpoints.includes(endpoint) && !excluded.has(c.name));
  if (m[2]) {
    run = run.filter((c) => c.name === m[2]);
    if (!run.length) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }).end('404 page not found\n');
      return true;
    }
  }
  const results = await Promise.all(
    run.map(async (c) => {
      try {
        return { name: c.name, ...(await c.check()) };
      } catch (e) {
        return { name: c.name, error: (e as Error).message };
      }
    }),
  );
  const failed = results.some((r) => r.error);
  const verbose = query.has('verbose') && query.get('verbose') !== 'false';
  let body: string;
  if (!failed && !verbose) body = 'ok';
  else {
    const lines = results.map((r) => (r.error ? `[-]${r.name} failed: reason withheld` : `[+]${r.name} ok${r.detail ? `: ${r.detail}` : ''}`));
    body = `${lines.join('\n')}\n${m[2] ? m[2] : endpoint} check ${failed ? 'failed' : 'passed'}\n`;
  }
  res.writeHead(failed ? 500 : 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache, private' }).end(body);
  return true;
}
