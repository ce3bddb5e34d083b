// The garbage collector over the real server, with ConfigMaps as owners and
// dependents (any kind works the same way; the DaemonSet case is in
// daemonset.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';

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

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
