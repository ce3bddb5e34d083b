// The recorder over the real server: repeats counted into one object,
// similar events combined, a per-object token bucket, a bounded queue, and
// expiry after the TTL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { EventBroadcaster } from './recorder.ts';
import { startEventExpiry } from './ttl.ts';
import { eventKind } from '../../kinds/events.ts';
import { nodeIdentity } from '../controllers/nodeagent.ts';
import { controllerIdentity } from '../controllers/context.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
});
afterAll(() => s.stop());

const list = async (name: string) =>
  (await s.api(`/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${name}`)).body.items as any[];
const pod = (name: string) => ({ kind: 'Pod', apiVersion: 'v1', namespace: 'default', name, uid: `uid-${name}` });

describe('the event recorder', () => {
  it('writes one event per distinct occurrence, named <object>.<hex nanoseconds>, and counts identical repeats into it', async () => {
    const b = new EventBroadcaster();
    const rec = b.newRecorder(s.client, { component: 'kubelet', host: 'node-a' });
    for (let i = 0; i < 5; i++) rec.event(pod('rep'), 'Warning', 'BackOff', 'Back-off pulling image "x"', 'spec.containers{c}');
    rec.event(pod('rep'), 'Normal', 'Pulling', 'Pulling image "x"');
    await b.flush();
    const items = await list('rep');
    expect(items).toHaveLength(2);
    const backoff = items.find((e) => e.reason === 'BackOff');
    expect(backoff).toMatchObject({ count: 5, type: 'Warning', source: { component: 'kubelet', host: 'node-a' }, involvedObject: { fieldPath: 'spec.containers{c}', uid: 'uid-rep' } });
    expect(backoff.metadata.name).toMatch(/^rep\.[0-9a-f]{16,}$/);
    expect(Date.parse(backoff.lastTimestamp)).toBeGreaterThanOrEqual(Date.parse(backoff.firstTimestamp));
    expect(b.stats).toMatchObject({ created: 2, patched: 4 });
  });

  it('a kubelet (system:node:<name>) and a controller\'s service account may create events and count repeats into them', async () => {
    const b = new EventBroadcaster();
    const kubelet = b.newRecorder(s.client.as(nodeIdentity('node-z')), { component: 'kubelet', host: 'node-z' });
    const controller = b.newRecorder(s.client.as(controllerIdentity('daemon-set-controller')), { component: 'daemonset-controller' });
    for (let i = 0; i < 3; i++) {
      kubelet.event(pod('authz'), 'Warning', 'BackOff', 'again');
      controller.event(pod('authz'), 'Warning', 'FailedCreate', 'again');
    }
    await b.flush();
    expect(b.stats.dropped.failed).toBe(0);
    expect((await list('authz')).map((e) => [e.reason, e.count]).sort()).toEqual([['BackOff', 3], ['FailedCreate', 3]]);
  });

  it('names events uniquely across broadcasters recording about one object in the same instant', async () => {
    const now = Date.now() + 3_600_000;
    const kubelet = new EventBroadcaster({ now: () => now });
    const scheduler = new EventBroadcaster({ now: () => now });
    kubelet.newRecorder(s.client, { component: 'kubelet', host: 'n' }).event(pod('same-instant'), 'Normal', 'Pulling', 'a');
    scheduler.newRecorder(s.client, { component: 'default-scheduler' }).event(pod('same-instant'), 'Normal', 'Scheduled', 'b');
    await Promise.all([kubelet.flush(), scheduler.flush()]);
    expect((await list('same-instant')).map((e) => e.reason).sort()).toEqual(['Pulling', 'Scheduled']);
  });

  it('without aggregation every occurrence is its own object (what the bench compares against)', async () => {
    const b = new EventBroadcaster({ aggregate: false });
    const rec = b.newRecorder(s.client, { component: 'kubelet', host: 'node-a' });
    for (let i = 0; i < 4; i++) rec.event(pod('noagg'), 'Warning', 'BackOff', 'same');
    await b.flush();
    expect(await list('noagg')).toHaveLength(4);
  });

  it('combines more than 10 similar events (same reason, different messages) into one', async () => {
    const b = new EventBroadcaster();
    const rec = b.newRecorder(s.client, { component: 'daemonset-controller' });
    for (let i = 0; i < 14; i++) rec.event(pod('sim'), 'Normal', 'SuccessfulCreate', `Created pod: p-${i}`);
    await b.flush();
    const items = await list('sim');
    expect(items).toHaveLength(11);
    const combined = items.filter((e) => e.message.startsWith('(combined from similar events): '));
    expect(combined).toHaveLength(1);
    expect(combined[0].count).toBe(4);
  });

  it('rate-limits each source and object with a bucket of 25 that refills one per 5 minutes', async () => {
    let now = Date.now();
    const b = new EventBroadcaster({ now: () => now });
    const rec = b.newRecorder(s.client, { component: 'kubelet', host: 'node-b' });
    for (let i = 0; i < 30; i++) rec.event(pod('spam'), 'Normal', `Reason${i}`, 'm');
    // Another object of the same source has a bucket of its own.
    rec.event(pod('other'), 'Normal', 'Pulled', 'm');
    await b.flush();
    expect(await list('spam')).toHaveLength(25);
    expect(await list('other')).toHaveLength(1);
    expect(b.stats.dropped.rateLimited).toBe(5);
    now += 300_000;
    rec.event(pod('spam'), 'Normal', 'Refilled', 'm');
    rec.event(pod('spam'), 'Normal', 'Refilled2', 'm');
    await b.flush();
    expect((await list('spam')).map((e) => e.reason)).toContain('Refilled');
    expect((await list('spam')).map((e) => e.reason)).not.toContain('Refilled2');
  });

  it('never blocks the caller: beyond the queue bound events are dropped', async () => {
    const b = new EventBroadcaster({ queueSize: 3 });
    const rec = b.newRecorder(s.client, { component: 'kubelet', host: 'node-c' });
    // Each recorder (one kubelet) has a queue of its own, as each upstream kubelet has its broadcaster.
    const other = b.newRecorder(s.client, { component: 'kubelet', host: 'node-d' });
    for (let i = 0; i < 10; i++) rec.event(pod('flood'), 'Normal', 'R', `m${i}`);
    for (let i = 0; i < 10; i++) other.event(pod('flood'), 'Normal', 'R', `m${i}`);
    // The calls returned with the queues full and the rest dropped, before any write was answered.
    expect(b.stats.dropped.queueFull).toBe(14);
    expect(b.stats.created + b.stats.patched).toBe(0);
    await b.flush();
    expect(await list('flood')).toHaveLength(6);
    expect(b.stats.dropped.queueFull).toBe(14);
  });

  it('expires events written after the sweep started, and stops looking once stopped', async () => {
    const stop = startEventExpiry(s.stores.get(eventKind)!, s.cache, 1);
    try {
      const r = await s.api('/api/v1/namespaces/default/events', { method: 'POST', body: { metadata: { name: 'ttl-later' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'ttl-later' }, reason: 'R' } });
      expect(r.status).toBe(201);
      for (let i = 0; i < 200 && (await list('ttl-later')).length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await list('ttl-later')).toEqual([]);
    } finally {
      stop();
    }
  });

  it('deletes the expired events many at a time, so that they share commits', async () => {
    const N = 200;
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        s.api('/api/v1/namespaces/default/events', { method: 'POST', body: { metadata: { name: `ttl-many-${i}` }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'ttl-many' }, reason: 'R' } }),
      ),
    );
    // The deletions the watch cache delivers in one turn of the event loop (a commit's events come together).
    const batches: number[] = [];
    let batch = 0;
    const unwatch = s.cache.watchLive({
      prefix: '/registry/core/events/',
      deliver: (e) => {
        if (e.type !== 'DELETED' || !e.key.includes('/ttl-many-')) return;
        if (!batch++) setImmediate(() => (batches.push(batch), (batch = 0)));
      },
    });
    const stop = startEventExpiry(s.stores.get(eventKind)!, s.cache, 1);
    try {
      for (let i = 0; i < 200 && (await list('ttl-many')).length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await list('ttl-many')).toEqual([]);
      // One at a time, each deletion waited for its own commit: 42 a second, fewer than a large cluster records.
      expect(Math.max(...batches)).toBeGreaterThanOrEqual(8);
      expect(batches.length).toBeLessThan(N / 4);
    } finally {
      stop();
      unwatch();
    }
  });

  it('expires events once their last write is older than the TTL', async () => {
    const r = await s.api('/api/v1/namespaces/default/events', { method: 'POST', body: { metadata: { name: 'ttl-1' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'ttl' }, reason: 'R' } });
    expect(r.status).toBe(201);
    const stop = startEventExpiry(s.stores.get(eventKind)!, s.cache, 1);
    try {
      for (let i = 0; i < 200 && (await list('ttl')).length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await list('ttl')).toEqual([]);
    } finally {
      stop();
    }
  });
});
