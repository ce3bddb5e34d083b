// Fault scenarios against real servers, shared by the test suite (short runs)
// and `npm run bench -- faults` (long runs): SIGKILLs under concurrent
// writers, and many clients doing read-modify-write on one object.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonLines as watchEvents } from '../lib/ndjson.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CrashReport {
  kills: number;
  /** Creates answered 201 before a kill. */
  acknowledged: number;
  /** Acknowledged creates missing (or at another resourceVersion) after the last restart. */
  lost: string[];
  /** resourceVersions acknowledged twice, or a round whose first was not above the previous round's last. */
  reused: string[];
  /** Objects stored at the end that the watch, resumed after every restart from its last resourceVersion, never delivered. */
  missedByWatch: string[];
  /** Watch events whose resourceVersion did not grow. */
  outOfOrder: number;
  /** Events the watch delivered. */
  watched: number;
}

/** A server process on a data dir, started again after each kill. */
class ServerProcess {
  private child: ChildProcess | undefined;
  readonly url: string;
  constructor(
    private readonly dataDir: string,
    readonly port = 20000 + Math.floor(Math.random() * 40000),
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  headers(): Record<string, string> {
    return { Authorization: `Bearer ${readFileSync(join(this.dataDir, 'admin-token'), 'utf8').trim()}`, 'Content-Type': 'application/json' };
  }

  async start() {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/server/main.ts', '--port', String(this.port), '--data-dir', this.dataDir, '--static-dir', join(this.dataDir, 'none'), '--no-controllers', '--no-demo', '--snapshot-interval', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    this.child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<void>((r) => this.child!.once('exit', () => r()));
    let gone = false;
    void exited.then(() => (gone = true));
    // Generous: a loaded machine starts slowly; a server that exits is reported at once.
    for (let i = 0; i < 6000 && !gone; i++) {
      const ok = await fetch(`${this.url}/readyz`).then((r) => r.ok, () => false);
      if (ok) return;
      await sleep(20);
    }
    throw new Error(`server did not start: ${stderr.slice(-2000)}`);
  }

  async kill() {
    const child = this.child!;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Kills a server `kills` times while `writers` clients create ConfigMaps as
 * fast as they are answered (each round lasts `roundMs` ± half), with a watch
 * that resumes from its last resourceVersion after every restart; then checks
 * every acknowledged create is stored, no resourceVersion was handed out twice
 * or went back, and the watch delivered every stored object in order.
 */
export async function crashUnderWriters(opts: { kills: number; writers: number; roundMs: number }): Promise<CrashReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-crash-'));
  const server = new ServerProcess(dataDir);
  const acked = new Map<string, number>();
  const roundRanges: Array<[number, number]> = [];
  const seen = new Map<string, number>();
  let lastRV = 0;
  let outOfOrder = 0;
  let watched = 0;
  let seq = 0;

  /** Reads the watch until the connection ends (the kill) or `stop` says so. */
  async function watch(stop: AbortSignal) {
    try {
      const res = await fetch(`${server.url}${CMS}?watch=1&allowWatchBookmarks=true&resourceVersion=${lastRV}`, { headers: server.headers(), signal: stop });
      for await (const e of watchEvents(res.body!)) {
        if (e.type === 'ERROR') throw new Error(`watch: ${e.object.message}`);
        const rv = Number(e.object.metadata.resourceVersion);
        if (e.type !== 'BOOKMARK') {
          if (rv <= lastRV) outOfOrder++;
          watched++;
          seen.set(e.object.metadata.name, rv);
        }
        lastRV = Math.max(lastRV, rv);
      }
    } catch (e) {
      // The kill cuts the stream; anything else is a finding.
      if ((e as Error).message.startsWith('watch:')) throw e;
    }
  }

  async function writer(w: number, until: () => boolean) {
    let first = Infinity;
    let last = 0;
    while (!until()) {
      const name = `w${w}-${seq++}`;
      try {
        const res = await fetch(`${server.url}${CMS}`, { method: 'POST', headers: server.headers(), body: JSON.stringify({ metadata: { name }, data: { w: String(w) } }) });
        if (res.status === 201) {
          const rv = Number((await res.json()).metadata.resourceVersion);
          acked.set(name, rv);
          first = Math.min(first, rv);
          last = Math.max(last, rv);
        } else await res.arrayBuffer();
      } catch {
        // Killed mid-request: not acknowledged.
        await sleep(5);
      }
    }
    return [first, last] as [number, number];
  }

  try {
    for (let k = 0; k < opts.kills; k++) {
      await server.start();
      if (k === 0) lastRV = Number((await (await fetch(`${server.url}${CMS}`, { headers: server.headers() })).json()).metadata.resourceVersion);
      const ac = new AbortController();
      const watching = watch(ac.signal);
      let killed = false;
      const writing = Promise.all(Array.from({ length: opts.writers }, (_, w) => writer(w, () => killed)));
      await sleep(opts.roundMs * (0.5 + Math.random()));
      await server.kill();
      killed = true;
      const ranges = await writing;
      await watching;
      roundRanges.push([Math.min(...ranges.map((r) => r[0])), Math.max(...ranges.map((r) => r[1]))]);
    }
    // The last start: everything acknowledged must be there, and the watch must catch up.
    await server.start();
    const list = await (await fetch(`${server.url}${CMS}`, { headers: server.headers() })).json();
    const stored = new Map<string, number>(list.items.map((i: any) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
    const listRV = Number(list.metadata.resourceVersion);
    const ac = new AbortController();
    const watching = watch(ac.signal);
    for (let i = 0; i < 500 && lastRV < listRV; i++) await sleep(20);
    ac.abort();
    await watching;
    await server.kill();

    const lost = [...acked].filter(([name, rv]) => stored.get(name) !== rv).map(([name]) => name);
    const reused: string[] = [];
    const rvs = new Map<number, string>();
    for (const [name, rv] of acked) {
      if (rvs.has(rv)) reused.push(`${rv}: ${rvs.get(rv)} and ${name}`);
      rvs.set(rv, name);
    }
    const rounds = roundRanges.filter(([a]) => Number.isFinite(a));
    for (let i = 1; i < rounds.length; i++) if (rounds[i][0] <= rounds[i - 1][1]) reused.push(`round ${i} began at ${rounds[i][0]}, not above ${rounds[i - 1][1]}`);
    const missedByWatch = [...stored].filter(([name, rv]) => /^w\d+-/.test(name) && seen.get(name) !== rv).map(([name]) => name);
    return { kills: opts.kills, acknowledged: acked.size, lost, reused, missedByWatch, outOfOrder, watched };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface RmwReport {
  clients: number;
  /** Updates each client made (each retried on 409 until it landed). */
  updatesEach: number;
  /** The counter's final value (must be clients × updatesEach). */
  final: number;
  conflicts: number;
}

/**
 * `clients` clients each add one to a counter in a ConfigMap `updatesEach`
 * times by GET then PUT with the resourceVersion read, retrying on 409: no
 * update may be lost, so the counter ends at clients × updatesEach.
 */
export async function readModifyWrite(base: string, headers: Record<string, string>, opts: { clients: number; updatesEach: number; name?: string }): Promise<RmwReport> {
  const name = opts.name ?? `counter-${Date.now()}`;
  const h = { ...headers, 'Content-Type': 'application/json' };
  const created = await fetch(`${base}${CMS}`, { method: 'POST', headers: h, body: JSON.stringify({ metadata: { name }, data: { n: '0' } }) });
  if (created.status !== 201) throw new Error(`create: ${created.status}`);
  let conflicts = 0;
  const client = async () => {
    for (let done = 0; done < opts.updatesEach; ) {
      const cm = await (await fetch(`${base}${CMS}/${name}`, { headers: h })).json();
      cm.data.n = String(Number(cm.data.n) + 1);
      const res = await fetch(`${base}${CMS}/${name}`, { method: 'PUT', headers: h, body: JSON.stringify(cm) });
      await res.arrayBuffer();
      if (res.status === 200) done++;
      else if (res.status === 409) conflicts++;
      else throw new Error(`update: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, client));
  const final = Number((await (await fetch(`${base}${CMS}/${name}`, { headers: h })).json()).data.n);
  return { clients: opts.clients, updatesEach: opts.updatesEach, final, conflicts };
}
