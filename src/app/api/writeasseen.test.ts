// @vitest-environment jsdom
// A write conditional on the fields the user saw, not on the resourceVersion:
// against the real server with the DaemonSet's status written back to back, as
// during a rollout across thousands of nodes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import type { KubeObject } from '../../kinds/kind.ts';
import type { TestServer } from '../../server/testing.ts';
import { api, KubeError } from './client.ts';
import { getConnection } from './connection.ts';
import { connectToTestServer } from './testserver.ts';
import { conflictOf, patchAsSeen, writeAsSeen } from './writeasseen.ts';

let s: TestServer;
connectToTestServer({ controllers: false }, (started) => (s = started));

const PATH = '/apis/apps/v1/namespaces/default/daemonsets';
const manifest = (name: string, image = 'agent:v1') => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image }] } } },
});
const mergePatch = (path: string, body: unknown) => s.api(path, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
const imageOf = (o: any) => o.spec.template.spec.containers[0].image;

/** Writes the DaemonSet's status in a loop, as its controller does during a rollout, until stopped. */
let storms: (() => Promise<void>)[] = [];
function statusStorm(name: string) {
  let running = true;
  let writes = 0;
  const done = (async () => {
    while (running) {
      const r = await mergePatch(`${PATH}/${name}/status`, { status: { numberReady: ++writes } });
      if (r.status !== 200) throw new Error(`status write: ${r.status}`);
    }
  })();
  const stop = () => ((running = false), done);
  storms.push(stop);
  return { writes: () => writes, stop };
}
afterEach(async () => {
  await Promise.all(storms.map((stop) => stop()));
  storms = [];
});

/** A DaemonSet made, as the page saw it, then its status written several times over. */
async function seenBeforeAStorm(name: string) {
  const made = await s.api(PATH, { method: 'POST', body: manifest(name) });
  expect(made.status).toBe(201);
  const storm = statusStorm(name);
  await expect.poll(storm.writes).toBeGreaterThan(3);
  return { seen: made.body as KubeObject, storm };
}

describe('the patch', () => {
  it('tests every field the user edits as seen, and sets only those that changed', () => {
    const seen = { ...manifest('a'), metadata: { ...manifest('a').metadata, uid: 'u1', resourceVersion: '5', generation: 1 }, status: { numberReady: 1 } } as KubeObject;
    const next = structuredClone(seen) as any;
    next.spec.template.spec.containers[0].image = 'agent:v2';
    next.metadata.annotations = { note: 'x' };
    delete next.metadata.labels;
    next.status = { numberReady: 9 };
    const ops = patchAsSeen(seen, next);
    expect(ops.filter((o) => o.op === 'test').map((o) => o.path).sort()).toEqual(['/metadata/annotations', '/metadata/labels', '/metadata/name', '/metadata/namespace', '/metadata/uid', '/spec']);
    expect(ops.find((o) => o.path === '/metadata/annotations' && o.op === 'test')).toMatchObject({ value: null });
    expect(ops.filter((o) => o.op !== 'test')).toEqual([
      { op: 'remove', path: '/metadata/labels' },
      { op: 'add', path: '/metadata/annotations', value: { note: 'x' } },
      { op: 'add', path: '/spec', value: next.spec },
    ]);
  });
});

describe('a refused patch as a conflict', () => {
  const rejected = 'the server rejected our request due to an error in our request';
  it('names the field where the server passes on the library\'s reason, as ours does', () => {
    const ours = new KubeError(422, { kind: 'Status', reason: 'Invalid', code: 422, message: rejected, details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'testing value /metadata/labels failed: test failed' }] } });
    expect(conflictOf(ours, daemonSetKind, 'a')).toMatchObject({ code: 409, reason: 'Conflict', message: 'daemonsets.apps "a" was changed since you opened it (metadata.labels); look at the change and try again' });
  });
  it('is still a conflict from kube-apiserver, which answers only its generic line with empty details', () => {
    const upstream = new KubeError(422, { kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, message: rejected, details: {} });
    expect(conflictOf(upstream, daemonSetKind, 'a')).toMatchObject({ code: 409, message: 'daemonsets.apps "a" was changed since you opened it; look at the change and try again' });
  });
  it('leaves a validation error, or any other, as it is', () => {
    const invalid = new KubeError(422, { kind: 'Status', reason: 'Invalid', code: 422, message: 'DaemonSet.apps "a" is invalid: spec.template.spec.containers[0].image: Required value', details: { causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template.spec.containers[0].image' }] } });
    expect(conflictOf(invalid, daemonSetKind, 'a')).toBeUndefined();
    expect(conflictOf(new KubeError(404, undefined), daemonSetKind, 'a')).toBeUndefined();
    expect(conflictOf(new Error('offline'), daemonSetKind, 'a')).toBeUndefined();
  });
});

describe('against the real server, while status is written back to back', () => {
  it('a write from a copy seen many status writes ago lands, changing only what the user changed', async () => {
    const { seen, storm } = await seenBeforeAStorm('stormy');
    const next = structuredClone(seen) as any;
    next.spec.template.spec.containers[0].image = 'agent:v2';
    next.metadata.labels.team = 'observability';
    const saved = await writeAsSeen(getConnection(), daemonSetKind, seen, next);
    await storm.stop();
    expect(imageOf(saved)).toBe('agent:v2');
    expect(saved.metadata.labels).toEqual({ app: 'stormy', team: 'observability' });
    expect(saved.metadata.generation).toBe(2);
    const stored = (await s.api(`${PATH}/stormy`)).body;
    expect(stored.status.numberReady).toBe(storm.writes());
    expect(stored.spec).toEqual(saved.spec);
  });

  it('a template whose command holds `&&` and `<` is tested and written as Go writes it, and read back the same', async () => {
    const body = manifest('shell');
    (body.spec.template.spec.containers[0] as any).command = ['sh', '-c', 'a && b <in >out'];
    const seen = (await s.api(PATH, { method: 'POST', body })).body as KubeObject;
    const sent: string[] = [];
    const native = globalThis.fetch;
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => (init?.method === 'PATCH' && sent.push(String(init.body)), native(input, init)));
    try {
      const next = structuredClone(seen) as any;
      next.metadata.labels.team = 'x';
      expect((await writeAsSeen(getConnection(), daemonSetKind, seen, next)).spec).toEqual(seen.spec);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(sent[0]).toContain(String.raw`"a \u0026\u0026 b \u003cin \u003eout"`);
  });

  it('a dry run writes nothing', async () => {
    const { seen } = await seenBeforeAStorm('dry');
    const next = structuredClone(seen) as any;
    next.spec.template.spec.containers[0].image = 'agent:v2';
    expect(imageOf(await writeAsSeen(getConnection(), daemonSetKind, seen, next, true))).toBe('agent:v2');
    expect(imageOf((await s.api(`${PATH}/dry`)).body)).toBe('agent:v1');
  });

  it('is a 409 naming the field once another writer changed one the user edits, and writes nothing', async () => {
    const { seen } = await seenBeforeAStorm('relabelled');
    expect((await mergePatch(`${PATH}/relabelled`, { metadata: { labels: { team: 'x' } } })).status).toBe(200);
    const next = structuredClone(seen) as any;
    next.spec.template.spec.containers[0].image = 'agent:v2';
    await expect(writeAsSeen(getConnection(), daemonSetKind, seen, next)).rejects.toMatchObject({ code: 409, reason: 'Conflict', message: expect.stringContaining('was changed since you opened it (metadata.labels)') });
    expect(imageOf((await s.api(`${PATH}/relabelled`)).body)).toBe('agent:v1');
  });

  it('a field absent when seen and set since is a change too; so is the object deleted and made again', async () => {
    const { seen } = await seenBeforeAStorm('annotated');
    expect((await mergePatch(`${PATH}/annotated`, { metadata: { annotations: { owner: 'them' } } })).status).toBe(200);
    const next = structuredClone(seen) as any;
    next.metadata.labels.team = 'mine';
    await expect(writeAsSeen(getConnection(), daemonSetKind, seen, next)).rejects.toMatchObject({ code: 409, message: expect.stringContaining('(metadata.annotations)') });

    const { seen: old, storm } = await seenBeforeAStorm('remade');
    await storm.stop();
    await api.delete(getConnection(), daemonSetKind, 'default', 'remade');
    await expect.poll(async () => (await s.api(`${PATH}/remade`)).status).toBe(404);
    expect((await s.api(PATH, { method: 'POST', body: manifest('remade', 'agent:v9') })).status).toBe(201);
    await expect(writeAsSeen(getConnection(), daemonSetKind, old, { ...old, metadata: { ...old.metadata, labels: { app: 'remade', x: 'y' } } })).rejects.toMatchObject({ code: 409, message: expect.stringContaining('(metadata.uid)') });
    expect(imageOf((await s.api(`${PATH}/remade`)).body)).toBe('agent:v9');
  });
});
