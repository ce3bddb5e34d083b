// The first page goes first: decoration held back while it is read, and an
// early answer taken once, by the first read of the same path, against the
// real server.
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { kubeFetch, type KubeList } from './client.ts';
import { FirstPages } from './firstpages.ts';

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  return done;
};

describe('FirstPages', () => {
  it('lets requests through at once when no first page is being read', async () => {
    expect(await settled(new FirstPages().idle())).toBe(true);
  });

  it('holds requests until every first page has arrived', async () => {
    const g = new FirstPages();
    const a = g.start();
    const b = g.start();
    const waiting = g.idle(10_000);
    a();
    a(); // ending twice counts once
    expect(await settled(waiting)).toBe(false);
    b();
    expect(await settled(waiting)).toBe(true);
  });

  it('sees a list started later in the same task as the request', async () => {
    const g = new FirstPages();
    const waiting = g.idle(10_000);
    const end = g.start();
    expect(await settled(waiting)).toBe(false);
    end();
    expect(await settled(waiting)).toBe(true);
  });

  it('stops waiting after the longest wait', async () => {
    const g = new FirstPages();
    g.start();
    expect(await settled(g.idle(5))).toBe(true);
  });
});

describe('FirstPages.sendEarly', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ controllers: false });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });
  const conn = () => ({ baseUrl: s.url, token: s.adminToken });
  const node = (name: string) => s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } });
  const names = (l: KubeList) => l.items.map((o) => o.metadata.name);

  it('answers the first read of its path with what it read, and only that one', async () => {
    const g = new FirstPages();
    await node('before');
    const path = '/api/v1/nodes?limit=100';
    g.sendEarly(conn(), path);
    await new Promise((r) => setTimeout(r, 300));
    await node('after');
    expect(names(await g.read<KubeList>(conn(), path))).toEqual(['before']);
    expect(names(await g.read<KubeList>(conn(), path))).toEqual(['after', 'before']);
  });

  it('is not taken by another token or path, nor by other requests', async () => {
    const g = new FirstPages();
    const path = '/api/v1/nodes?limit=50';
    g.sendEarly(conn(), path);
    await new Promise((r) => setTimeout(r, 300));
    await node('later');
    expect(names(await g.read<KubeList>(conn(), '/api/v1/nodes?limit=49'))).toContain('later');
    expect(names(await kubeFetch<KubeList>(conn(), path))).toContain('later');
    await expect(g.read<KubeList>({ ...conn(), token: 'not-a-token' }, path)).rejects.toMatchObject({ code: 401 });
    expect(names(await g.read<KubeList>(conn(), path))).not.toContain('later');
  });

  it('holds decoration back while it reads, and lets it go when the read fails', async () => {
    // A server that takes the request and answers nothing until it is closed.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const g = new FirstPages();
    const reading = g.read<KubeList>({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, '/api/v1/nodes?limit=10');
    const waiting = g.idle(10_000);
    expect(await settled(waiting)).toBe(false);
    held.forEach((socket) => socket.destroy());
    silent.close();
    await expect(reading).rejects.toMatchObject({ code: 0 });
    expect(await settled(waiting)).toBe(true);
  });
});
