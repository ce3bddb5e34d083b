// The simulated kubelet's pod status: computed again only when something it
// derives from moved (the pod, the node, a delay running out).
import { describe, expect, it } from 'vitest';
import { kubeletPodStatus, statusComputed, statusHolds, type PodMemo, type PodSyncContext } from './kubeletpods.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const ctx = (now: number): PodSyncContext => ({ now, hostIP: '172.18.0.2', allocatePodIP: () => '10.0.0.2', startDelayMs: 1000, readyDelayMs: 2000, crashBackoffMs: 10_000 });
const pod = (rv: string, status?: any, annotations?: Record<string, string>) => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1', resourceVersion: rv, annotations },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox:1.36' }] },
  status,
});
const node = (rv: string) => ({ metadata: { name: 'n1', resourceVersion: rv } });

describe('the kubelet pod status', () => {
  it('holds for the same pod and node until its next delay runs out', () => {
    const memo: PodMemo = { seenAt: T0, startedAt: new Map(), crashedAt: new Map() };
    const p = pod('5');
    const { wakeAt } = kubeletPodStatus(p, memo, ctx(T0));
    expect(wakeAt).toBe(T0 + 1000);
    statusComputed(memo, p, node('7'), wakeAt);
    expect(statusHolds(memo, p, node('7'), T0 + 500)).toBe(true);
    expect(statusHolds(memo, p, node('7'), T0 + 1000)).toBe(false); // the containers start now
    expect(statusHolds(memo, pod('6'), node('7'), T0 + 500)).toBe(false); // the pod changed
    expect(statusHolds(memo, p, node('8'), T0 + 500)).toBe(false); // the node changed (a fault annotation, its address)
    expect(statusHolds({ seenAt: T0, startedAt: new Map(), crashedAt: new Map() }, p, node('7'), T0)).toBe(false); // never computed
  });

  it('comes out the same when computed again before its next delay, at every stage (what holding relies on)', () => {
    for (const annotations of [undefined, { 'sim.k8s.io/crash': 'true' }, { 'sim.k8s.io/fail-readiness': 'true' }] as (Record<string, string> | undefined)[]) {
      const memo: PodMemo = { seenAt: T0, startedAt: new Map(), crashedAt: new Map() };
      let status: any = undefined;
      for (let t = T0; t < T0 + 60_000; ) {
        const first = kubeletPodStatus(pod('1', status, annotations), memo, ctx(t));
        status = first.status;
        const until = first.wakeAt ?? t + 30_000;
        // Computed again from what it wrote, just before the delay runs out: nothing changes.
        const again = kubeletPodStatus(pod('2', status, annotations), memo, ctx(Math.max(t, until - 1)));
        expect(again.status).toEqual(status);
        expect(again.wakeAt).toBe(first.wakeAt);
        t = until;
      }
    }
  });
});
