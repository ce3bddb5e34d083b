// Starting the servers a bench compares, each in its own process so that the
// load generator does not share their CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Proc {
  url: string;
  /** `Authorization: Bearer <admin token>` for our server (the bare server ignores it). */
  headers: Record<string, string>;
  child: ChildProcess;
  /** Our server's data directory. */
  dataDir?: string;
  stop(): void;
}

function waitForUrl(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) resolve(m[1]);
    });
    child.stderr!.on('data', (d) => process.stderr.write(d));
    child.on('exit', (code) => reject(new Error(`process exited with ${code}: ${out}`)));
  });
}

/** Our API server on a fresh data dir, without the web app and the demo (its controllers run). */
export async function startApiServer(extra: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'kw-bench-')), nodeFlags: string[] = []): Promise<Proc> {
  // node itself (not npx) so that stopping the child stops the server.
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/server/main.ts', '--port', '0', '--data-dir', dataDir, '--static-dir', join(dataDir, 'none'), '--no-demo', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The printed app URL carries the admin token in its fragment.
  const [url, token] = (await waitForUrl(child, /Web app: (http:\/\/\S+)/)).split('/#token=');
  return { url, headers: { Authorization: `Bearer ${token}` }, child, dataDir, stop: () => child.kill('SIGTERM') };
}

/** A bare node:http server answering every request with the same bytes. */
export function startBareServer(body: string): Promise<Proc> {
  return startBare(body, (file) => `
    const http = require('node:http');
    const body = require('node:fs').readFileSync(${JSON.stringify(file)});
    const s = http.createServer({ keepAliveTimeout: 65000 }, (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
    s.listen(0, '127.0.0.1', () => console.log('bare: http://127.0.0.1:' + s.address().port));`);
}

/**
 * A bare node:http2 server over TLS (HTTP/1.1 allowed, as ours) that reads each
 * request's body and answers with fixed bytes: those of the first answer whose
 * method is the request's and whose `path` is in its path (201 for a POST).
 * What the transport alone costs for the requests a bench sends to ours.
 */
export function startBareHttp2Server(answers: { method: string; path: string; body: string }[], tls: { cert: string; key: string }): Promise<Proc> {
  return startBare(JSON.stringify({ answers, tls }), (file) => `
    const http2 = require('node:http2');
    const { answers, tls } = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'));
    for (const a of answers) a.bytes = Buffer.from(a.body);
    const s = http2.createSecureServer({ ...tls, allowHTTP1: true }, (req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        const body = answers.find((a) => a.method === req.method && req.url.includes(a.path))?.bytes;
        if (!body) return void res.writeHead(404).end();
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
      });
    });
    s.listen(0, '127.0.0.1', () => console.log('bare: https://127.0.0.1:' + s.address().port));`);
}

/** A bare server: `script(file)` run by node in a process of its own, `data` in `file` (private), its URL as it prints it. */
async function startBare(data: string, script: (file: string) => string): Promise<Proc> {
  const file = join(mkdtempSync(join(tmpdir(), 'kw-bare-')), 'data');
  writeFileSync(file, data, { mode: 0o600 });
  const child = spawn(process.execPath, ['-e', script(file)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await waitForUrl(child, /bare: (https?:\/\/\S+)/);
  return { url, headers: {}, child, stop: () => child.kill('SIGTERM') };
}

/** One request to our server with its admin token, JSON in and out; a status of 300 or more throws. */
export async function call(api: Proc, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(api.url + path, {
    method,
    headers: { ...api.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}
