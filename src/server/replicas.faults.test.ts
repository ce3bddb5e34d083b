// Faults under load: three etcd members and two API server replicas (child
// processes). While writers create and update ConfigMaps through both
// replicas, the etcd leader and one replica are SIGKILLed: no write a client
// saw acknowledged is lost, and a watch on the surviving replica, resumed
// from the last resourceVersion it saw whenever it breaks, sees every
// acknowledged write exactly once and in order. Then etcd loses quorum:
// writes fail with a 5xx Status instead of hanging, and the replica recovers
// by itself (writes, watch, leadership) once quorum is back. Waits are
// bounded; nothing asserts on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdCluster } from './testing-etcd.ts';
import { startReplica, type Replica } from './replicas.testing.ts';
import { until as waitUntil, watchEvents } from './testing.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 60_000) => waitUntil(read, ok, what, timeoutMs);

const ELECTION = ['--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];
const CM = '/api/v1/namespaces/default/configmaps';

/** The member etcd says leads (POST /v3/maintenance/status on each, through the gRPC gateway). */
async function etcdLeader(etcd: EtcdCluster): Promise<number> {
  for (let i = 0; i < etcd.members.length; i++) {
    try {
      const res = await fetch(`${etcd.members[i].clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
      const st = (await res.json()) as any;
      if (st.leader && st.leader === st.header?.member_id) return i;
    } catch {
      /* a dead member */
    }
  }
  throw new Error('no etcd member leads');
}

interface WatchEvent {
  type: string;
  name: string;
  resourceVersion: string;
}

/**
 * A client's watch of ConfigMaps on one replica, as client-go's reflector
 * keeps one: whenever the stream ends or breaks it is opened again from the
 * last resourceVersion seen (bookmarks included).
 */
function resumingWatch(replica: Replica, fromResourceVersion: string) {
  const events: WatchEvent[] = [];
  let rv = fromResourceVersion;
  let resumes = 0;
  let stopped = false;
  let ac = new AbortController();
  const errors: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      ac = new AbortController();
      try {
        const res = await fetch(`${replica.url}${CM}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, {
          headers: { Authorization: `Bearer ${replica.token}` },
          signal: ac.signal,
        });
        if (res.status !== 200) {
          errors.push(`${res.status} ${await res.text()}`);
          await sleep(200);
          continue;
        }
        for await (const ev of watchEvents(res.body!)) {
          if (ev.type === 'ERROR') {
            errors.push(JSON.stringify(ev.object));
            continue;
          }
          rv = ev.object.metadata.resourceVersion;
          if (ev.type !== 'BOOKMARK') events.push({ type: ev.type, name: ev.object.metadata.name, resourceVersion: rv });
        }
      } catch (e) {
        if (!stopped && !ac.signal.aborted) errors.push(String(e));
      }
      if (!stopped) {
        resumes++;
        await sleep(100);
      }
    }
  })();
  return {
    events,
    errors,
    resumes: () => resumes,
    /** Drops the connection, as a client's network would: the loop resumes from the last resourceVersion. */
    reconnect: () => ac.abort(),
    async stop() {
      stopped = true;
      ac.abort();
      await loop;
    },
  };
}

describe('three etcd members, two replicas', () => {
  let etcd: EtcdCluster;
  const dataDirs: string[] = [];
  let victim: Replica;
  let survivor: Replica;

  beforeAll(async () => {
    etcd = await startEtcd({ members: 3 });
    const replica = (name: string) => {
      const dataDir = mkdtempSync(join(tmpdir(), `kw-fault-${name}-`));
      dataDirs.push(dataDir);
      return startReplica(name, ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--data-dir', dataDir, '--no-demo', ...ELECTION]);
    };
    [victim, survivor] = await Promise.all([replica('victim'), replica('survivor')]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([victim?.kill(), survivor?.kill()]);
    await etcd?.stop();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  let watch: ReturnType<typeof resumingWatch>;

  it('SIGKILL of the etcd leader and of one replica under a write load: no acknowledged write lost, the watch misses nothing', async () => {
    const start = (await survivor.api(CM)).body.metadata.resourceVersion;
    watch = resumingWatch(survivor, start);

    /** Writes a client saw succeed: the object and the resourceVersion the server answered with. */
    const acknowledged: { name: string; resourceVersion: string; value: string }[] = [];
    const failures: number[] = [];
    /** Refusals that were not a Status (there must be none). */
    const notStatus: unknown[] = [];
    let loading = true;
    const writer = async (replica: Replica, w: number) => {
      for (let i = 0; loading; i++) {
        const name = `load-${w}-${i}`;
        try {
          const c = await replica.api(CM, { method: 'POST', body: { metadata: { name }, data: { v: '0' } }, timeoutMs: 30_000 });
          if (c.status !== 201) {
            failures.push(c.status);
            if (c.body?.kind !== 'Status') notStatus.push(c.body);
            continue;
          }
          acknowledged.push({ name, resourceVersion: c.body.metadata.resourceVersion, value: '0' });
          const u = await replica.api(`${CM}/${name}`, { method: 'PUT', body: { ...c.body, data: { v: '1' } }, timeoutMs: 30_000 });
          if (u.status === 200) acknowledged.push({ name, resourceVersion: u.body.metadata.resourceVersion, value: '1' });
          else {
            failures.push(u.status);
            if (u.body?.kind !== 'Status') notStatus.push(u.body);
          }
        } catch (e) {
          // The victim's connections die with it: nothing was acknowledged.
          failures.push(0);
          if (replica === victim) return;
          await sleep(50);
        }
      }
    };
    const writers = [writer(victim, 0), writer(victim, 1), writer(survivor, 2), writer(survivor, 3)];

    await until(async () => acknowledged.length, (n) => n >= 40, 'the load to get going');
    const leader = await etcdLeader(etcd);
    await etcd.kill(leader);
    await until(async () => acknowledged.length, (n) => n >= 80, 'writes after the etcd leader died');
    await victim.kill();
    // The client's connection drops too, in the middle of the load: it resumes from what it saw last.
    watch.reconnect();
    const afterKill = acknowledged.length;
    await until(async () => acknowledged.length, (n) => n >= afterKill + 40, 'writes through the survivor alone');
    loading = false;
    await Promise.all(writers);
    expect(notStatus).toEqual([]);

    // The watch has seen every acknowledged write, exactly once and in revision order.
    const last = Math.max(...acknowledged.map((w) => Number(w.resourceVersion)));
    await until(async () => watch.events.at(-1)?.resourceVersion, (rv) => Number(rv) >= last, 'the watch to catch up');
    const seen = new Map(watch.events.map((e) => [e.resourceVersion, e]));
    for (const w of acknowledged) {
      const ev = seen.get(w.resourceVersion);
      expect(ev, `no event for ${w.name} at ${w.resourceVersion}`).toBeDefined();
      expect(ev).toEqual({ type: w.value === '0' ? 'ADDED' : 'MODIFIED', name: w.name, resourceVersion: w.resourceVersion });
    }

    // Every acknowledged write is stored, with at least the acknowledged value: in etcd at the last
    // acknowledged revision (an Exact list is read from the store), and in the survivor's cache.
    for (const query of [`?resourceVersion=${last}&resourceVersionMatch=Exact`, '']) {
      const listed = await survivor.api(CM + query);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      const stored = new Map<string, any>(listed.body.items.map((o: any) => [o.metadata.name, o]));
      for (const w of acknowledged) {
        expect(stored.has(w.name), `acknowledged ${w.name} lost (${query || 'cache'})`).toBe(true);
        if (w.value === '1') expect(stored.get(w.name).data.v, `acknowledged update of ${w.name} lost (${query || 'cache'})`).toBe('1');
      }
    }
    expect(watch.resumes()).toBeGreaterThanOrEqual(1);
    const rvs = watch.events.map((e) => Number(e.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    expect(new Set(rvs).size).toBe(rvs.length);
    expect(watch.errors.filter((e) => e.includes('"code":410'))).toEqual([]);
  });

  it('losing quorum: writes fail with a 5xx Status, not a hang; the replica recovers by itself when quorum returns', async () => {
    const down = etcd.members.map((m, i) => (m.process && m.process.exitCode === null && m.process.signalCode === null ? -1 : i)).filter((i) => i >= 0);
    const alive = etcd.members.map((_, i) => i).filter((i) => !down.includes(i));
    // The victim's lease has expired by now or soon: the survivor leads.
    await until(() => survivor.api('/readyz?verbose'), (r) => String(r.body).includes('[+]leaderElection ok: leading'), 'the survivor to lead');
    await etcd.kill(alive[0]);

    const refused = await survivor.api(CM, { method: 'POST', body: { metadata: { name: 'no-quorum' } }, timeoutMs: 60_000 });
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(refused.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: refused.status });
    expect(refused.body.message).toMatch(/etcd/);
    // Without quorum the leader cannot renew: it stops leading, and says so.
    await until(() => survivor.api('/readyz?verbose'), (r) => String(r.body).includes('standing by'), 'the leader to stop leading', 60_000);

    for (const i of [...down, alive[0]]) await etcd.restart(i);
    const created = await until(
      () => survivor.api(CM, { method: 'POST', body: { metadata: { name: 'quorum-back' } }, timeoutMs: 30_000 }),
      (r) => r.status === 201,
      'a write to succeed again',
      90_000,
    );
    await until(async () => watch.events, (evs) => evs.some((e) => e.name === 'quorum-back' && e.resourceVersion === created.body.metadata.resourceVersion), 'the watch to see it');
    await until(() => survivor.api('/readyz?verbose'), (r) => String(r.body).includes('[+]leaderElection ok: leading'), 'the survivor to lead again', 60_000);
    await watch.stop();
  });
});
