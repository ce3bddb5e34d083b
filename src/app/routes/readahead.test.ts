// @vitest-environment jsdom
// The list page's first page read ahead: which addresses are list pages, and a
// read-ahead answer taken once, by the first request of the same path, against
// the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { kubeFetch, readAhead, type KubeList } from '../api/client.ts';
import { listOfAddress } from './readahead.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

describe('listOfAddress', () => {
  it('names the kind and namespace of a list page only', () => {
    expect(listOfAddress('/nodes', '')).toMatchObject({ kind: { kind: 'Node' }, namespace: undefined });
    expect(listOfAddress('/pods', '?ns=web')).toMatchObject({ kind: { kind: 'Pod' }, namespace: 'web' });
    // A cluster-scoped kind has no namespace, whatever the address says.
    expect(listOfAddress('/nodes', '?ns=web')?.namespace).toBeUndefined();
    for (const [path, search] of [['/', ''], ['/nodes/node-1', ''], ['/pods/web/p', ''], ['/edit/nodes/n', ''], ['/events', ''], ['/settings', ''], ['/nothing', '']]) {
      expect(listOfAddress(path, search)).toBeUndefined();
    }
  });
});

describe('readAhead', () => {
  const conn = () => ({ baseUrl: s.url, token: s.adminToken });
  const node = (name: string) => s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } });
  const names = (l: KubeList) => l.items.map((o) => o.metadata.name);

  it('answers the first request of its path with what it read, and only that one', async () => {
    await node('before');
    const path = '/api/v1/nodes?limit=100';
    readAhead(conn(), path);
    await new Promise((r) => setTimeout(r, 300));
    await node('after');
    expect(names(await kubeFetch<KubeList>(conn(), path))).toEqual(['before']);
    expect(names(await kubeFetch<KubeList>(conn(), path))).toEqual(['after', 'before']);
  });

  it('is not taken by another token, path or method', async () => {
    const path = '/api/v1/nodes?limit=50';
    readAhead(conn(), path);
    await new Promise((r) => setTimeout(r, 300));
    await node('later');
    expect(names(await kubeFetch<KubeList>(conn(), '/api/v1/nodes?limit=49'))).toContain('later');
    await expect(kubeFetch<KubeList>({ ...conn(), token: 'not-a-token' }, path)).rejects.toMatchObject({ code: 401 });
    expect(names(await kubeFetch<KubeList>(conn(), path))).not.toContain('later');
  });
});
