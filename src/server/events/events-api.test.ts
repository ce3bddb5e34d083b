// core v1 Event and events.k8s.io/v1 Event over the real server: one stored
// resource read and written through both versions, converted field by field,
// with upstream's validation and field selectors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWatch, startTestServer, type TestServer } from '../testing.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ controllers: false });
});
afterAll(async () => {
  await s.stop();
});

const CORE = '/api/v1/namespaces/default/events';
const NEW = '/apis/events.k8s.io/v1/namespaces/default/events';
const micro = (d = new Date()) => d.toISOString().replace('Z', '000Z');

describe('Events in two API versions', () => {
  it('a core v1 event reads back through events.k8s.io/v1 converted field by field, and the other way', async () => {
    const created = await s.api(CORE, {
      method: 'POST',
      body: {
        metadata: { name: 'web.1' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'v1' },
        reason: 'BackOff',
        message: 'Back-off pulling image "nginx:nope"',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: '2026-11-24T10:00:00Z',
        lastTimestamp: '2026-11-24T10:05:00Z',
        count: 4,
        type: 'Warning',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await s.api(`${NEW}/web.1`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: { kind: 'Pod', name: 'web', uid: 'u-1' },
      reason: 'BackOff',
      note: 'Back-off pulling image "nginx:nope"',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-11-24T10:00:00Z',
      deprecatedLastTimestamp: '2026-11-24T10:05:00Z',
      deprecatedCount: 4,
      type: 'Warning',
    });
    expect(read.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect(read.body.involvedObject).toBeUndefined();

    const now = micro();
    const made = await s.api(NEW, {
      method: 'POST',
      body: {
        metadata: { name: 'ds.2' },
        eventTime: now,
        reportingController: 'daemonset-controller',
        reportingInstance: 'kube-controller-manager-1',
        action: 'Create',
        reason: 'SuccessfulCreate',
        regarding: { kind: 'DaemonSet', namespace: 'default', name: 'ds', apiVersion: 'apps/v1' },
        note: 'Created pod: ds-abcde',
        type: 'Normal',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const core = await s.api(`${CORE}/ds.2`);
    expect(core.body).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'DaemonSet', name: 'ds' },
      message: 'Created pod: ds-abcde',
      reportingComponent: 'daemonset-controller',
      reportingInstance: 'kube-controller-manager-1',
      eventTime: now,
      action: 'Create',
    });
    // A series is added through either version (the recorder's PATCH).
    const patched = await s.api(`${NEW}/ds.2`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { series: { count: 2, lastObservedTime: micro() } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await s.api(`${CORE}/ds.2`)).body.series.count).toBe(2);
  });

  it('validates events.k8s.io/v1 strictly and core v1 leniently, as upstream does by request version', async () => {
    const bad = await s.api(NEW, { method: 'POST', body: { metadata: { name: 'bad' }, regarding: { kind: 'Pod', namespace: 'default', name: 'x' }, type: 'Odd', deprecatedCount: 3 } });
    expect(bad.status).toBe(422);
    const fields = bad.body.details.causes.map((c: any) => c.field).sort();
    expect(fields).toEqual(['deprecatedCount', 'eventTime', 'type']);
    expect(bad.body.message).toContain('Event.events.k8s.io "bad" is invalid');

    const legacy = await s.api(CORE, { method: 'POST', body: { metadata: { name: 'legacy' }, involvedObject: { kind: 'Pod', namespace: 'other', name: 'x' }, type: 'Odd' } });
    expect(legacy.status).toBe(422);
    expect(legacy.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'Invalid value: "other": does not match event.namespace' }]);

    const withTime = await s.api(NEW, {
      method: 'POST',
      body: { metadata: { name: 'strict' }, eventTime: micro(), regarding: { kind: 'Pod', namespace: 'default', name: 'x' }, type: 'Normal', series: { count: 1, lastObservedTime: micro() } },
    });
    expect(withTime.status).toBe(422);
    // An empty reportingController is both required and not a qualified name, as upstream reports it.
    expect([...new Set(withTime.body.details.causes.map((c: any) => c.field))].sort()).toEqual(['action', 'reason', 'reportingController', 'reportingInstance', 'series.count']);

    // Updates through events.k8s.io/v1 may change the series only.
    const upd = await s.api(`${NEW}/ds.2`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { note: 'changed' } });
    expect(upd.status).toBe(422);
    expect(upd.body.details.causes[0].field).toBe('note');
  });

  it('selects by involvedObject.* and regarding.*, reason, type and source', async () => {
    for (const [name, kind, obj, reason, type] of [
      ['sel.1', 'Node', 'n1', 'NodeNotReady', 'Normal'],
      ['sel.2', 'Node', 'n2', 'NodeNotReady', 'Normal'],
      ['sel.3', 'Pod', 'p1', 'Failed', 'Warning'],
    ]) {
      const r = await s.api(CORE, { method: 'POST', body: { metadata: { name }, involvedObject: { kind, name: obj, namespace: kind === 'Pod' ? 'default' : '' }, reason, type, source: { component: 'kubelet' } } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const names = (b: any) => b.items.map((i: any) => i.metadata.name).sort();
    expect(names((await s.api(`${CORE}?fieldSelector=involvedObject.kind%3DNode,involvedObject.name%3Dn2`)).body)).toEqual(['sel.2']);
    expect(names((await s.api(`${CORE}?fieldSelector=type%3DWarning,source%3Dkubelet`)).body)).toEqual(['sel.3', 'web.1']);
    expect(names((await s.api(`${NEW}?fieldSelector=regarding.kind%3DNode,reason%3DNodeNotReady`)).body)).toEqual(['sel.1', 'sel.2']);
    const unknown = await s.api(`${NEW}?fieldSelector=involvedObject.kind%3DNode`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('field label not supported: involvedObject.kind');
  });

  it('watches through events.k8s.io/v1 see writes made through core v1, converted', async () => {
    const watching = readWatch(`${s.url}${NEW}?watch=1&fieldSelector=metadata.name%3Dw.1`, (ev) => ev.length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    expect((await s.api(CORE, { method: 'POST', body: { metadata: { name: 'w.1' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Pulled', message: 'one' } })).status).toBe(201);
    expect((await s.api(`${CORE}/w.1`, { method: 'DELETE' })).status).toBe(200);
    const events = await watching;
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect(events[0].object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'one', regarding: { name: 'p' } });
  });

  it('prints the kubectl columns (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE) for either version', async () => {
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    for (const path of [CORE, NEW]) {
      const t = await s.api(`${path}?fieldSelector=metadata.name%3Dweb.1`, { headers: accept });
      expect(t.body.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
      const cell = (name: string) => t.body.rows[0].cells[t.body.columnDefinitions.findIndex((c: any) => c.name === name)];
      expect(['Type', 'Reason', 'Object', 'Message', 'Count'].map(cell)).toEqual(['Warning', 'BackOff', 'pod/web', 'Back-off pulling image "nginx:nope"', 4]);
    }
  });
});
