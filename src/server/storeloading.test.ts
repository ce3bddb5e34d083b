// A server restarted on a large store listens before it has loaded it: the
// port answers at once, /readyz says it is not ready, every API request gets
// kube-apiserver's 429 "storage is (re)initializing" with Retry-After, and
// kubectl, which honours Retry-After, waits and then gets its answer. The
// store is a real SQLite file the server made, grown to 200,000 Events
// (written as the server writes them) so that loading takes seconds (3 s
// here), while the requests below are answered in a turn or two of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startReplica, type Replica } from './replicas.testing.ts';
import { kubectlFor } from './clients/kubectl.ts';
import { startServer } from './server.ts';
import { freePorts } from './testing-etcd.ts';

const EVENTS = 200_000;

/** Adds `count` Events in namespace default, as created rows, in one transaction. */
function addEvents(file: string, count: number) {
  const db = new Database(file);
  try {
    const insert = db.prepare(`INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value) VALUES (?, 1, 0, 0, 0, ?)`);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const name = `node-${i % 500}.${i.toString(16).padStart(16, '0')}`;
        const event = {
          kind: 'Event',
          apiVersion: 'v1',
          metadata: { name, namespace: 'default', uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, creationTimestamp: now },
          involvedObject: { kind: 'Node', name: `node-${i % 500}`, uid: `node-${i % 500}` },
          reason: 'Starting',
          message: `event ${i} of a large store`,
          source: { component: 'kubelet', host: `node-${i % 500}` },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          type: 'Normal',
        };
        insert.run(`/registry/core/events/default/${name}`, JSON.stringify(event));
      }
      db.prepare('UPDATE kine SET create_revision = id WHERE create_revision = 0').run();
    })();
  } finally {
    db.close();
  }
}

describe('a server loading a large store', () => {
  let dir: string;
  let server: Replica;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kw-loading-'));
    const first = await startReplica('first', ['--data-dir', dir, '--no-demo', '--no-controllers']);
    await first.stop();
    addEvents(join(dir, 'state.db'), EVENTS);
    server = await startReplica('loading', ['--data-dir', dir, '--no-demo', '--no-controllers'], { until: 'listening' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers while it loads: not ready, 429 with Retry-After for the API, and kubectl waits for its answer', async () => {
    // kubectl from the start: client-go asks again after each Retry-After (ten times at most).
    const ca = readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8');
    const kubectl = kubectlFor({ httpsUrl: server.url.replace('http:', 'https:'), ca, adminToken: server.token });
    const listed = kubectl('get', 'namespace', 'default', '-o', 'name');
    // All at once, so that they are answered within a turn or two of the load, not one a turn.
    const [ready, live, list, again, version] = await Promise.all([
      fetch(`${server.url}/readyz?verbose`).then(async (r) => [r.status, await r.text()]),
      fetch(`${server.url}/livez`).then(async (r) => [r.status, await r.text()]),
      server.api('/api/v1/namespaces/default/events?limit=1'),
      fetch(`${server.url}/api/v1/nodes`, { headers: { Authorization: `Bearer ${server.token}` } }).then(async (r) => [r.status, r.headers.get('retry-after'), await r.text()]),
      // The version needs no store.
      server.api('/version'),
    ]);
    expect(ready).toEqual([500, '[+]ping ok\n[-]watch-cache failed: reason withheld\nreadyz check failed\n']);
    expect(live).toEqual([200, 'ok']);
    expect(list.status).toBe(429);
    expect(list.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'storage is (re)initializing',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    expect(again.slice(0, 2)).toEqual([429, '1']);
    expect([version.status, version.body.gitVersion]).toEqual([200, 'v1.32.0']);
    expect(server.output()).not.toMatch(/The store is loaded/);

    const r = await listed;
    expect(r).toMatchObject({ code: 0, stdout: 'namespace/default\n' });
    const loaded = await server.waitForLine(/^The store is loaded: \d+ objects/);
    expect(Number(/(\d+) objects/.exec(loaded)![1])).toBeGreaterThan(EVENTS);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const listedNow = await server.api('/api/v1/namespaces/default/events?limit=1');
    expect([listedNow.status, listedNow.body.metadata.remainingItemCount]).toEqual([200, EVENTS - 1]);
  }, 120_000);
});

describe('a server whose store cannot be opened', () => {
  it('fails to start and leaves nothing listening on its port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-badstore-'));
    try {
      writeFileSync(join(dir, 'state.db'), 'this is not a SQLite database, '.repeat(200));
      const [port] = await freePorts(1);
      await expect(startServer({ port, dataDir: dir, controllers: false })).rejects.toThrow(/not a database|file is not/i);
      // The port is free again: another listener takes it.
      const other = createServer();
      await new Promise<void>((resolve, reject) => other.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise((resolve) => other.close(resolve));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
