// Deeply nested bodies, the input that made a random fuzz run abort its process
// with V8's "FATAL ERROR: RegExpCompiler Allocation failed": the same YAML
// `[[[…]]]` sent twice drove the yaml library's composer to the stack's edge,
// where it compiled a regular expression. The server runs in a child process,
// so that such an abort fails these tests with its last words.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPTH } from './http/bodies.ts';
import { kubeletConfigError } from './controllers/nodeconfig.ts';
import { startServerProcess, type ServerProcess } from './fuzz.process.ts';

let s: ServerProcess;
beforeAll(async () => {
  s = await startServerProcess(['--no-controllers']);
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

const deep = (n: number, open: string, close: string, leaf = '') => open.repeat(n) + leaf + close.repeat(n);
const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions';
const revision = (name: string, data: string) => `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"${name}"},"revision":1,"data":${data}}`;

/** The server still answers; if it is gone, how it ended. */
async function stillUp() {
  expect(s.exited()).toBeUndefined();
  expect((await s.api('/healthz')).status).toBe(200);
}

describe('deeply nested bodies', () => {
  it('YAML nested past the limit is a 400, however often it comes, and the server stays up', async () => {
    const bodies = [deep(9_999, '[', ']'), deep(9_999, '[', ']'), deep(9_999, '{"a":', '}', '1'), deep(9_999, '{"a":', '}', '1'), `data:\n  a: ${deep(MAX_DEPTH, '[', ']')}\n`];
    for (const body of bodies) {
      const res = await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body, headers: { 'Content-Type': 'application/yaml' } });
      expect(res.status, s.exited() ?? res.text.slice(0, 200)).toBe(400);
      expect(res.body.message).toContain('exceeded max depth');
    }
    // Server-side apply reads YAML too.
    for (let i = 0; i < 2; i++) {
      const res = await s.api('/api/v1/namespaces/default/configmaps/apply-deep?fieldManager=fuzz', {
        method: 'PATCH',
        body: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: apply-deep}\ndata: ${deep(5_000, '{a: ', '}', '1')}\n`,
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      expect(res.status, s.exited() ?? res.text.slice(0, 200)).toBe(400);
    }
    await stillUp();
  });

  it('JSON is held to the same limit, so that no later step (patches, YAML output) runs out of stack', async () => {
    // Just inside: stored, and served as YAML, whose writer recurses per level.
    const inside = await s.api(revisions, { method: 'POST', body: revision('inside', `{"a":${deep(MAX_DEPTH - 2, '[', ']', '"日本"')}}`) });
    expect(inside.status, inside.text.slice(0, 200)).toBe(201);
    const yaml = await s.api(`${revisions}/inside`, { headers: { Accept: 'application/yaml' } });
    expect(yaml.status, yaml.text.slice(0, 200)).toBe(200);
    // Just outside, and far outside: refused before anything recursive touches them.
    for (const n of [MAX_DEPTH - 1, 1_500, 9_999]) {
      const res = await s.api(revisions, { method: 'POST', body: revision(`out-${n}`, `{"a":${deep(n, '[', ']')}}`) });
      expect(res.status, `${n}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.body.message).toContain('exceeded max depth');
    }
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const res = await s.api(`${revisions}/inside`, { method: 'PATCH', body: `{"data":${deep(1_500, '{"a":', '}', '1')}}`, headers: { 'Content-Type': type } });
      expect(res.status, `${type}: ${res.text.slice(0, 200)}`).toBe(400);
    }
    await stillUp();
  });

  it('a JSON patch that nests the object deeper by copying it into itself is a 400', async () => {
    const created = await s.api(revisions, { method: 'POST', body: revision('copied', `{"a":${deep(60, '{"a":', '}', '1')}}`) });
    expect(created.status).toBe(201);
    // Each copy puts the whole chain at its own end: the depth doubles.
    const ops = Array.from({ length: 6 }, () => ({ op: 'copy', from: '/data', path: '/data' + '/a'.repeat(60) }));
    const res = await s.api(`${revisions}/copied`, { method: 'PATCH', body: JSON.stringify(ops), headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(res.status, res.text.slice(0, 200)).toBe(400);
    expect(res.body.message).toContain('exceeded max depth');
    await stillUp();
  });
});

describe('deeply nested bodies with an audit policy that logs them', () => {
  it('are refused and left out of the log, and the server stays up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-fuzz-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n');
    const audited = await startServerProcess(['--no-controllers', '--audit-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', join(dir, 'audit.log')]);
    try {
      // The log's JSON.stringify of a body 100,000 deep threw in the response's finish handler: the process ended.
      for (const [type, body] of [['application/json', deep(100_000, '[', ']')], ['application/yaml', deep(9_999, '[', ']')], ['application/yaml', deep(9_999, '[', ']')]]) {
        const res = await audited.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body, headers: { 'Content-Type': type } });
        expect(res.status, audited.exited() ?? res.text.slice(0, 200)).toBe(400);
      }
      await new Promise((r) => setTimeout(r, 200)); // the log is written once the response has finished
      expect(audited.exited()).toBeUndefined();
      expect((await audited.api('/healthz')).status).toBe(200);
    } finally {
      await audited.stop();
    }
  }, 60_000);
});

describe('deeply nested kubelet configuration in a ConfigMap', () => {
  it('is a load error, however often it is read', () => {
    const cm = { metadata: { uid: 'u' }, data: { kubelet: deep(9_999, '[', ']') } };
    for (let i = 0; i < 3; i++) expect(kubeletConfigError(cm, 'kubelet')).toMatch(/exceeded max depth/);
  });
});
