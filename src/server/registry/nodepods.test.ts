// What a kubelet asks of the API server: the pods bound to its node, listed
// and then watched (fieldSelector=spec.nodeName=<node>), and its own Node
// (fieldSelector=metadata.name=<node>). Served from the watch cache's index
// and triggers (the cache's own tests show a watch is not offered other
// nodes' events); here, over HTTP, that the answers are the selector's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  // No controllers: no scheduler binds the pods, no pod GC removes those on nodes that do not exist.
  s = await startTestServer({ controllers: false });
  await s.api('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'other' } } });
});
afterAll(async () => {
  await s.stop();
});

const pod = (name: string, nodeName?: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox:1' }] },
});
const create = async (ns: string, name: string, nodeName?: string, labels?: Record<string, string>) => {
  const r = await s.api(`/api/v1/namespaces/${ns}/pods`, { method: 'POST', body: pod(name, nodeName, labels) });
  expect(r.status).toBe(201);
  return r.body;
};
const bind = (ns: string, name: string, node: string) =>
  s.api(`/api/v1/namespaces/${ns}/pods/${name}/binding`, { method: 'POST', body: { metadata: { name }, target: { kind: 'Node', name: node } } });
const names = (list: any) => list.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`);
const onNode = (node: string) => `fieldSelector=spec.nodeName%3D${node}`;

it("lists a node's pods, in every namespace or one, with other selectors and pages", async () => {
  await create('default', 'l-b', 'list-node');
  await create('other', 'l-a', 'list-node', { tier: 'web' });
  await create('default', 'l-c', 'list-node-2');
  await create('default', 'l-u');
  await create('default', 'l-d');
  expect((await bind('default', 'l-d', 'list-node')).status).toBe(201);

  expect(names((await s.api(`/api/v1/pods?${onNode('list-node')}`)).body)).toEqual(['default/l-b', 'default/l-d', 'other/l-a']);
  expect(names((await s.api(`/api/v1/pods?${onNode('list-node')}&resourceVersion=0`)).body)).toEqual(['default/l-b', 'default/l-d', 'other/l-a']);
  expect(names((await s.api(`/api/v1/namespaces/other/pods?${onNode('list-node')}`)).body)).toEqual(['other/l-a']);
  expect(names((await s.api(`/api/v1/pods?${onNode('list-node')}&labelSelector=tier%3Dweb`)).body)).toEqual(['other/l-a']);
  expect(names((await s.api(`/api/v1/pods?${onNode('list-node')},metadata.namespace%3Ddefault`)).body)).toEqual(['default/l-b', 'default/l-d']);
  // Unscheduled pods (the scheduler's question) and a node with none.
  expect(names((await s.api(`/api/v1/pods?fieldSelector=spec.nodeName%3D`)).body)).toEqual(['default/l-u']);
  expect(names((await s.api(`/api/v1/pods?${onNode('no-such-node')}`)).body)).toEqual([]);
  expect(names((await s.api(`/api/v1/pods?fieldSelector=spec.nodeName!%3Dlist-node,spec.nodeName!%3D`)).body)).toEqual(['default/l-c']);

  // More than a page: paged as any list, every pod once.
  const first = (await s.api(`/api/v1/pods?${onNode('list-node')}&limit=2`)).body;
  expect(names(first)).toEqual(['default/l-b', 'default/l-d']);
  expect(first.metadata.continue).toBeTruthy();
  const rest = (await s.api(`/api/v1/pods?${onNode('list-node')}&limit=2&continue=${first.metadata.continue}`)).body;
  expect(names(rest)).toEqual(['other/l-a']);
  expect(rest.metadata.continue).toBeFalsy();

  // Kept current: a pod deleted leaves its node's list.
  expect((await s.api('/api/v1/namespaces/default/pods/l-b?gracePeriodSeconds=0', { method: 'DELETE' })).status).toBe(200);
  expect(names((await s.api(`/api/v1/pods?${onNode('list-node')}`)).body)).toEqual(['default/l-d', 'other/l-a']);
});

it("watches a node's pods: a pod bound to it arrives as ADDED, its changes and deletion follow, other nodes' pods never come", async () => {
  const rv = (await s.api('/api/v1/pods?limit=1')).body.metadata.resourceVersion;
  const watching = readWatch(`${s.url}/api/v1/pods?watch=1&resourceVersion=${rv}&${onNode('watch-node')}`, (ev) => ev.length >= 3);
  const inOther = readWatch(`${s.url}/api/v1/namespaces/other/pods?watch=1&resourceVersion=${rv}&${onNode('watch-node')}`, (ev) => ev.length >= 1);
  await create('default', 'w-1');
  await create('default', 'w-2', 'watch-node-2');
  expect((await bind('default', 'w-1', 'watch-node')).status).toBe(201);
  expect((await s.api('/api/v1/namespaces/default/pods/w-1', { method: 'PATCH', body: { metadata: { labels: { seen: 'yes' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } })).status).toBe(200);
  await create('other', 'w-3', 'watch-node');
  expect((await s.api('/api/v1/namespaces/default/pods/w-1?gracePeriodSeconds=0', { method: 'DELETE' })).status).toBe(200);
  const events = (await watching).map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`);
  expect(events).toEqual(['ADDED default/w-1', 'MODIFIED default/w-1', 'ADDED other/w-3']);
  expect((await inOther).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED w-3']);
  const rest = await readWatch(`${s.url}/api/v1/pods?watch=1&resourceVersion=${rv}&${onNode('watch-node')}`, (ev) => ev.length >= 4);
  expect(rest.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED w-1', 'MODIFIED w-1', 'ADDED w-3', 'DELETED w-1']);
  // From the start (resourceVersion=0): the node's pods now, as ADDED.
  const initial = await readWatch(`${s.url}/api/v1/pods?watch=1&resourceVersion=0&${onNode('watch-node')}`, (ev) => ev.length >= 1);
  expect(initial.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED w-3']);
});

it('watches one Node by name, as a kubelet watches its own', async () => {
  for (const name of ['n-1', 'n-2']) expect((await s.api('/api/v1/nodes', { method: 'POST', body: { metadata: { name } } })).status).toBe(201);
  const rv = (await s.api('/api/v1/nodes')).body.metadata.resourceVersion;
  const watching = readWatch(`${s.url}/api/v1/nodes?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dn-1`, (ev) => ev.length >= 2);
  for (const name of ['n-2', 'n-1', 'n-2', 'n-1']) {
    const r = await s.api(`/api/v1/nodes/${name}`, { method: 'PATCH', body: { metadata: { labels: { [`touched-${Date.now()}`]: 'x' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
  }
  expect((await watching).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['MODIFIED n-1', 'MODIFIED n-1']);
  expect(names((await s.api('/api/v1/nodes?fieldSelector=metadata.name%3Dn-2')).body)).toEqual(['undefined/n-2']);
});
