// Two API server replicas on one etcd (one prefix, one data dir, as the README
// runs them): a watch on one replica sees the writes made through the other in
// revision order, each once, with the resourceVersions the writer was given.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWatch, startTestServer, until, type TestServer } from '../testing.ts';
import { startEtcd, uniqueEtcdPrefix, type EtcdCluster } from '../testing-etcd.ts';

const CM = '/api/v1/namespaces/default/configmaps';

describe('two replicas on one etcd', () => {
  let etcd: EtcdCluster;
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    etcd = await startEtcd();
    dataDir = mkdtempSync(join(tmpdir(), 'kw-replicas-'));
    const options = { dataDir, storage: 'etcd', etcd: { servers: etcd.endpoints, prefix: uniqueEtcdPrefix() } } as const;
    a = await startTestServer(options);
    b = await startTestServer(options);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('share the data dir’s credentials and serve the same objects', async () => {
    expect(b.adminToken).toBe(a.adminToken);
    const created = await a.api(CM, { method: 'POST', body: { metadata: { name: 'shared' }, data: { k: 'v' } } });
    expect(created.status).toBe(201);
    // B's cache follows etcd's watch: a GET at the writer's resourceVersion waits for it.
    const rv = created.body.metadata.resourceVersion;
    const list = await b.api(`${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion])).toContainEqual(['shared', rv]);
    // Optimistic concurrency spans replicas: B's update at a stale resourceVersion is refused.
    const updated = await a.api(`${CM}/shared`, { method: 'PUT', body: { ...created.body, data: { k: 'a' } } });
    expect(updated.status).toBe(200);
    const stale = await b.api(`${CM}/shared`, { method: 'PUT', body: { ...created.body, data: { k: 'b' } } });
    expect(stale.status).toBe(409);
  });

  it('read the latest state consistently: what one replica acknowledged, a GET or LIST on the other shows at once', async () => {
    for (let i = 0; i < 30; i++) {
      const name = `fresh-${i}`;
      const c = await a.api(CM, { method: 'POST', body: { metadata: { name }, data: { i: String(i) } } });
      expect(c.status).toBe(201);
      const got = await b.api(`${CM}/${name}`);
      expect(got.status, name).toBe(200);
      expect(got.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
      const u = await a.api(`${CM}/${name}`, { method: 'PUT', body: { ...c.body, data: { i: 'changed' } } });
      const listed = await b.api(`${CM}?fieldSelector=metadata.name=${name}`);
      expect(listed.body.items.map((o: any) => o.data.i)).toEqual(['changed']);
      expect(Number(listed.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(u.body.metadata.resourceVersion));
    }
  });

  it('deliver writes through one replica to a watch on the other, in order, without gaps or duplicates', async () => {
    const start = (await b.api(CM)).body.metadata.resourceVersion;
    const N = 40;
    // A deletion answers with a Status, which carries no resourceVersion: only its place is known.
    const expected: [string, string, string | undefined][] = [];
    const watching = readWatch(`${b.url}${CM}?watch=1&resourceVersion=${start}`, (ev) => ev.length >= N * 3, { timeoutMs: 60_000 });
    // Writes alternate between the replicas' own clients only on A: B serves the watch.
    for (let i = 0; i < N; i++) {
      const name = `cm-${i}`;
      const c = await a.api(CM, { method: 'POST', body: { metadata: { name }, data: { i: String(i) } } });
      expect(c.status).toBe(201);
      expected.push(['ADDED', name, c.body.metadata.resourceVersion]);
      const u = await a.api(`${CM}/${name}`, { method: 'PUT', body: { ...c.body, data: { i: String(i), again: 'yes' } } });
      expect(u.status).toBe(200);
      expected.push(['MODIFIED', name, u.body.metadata.resourceVersion]);
      const d = await a.api(`${CM}/${name}`, { method: 'DELETE' });
      expect(d.status).toBe(200);
      expected.push(['DELETED', name, undefined]);
    }
    const events = await watching;
    const seen = events.map((e, i) => [e.type, e.object.metadata.name, expected[i]?.[2] && e.object.metadata.resourceVersion]);
    expect(seen).toEqual(expected);
    const revisions = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(revisions.every((r, i) => i === 0 || r > revisions[i - 1])).toBe(true);
  });
});

describe('servers on other prefixes of one etcd', () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    etcd = await startEtcd();
    a = await startTestServer({ storage: 'etcd', etcd: { servers: etcd.endpoints, prefix: uniqueEtcdPrefix() } });
    b = await startTestServer({ storage: 'etcd', etcd: { servers: etcd.endpoints, prefix: uniqueEtcdPrefix() } });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
  });

  it('do not hold each other up: the other’s writes bring a server’s cache to etcd’s revision, so its lists and their resourceVersions are served', async () => {
    const mine = await b.api(CM, { method: 'POST', body: { metadata: { name: 'mine' } } });
    const theirs = await a.api(CM, { method: 'POST', body: { metadata: { name: 'theirs' } } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    const rv = Number(theirs.body.metadata.resourceVersion);
    // etcd's revision is the other server's write: B has applied every event up to it (none of them its own).
    const atRevision = await b.api(`${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(atRevision.status).toBe(200);
    expect(atRevision.body.items.map((o: any) => o.metadata.name)).toEqual(['mine']);
    const latest = await b.api(CM);
    expect(Number(latest.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(rv);
    // A watch from the list's resourceVersion goes on from there.
    const watching = readWatch(`${b.url}${CM}?watch=1&resourceVersion=${latest.body.metadata.resourceVersion}`, (ev) => ev.length > 0);
    expect((await b.api(CM, { method: 'POST', body: { metadata: { name: 'later' } } })).status).toBe(201);
    expect((await watching).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'later']]);
  });
});

describe('a replica whose etcd goes away', () => {
  let etcd: EtcdCluster;
  let s: TestServer;
  beforeAll(async () => {
    etcd = await startEtcd();
    s = await startTestServer({ storage: 'etcd', etcd: { servers: etcd.endpoints, prefix: uniqueEtcdPrefix(), requestTimeoutMs: 1500 } });
  });
  afterAll(async () => {
    await s?.stop();
    await etcd?.stop();
  });

  it('answers writes with a retryable 503/504 Status within the deadline, serves reads from its cache, and recovers by itself', async () => {
    expect((await s.api(CM, { method: 'POST', body: { metadata: { name: 'before' } } })).status).toBe(201);
    await etcd.kill(0);
    const refused = await s.api(CM, { method: 'POST', body: { metadata: { name: 'during' } } });
    expect([503, 504]).toContain(refused.status);
    expect(refused.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: refused.status,
      reason: refused.status === 504 ? 'Timeout' : 'ServiceUnavailable',
      details: { retryAfterSeconds: 1 },
    });
    expect((await s.api(`${CM}/before`)).status).toBe(200);
    await etcd.restart(0);
    let created = 0;
    for (let i = 0; i < 100 && created !== 201; i++) {
      created = (await s.api(CM, { method: 'POST', body: { metadata: { name: 'after' } } })).status;
      if (created !== 201) await new Promise((r) => setTimeout(r, 200));
    }
    expect(created).toBe(201);
    const events = await readWatch(`${s.url}${CM}?watch=1&resourceVersion=0`, (ev) => ev.some((e) => e.object.metadata.name === 'after'), { timeoutMs: 20_000 });
    expect(events.map((e) => e.object.metadata.name)).toContain('after');
  });
});

describe('a replica cut off from etcd for longer than history is kept', () => {
  let etcd: EtcdCluster;
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    etcd = await startEtcd({ members: 3 });
    dataDir = mkdtempSync(join(tmpdir(), 'kw-replicas-'));
    const prefix = uniqueEtcdPrefix();
    // A talks to the first two members, B only to the third, which the test then takes away.
    a = await startTestServer({ dataDir, storage: 'etcd', etcd: { servers: etcd.endpoints.slice(0, 2), prefix } });
    b = await startTestServer({ dataDir, storage: 'etcd', etcd: { servers: [etcd.endpoints[2]], prefix, requestTimeoutMs: 1500 } });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads everything again when the events it missed were compacted, and ends its watches with a 410', async () => {
    expect((await a.api(CM, { method: 'POST', body: { metadata: { name: 'doomed' } } })).status).toBe(201);
    const rv = (await b.api(`${CM}?resourceVersion=0`)).body.metadata.resourceVersion;
    const watching = readWatch(`${b.url}${CM}?watch=1&resourceVersion=${rv}`, (ev) => ev.some((e) => e.type === 'ERROR'), { timeoutMs: 60_000 });
    // events.k8s.io/v1 Events are a view of the core Events' cache: their watches end too, a selector's (which has a watcher of its own) included.
    const eventsWatching = readWatch(`${b.url}/apis/events.k8s.io/v1/namespaces/default/events?watch=1&resourceVersion=${rv}&fieldSelector=reason%3DBackOff`, (ev) => ev.some((e) => e.type === 'ERROR'), { timeoutMs: 60_000 });
    await etcd.kill(2);
    // Should the member killed have led, the others elect a leader first: writes retry until they land
    // (a timed-out one may have landed: AlreadyExists / NotFound then).
    await until(() => a.api(CM, { method: 'POST', body: { metadata: { name: 'while-away' } } }), (r) => r.status === 201 || r.status === 409, 'a write after the kill', 60_000, 200);
    await until(() => a.api(`${CM}/doomed`, { method: 'DELETE' }), (r) => r.status === 200 || r.status === 404, 'the delete', 60_000, 200);
    await until(() => a.api(CM, { method: 'POST', body: { metadata: { name: 'last' } } }), (r) => r.status === 201 || r.status === 409, 'the last write', 60_000, 200);
    const last = await a.api(`${CM}/last`);
    // History up to the last write is compacted, as the periodic compaction would after 5 minutes.
    execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0], 'compact', last.body.metadata.resourceVersion]);
    await etcd.restart(2);
    const events = await watching;
    expect(events.at(-1)).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect((await eventsWatching).at(-1)).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    // B's state is etcd's again: what happened while it was away is there, what went is gone.
    let names: string[] = [];
    for (let i = 0; i < 100 && !names.includes('last'); i++) {
      names = (await b.api(`${CM}?resourceVersion=0`)).body.items.map((o: any) => o.metadata.name);
      if (!names.includes('last')) await new Promise((r) => setTimeout(r, 200));
    }
    expect(names).toEqual(expect.arrayContaining(['while-away', 'last']));
    expect(names).not.toContain('doomed');
    // Resuming from before the reload is a 410; live events flow again.
    const resumed = await readWatch(`${b.url}${CM}?watch=1&resourceVersion=${rv}`, (ev) => ev.length > 0, { timeoutMs: 10_000 });
    expect(resumed[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    const now = (await b.api(`${CM}?resourceVersion=0`)).body.metadata.resourceVersion;
    const live = readWatch(`${b.url}${CM}?watch=1&resourceVersion=${now}`, (ev) => ev.length > 0, { timeoutMs: 30_000 });
    expect((await a.api(CM, { method: 'POST', body: { metadata: { name: 'after' } } })).status).toBe(201);
    expect((await live)[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'after' } } });
  });
});
