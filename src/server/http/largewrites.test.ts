// A large write is decoded, merged and has its managed fields recorded in the
// body decoder's worker, off the event loop; a small one on it. Both must
// leave the same object and the same field ownership behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { WORKER_THRESHOLD_BYTES } from './bodies.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const base = '/api/v1/namespaces/default/configmaps';
const data = (n: number, value: (i: number) => string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key-${i}`, value(i)]));

/** Which data keys each manager owns, by manager and operation. */
function owners(cm: { metadata: { managedFields?: { manager: string; operation: string; fieldsV1: { 'f:data'?: Record<string, unknown> } }[] } }) {
  const out: Record<string, string[]> = {};
  for (const e of cm.metadata.managedFields ?? []) out[`${e.manager}/${e.operation}`] = Object.keys(e.fieldsV1['f:data'] ?? {}).filter((k) => k !== '.').sort();
  return out;
}

const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `f:key-${from + i}`).sort();

describe.each([
  ['small', 10],
  ['large', 6000],
])('a %s ConfigMap', (size, n) => {
  const name = `cm-${size}`;
  it('is decoded where its size says', () => {
    expect(JSON.stringify(data(n, (i) => `value-${i}`)).length >= WORKER_THRESHOLD_BYTES).toBe(size === 'large');
  });

  it('credits create, update, patch and apply with the fields each wrote', async () => {
    const created = await s.api(`${base}?fieldManager=creator`, { method: 'POST', body: { metadata: { name }, data: data(n, (i) => `value-${i}`) } });
    expect(created.status).toBe(201);
    expect(owners(created.body)).toEqual({ 'creator/Update': keys(0, n) });

    // The updater changes the first half of the values: those become its own.
    const half = n / 2;
    const put = await s.api(`${base}/${name}?fieldManager=updater`, {
      method: 'PUT',
      body: { ...created.body, data: data(n, (i) => (i < half ? `changed-${i}` : `value-${i}`)) },
    });
    expect(put.status).toBe(200);
    expect(owners(put.body)).toEqual({ 'creator/Update': keys(half, n), 'updater/Update': keys(0, half) });

    const patched = await s.api(`${base}/${name}?fieldManager=patcher`, {
      method: 'PATCH',
      body: { data: { 'key-0': 'patched', extra: 'x' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(owners(patched.body)).toEqual({
      'creator/Update': keys(half, n),
      'updater/Update': keys(1, half),
      'patcher/Update': ['f:extra', 'f:key-0'],
    });

    // An apply without force conflicts over fields others own; with force it takes them.
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { ...data(n, (i) => `applied-${i}`), extra: 'x' } };
    const conflict = await s.api(`${base}/${name}?fieldManager=applier`, { method: 'PATCH', body: JSON.stringify(config), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.causes.length).toBe(n);
    const applied = await s.api(`${base}/${name}?fieldManager=applier&force=true`, { method: 'PATCH', body: JSON.stringify(config), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(applied.status).toBe(200);
    // The creator keeps the data map itself (`.`); the patcher shares `extra`, applied with its value.
    expect(owners(applied.body)).toEqual({ 'applier/Apply': [...keys(0, n), 'f:extra'].sort(), 'creator/Update': [], 'patcher/Update': ['f:extra'] });
    expect(applied.body.data[`key-${n - 1}`]).toBe(`applied-${n - 1}`);

    // What was answered is what is stored.
    const got = await s.api(`${base}/${name}`);
    expect(got.body).toEqual(applied.body);
  });

  it('creates by apply, crediting the applier', async () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-applied` }, data: data(n, (i) => `v-${i}`) };
    const res = await s.api(`${base}/${name}-applied?fieldManager=applier`, { method: 'PATCH', body: JSON.stringify(config), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(res.status).toBe(201);
    expect(owners(res.body)).toEqual({ 'applier/Apply': keys(0, n) });
  });

  it('does not credit a creator with what the server drops from the body', async () => {
    const res = await s.api(`${base}?fieldManager=creator`, {
      method: 'POST',
      body: { metadata: { name: `${name}-dropped`, deletionGracePeriodSeconds: 5, uid: 'sent' }, data: data(n, (i) => `v-${i}`) },
    });
    expect(res.status).toBe(201);
    const fields = res.body.metadata.managedFields[0].fieldsV1;
    expect(Object.keys(fields)).toEqual(['f:data']);
    expect(res.body.metadata.uid).not.toBe('sent');
  });
});
