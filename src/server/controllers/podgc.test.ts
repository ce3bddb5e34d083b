// Pod garbage collection over the real server, with a short quarantine and
// no other controllers (so the pods' phases are the test's own writes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer, until as waitUntil } from '../testing.ts';
import { startPodGC } from './podgc.ts';

let s: TestServer;
let stopGC: () => void;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
  stopGC = startPodGC({ client: s.client, stores: s.stores, cache: s.cache }, { quarantineSeconds: 0.3 });
});
afterAll(async () => {
  stopGC();
  await s.stop();
});

const PODS = '/api/v1/namespaces/default/pods';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mergePatch = (path: string, body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });

const until = <T,>(read: () => Promise<T> | T, ok: (v: T) => boolean, what: string, timeoutMs = 10_000) => waitUntil(read, ok, what, timeoutMs);

async function node(name: string, ready = true, taints?: unknown[]) {
  const r = await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name }, spec: { taints } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const st = await mergePatch(`/api/v1/nodes/${name}/status`, { status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  expect(st.status).toBe(200);
}

async function pod(name: string, nodeName: string, phase = 'Running', metadata: Record<string, unknown> = {}) {
  const r = await s.api(PODS, { method: 'POST', body: { metadata: { name, ...metadata }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect((await mergePatch(`${PODS}/${name}/status`, { status: { phase } })).status).toBe(200);
}
const get = (name: string) => s.api(`${PODS}/${name}`);

describe('pod garbage collection', () => {
  it('force-deletes the pods of a deleted node after the quarantine, running and terminating alike, marking them Failed first', async () => {
    await node('gone-1');
    await pod('on-gone-running', 'gone-1');
    await pod('on-gone-done', 'gone-1', 'Succeeded');
    await pod('on-gone-stopping', 'gone-1');
    const term = await s.api(`${PODS}/on-gone-stopping`, { method: 'DELETE' });
    expect(term.body.metadata.deletionGracePeriodSeconds).toBe(30);
    const watching = readWatch(`${s.url}${PODS}?watch=1&fieldSelector=metadata.name%3Don-gone-running`, (ev) => ev.some((e) => e.type === 'DELETED'));
    await sleep(50);
    expect((await s.api('/api/v1/nodes/gone-1', { method: 'DELETE' })).status).toBe(200);
    // Quarantined, not deleted at once.
    expect((await get('on-gone-running')).status).toBe(200);
    for (const name of ['on-gone-running', 'on-gone-done', 'on-gone-stopping']) await until(() => get(name), (r) => r.status === 404, `${name} deleted`);
    const events = await watching;
    const failed = events.find((e) => e.type === 'MODIFIED' && e.object.status.phase === 'Failed');
    expect(failed.object.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }),
    );
    expect(events.at(-1).type).toBe('DELETED');
  });

  it('deletes pods bound to a node that never existed', async () => {
    await pod('on-ghost', 'ghost-node');
    await until(() => get('on-ghost'), (r) => r.status === 404, 'the pod on a missing node deleted');
  });

  it('keeps the pods of a node that comes back within the quarantine', async () => {
    await node('back-1');
    await pod('on-back', 'back-1');
    await s.api('/api/v1/nodes/back-1', { method: 'DELETE' });
    await node('back-1');
    await sleep(800);
    const p = await get('on-back');
    expect(p.status).toBe(200);
    expect(p.body.status.phase).toBe('Running');
  });

  it('force-deletes terminating pods on a NotReady out-of-service node at once, and leaves the others', async () => {
    await node('oos-1', false, [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }]);
    await pod('oos-stopping', 'oos-1');
    await pod('oos-running', 'oos-1');
    expect((await s.api(`${PODS}/oos-stopping`, { method: 'DELETE' })).body.metadata.deletionTimestamp).toBeDefined();
    await until(() => get('oos-stopping'), (r) => r.status === 404, 'the terminating pod force-deleted');
    await sleep(300);
    expect((await get('oos-running')).status).toBe(200);
  });
});
