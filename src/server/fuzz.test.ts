// Property-based tests: malformed and hostile requests at every endpoint of
// every kind (bodies: broken JSON/YAML, wrong types, huge and deeply nested
// documents; bad names, selectors, resourceVersions, continue tokens and other
// parameters). Whatever comes in, the answer is below 500 and a failure is a
// Status; the server stays up; nothing invalid is ever stored. The server runs
// in a child process: an input that aborts it (a V8 fatal error, as deep YAML
// once did) fails the test with the input and the server's last words.
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kinds } from '../kinds/registry.ts';
import { apiVersionOf, type KindDefinition } from '../kinds/kind.ts';
import { startServerProcess, type ServerProcess } from './fuzz.process.ts';

let s: ServerProcess;
beforeAll(async () => {
  s = await startServerProcess();
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

const collectionPath = (k: KindDefinition, ns: string) => {
  const base = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  return k.scope === 'Namespaced' && ns ? `${base}/namespaces/${encodeURIComponent(ns)}/${k.plural}` : `${base}/${k.plural}`;
};

const nameArb = fc.oneof(
  fc.constantFrom('fuzz', 'a', '..', '.', 'UPPER', 'x y', '-a-', 'a'.repeat(300), '日本', 'a/b', '%2e%2e', 'default'),
  fc.string({ maxLength: 40 }),
);
const valueArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.constantFrom(
    '-1', '0', '1', '9223372036854775808', '1e3', '0x10', 'true', 'False', 'All', 'Exact', 'NotOlderThan', 'Orphan', 'Foreground',
    'a=b,c!=d', 'x in (a,b', 'x notin ()', '!!', '!a,b', 'metadata.name==x', 'spec.nodeName=', 'status.phase!=Running', '%zz', ' ',
    'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', 'e30', 'Strict', 'Warn', 'Ignore', '1m', 'abc',
  ),
);
const queryArb = fc.dictionary(
  fc.constantFrom(
    'labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'continue', 'limit', 'dryRun', 'fieldManager',
    'fieldValidation', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'timeout', 'timeoutSeconds', 'pretty', 'force',
    'allowWatchBookmarks', 'sendInitialEvents', 'includeObject', 'as',
  ),
  valueArb,
  { maxKeys: 4 },
);
const contentTypeArb = fc.constantFrom(
  'application/json', 'application/yaml', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
  'application/json-patch+json', 'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf', 'text/plain', '',
);

/** Just over the 3 MiB body limit, made once. */
const HUGE = JSON.stringify({ metadata: { name: 'huge' }, data: { x: 'x'.repeat(3 * 1024 * 1024) } });
const deep = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);

const bodyArb = (k: KindDefinition, ns: string) =>
  fc.oneof(
    fc.json(),
    fc.string({ maxLength: 200 }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    // The kind's own shape with wrong types and values where they go.
    fc
      .record({
        metadata: fc.dictionary(fc.constantFrom('name', 'generateName', 'namespace', 'labels', 'annotations', 'resourceVersion', 'uid', 'finalizers', 'ownerReferences', 'deletionTimestamp', 'managedFields'), fc.oneof(nameArb, fc.jsonValue()), { maxKeys: 4 }),
        spec: fc.jsonValue(),
        status: fc.jsonValue(),
        data: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue(), { maxKeys: 3 }),
      })
      .map((o) => JSON.stringify({ apiVersion: apiVersionOf(k), kind: k.kind, ...o, metadata: { name: 'fuzz', namespace: ns || undefined, ...o.metadata } })),
    // JSON patches and YAML documents that do not hold together.
    fc.array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'), path: fc.constantFrom('/metadata/name', '/spec', '/metadata/labels/a', '', '/-', '~', '/metadata/resourceVersion'), value: fc.jsonValue() })).map((p) => JSON.stringify(p)),
    fc.constantFrom('{', '{"a":', '[1,2', 'null', '""', 'a: b: c', '- [', ':\n  - :', '\u0000', '\uffff', '{"metadata":{"name":"x"}}{"b":1}', 'apiVersion: v1\nkind: [x]'),
    fc.integer({ min: 1_000, max: 150_000 }).map((n) => deep(n, '[', ']')),
    fc.integer({ min: 1_000, max: 50_000 }).map((n) => deep(n, '{"a":', '}').replace('}', '1}')),
    fc.integer({ min: 1_000, max: 50_000 }).map((n) => '- '.repeat(n) + 'x'),
    // Around the nesting limit (MAX_DEPTH), and YAML that nests on one line or by indentation.
    fc.integer({ min: 150, max: 260 }).map((n) => deep(n, '{"a":', '}').replace('}', '1}')),
    fc.integer({ min: 150, max: 260 }).map((n) => deep(n, '[', ']')),
    fc.integer({ min: 100, max: 20_000 }).map((n) => 'k: '.repeat(n) + 'x'),
    fc.integer({ min: 100, max: 1_500 }).map((n) => Array.from({ length: n }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1'),
    fc.constant(HUGE),
  );

const requestArb = fc
  .record({ k: fc.constantFrom(...kinds), ns: fc.constantFrom('default', 'fuzz-ns', ''), name: fc.option(nameArb, { nil: undefined }), sub: fc.option(fc.constantFrom('status', 'scale', 'eviction', 'binding', 'x'), { nil: undefined }) })
  .chain(({ k, ns, name, sub }) =>
    fc.record({
      kind: fc.constant(k.plural),
      path: fc.constant(collectionPath(k, ns) + (name !== undefined ? `/${encodeURIComponent(name)}${sub ? `/${sub}` : ''}` : '')),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      query: queryArb,
      contentType: contentTypeArb,
      body: bodyArb(k, ns),
    }),
  );

describe('malformed input at every endpoint', () => {
  it('is always answered below 500, failures as a Status, and the server stays up', async () => {
    const seen: Record<number, number> = {};
    // A fixed seed in the test command (the same inputs every run); FUZZ_SEED=random, as the long bench runs, explores.
    const seed = process.env.FUZZ_SEED === 'random' ? (Math.random() * 2 ** 31) | 0 : Number(process.env.FUZZ_SEED ?? 20261124);
    console.log(`fuzz seed ${seed}`);
    // The request that ended the server process: every later run (fast-check shrinking) fails with it.
    let fatal: string | undefined;
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        if (fatal) throw new Error(fatal);
        const q = new URLSearchParams(r.query).toString();
        const hasBody = r.method !== 'GET';
        // The request goes to disk before it is sent, so that one that ends the process is still there to read.
        if (process.env.FUZZ_LOG) writeFileSync(process.env.FUZZ_LOG, JSON.stringify({ seed, ...r }));
        const res = await s
          .request(`${r.path}${q ? `?${q}` : ''}`, {
            method: r.method,
            headers: { ...s.adminHeaders, ...(hasBody && r.contentType ? { 'Content-Type': r.contentType } : {}) },
            body: hasBody ? r.body : undefined,
          })
          .catch((e: Error) => {
            if (s.exited()) fatal = `seed ${seed}: ${JSON.stringify({ ...r, body: r.body.slice(0, 500), bodyLength: r.body.length })} ended the server: ${e.message}`;
            throw e;
          });
        const text = await res.text();
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        // The one 5xx upstream answers to bad input, which clients rely on: a resourceVersion
        // ahead of the store is a 504 Timeout (ResourceVersionTooLarge) once the wait for it ends.
        const tooLarge = res.status === 504 && text.includes('"reason":"ResourceVersionTooLarge"');
        if (!tooLarge) expect(res.status, text.slice(0, 300)).toBeLessThan(500);
        if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
          expect(JSON.parse(text), text.slice(0, 300)).toMatchObject({ kind: 'Status', status: 'Failure', code: res.status });
        } else if (res.status >= 400) {
          // Only a path no route serves answers in plain text, as Go's mux does.
          expect(res.status).toBe(404);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 250), seed },
    );
    expect((await s.api('/healthz')).status).toBe(200);
    // Most of it was refused, and not all for the same reason.
    expect(Object.keys(seen).length).toBeGreaterThan(3);
  }, 300_000);

  it('stored nothing invalid', async () => {
    for (const k of kinds) {
      const list = await s.api(collectionPath(k, ''));
      expect(list.status, k.plural).toBe(200);
      for (const obj of list.body.items) {
        const o = { apiVersion: apiVersionOf(k), kind: k.kind, ...obj };
        expect(k.validate(o, { old: o }), `${k.plural}/${o.metadata.name}`).toEqual([]);
        expect(k.schema.safeParse(o).success, `${k.plural}/${o.metadata.name}`).toBe(true);
      }
    }
  });
});
