// Test support: Debian's etcd (`apt-get install etcd-server`) on free loopback
// ports with a temporary data dir: one member, or a cluster of several whose
// members can be killed and started again (fault tests). Nothing is mocked.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ETCD_BINARY = process.env.ETCD_BINARY ?? '/usr/bin/etcd';

export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  /** The member's guard shell (see GUARD): it exits when etcd does. */
  process?: ChildProcess;
  /** etcd's own process id, once known. */
  pid?: number;
}

/**
 * etcd runs under a small shell that ends with it and kills it as soon as its
 * stdin closes, i.e. when the test process dies in whatever way (test runners
 * kill their workers without an 'exit' event): no etcd outlives its tests.
 */
const GUARD = 'bin="$1"; shift; "$bin" "$@" & pid=$!; echo $pid; exec 3<&0; (cat <&3 >/dev/null; kill -9 $pid 2>/dev/null) & wait $pid';

export interface EtcdCluster {
  members: EtcdMember[];
  /** Client URLs of every member (what `--etcd-servers` takes). */
  endpoints: string[];
  /** SIGKILLs member `i` and waits for it to exit. */
  kill(i: number): Promise<void>;
  /** Starts member `i` again on its data dir (after kill) and waits until it serves. */
  restart(i: number): Promise<void>;
  /** Kills every member and removes the data dirs. */
  stop(): Promise<void>;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** Ports the OS reports free on loopback (bound once and released). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve(s));
    })),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Whether etcd answers `path` with a 2xx (over https with the client certificate when it serves TLS). */
function answers(url: string, tls: EtcdTLS | undefined, method = 'GET', body?: string): Promise<boolean> {
  if (!tls) return fetch(url, { method, body, signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
  return new Promise((resolve) => {
    const req = httpsRequest(url, { method, ca: readFileSync(tls.trustedCAFile), cert: readFileSync(tls.clientCertFile ?? tls.certFile), key: readFileSync(tls.clientKeyFile ?? tls.keyFile), timeout: 2000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) < 300);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end(body);
  });
}

/** Resolves once the member answers `/version` (any member answers, even without quorum). */
async function waitServing(m: EtcdMember, tls?: EtcdTLS, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (m.process?.exitCode !== null && m.process?.exitCode !== undefined) throw new Error(`etcd ${m.name} exited with ${m.process.exitCode}`);
    if (await answers(`${m.clientUrl}/version`, tls)) return;
    if (Date.now() > deadline) throw new Error(`etcd ${m.name} did not start within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `members` etcd members (default 1) forming one cluster, and waits until a leader is elected. */
/** PEM files etcd serves with, and the CA whose client certificates it requires (clients then speak https). */
export interface EtcdTLS {
  certFile: string;
  keyFile: string;
  trustedCAFile: string;
  /** A client certificate the helper itself presents (default: the serving pair, which then must allow client use). */
  clientCertFile?: string;
  clientKeyFile?: string;
}

/** `args`: more flags for every member (e.g. `--quota-backend-bytes` for a bench at size). */
export async function startEtcd(opts: { members?: number; tls?: EtcdTLS; args?: string[] } = {}): Promise<EtcdCluster> {
  if (!existsSync(ETCD_BINARY)) throw new Error(`${ETCD_BINARY} not found: apt-get install etcd-server`);
  const n = opts.members ?? 1;
  const root = mkdtempSync(join(tmpdir(), 'kw-etcd-'));
  const ports = await freePorts(2 * n);
  const members: EtcdMember[] = Array.from({ length: n }, (_, i) => ({
    name: `m${i}`,
    clientUrl: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${ports[2 * i]}`,
    peerUrl: `http://127.0.0.1:${ports[2 * i + 1]}`,
    dataDir: join(root, `m${i}`),
  }));
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');

  /** Guard shells whose etcd this helper is killing. */
  const killing = new WeakSet<ChildProcess>();
  const launch = (m: EtcdMember) => {
    const child = spawn(
      '/bin/sh',
      [
        '-c', GUARD, 'etcd-guard', ETCD_BINARY,
        '--name', m.name,
        '--data-dir', m.dataDir,
        '--listen-client-urls', m.clientUrl,
        '--advertise-client-urls', m.clientUrl,
        '--listen-peer-urls', m.peerUrl,
        '--initial-advertise-peer-urls', m.peerUrl,
        '--initial-cluster', initialCluster,
        '--initial-cluster-state', 'new',
        '--initial-cluster-token', `kw-${ports[0]}`,
        '--logger', 'zap',
        '--log-level', 'error',
        ...(opts.tls ? ['--cert-file', opts.tls.certFile, '--key-file', opts.tls.keyFile, '--trusted-ca-file', opts.tls.trustedCAFile, '--client-cert-auth'] : []),
        ...(opts.args ?? []),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    m.pid = undefined;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (m.pid !== undefined) return;
      out += d.toString();
      if (out.includes('\n')) m.pid = Number(out.split('\n')[0]);
    });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-4000);
    });
    child.on('exit', (code, signal) => {
      // Told only when etcd ended by itself (a bad flag, a crash), not when killed here (137).
      if (code && code !== 0 && !signal && !killing.has(child)) console.error(`etcd ${m.name} exited with ${code}:\n${log}`);
    });
    m.process = child;
  };

  const kill = async (m: EtcdMember) => {
    const child = m.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    killing.add(child);
    const exited = new Promise((r) => child.once('exit', r));
    // Closing stdin makes the guard kill etcd (also before its pid was read).
    if (m.pid) killQuietly(m.pid);
    child.stdin!.end();
    await exited;
  };

  const stopAll = () => {
    for (const m of members) {
      if (!m.process || m.process.exitCode !== null || m.process.signalCode !== null) continue;
      killing.add(m.process);
      if (m.pid) killQuietly(m.pid);
      m.process.stdin!.end();
    }
  };
  // A test process that dies without stop() must not leave etcd running.
  process.once('exit', stopAll);

  members.forEach(launch);
  try {
    await Promise.all(members.map((m) => waitServing(m, opts.tls)));
    await waitLeader(members[0].clientUrl, opts.tls);
  } catch (err) {
    stopAll();
    rmSync(root, { recursive: true, force: true });
    throw err;
  }

  return {
    members,
    endpoints: members.map((m) => m.clientUrl),
    kill: (i) => kill(members[i]),
    async restart(i) {
      await kill(members[i]);
      launch(members[i]);
      await waitServing(members[i], opts.tls);
    },
    async stop() {
      process.removeListener('exit', stopAll);
      await Promise.all(members.map(kill));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Waits until a linearizable read succeeds (the cluster has a leader). */
async function waitLeader(clientUrl: string, tls?: EtcdTLS, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // etcd's gRPC gateway: a range read goes through raft's read index, so it needs a leader.
    if (await answers(`${clientUrl}/v3/kv/range`, tls, 'POST', JSON.stringify({ key: 'AA==' }))) return;
    if (Date.now() > deadline) throw new Error(`etcd at ${clientUrl} elected no leader within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let shared: Promise<EtcdCluster> | undefined;

/**
 * One single-member etcd per test process, started on first use and killed
 * when the process exits; tests keep apart by each using a prefix of its own.
 */
export function sharedEtcd(): Promise<EtcdCluster> {
  if (!shared) {
    shared = startEtcd();
    shared.then(
      (c) => process.once('exit', () => rmSync(dirname(c.members[0].dataDir), { recursive: true, force: true })),
      () => (shared = undefined),
    );
  }
  return shared;
}

let prefixes = 0;
/** A fresh etcd prefix (what `--etcd-prefix` takes) for one test's keys. */
export const uniqueEtcdPrefix = () => `/kw-test-${process.pid}-${++prefixes}`;
