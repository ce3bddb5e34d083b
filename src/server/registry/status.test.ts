// A write to the status subresource changes status and what the kind's
// status strategy leaves to it, as kube-apiserver's PrepareForUpdate of each
// kind's status strategy does; the rest is the stored object's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { podKind } from '../../kinds/pod.ts';
import { nodeKind } from '../../kinds/node.ts';
import { startTestServer, type TestServer } from '../testing.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ controllers: false });
});
afterAll(() => server.stop());

const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u1', controller: true };

it('pods/status keeps the stored spec and ownerReferences (old kubelets corrupted them), and takes labels and status', async () => {
  await server.client.create(podKind, { metadata: { name: 'p', namespace: 'default', ownerReferences: [owner] }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
  const sent = (await server.api('/api/v1/namespaces/default/pods/p')).body;
  sent.metadata.ownerReferences = [{ ...owner, uid: 'u2', name: 'other' }];
  sent.metadata.labels = { app: 'x' };
  sent.spec.containers[0].image = 'i:2';
  sent.status = { phase: 'Running' };
  const r = await server.api('/api/v1/namespaces/default/pods/p/status', { method: 'PUT', body: sent });
  expect(r.status).toBe(200);
  expect(r.body.metadata.ownerReferences).toEqual([owner]);
  expect(r.body.metadata.labels).toEqual({ app: 'x' });
  expect(r.body.spec.containers[0].image).toBe('i:1');
  expect(r.body.status.phase).toBe('Running');
  // The in-process client (the simulated kubelets') likewise.
  const w = await server.client.update(podKind, 'default', 'p', (o: any) => ((o.metadata.ownerReferences = []), (o.spec.containers[0].image = 'i:3'), (o.status.phase = 'Succeeded')), 'status');
  expect(w.metadata.ownerReferences).toEqual([owner]);
  expect((w.spec as any).containers[0].image).toBe('i:1');
  expect((w.status as any).phase).toBe('Succeeded');
});

it('an in-process status write shares the stored spec and reports a bad status at its path', async () => {
  const before = await server.client.create(nodeKind, { metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } });
  const after = await server.client.update(nodeKind, undefined, 'n1', (o: any) => (o.status.conditions = [{ type: 'Ready', status: 'True' }]), 'status');
  expect(after.spec).toBe(before.spec);
  expect((after.status as any).conditions).toEqual([{ type: 'Ready', status: 'True' }]);
  const bad = await server.client.update(nodeKind, undefined, 'n1', (o: any) => (o.status.conditions = 'no'), 'status').catch((e) => e);
  expect(bad.code).toBe(400);
  expect(bad.message).toMatch(/Go struct field Node\.status\.conditions of type array/);
});

it('a subresource that writes a few paths (pods/binding) changes those and shares the rest of the stored object', async () => {
  const before = await server.client.create(podKind, { metadata: { name: 'b', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
  const after = await server.client.update(podKind, 'default', 'b', (o: any) => ((o.spec.nodeName = 'n1'), (o.spec.containers[0].image = 'ignored'), (o.metadata.labels = { ignored: 'yes' })), 'binding');
  expect((after.spec as any).nodeName).toBe('n1');
  expect((after.spec as any).containers).toBe((before.spec as any).containers);
  expect(after.metadata.labels).toBe(undefined);
  expect((before.spec as any).nodeName).toBe(undefined); // the stored object before the write is as it was
});

it('an in-process write is credited to its manager as if it sent the managed fields back unchanged (its copy has none to send)', async () => {
  const created = await server.api('/api/v1/namespaces/default/pods?fieldManager=creator', { method: 'POST', body: { metadata: { name: 'm', namespace: 'default', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } } });
  expect(created.status).toBe(201);
  let handed: unknown = 'not called';
  const labelled = await server.client.update(podKind, 'default', 'm', (o) => ((handed = o.metadata.managedFields), (o.metadata.labels = { ...o.metadata.labels, b: '2' })));
  expect(handed).toBe(undefined);
  const running = await server.client.update(podKind, 'default', 'm', (o: any) => (o.status = { phase: 'Running' }), 'status');
  type Entry = { manager: string; subresource?: string; fieldsV1: unknown };
  const entries = (o: typeof running) => ((o.metadata.managedFields ?? []) as Entry[]).map((e) => ({ manager: e.manager, subresource: e.subresource, fields: e.fieldsV1 }));
  const inProcess = (labelled.metadata.managedFields as Entry[])[1].manager;
  expect(entries(labelled)).toEqual([
    { manager: 'creator', subresource: undefined, fields: created.body.metadata.managedFields[0].fieldsV1 },
    { manager: inProcess, subresource: undefined, fields: { 'f:metadata': { 'f:labels': { 'f:b': {} } } } },
  ]);
  expect(entries(running).slice(0, 2)).toEqual(entries(labelled));
  expect(entries(running)[2]).toEqual({ manager: inProcess, subresource: 'status', fields: { 'f:status': { 'f:phase': {} } } });
  // What is stored is what was answered.
  expect((await server.api('/api/v1/namespaces/default/pods/m')).body.metadata.managedFields).toEqual(running.metadata.managedFields);
});
