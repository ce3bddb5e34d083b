// Test support: API server replicas as child processes (`node --import tsx
// src/server/main.ts …`) on one etcd, so that a test can SIGKILL one as a
// machine would die. Each replica's output is kept for its log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface Replica {
  name: string;
  /** Plain HTTP on loopback, as printed by main.ts. */
  url: string;
  token: string;
  process: ChildProcess;
  /** Everything the replica printed so far. */
  output(): string;
  /** Resolves with the first output line matching `re` (already printed or still to come). */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** fetch against the replica with the admin token; JSON in and out. */
  api(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number }): Promise<{ status: number; body: any }>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown: the leader releases its lease), and wait. */
  stop(): Promise<void>;
}

/**
 * Starts `main.ts` with `args` and resolves once it serves (it printed its URL),
 * or with `until: 'listening'` once it listens, its store still loading (the
 * admin token then comes from `--data-dir`).
 */
export async function startReplica(name: string, args: string[], opts: { timeoutMs?: number; until?: 'serving' | 'listening' } = {}): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server/main.ts'), '--port', '0', '--static-dir', '/nonexistent', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);

  const waitForLine = (re: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolveLine, reject) => {
      const check = () => {
        const line = out.split('\n').find((l) => re.test(l));
        if (line !== undefined) {
          done();
          resolveLine(line);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(new Error(`replica ${name} exited before printing ${re}:\n${out.slice(-3000)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`replica ${name} did not print ${re} within ${timeoutMs} ms:\n${out.slice(-3000)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      void exited.then(check);
      check();
    });

  let url: string;
  let token: string;
  if (opts.until === 'listening') {
    const line = await waitForLine(/^Listening on https:\/\//, opts.timeoutMs ?? 90_000);
    url = `http://${/^Listening on https:\/\/([^;\s]+)/.exec(line)![1]}`;
    token = readFileSync(join(args[args.indexOf('--data-dir') + 1], 'admin-token'), 'utf8').trim();
  } else {
    const line = await waitForLine(/^Web app: /, opts.timeoutMs ?? 90_000);
    const m = /^Web app: (http:\/\/[^/]+)\/#token=(\S+)/.exec(line)!;
    [url, token] = [m[1], m[2]];
  }
  const end = async (signal: NodeJS.Signals) => {
    process.removeListener('exit', stopOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    name,
    url,
    token,
    process: child,
    output: () => out,
    waitForLine,
    async api(path, init = {}) {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...init.headers };
      let body: string | undefined;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method: init.method ?? 'GET', headers, body, signal: AbortSignal.timeout(init.timeoutMs ?? 30_000) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* plain text stays text */
      }
      return { status: res.status, body: parsed };
    },
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}
