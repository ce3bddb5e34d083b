// A server killed while it sets up the demo cluster finishes it on the next
// start: real server processes, a real SIGKILL.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'kw-demo-crash-'));
const port = 20000 + Math.floor(Math.random() * 40000);
const url = `http://127.0.0.1:${port}`;
let child: ChildProcess | undefined;

const start = () =>
  spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--port', String(port), '--data-dir', dataDir, '--static-dir', join(dataDir, 'none'), '--no-controllers'], { stdio: 'ignore' });

/** The admin token the server writes into its data dir on its first start. */
const headers = () => {
  try {
    return { Authorization: `Bearer ${readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()}` };
  } catch {
    return undefined;
  }
};
const status = async (path: string) => (headers() ? (await fetch(url + path, { headers: headers() }).catch(() => undefined))?.status : undefined);
const items = async (path: string) => (await (await fetch(url + path, { headers: headers() })).json()).items as unknown[];

async function until(check: () => Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out');
}

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo set-up', () => {
  it('is finished on the next start after a SIGKILL in the middle of it', async () => {
    child = start();
    // The first demo namespace exists: the set-up has begun, most of it is still to come.
    await until(async () => (await status('/api/v1/namespaces/shop')) === 200);
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));

    child = start();
    await until(async () => (await status('/api/v1/namespaces/kube-public/configmaps/kube-workbench-demo')) === 200);
    expect(await items('/api/v1/nodes')).toHaveLength(8);
    expect(await items('/api/v1/namespaces')).toHaveLength(7);
    expect(await items('/apis/networking.k8s.io/v1/networkpolicies')).toHaveLength(7);
    expect(await items('/apis/apps/v1/daemonsets')).toHaveLength(2);
    expect(await items('/apis/storage.k8s.io/v1/volumeattachments')).toHaveLength(4);
    child.kill('SIGKILL');
  }, 90_000);
});
