// Query parameters read as kube-apiserver's parameter codec reads them, for
// list, watch, delete and pretty (the Python client sends watch=True).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, withCredentials, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (const name of ['q1', 'q2', 'q3']) await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name } } });
});
afterAll(async () => {
  await s.stop();
});

/** The first line of a watch (or the whole answer of a list), and the status. */
async function first(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(s.url + path, { headers: withCredentials(s.url) });
  const reader = res.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return { status: res.status, text: new TextDecoder().decode(value) };
}

describe('query parameters', () => {
  it('watch=True, watch=t and even watch= start a watch; watch=False and watch=0 list', async () => {
    for (const v of ['True', 't', 'TRUE', '']) {
      const r = await first(`/api/v1/namespaces/default/configmaps?watch=${v}`);
      expect(JSON.parse(r.text.split('\n')[0]).type, v).toBe('ADDED');
    }
    for (const v of ['False', '0', 'FALSE']) {
      const r = await first(`/api/v1/namespaces/default/configmaps?watch=${v}`);
      expect(JSON.parse(r.text).kind, v).toBe('ConfigMapList');
    }
  });

  it('allowWatchBookmarks and sendInitialEvents take the same forms', async () => {
    const r = await first('/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=True&sendInitialEvents=T&resourceVersionMatch=NotOlderThan');
    expect(r.status).toBe(200);
  });

  it('an integer Go cannot parse is a 400 quoting strconv.ParseInt', async () => {
    for (const [param, v] of [['limit', 'ten'], ['limit', '1.5'], ['timeoutSeconds', 'soon'], ['limit', '9223372036854775808']]) {
      const r = await s.api(`/api/v1/namespaces/default/configmaps?${param}=${v}`);
      expect(r.status, `${param}=${v}`).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
      expect(r.body.message).toMatch(new RegExp(`^strconv.ParseInt: parsing "${v.replace('.', '\\.')}": (invalid syntax|value out of range)$`));
    }
    const del = await s.api('/api/v1/namespaces/default/configmaps/q3?gracePeriodSeconds=x', { method: 'DELETE' });
    expect(del.status).toBe(400);
    expect(del.body.message).toBe('strconv.ParseInt: parsing "x": invalid syntax');
  });

  it('a signed limit is an integer; below one it is no limit', async () => {
    const r = await s.api('/api/v1/namespaces/default/configmaps?limit=%2B1');
    expect(r.body.items).toHaveLength(1);
    const all = await s.api('/api/v1/namespaces/default/configmaps?limit=-1');
    expect(all.status).toBe(200);
    expect(all.body.metadata.continue).toBeUndefined();
  });

  it('pretty as strconv.ParseBool', async () => {
    for (const [v, pretty] of [['True', true], ['t', true], ['F', false], ['yes', false]] as const) {
      const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps/q1?pretty=${v}`, { headers: withCredentials(s.url, { 'User-Agent': 'test' }) });
      expect((await res.text()).includes('\n  '), v).toBe(pretty);
    }
  });
});
