// A real server in a child process, for the hostile-input tests: an input that
// aborts the process (a V8 fatal error, which no `catch` sees) then fails the
// test with the server's last words, instead of killing the test worker.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServerProcess {
  url: string;
  adminHeaders: Record<string, string>;
  /** fetch; a connection the server dropped fails with how the process ended, if it did. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** fetch against the server with the admin token, JSON in and out. */
  api(path: string, init?: { method?: string; body?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string }>;
  /** How the process ended, with the end of its standard error; undefined while it runs. */
  exited(): string | undefined;
  stop(): Promise<void>;
}

export async function startServerProcess(extra: string[] = []): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-fuzz-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/main.ts', '--port', '0', '--data-dir', dataDir, '--static-dir', join(dataDir, 'none'), '--no-demo', '--leader-elect=false', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: new URL('../..', import.meta.url).pathname },
  );
  let stdout = '';
  let stderr = '';
  let exit: string | undefined;
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  const ended = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exit = `server process exited (code ${code}, signal ${signal}):\n${stderr.slice(-3000)}`;
      resolve();
    }),
  );
  // The printed app URL carries the admin token in its fragment.
  const printed = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/Web app: (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    void ended.then(() => reject(new Error(exit)));
  });
  const [url, token] = printed.split('/#token=');
  const adminHeaders = { Authorization: `Bearer ${token}` };
  const request = (path: string, init: RequestInit = {}) =>
    fetch(url + path, init).catch(async (e: Error) => {
      await Promise.race([ended, new Promise((r) => setTimeout(r, 1000))]);
      throw new Error(`${init.method ?? 'GET'} ${path}: ${e.message}; ${exit ?? 'the server process is still running'}`);
    });
  return {
    url,
    adminHeaders,
    request,
    async api(path, init = {}) {
      const res = await request(path, {
        method: init.method ?? 'GET',
        headers: { ...adminHeaders, ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
        body: init.body,
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* plain text stays text */
      }
      return { status: res.status, body, text };
    },
    exited: () => exit,
    async stop() {
      if (exit === undefined) {
        child.kill('SIGTERM');
        await ended;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
