// Leases and leader election on the real server over SQLite: the Lease kind
// as kubectl sees it, electors on one store with short timings (one leads,
// another takes over when the leader stops renewing or releases, transitions
// counted), the controllers run only while their replica leads, and /readyz
// says which replica leads. Waits are bounded; nothing asserts on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, until as waitUntil } from './testing.ts';
import { kubectlFor } from './clients/kubectl.ts';
import { Client } from './client.ts';
import { allowAll, type Authorizer } from './auth/authz.ts';
import { LeaderElector, type LeaderElectionConfig } from './leader.ts';
import { CONTROLLERS_LEASE } from './controllers/index.ts';
import { leaseKind } from '../kinds/coordination.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 15_000) => waitUntil(read, ok, what, timeoutMs);

const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const FAST = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 150 };

describe('the Lease kind', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ leaderElection: {} });
  });
  afterAll(() => s.stop());

  it('validates as upstream: leaseDurationSeconds > 0, leaseTransitions >= 0, preferredHolder only with a strategy', async () => {
    const bad = await s.api('/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      method: 'POST',
      body: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 0, leaseTransitions: -1 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.leaseDurationSeconds' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.leaseTransitions' },
    ]);
    // The alpha fields are dropped while their feature gate is off, as in 1.32.
    const ok = await s.api('/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      method: 'POST',
      body: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 5, preferredHolder: 'b', strategy: 'OldestEmulationVersion' } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.spec).toEqual({ holderIdentity: 'a', leaseDurationSeconds: 5 });
    // AllowUnconditionalUpdate is false for leases: a PUT names the resourceVersion it replaces.
    const put = await s.api('/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', {
      method: 'PUT',
      body: { metadata: { name: 'l1' }, spec: { holderIdentity: 'b' } },
    });
    expect(put.status).toBe(422);
    expect(put.body.message).toContain('leases.coordination.k8s.io "l1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });

  it('kubectl lists leases in every namespace with their holder, and the controllers hold theirs', async () => {
    const kubectl = kubectlFor(s);
    const r = await kubectl('get', 'leases', '-A');
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'HOLDER', 'AGE']);
    const identity = s.controllers.elector!.config.identity;
    expect(identity).toMatch(/^[^_]+_[0-9a-f-]{36}$/);
    expect(rows.map((l) => l.split(/\s+/).slice(0, 3))).toContainEqual(['kube-system', 'kube-controller-manager', identity]);
    const explain = await kubectl('explain', 'lease.spec.leaseTransitions');
    expect(explain.stdout).toContain('leaseTransitions is the number of transitions of a lease between holders.');
    // The elector's identity may take its own lease and no other, as upstream's bootstrap role says.
    const can = (...args: string[]) => kubectl('auth', 'can-i', ...args, '-n', 'kube-system', '--as', 'system:kube-controller-manager');
    expect((await can('update', 'leases/kube-controller-manager')).stdout.trim()).toBe('yes');
    expect((await can('create', 'leases')).stdout.trim()).toBe('yes');
    expect((await can('update', 'leases/kube-scheduler')).stdout.trim()).toBe('no');
  });

  it('/readyz says this replica leads, /readyz without verbose says ok', async () => {
    expect((await s.api('/readyz')).body).toBe('ok');
    const verbose = await s.api('/readyz?verbose');
    expect(verbose.status).toBe(200);
    expect(verbose.body).toContain('[+]ping ok\n');
    expect(verbose.body).toContain(`[+]leaderElection ok: leading on lease kube-system/kube-controller-manager as ${s.controllers.elector!.config.identity}\n`);
    expect(verbose.body).toMatch(/readyz check passed\n$/);
    expect((await s.api('/readyz/leaderElection')).body).toBe('ok');
    expect((await s.api('/readyz/nothing')).status).toBe(404);
    expect((await s.api('/livez?verbose')).body).not.toContain('leaderElection');
  });
});

describe('electors on one store', () => {
  let s: TestServer;
  beforeAll(async () => {
    // No controllers of its own: the electors below are the only candidates.
    s = await startTestServer({ controllers: false });
  });
  afterAll(() => s.stop());

  /** A candidate whose API access can be cut, as a replica cut off from the store would be. */
  function candidate(identity: string) {
    let cut = false;
    const authorizer: Authorizer = { ...allowAll, decide: (u, a) => (cut ? { allowed: false, reason: 'partitioned' } : allowAll.decide(u, a)) };
    const events: string[] = [];
    const config: LeaderElectionConfig = {
      ...CONTROLLERS_LEASE,
      ...FAST,
      identity,
      onStartedLeading: () => events.push('started'),
      onStoppedLeading: () => events.push('stopped'),
    };
    const elector = new LeaderElector(new Client(s.stores, authorizer), config);
    return { elector, events, cut: (v: boolean) => (cut = v) };
  }
  const lease = async () => (await s.api(`${LEASE_PATH}/kube-controller-manager`)).body;

  it('one leads; when it stops renewing the other takes over; a clean stop hands over at once; transitions are counted', async () => {
    const a = candidate('host-a_1');
    const b = candidate('host-b_2');
    await a.elector.start();
    await b.elector.start();
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    let l = await lease();
    expect(l.spec).toMatchObject({ holderIdentity: 'host-a_1', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(l.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // The leader renews (renewTime moves, the holder stays) while the other stands by.
    await until(lease, (x) => x.spec.renewTime !== l.spec.renewTime, 'a renewal');
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leader()).toBe('host-a_1');
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'host-a_1', leaseTransitions: 0, acquireTime: l.spec.acquireTime });

    // a is cut off: it stops leading after its renew deadline, b takes over once the lease has expired.
    a.cut(true);
    await until(() => a.events, (e) => e.includes('stopped'), 'a to stop leading');
    l = await until(lease, (x) => x.spec.holderIdentity === 'host-b_2', 'b to take over');
    expect(l.spec.leaseTransitions).toBe(1);
    expect(b.events).toEqual(['started']);
    expect(a.elector.isLeader()).toBe(false);

    // a is back: it stands by behind b.
    a.cut(false);
    await until(() => a.elector.leader(), (h) => h === 'host-b_2', 'a to see b lead');
    expect(a.elector.isLeader()).toBe(false);

    // b shuts down cleanly: it releases the lease and a takes it over without waiting for it to expire.
    await b.elector.stop();
    expect(b.events).toEqual(['started', 'stopped']);
    expect((await lease()).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
    l = await until(lease, (x) => x.spec.holderIdentity === 'host-a_1', 'a to take over again');
    expect(l.spec.leaseTransitions).toBe(2);
    expect(a.events).toEqual(['started', 'stopped', 'started']);
    await a.elector.stop();
  });

  it('a write between read and update is a conflict, never overwritten: two electors racing for a free lease, one wins', async () => {
    await s.api(`${LEASE_PATH}/kube-controller-manager`, { method: 'DELETE' });
    const cs = ['host-c_1', 'host-d_2', 'host-e_3'].map(candidate);
    await Promise.all(cs.map((c) => c.elector.start()));
    expect(cs.filter((c) => c.elector.isLeader())).toHaveLength(1);
    const leader = cs.find((c) => c.elector.isLeader())!;
    expect((await lease()).spec.holderIdentity).toBe(leader.elector.config.identity);
    await Promise.all(cs.map((c) => c.elector.stop()));
  });
});

describe('the controllers follow the leadership', () => {
  let s: TestServer;
  beforeAll(async () => {
    // As on a store shared with other replicas (etcd): a lease held by another is waited for.
    s = await startTestServer({ leaderElection: { ...FAST, exclusive: false } });
  });
  afterAll(() => s.stop());

  const takeLease = (spec: object) =>
    s.client.update(leaseKind, 'kube-system', 'kube-controller-manager', (o) => {
      o.spec = { ...(o.spec as object), ...spec };
    });

  it('stop at once when another replica holds the lease, and start again when it is theirs', async () => {
    expect(s.controllers.running).toBe(true);
    const now = new Date().toISOString().replace('Z', '000Z');
    await takeLease({ holderIdentity: 'other-replica_1', leaseDurationSeconds: 3600, renewTime: now, acquireTime: now });
    await until(() => s.controllers.running, (r) => !r, 'the controllers to stop');
    expect((await s.api('/readyz?verbose')).body).toContain('[+]leaderElection ok: standing by on lease kube-system/kube-controller-manager (leader: other-replica_1; this replica: ');

    // A namespace deleted now is left Terminating: its controller does not run here.
    expect((await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'standby' } } })).status).toBe(201);
    expect((await s.api('/api/v1/namespaces/standby', { method: 'DELETE' })).status).toBe(200);
    await sleep(300);
    expect((await s.api('/api/v1/namespaces/standby')).body.status.phase).toBe('Terminating');

    // The other replica releases the lease: this one takes over and its namespace controller finishes the deletion.
    await takeLease({ holderIdentity: '', leaseDurationSeconds: 1 });
    await until(() => s.controllers.running, (r) => r, 'the controllers to start again');
    await until(() => s.api('/api/v1/namespaces/standby'), (r) => r.status === 404, 'the namespace to be deleted');
    // The other replica's write did not count a transition (it was ours to count); taking it back does.
    const l = (await s.api(`${LEASE_PATH}/kube-controller-manager`)).body;
    expect(l.spec).toMatchObject({ holderIdentity: s.controllers.elector!.config.identity, leaseTransitions: 1 });
  });
});

describe('SQLite: one server per data dir', () => {
  it('a lease left by a killed predecessor does not delay the start: the new process leads when startServer returns', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kw-leader-'));
    try {
      const first = await startTestServer({ dataDir, storage: 'sqlite', controllers: false });
      const now = new Date().toISOString().replace('Z', '000Z');
      const created = await first.api(LEASE_PATH, {
        method: 'POST',
        body: { metadata: { name: 'kube-controller-manager' }, spec: { holderIdentity: 'killed_1', leaseDurationSeconds: 15, renewTime: now, acquireTime: now, leaseTransitions: 4 } },
      });
      expect(created.status).toBe(201);
      await first.stop();
      const second = await startTestServer({ dataDir, storage: 'sqlite', leaderElection: {} });
      try {
        expect(second.controllers.running).toBe(true);
        const l = (await second.api(`${LEASE_PATH}/kube-controller-manager`)).body;
        expect(l.spec).toMatchObject({ holderIdentity: second.controllers.elector!.config.identity, leaseTransitions: 5 });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('--leader-elect=false runs the controllers without a lease', async () => {
    const s = await startTestServer({ leaderElection: false });
    try {
      expect(s.controllers.running).toBe(true);
      expect(s.controllers.elector).toBeUndefined();
      expect((await s.api(`${LEASE_PATH}/kube-controller-manager`)).status).toBe(404);
      expect((await s.api('/readyz?verbose')).body).not.toContain('leaderElection');
    } finally {
      await s.stop();
    }
  });
});
