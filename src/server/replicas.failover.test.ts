// Two API server replicas (child processes) on one etcd: one leads and runs
// the controllers and simulated kubelets, the other stands by; the leader is
// SIGKILLed in the middle of a DaemonSet rollout, the other takes the lease
// over and the rollout completes. Lease timings are shortened by the flags
// kube-controller-manager has for them; waits are bounded, nothing asserts
// on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEtcd, uniqueEtcdPrefix, type EtcdCluster } from './testing-etcd.ts';
import { startReplica, type Replica } from './replicas.testing.ts';
import { rolloutStatus } from '../lib/rollout.ts';
import { until as waitUntil } from './testing.ts';

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 60_000) => waitUntil(read, ok, what, timeoutMs);

/** Lease 3 s, renew deadline 2 s, retry 0.5 s: upstream's proportions, shorter. */
const ELECTION = ['--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
const DS = '/apis/apps/v1/namespaces/default/daemonsets/agent';

const identityIn = (line: string) => /this replica \((\S+)\) is the leader/.exec(line)?.[1];

describe('two replicas on one etcd', () => {
  let etcd: EtcdCluster;
  const dataDirs: string[] = [];
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    etcd = await sharedEtcd();
    const prefix = uniqueEtcdPrefix();
    const replica = (name: string) => {
      const dataDir = mkdtempSync(join(tmpdir(), `kw-replica-${name}-`));
      dataDirs.push(dataDir);
      return startReplica(name, ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(','), '--etcd-prefix', prefix, '--data-dir', dataDir, '--no-demo', '--sim-nodes', '3', ...ELECTION]);
    };
    // Both at once; whichever takes the lease first is the leader, the other stands by.
    const both = await Promise.all([replica('r1'), replica('r2')]);
    const holder = await until(() => both[0].api(LEASE), (r) => !!r.body.spec?.holderIdentity, 'a leader');
    const id = holder.body.spec.holderIdentity;
    a = (await until(async () => both.find((r) => r.output().includes(`this replica (${id}) is the leader`)), (r) => !!r, "the leader's log line"))!;
    b = both.find((r) => r !== a)!;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  it('the leader dies in the middle of a rollout: the other takes the lease over and the rollout completes', async () => {
    const leaderId = identityIn(await a.waitForLine(/successfully acquired lease/))!;
    // b stands by behind a, and says so.
    const standby = await until(() => b.api('/readyz?verbose'), (r) => String(r.body).includes(`(leader: ${leaderId};`), 'b to see a lead');
    expect(standby.status).toBe(200);
    expect(standby.body).toContain('[+]leaderElection ok: standing by on lease kube-system/kube-controller-manager');
    expect((await a.api('/readyz?verbose')).body).toContain(`[+]leaderElection ok: leading on lease kube-system/kube-controller-manager as ${leaderId}`);

    // A DaemonSet on the three simulated nodes, rolled out once, written through b: a's controllers act on it.
    await until(() => b.api('/api/v1/nodes'), (r) => r.body.items?.length === 3, 'the simulated nodes');
    const created = await b.api('/apis/apps/v1/namespaces/default/daemonsets', {
      method: 'POST',
      body: {
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          // Slow enough that a's death falls in the middle of the second rollout.
          minReadySeconds: 2,
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
          template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:v1' }] } },
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await until(() => b.api(DS), (r) => r.body.status?.numberAvailable === 3 && r.body.status.observedGeneration === r.body.metadata.generation, 'the first rollout');

    const patched = await b.api(DS, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:v2' }] } } } },
    });
    expect(patched.status).toBe(200);
    const midway = await until(() => b.api(DS), (r) => (r.body.status?.updatedNumberScheduled ?? 0) >= 1 && r.body.status.observedGeneration === 2, 'the second rollout to begin');
    expect(rolloutStatus(midway.body).done).toBe(false);
    await a.kill();

    // b takes over once a's lease has expired, and logs it.
    const took = await b.waitForLine(/successfully acquired lease/);
    const bId = identityIn(took)!;
    expect(bId).not.toBe(leaderId);
    const lease = (await b.api(LEASE)).body;
    expect(lease.spec).toMatchObject({ holderIdentity: bId, leaseTransitions: 1, leaseDurationSeconds: 3 });
    expect((await b.api('/readyz?verbose')).body).toContain(`[+]leaderElection ok: leading on lease kube-system/kube-controller-manager as ${bId}`);

    // b's controllers and kubelets finish what a's began.
    const done = await until(() => b.api(DS), (r) => r.body.status?.observedGeneration === 2 && rolloutStatus(r.body).done, 'the rollout to complete on b', 90_000);
    expect(done.body.status).toMatchObject({ desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3 });
    // The old pods' deletions are finished by b's kubelets too.
    await until(
      () => b.api('/api/v1/namespaces/default/pods?labelSelector=app%3Dagent'),
      (r) => r.body.items?.map((p: any) => p.spec.containers[0].image).join() === 'agent:v2,agent:v2,agent:v2',
      'only the new pods',
    );
  });
});
