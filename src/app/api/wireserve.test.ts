// The wire worker's work, run here on the test's thread against the real
// server: a page of a list read and cut into runs as it arrives, which give
// back the list, refusals passed on as answers, and a watch socket's messages
// handed over in batches that keep every event, in order, whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../server/testing.ts';
import { serveWire, type WireAnswer } from './wireserve.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
  for (let i = 0; i < 25; i++) expect((await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${String(i).padStart(2, '0')}`, annotations: { note: 'a "quoted", [bracketed] {value}' } } } })).status).toBe(201);
}, 60_000);
afterAll(() => s.stop());

/** The worker's answers, as it posts them, and a way to wait for one; `takes`: each batch of messages is said taken a moment later, as the main thread does. */
function served(WS: unknown = WebSocket, takes = true) {
  const answers: WireAnswer[] = [];
  const serve = serveWire((a) => {
    answers.push(a);
    if (takes && a.op === 'messages') setTimeout(() => serve({ op: 'taken', id: a.id }), 5);
  }, WS as typeof globalThis.WebSocket);
  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(ok()).toBe(true);
  };
  return { answers, serve, until };
}

describe('the wire worker', () => {
  it('reads a page of a list as runs of items that give back the page, and its continue token', async () => {
    const { answers, serve, until } = served();
    serve({ op: 'page', id: 1, url: `${s.url}/api/v1/nodes?limit=20`, headers: s.adminHeaders, per: 6, managedFields: true });
    await until(() => answers.some((a) => a.op === 'end'));
    const direct = (await s.api('/api/v1/nodes?limit=20')).body;
    expect(answers.map((a) => a.op)).toEqual(['head', 'run', 'run', 'run', 'run', 'end']);
    const head = answers[0] as Extract<WireAnswer, { op: 'head' }>;
    expect(head.status).toBe(200);
    const runs = answers.flatMap((a) => (a.op === 'run' ? [JSON.parse(a.run) as unknown[]] : []));
    expect(runs.map((r) => r.length)).toEqual([6, 6, 6, 2]);
    expect(runs.flat()).toEqual(direct.items);
    // The server writes the metadata first: the early head has it, continue token and all.
    expect(JSON.parse(head.head)).toEqual({ ...direct, items: [] });
    expect(JSON.parse(head.head).metadata.continue).toBeTruthy();
    expect(JSON.parse((answers.at(-1) as { head: string }).head)).toEqual({ ...direct, items: [] });
  });

  it('cuts the objects’ managedFields from runs and watch messages unless asked to keep them', async () => {
    const { answers, serve, until } = served();
    serve({ op: 'page', id: 8, url: `${s.url}/api/v1/nodes?limit=20`, headers: s.adminHeaders, per: 6, managedFields: false });
    await until(() => answers.some((a) => a.op === 'end'));
    const direct = (await s.api('/api/v1/nodes?limit=20')).body.items;
    expect(direct.every((o: any) => o.metadata.managedFields.length > 0)).toBe(true);
    const runs = answers.flatMap((a) => (a.op === 'run' ? (JSON.parse(a.run) as unknown[]) : []));
    expect(runs).toEqual(direct.map(({ metadata: { managedFields: _, ...metadata }, ...o }: any) => ({ ...o, metadata })));
    const rv = (await s.api('/api/v1/nodes')).body.metadata.resourceVersion;
    const token = s.adminHeaders.Authorization.slice('Bearer '.length);
    const url = `${s.url.replace('http', 'ws')}/api/v1/nodes?watch=1&resourceVersion=${rv}`;
    serve({ op: 'watch', id: 9, url, protocols: ['watch.json.k8s.io', `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`], managedFields: false });
    await until(() => answers.some((a) => a.op === 'open'));
    const created = await s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cut', labels: { a: 'b' } } } });
    expect(created.body.metadata.managedFields.length).toBeGreaterThan(0);
    await until(() => answers.some((a) => a.op === 'messages'));
    const events = answers.flatMap((a) => (a.op === 'messages' ? (JSON.parse(a.batch) as { object: any }[]) : []));
    const { managedFields: _, ...metadata } = created.body.metadata;
    expect(events.map((e) => e.object)).toEqual([{ ...created.body, metadata }]);
    serve({ op: 'close', id: 9 });
    await s.api('/api/v1/nodes/cut', { method: 'DELETE' });
  });

  it('hands over the head and each whole run while the rest of the page is still on its way', async () => {
    const { createServer } = await import('node:http');
    const direct = (await s.api('/api/v1/nodes?limit=20')).body;
    const text = JSON.stringify(direct);
    // The page comes in two parts, the second only once the first's runs were handed over; the cut falls inside a string.
    const cutAt = text.indexOf('quoted', text.indexOf(direct.items[8].metadata.name));
    let sendRest!: () => void;
    const slow = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(text.slice(0, cutAt));
      sendRest = () => res.end(text.slice(cutAt));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const { answers, serve, until } = served();
      serve({ op: 'page', id: 5, url: `http://127.0.0.1:${(slow.address() as { port: number }).port}/api/v1/nodes`, headers: {}, per: 4, managedFields: true });
      await until(() => answers.filter((a) => a.op === 'run').length === 2);
      expect(answers.map((a) => a.op)).toEqual(['head', 'run', 'run']);
      expect(JSON.parse((answers[0] as { head: string }).head).metadata.continue).toBe(direct.metadata.continue);
      sendRest();
      await until(() => answers.some((a) => a.op === 'end'));
      const runs = answers.flatMap((a) => (a.op === 'run' ? [JSON.parse(a.run) as unknown[]] : []));
      expect(runs.map((r) => r.length)).toEqual([4, 4, 4, 4, 4]);
      expect(runs.flat()).toEqual(direct.items);
    } finally {
      slow.close();
    }
  });

  it('passes a refusal on with its Status, and a server that does not answer as status 0', async () => {
    const { answers, serve, until } = served();
    serve({ op: 'page', id: 2, url: `${s.url}/api/v1/nodes?limit=20`, headers: { Authorization: 'Bearer wrong' }, per: 6, managedFields: true });
    serve({ op: 'page', id: 3, url: 'http://127.0.0.1:1/api/v1/nodes', headers: {}, per: 6, managedFields: true });
    await until(() => answers.length === 2);
    const byId = new Map(answers.map((a) => [a.id, a as Extract<WireAnswer, { op: 'page' }>]));
    expect(byId.get(2)!.status).toBe(401);
    expect(JSON.parse(byId.get(2)!.text!).kind).toBe('Status');
    expect(answers.map((a) => a.op)).toEqual(['page', 'page']);
    expect(byId.get(3)!.status).toBe(0);
  });

  it('answers a page whose body is cut off mid-read as status 0, never leaving it unanswered', async () => {
    const { createServer } = await import('node:http');
    const cut = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"kind":"NodeList","items":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((r) => cut.listen(0, '127.0.0.1', r));
    try {
      const { answers, serve, until } = served();
      serve({ op: 'page', id: 4, url: `http://127.0.0.1:${(cut.address() as { port: number }).port}/api/v1/nodes`, headers: {}, per: 6, managedFields: true });
      await until(() => answers.some((a) => a.op === 'page'));
      // The items had begun (a head, without metadata), then no more: the page ends as no answer.
      expect(answers.map((a) => a.op)).toEqual(['head', 'page']);
      expect(answers[1]).toMatchObject({ id: 4, op: 'page', status: 0 });
    } finally {
      cut.close();
    }
  });

  it("hands a watch socket's messages over in batches: every event, in order, as the server sent them", async () => {
    const { answers, serve, until } = served();
    const rv = (await s.api('/api/v1/nodes')).body.metadata.resourceVersion;
    const token = s.adminHeaders.Authorization.slice('Bearer '.length);
    const url = `${s.url.replace('http', 'ws')}/api/v1/nodes?watch=1&resourceVersion=${rv}`;
    serve({ op: 'watch', id: 7, url, protocols: ['watch.json.k8s.io', `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`], managedFields: true });
    await until(() => answers.some((a) => a.op === 'open'));
    // A burst of writes, then more one at a time.
    const names = Array.from({ length: 30 }, (_, i) => `w-${String(i).padStart(2, '0')}`);
    await Promise.all(names.slice(0, 20).map((name) => s.api('/api/v1/nodes', { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } })));
    for (const name of names.slice(20)) await s.api(`/api/v1/nodes`, { method: 'POST', body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } });
    await s.api('/api/v1/nodes/w-03', { method: 'DELETE' });
    const events = () => answers.flatMap((a) => (a.op === 'messages' ? (JSON.parse(a.batch) as { type: string; object: { metadata: { name: string; resourceVersion: string } } }[]) : []));
    await until(() => events().length === 31);
    const got = events();
    // Each event whole, in the server's order (resourceVersions rising), the delete last.
    expect(got.slice(0, 30).map((e) => e.type)).toEqual(Array(30).fill('ADDED'));
    expect(new Set(got.slice(0, 30).map((e) => e.object.metadata.name))).toEqual(new Set(names));
    expect(got.slice(20, 30).map((e) => e.object.metadata.name)).toEqual(names.slice(20));
    expect(got[30]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'w-03' } } });
    const rvs = got.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    serve({ op: 'close', id: 7 });
  });

  it('hands a message over at once while the main thread keeps up, and what comes before it took the last batch together', () => {
    let socket!: { onopen: () => void; onmessage: (m: { data: unknown }) => void; onclose: () => void };
    class TestSocket {
      constructor() {
        socket = this as never;
      }
      close() {}
    }
    const { answers, serve } = served(TestSocket, false);
    serve({ op: 'watch', id: 1, url: 'ws://x', protocols: [], managedFields: true });
    socket.onopen();
    const say = (n: number) => socket.onmessage({ data: JSON.stringify({ type: 'MODIFIED', object: { n } }) });
    const batches = () => answers.filter((a) => a.op === 'messages').map((a) => JSON.parse((a as { batch: string }).batch).map((e: { object: { n: number } }) => e.object.n));
    say(1);
    expect(batches()).toEqual([[1]]);
    say(2);
    say(3);
    socket.onmessage({ data: new ArrayBuffer(2) }); // not text: not an event
    say(4);
    expect(batches()).toEqual([[1]]);
    serve({ op: 'taken', id: 1 });
    expect(batches()).toEqual([[1], [2, 3, 4]]);
    serve({ op: 'taken', id: 1 });
    // Taken, with nothing waiting: the next message goes at once.
    say(5);
    expect(batches()).toEqual([[1], [2, 3, 4], [5]]);
    say(6);
    socket.onclose();
    expect(batches()).toEqual([[1], [2, 3, 4], [5], [6]]);
    expect(answers.map((a) => a.op)).toEqual(['open', 'messages', 'messages', 'messages', 'messages', 'closed']);
    expect(answers.at(-1)).toEqual({ id: 1, op: 'closed', opened: true });
  });
});
