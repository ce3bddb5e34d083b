// What a write hands the watch cache: the object it stored, which the cache
// keeps (not a parse of the stored JSON), frozen, as every reader shares it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configMapKind } from '../../kinds/configmap.ts';
import { startTestServer, type TestServer } from '../testing.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ controllers: false });
});
afterAll(() => server.stop());

const store = () => server.client.store(configMapKind);

it('keeps the object a create or an update stored, frozen, and gives the writer that object', async () => {
  const created = await server.client.create(configMapKind, { metadata: { name: 'kept', namespace: 'default' }, data: { a: '1' } });
  const cached = store().peek('default', 'kept')!;
  expect(created).toBe(cached.object);
  expect(Object.isFrozen(created.metadata)).toBe(true);
  // A writer changing what it got back changes nothing the cache's readers see.
  expect(() => ((created as any).data.a = '2')).toThrow(TypeError);
  expect(JSON.parse(JSON.stringify(cached.object))).toEqual({ ...JSON.parse(JSON.stringify(created)), data: { a: '1' } });

  const updated = await server.client.update(configMapKind, 'default', 'kept', (o) => Object.assign(o, { data: { a: '3' }, immutable: undefined }));
  expect(updated).toBe(store().peek('default', 'kept')!.object);
  // The kept object is what parsing the stored JSON gives: a member set to undefined is not there at all.
  expect(Object.keys(updated)).not.toContain('immutable');
  expect(updated.metadata.resourceVersion).toBe(String(store().peek('default', 'kept')!.revision));
  const res = await server.api('/api/v1/namespaces/default/configmaps/kept');
  expect(res.body.data).toEqual({ a: '3' });
  expect(res.body.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
});

it('keeps a parse of the stored JSON when the write failed or another write stored something else', async () => {
  const s = store();
  const first = await server.client.create(configMapKind, { metadata: { name: 'raced', namespace: 'default' }, data: { a: '1' } });
  // Two updates from the same revision: one wins, the other conflicts and is retried against the winner.
  const [x, y] = await Promise.all([
    s.update('default', 'raced', { ...JSON.parse(JSON.stringify(first)), data: { a: 'x' } }, { dryRun: false, warnings: [] }),
    s.update('default', 'raced', { ...JSON.parse(JSON.stringify(first)), data: { a: 'y' } }, { dryRun: false, warnings: [] }).catch((e) => e),
  ]);
  expect(x.data).toEqual({ a: 'x' });
  expect(y.code).toBe(409);
  // The loser's object is not the cache's (it was never stored); the winner's JSON is.
  expect(s.peek('default', 'raced')!.object.data).toEqual({ a: 'x' });
  await server.client.update(configMapKind, 'default', 'raced', (o) => void ((o as any).data = { a: 'z' }));
  expect(s.peek('default', 'raced')!.object.data).toEqual({ a: 'z' });
});
