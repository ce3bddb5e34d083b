// The etcd backend against Debian's etcd: the shared storage contract, then
// what only etcd has (its key layout, several instances on one cluster,
// members dying, quorum loss, compaction shared between replicas).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../auth/credentials.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStorage, type EtcdStorageOptions } from './etcd.ts';
import { etcdResources } from './factory.ts';
import { StorageError, type StorageEvent } from './storage.ts';
import { expectCode, storageContract } from './storage.contract.ts';
import { startEtcd, uniqueEtcdPrefix, type EtcdCluster } from '../testing-etcd.ts';

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

const opened: EtcdStorage[] = [];
async function open(opts: Partial<EtcdStorageOptions> = {}, cluster = etcd): Promise<EtcdStorage> {
  const s = await EtcdStorage.open({ servers: cluster.endpoints, prefix: uniqueEtcdPrefix(), ...opts });
  opened.push(s);
  return s;
}
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const settle = async (s: EtcdStorage) => {
  expect(await s.waitForRevision(await s.currentRevision())).toBe(true);
};

storageContract('EtcdStorage', {
  open: (opts) => open(opts),
  settle: (s) => settle(s as EtcdStorage),
});

const v = (n: number | string) => JSON.stringify({ n });

describe('EtcdStorage: etcd itself', () => {
  it('stores objects under kube-apiserver’s keys (resource without group, nodes as minions), --etcd-prefix replacing /registry, as etcdctl shows them', async () => {
    const prefix = uniqueEtcdPrefix();
    const s = await open({ prefix, resources: etcdResources() });
    await s.create('/registry/apps/daemonsets/kube-system/agent', v('ds'));
    await s.create('/registry/core/nodes/node-1', v('node'));
    await settle(s);
    const got: string[] = [];
    s.subscribe((events) => got.push(...events.map((e) => e.key)));
    const out = execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0], 'get', '--prefix', `${prefix}/`], {
      env: { ...process.env, ETCDCTL_API: '3' },
    }).toString();
    expect(out.trim().split('\n')).toEqual([`${prefix}/daemonsets/kube-system/agent`, v('ds'), `${prefix}/minions/node-1`, v('node')]);
    // And back: reads, lists and events speak the storage's keys.
    expect((await s.get('/registry/core/nodes/node-1'))?.value).toBe(v('node'));
    expect((await s.list('/registry/apps/daemonsets/kube-system/')).items.map((o) => o.key)).toEqual(['/registry/apps/daemonsets/kube-system/agent']);
    const r = await s.update('/registry/core/nodes/node-1', v('node2'), (await s.get('/registry/core/nodes/node-1'))!.modRevision);
    await s.waitForRevision(r);
    expect(got).toEqual(['/registry/core/nodes/node-1']);
  });

  it('lets two instances share one etcd: a write through one reaches the other’s subscribers in order, once', async () => {
    const prefix = uniqueEtcdPrefix();
    const a = await open({ prefix });
    const b = await open({ prefix });
    const got: StorageEvent[] = [];
    b.subscribe((events) => got.push(...events));
    const revs: number[] = [];
    let rev = await a.create('/registry/x', v(0));
    revs.push(rev);
    for (let i = 1; i <= 20; i++) revs.push((rev = await (i % 2 ? a : b).update('/registry/x', v(i), rev)));
    revs.push(await b.delete('/registry/x', rev));
    await settle(b);
    expect(got.map((e) => e.revision)).toEqual(revs);
    expect(got.map((e) => e.type)).toEqual(['create', ...Array(20).fill('update'), 'delete']);
    expect(got.at(-1)!.value).toBe(v(20));
    // Both read the same revision and try to write its successor: exactly one wins.
    const y = await a.create('/registry/y', v(0));
    const results = await Promise.allSettled([a.update('/registry/y', v('a'), y), b.update('/registry/y', v('b'), y)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as StorageError;
    expect(lost.code).toBe('Conflict');
    expect(lost.current?.value).toBe((await a.get('/registry/y'))!.value);
  });

  it('tells its subscribers of revisions written outside its prefix as progress, after the events before them', async () => {
    const ours = await open();
    const theirs = await open();
    const heard: string[] = [];
    ours.subscribe((events) => heard.push(...events.map((e) => `event ${e.revision}`)), { progress: (r) => heard.push(`progress ${r}`) });
    const mine = await ours.create('/registry/x', v(0));
    await ours.waitForRevision(mine);
    const other = await theirs.create('/registry/x', v(1));
    expect(await ours.waitForRevision(other)).toBe(true);
    expect(heard).toEqual([`event ${mine}`, `progress ${other}`]);
  });

  it('reads answers past gRPC’s default 4 MiB: a list of large objects and the history that replays them', async () => {
    const s = await open();
    const from = await s.currentRevision();
    const big = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(1_000_000) });
    for (let i = 0; i < 6; i++) await s.create(`/registry/configmaps/default/big-${i}`, big(i));
    const list = await s.list('/registry/configmaps/default/');
    expect(list.items.map((o) => o.value.length)).toEqual(Array.from({ length: 6 }, (_, i) => big(i).length));
    const replayed = await s.eventsSince(from);
    expect(replayed.events.map((e) => e.key)).toEqual(Array.from({ length: 6 }, (_, i) => `/registry/configmaps/default/big-${i}`));
  });

  it('with two seats for writes, forty sent at once all land, and refused ones give their seats back (none waits behind a leaked seat)', async () => {
    const s = await open({ maxWritesInFlight: 2, resources: etcdResources() });
    const keys = Array.from({ length: 40 }, (_, i) => `/registry/configmaps/default/seat-${i}`);
    const revisions = await Promise.all(keys.map((k, i) => s.create(k, v(i))));
    expect(new Set(revisions).size).toBe(40);
    // Conflicts and creates of existing keys give their seats back as successes do.
    const refused = await Promise.allSettled(keys.map((k) => s.create(k, v('again'))));
    expect(refused.every((r) => r.status === 'rejected' && (r.reason as StorageError).code === 'AlreadyExists')).toBe(true);
    const conflicts = await Promise.allSettled(keys.map((k) => s.update(k, v('stale'), 1)));
    expect(conflicts.every((r) => r.status === 'rejected' && (r.reason as StorageError).code === 'Conflict')).toBe(true);
    const lease = await s.create('/registry/coordination.k8s.io/leases/kube-system/seat', v('lease'));
    expect(lease).toBeGreaterThan(Math.max(...revisions));
  });

  it('takes turns compacting with kube-apiserver’s compact_rev_key: a replica with a stale view does not compact', async () => {
    const a = await open();
    const b = await open();
    const r1 = await a.create('/registry/c', v(1));
    await a.update('/registry/c', v(2), r1);
    const before = await a.compactedRevision();
    expect(before).toBeLessThan(r1);
    // A round with an impossible version only learns the key's current version (other tests may have compacted).
    const version = await a.compactRound(-1, 0);
    const won = await a.compactRound(version, r1);
    expect(won).toBe(version + 1);
    expect(await a.compactedRevision()).toBe(r1);
    const seenByB = await b.compactRound(version, r1 + 1); // stale view: loses, learns the version
    expect(seenByB).toBe(version + 1);
    expect(await b.compactedRevision()).toBe(r1);
    await expectCode(b.list('/registry/', { revision: r1 - 1 }), 'Expired');
  });
});

describe('EtcdStorage: faults', () => {
  it('resumes its watch from the last revision after etcd restarts: no gap, no duplicate', async () => {
    const own = await startEtcd();
    try {
      const s = await open({ requestTimeoutMs: 2000 }, own);
      const got: number[] = [];
      s.subscribe((events) => got.push(...events.map((e) => e.revision)));
      const revs = [await s.create('/registry/k', v(0))];
      await settle(s);
      await own.restart(0);
      for (let i = 1; i <= 5; i++) {
        // The first requests after the restart may fail while the client reconnects.
        for (;;) {
          try {
            revs.push(await s.update('/registry/k', v(i), revs.at(-1)!));
            break;
          } catch (err) {
            if (!(err instanceof StorageError && (err.code === 'Unavailable' || err.code === 'Timeout'))) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
      expect(await s.waitForRevision(revs.at(-1)!, 10_000)).toBe(true);
      expect(got).toEqual(revs);
    } finally {
      await own.stop();
    }
  });

  it('goes on when its client thread dies: the call it had fails Unavailable, a new thread takes the next ones, the watch resumes with no gap', async () => {
    const s = await open();
    const got: number[] = [];
    s.subscribe((events) => got.push(...events.map((e) => e.revision)));
    const revs = [await s.create('/registry/t', v(0))];
    await settle(s);
    // Sent just before the crash: the thread takes both messages in one go, and exits before etcd answers.
    const inFlight = s.get('/registry/t');
    s.crashClientThreadForTest();
    await expect(inFlight).rejects.toMatchObject({ code: 'Unavailable' });
    for (let i = 1; i <= 3; i++) revs.push(await s.update('/registry/t', v(i), revs.at(-1)!));
    expect((await s.get('/registry/t'))?.value).toBe(v(3));
    expect(await s.waitForRevision(revs.at(-1)!, 10_000)).toBe(true);
    expect(got).toEqual(revs);
  });

  it('fails writes within the deadline while quorum is lost, and recovers when it returns', async () => {
    const own = await startEtcd({ members: 3 });
    try {
      const s = await open({ requestTimeoutMs: 1500 }, own);
      const got: number[] = [];
      s.subscribe((events) => got.push(...events.map((e) => e.revision)));
      const r1 = await s.create('/registry/q', v(1));
      await own.kill(1);
      await own.kill(2);
      const err = await s.update('/registry/q', v(2), r1).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StorageError);
      expect(['Timeout', 'Unavailable']).toContain((err as StorageError).code);
      const readErr = await s.get('/registry/q').then(() => undefined, (e: unknown) => e);
      expect(['Timeout', 'Unavailable']).toContain((readErr as StorageError).code);
      await own.restart(1);
      await own.restart(2);
      // Once a leader is back, the same client writes again; whether the failed write landed is read back.
      let current = r1;
      let r2 = 0;
      for (let i = 0; i < 100 && !r2; i++) {
        try {
          const now = (await s.get('/registry/q'))!;
          current = now.modRevision;
          r2 = await s.update('/registry/q', v(3), current);
        } catch (e) {
          if (!(e instanceof StorageError && (e.code === 'Unavailable' || e.code === 'Timeout'))) throw e;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(r2).toBeGreaterThan(0);
      expect(await s.waitForRevision(r2, 10_000)).toBe(true);
      expect(got[0]).toBe(r1);
      expect(got.at(-1)).toBe(r2);
      expect(new Set(got).size).toBe(got.length);
      expect([...got].sort((x, y) => x - y)).toEqual(got);
    } finally {
      await own.stop();
    }
  });
});

describe('EtcdStorage over TLS', () => {
  let tlsCluster: EtcdCluster;
  const dir = mkdtempSync(join(tmpdir(), 'kw-etcd-tls-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const ca = createCertificateAuthority('etcd-ca');
  const serving = issueServingCertificate(ca, ['127.0.0.1', 'localhost'], { alsoClient: true, subject: 'etcd' });
  const client = issueClientCertificate(ca, 'kube-apiserver-etcd-client');
  const tls = {
    certFile: file('server.crt', serving.cert),
    keyFile: file('server.key', serving.key),
    trustedCAFile: file('ca.crt', ca.cert),
    clientCertFile: file('client.crt', client.cert),
    clientKeyFile: file('client.key', client.key),
  };
  beforeAll(async () => {
    tlsCluster = await startEtcd({ tls });
  });
  afterAll(async () => {
    await tlsCluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('works with --etcd-cafile, --etcd-certfile and --etcd-keyfile against an etcd that requires client certificates', async () => {
    expect(tlsCluster.endpoints[0]).toMatch(/^https:/);
    const s = await EtcdStorage.open({ servers: tlsCluster.endpoints, prefix: uniqueEtcdPrefix(), caFile: tls.trustedCAFile, certFile: tls.clientCertFile, keyFile: tls.clientKeyFile });
    try {
      const seen: StorageEvent[] = [];
      const unsubscribe = s.subscribe((events) => seen.push(...events));
      const rev = await s.create('/registry/configmaps/default/tls', '{"data":{"a":"1"}}');
      expect((await s.get('/registry/configmaps/default/tls'))?.modRevision).toBe(rev);
      await s.waitForRevision(rev);
      expect(seen.map((e) => [e.type, e.key])).toEqual([['create', '/registry/configmaps/default/tls']]);
      unsubscribe();
    } finally {
      await s.close();
    }
    // Without a client certificate etcd refuses the connection.
    await expect(EtcdStorage.open({ servers: tlsCluster.endpoints, prefix: uniqueEtcdPrefix(), caFile: tls.trustedCAFile, requestTimeoutMs: 2000 })).rejects.toThrow();
  });
});
