// The garbage collector over the real server, with ConfigMaps as owners and
// dependents (any kind works the same way; the DaemonSet case is in
// daemonset.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, until as waitUntil } from '../testing.ts';
import { startGarbageCollector } from './garbagecollector.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const CM = '/api/v1/namespaces/default/configmaps';
const ref = (o: any, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, ...extra });

async function configMap(name: string, metadata: Record<string, unknown> = {}) {
  const r = await s.api(CM, { method: 'POST', body: { metadata: { name, ...metadata } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
const get = async (name: string) => s.api(`${CM}/${name}`);

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 10_000) => waitUntil(read, ok, what, timeoutMs);

describe('garbage collector', () => {
  it('deletes a dependent once all its owners are gone, dropping references to gone owners meanwhile', async () => {
    const a = await configMap('owner-a');
    const b = await configMap('owner-b');
    await configMap('dependent', { ownerReferences: [ref(a), ref(b)] });
    await s.api(`${CM}/owner-a`, { method: 'DELETE' });
    const kept = await until(() => get('dependent'), (r) => r.body.metadata?.ownerReferences?.length === 1, 'the dangling reference dropped');
    expect(kept.body.metadata.ownerReferences).toEqual([ref(b)]);
    await s.api(`${CM}/owner-b`, { method: 'DELETE' });
    await until(() => get('dependent'), (r) => r.status === 404, 'the dependent deleted');
  });

  it('deletes objects created with an owner that does not exist, but not those owned by kinds it cannot look up', async () => {
    await configMap('foreign', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000001' }] });
    await configMap('stray', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: '00000000-0000-0000-0000-000000000002' }] });
    await until(() => get('stray'), (r) => r.status === 404, 'the stray dependent deleted');
    expect((await get('foreign')).status).toBe(200);
  });

  it('leaves Events alone, as kube-controller-manager ignores them: one whose owner is gone stays (it expires instead)', async () => {
    const owner = await configMap('ev-owner');
    const ev = await s.api('/api/v1/namespaces/default/events', {
      method: 'POST',
      body: { metadata: { name: 'owned-event', ownerReferences: [ref(owner)] }, involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'ev-owner' }, reason: 'Tested' },
    });
    expect(ev.status, JSON.stringify(ev.body)).toBe(201);
    await configMap('ev-sibling', { ownerReferences: [ref(owner)] });
    await s.api(`${CM}/ev-owner`, { method: 'DELETE' });
    // The owner's going was taken in: its ConfigMap dependent is gone.
    await until(() => get('ev-sibling'), (r) => r.status === 404, 'the ConfigMap dependent deleted');
    const kept = await s.api('/api/v1/namespaces/default/events/owned-event');
    expect(kept.status).toBe(200);
    expect(kept.body.metadata.ownerReferences).toEqual([ref(owner)]);
  });

  it('honours the foregroundDeletion finalizer: dependents first, then the owner', async () => {
    const owner = await configMap('fg-owner', { finalizers: ['foregroundDeletion'] });
    await configMap('fg-dep-1', { ownerReferences: [ref(owner, { blockOwnerDeletion: true })] });
    await configMap('fg-dep-2', { ownerReferences: [ref(owner)] });
    const del = await s.api(`${CM}/fg-owner`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    await until(() => get('fg-owner'), (r) => r.status === 404, 'the owner gone after its dependents');
    expect((await get('fg-dep-1')).status).toBe(404);
    expect((await get('fg-dep-2')).status).toBe(404);
  });

  it('honours the orphan finalizer: dependents lose the reference and stay', async () => {
    const owner = await configMap('or-owner', { finalizers: ['orphan'] });
    await configMap('or-dep', { ownerReferences: [ref(owner)] });
    await s.api(`${CM}/or-owner`, { method: 'DELETE' });
    await until(() => get('or-owner'), (r) => r.status === 404, 'the owner gone');
    const dep = await get('or-dep');
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });
});

describe('DELETE propagationPolicy', () => {
  const del = (name: string, body?: unknown, query = '') => s.api(`${CM}/${name}${query}`, { method: 'DELETE', body });
  const release = (name: string) =>
    s.api(`${CM}/${name}`, { method: 'PATCH', body: [{ op: 'remove', path: '/metadata/finalizers' }], headers: { 'Content-Type': 'application/json-patch+json' } });

  it('Orphan (query) adds the orphan finalizer; the dependents lose their reference and stay', async () => {
    const owner = await configMap('q-orphan');
    await configMap('q-orphan-dep', { ownerReferences: [ref(owner, { controller: true, blockOwnerDeletion: true })] });
    const d = await del('q-orphan', undefined, '?propagationPolicy=Orphan');
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('ConfigMap');
    expect(d.body.metadata.finalizers).toEqual(['orphan']);
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(0);
    await until(() => get('q-orphan'), (r) => r.status === 404, 'the owner gone');
    const dep = await get('q-orphan-dep');
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });

  it('orphanDependents: true (deprecated) orphans too', async () => {
    const owner = await configMap('b-orphan');
    await configMap('b-orphan-dep', { ownerReferences: [ref(owner)] });
    const d = await del('b-orphan', { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true });
    expect(d.body.metadata.finalizers).toEqual(['orphan']);
    await until(() => get('b-orphan'), (r) => r.status === 404, 'the owner gone');
    expect((await get('b-orphan-dep')).body.metadata.ownerReferences).toBeUndefined();
  });

  it('Foreground (body) keeps the owner, marked, until the dependents that block it are gone from storage', async () => {
    const owner = await configMap('fg2');
    // The dependent holds on to its own finalizer, so it lingers in deletion.
    await configMap('fg2-blocker', { finalizers: ['example.com/hold'], ownerReferences: [ref(owner, { blockOwnerDeletion: true })] });
    await configMap('fg2-free', { ownerReferences: [ref(owner)] });
    const d = await del('fg2', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    expect(d.status).toBe(200);
    expect(d.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await until(() => get('fg2-free'), (r) => r.status === 404, 'the non-blocking dependent deleted');
    const blocker = await until(() => get('fg2-blocker'), (r) => !!r.body.metadata?.deletionTimestamp, 'the blocking dependent being deleted');
    expect(blocker.body.metadata.finalizers).toEqual(['example.com/hold']);
    await new Promise((r) => setTimeout(r, 200));
    const waiting = await get('fg2');
    expect(waiting.status).toBe(200);
    expect(waiting.body.metadata.deletionTimestamp).toBeDefined();
    expect(waiting.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await release('fg2-blocker')).status).toBe(200);
    await until(() => get('fg2'), (r) => r.status === 404, 'the owner gone after its blocking dependent');
  });

  it('Background on an owner waiting in the foreground drops the finalizer and deletes it at once', async () => {
    const owner = await configMap('switch');
    await configMap('switch-dep', { finalizers: ['example.com/hold'], ownerReferences: [ref(owner, { blockOwnerDeletion: true })] });
    expect((await del('switch', undefined, '?propagationPolicy=Foreground')).body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await until(() => get('switch-dep'), (r) => !!r.body.metadata?.deletionTimestamp, 'the dependent being deleted');
    const again = await del('switch', { propagationPolicy: 'Background' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'switch', kind: 'configmaps' } });
    expect((await get('switch')).status).toBe(404);
    await release('switch-dep');
    await until(() => get('switch-dep'), (r) => r.status === 404, 'the dependent gone once released');
  });

  it('answers 202 for orphanDependents: false when the object waits on other finalizers', async () => {
    await configMap('held', { finalizers: ['example.com/hold'] });
    const d = await del('held', { orphanDependents: false });
    expect(d.status).toBe(202);
    expect(d.body.metadata.finalizers).toEqual(['example.com/hold']);
    await release('held');
    expect((await get('held')).status).toBe(404);
  });

  it('deletes at once by default (Background for every served kind)', async () => {
    const owner = await configMap('bg');
    await configMap('bg-dep', { ownerReferences: [ref(owner)] });
    const d = await del('bg');
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success' });
    await until(() => get('bg-dep'), (r) => r.status === 404, 'the dependent deleted');
  });

  it('changes nothing on dryRun, but answers with the finalizer it would add', async () => {
    await configMap('dry');
    const d = await del('dry', { propagationPolicy: 'Foreground', dryRun: ['All'] });
    expect(d.status).toBe(200);
    expect(d.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    const after = await get('dry');
    expect(after.body.metadata.deletionTimestamp).toBeUndefined();
    expect(after.body.metadata.finalizers).toBeUndefined();
  });

  it('rejects bad options with 422 as ValidateDeleteOptions words it', async () => {
    await configMap('opts');
    const bad = await del('opts', undefined, '?propagationPolicy=Sideways');
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
      details: { kind: 'DeleteOptions', group: 'meta.k8s.io', causes: [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy' }] },
    });
    const both = await del('opts', { orphanDependents: true, propagationPolicy: 'Nope' });
    expect(both.status).toBe(422);
    expect(both.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Nope": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Nope": supported values: "Foreground", "Background", "Orphan", "nil"]',
    );
    const nil = await del('opts', { propagationPolicy: null });
    expect(nil.status).toBe(200);
  });
});

describe('GC finalizers with namespace lifecycle and graceful pod deletion', () => {
  const PODS = '/api/v1/namespaces/default/pods';
  const pod = (name: string, metadata: Record<string, unknown> = {}) => ({
    metadata: { name, ...metadata },
    spec: { nodeName: 'gc-node', terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox:1.36' }] },
  });

  it('deletes a namespace in the foreground or orphaning: Terminating with the finalizer, emptied, then gone', async () => {
    for (const [ns, policy, finalizer] of [
      ['fg-ns', 'Foreground', 'foregroundDeletion'],
      ['or-ns', 'Orphan', 'orphan'],
    ]) {
      expect((await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: ns } } })).status).toBe(201);
      expect((await s.api(`/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: { metadata: { name: 'content' } } })).status).toBe(201);
      const d = await s.api(`/api/v1/namespaces/${ns}`, { method: 'DELETE', body: { propagationPolicy: policy } });
      expect(d.status).toBe(200);
      expect(d.body.status.phase).toBe('Terminating');
      expect(d.body.metadata.finalizers).toEqual([finalizer]);
      expect(d.body.spec.finalizers).toEqual(['kubernetes']);
      await until(() => s.api(`/api/v1/namespaces/${ns}`), (r) => r.status === 404, `${ns} gone`);
      expect((await s.api(`/api/v1/namespaces/${ns}/configmaps/content`)).status).toBe(404);
    }
  });

  it('keeps a pod in its grace period after the GC drops its finalizer; grace 0 then removes it', async () => {
    expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name: 'gc-node' } } })).status).toBe(201);
    expect((await s.api(PODS, { method: 'POST', body: pod('graceful') })).status).toBe(201);
    const d = await s.api(`${PODS}/graceful?propagationPolicy=Orphan`, { method: 'DELETE' });
    expect(d.body.metadata).toMatchObject({ deletionGracePeriodSeconds: 30, finalizers: ['orphan'] });
    const released = await until(() => s.api(`${PODS}/graceful`), (r) => !r.body.metadata?.finalizers, 'the orphan finalizer dropped');
    expect(released.body.metadata.deletionGracePeriodSeconds).toBe(30);
    // A second delete during the grace period changes nothing, not even finalizers.
    const again = await s.api(`${PODS}/graceful?propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(again.body.metadata.finalizers).toBeUndefined();
    expect(again.body.metadata.deletionTimestamp).toBe(released.body.metadata.deletionTimestamp);
    const now = await s.api(`${PODS}/graceful?gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(now.body).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  it('holds a force-deleted pod with a finalizer at grace 0 until the finalizer goes', async () => {
    expect((await s.api(PODS, { method: 'POST', body: pod('held-pod', { finalizers: ['example.com/hold'] }) })).status).toBe(201);
    const d = await s.api(`${PODS}/held-pod?gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await s.api(`${PODS}/held-pod`)).status).toBe(200);
    const r = await s.api(`${PODS}/held-pod`, { method: 'PATCH', body: [{ op: 'remove', path: '/metadata/finalizers' }], headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(r.status).toBe(200);
    expect((await s.api(`${PODS}/held-pod`)).status).toBe(404);
  });
});

describe('owner references across namespaces', () => {
  it('an owner in another namespace is absent for its dependent (deleted, with an OwnerRefInvalidNamespace warning); a cluster-scoped dependent of a namespaced owner stays', async () => {
    expect((await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'elsewhere' } } })).status).toBe(201);
    const owner = await configMap('far-owner');
    const r = await s.api('/api/v1/namespaces/elsewhere/configmaps', { method: 'POST', body: { metadata: { name: 'far-dependent', ownerReferences: [ref(owner)] } } });
    expect(r.status).toBe(201);
    await until(() => s.api('/api/v1/namespaces/elsewhere/configmaps/far-dependent'), (x) => x.status === 404, 'the dependent to go');
    const events = await until(
      () => s.api('/api/v1/namespaces/elsewhere/events?fieldSelector=reason=OwnerRefInvalidNamespace'),
      (x) => x.body.items?.length > 0,
      'the warning',
    );
    expect(events.body.items[0]).toMatchObject({
      type: 'Warning',
      involvedObject: { kind: 'ConfigMap', name: 'far-dependent', namespace: 'elsewhere' },
      message: `ownerRef [v1/ConfigMap, namespace: elsewhere, name: far-owner, uid: ${owner.metadata.uid}] does not exist in namespace "elsewhere"`,
      source: { component: 'garbage-collector-controller' },
    });
    // The owner itself is untouched.
    expect((await get('far-owner')).status).toBe(200);
    // A Namespace (cluster-scoped) naming a ConfigMap as owner is invalid, and kept.
    const ns = await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'owned-ns', ownerReferences: [ref(owner)] } } });
    expect(ns.status).toBe(201);
    await until(
      () => s.api('/api/v1/namespaces/default/events?fieldSelector=reason=OwnerRefInvalidNamespace'),
      (x) => x.body.items?.some((e: any) => e.involvedObject.name === 'owned-ns'),
      'the warning about the namespace',
    );
    expect((await s.api('/api/v1/namespaces/owned-ns')).status).toBe(200);
  });
});

describe('garbage collector start-up', () => {
  // The first index is built a slice a turn; writes that come meanwhile are taken in once it is whole.
  let bare: TestServer;
  beforeAll(async () => {
    bare = await startTestServer({ controllers: false });
  });
  afterAll(() => bare.stop());

  it('judges nothing against a half-built index: a dependent written during the walk keeps an owner the walk had not reached', async () => {
    const create = async (name: string, metadata: Record<string, unknown> = {}) => {
      const r = await bare.api(CM, { method: 'POST', body: { metadata: { name, ...metadata } } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    const owner = await create('walk-owner');
    const doomedOwner = await create('walk-doomed-owner');
    await create('walk-doomed-dependent', { ownerReferences: [ref(doomedOwner)] });
    await create('walk-stray', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: '00000000-0000-0000-0000-000000000003' }] });
    const seen = new Set<string>();
    const unwatch = await bare.cache.watchFrom(bare.cache.revision, { prefix: '/registry/core/configmaps/', deliver: (e) => seen.add(`${e.type} ${e.object.object.metadata.name}`) });

    // The walk stops after its first object until let go; one object a slice.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let slices = 0;
    const stop = startGarbageCollector(
      { client: bare.client, stores: bare.stores, cache: bare.cache },
      { perTurn: 1, betweenSlices: () => (++slices === 1 ? held : new Promise((r) => setImmediate(r))) },
    );
    try {
      // Meanwhile: a new dependent of an owner the walk has not indexed, and an owner goes.
      await create('walk-new-dependent', { ownerReferences: [ref(owner)] });
      expect((await bare.api(`${CM}/walk-doomed-owner`, { method: 'DELETE' })).status).toBe(200);
      await waitUntil(() => seen, (x) => x.has('ADDED walk-new-dependent') && x.has('DELETED walk-doomed-owner'), 'both writes in the cache');
      expect(slices).toBe(1);
      letGo();
      await waitUntil(() => bare.api(`${CM}/walk-stray`), (r) => r.status === 404, 'the stray dependent deleted once the index is whole', 10_000);
      await waitUntil(() => bare.api(`${CM}/walk-doomed-dependent`), (r) => r.status === 404, 'the dependent of the owner deleted during the walk collected', 10_000);
      expect(slices).toBeGreaterThan(5);
      const kept = await bare.api(`${CM}/walk-new-dependent`);
      expect(kept.status).toBe(200);
      expect(kept.body.metadata.ownerReferences).toEqual([ref(owner)]);
    } finally {
      stop();
      unwatch();
    }
  });
});
