// The two Event versions convert field by field and back without loss, and
// the readers the app uses order and match events as kubectl describe does.
import { describe, expect, it } from 'vitest';
import { coreToEvents, eventsAbout, eventsToCore, occurrences, validateEvent } from './events.ts';

const core = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.17f', namespace: 'default' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u', apiVersion: 'v1', fieldPath: 'spec.containers{c}' },
  reason: 'BackOff',
  message: 'Back-off pulling image "x"',
  source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: '2026-11-24T10:00:00Z',
  lastTimestamp: '2026-11-24T10:05:00Z',
  count: 3,
  type: 'Warning',
  eventTime: '2026-11-24T10:00:00.000001Z',
  series: { count: 3, lastObservedTime: '2026-11-24T10:05:00.000001Z' },
  action: 'Pulling',
  related: { kind: 'Node', name: 'n1' },
  reportingComponent: 'kubelet',
  reportingInstance: 'n1',
};

describe('Event conversion', () => {
  it('core v1 -> events.k8s.io/v1 -> core v1 is the identity', () => {
    const ev = coreToEvents(core);
    expect(ev).toMatchObject({ apiVersion: 'events.k8s.io/v1', regarding: core.involvedObject, note: core.message, deprecatedSource: core.source, deprecatedCount: 3, reportingController: 'kubelet' });
    expect(ev.involvedObject).toBeUndefined();
    expect(eventsToCore(ev)).toEqual(core);
  });

  it('names the events.k8s.io/v1 fields in its errors (reportingController, deprecatedCount), core its own', () => {
    const errs = validateEvent({ ...core, metadata: { name: 'x', namespace: 'default' }, reportingComponent: '', count: 2, series: undefined }, undefined, 'events.k8s.io/v1').map((e) => e.field);
    expect(errs).toContain('reportingController');
    expect(errs).toContain('deprecatedCount');
    expect(validateEvent({ ...core, reportingComponent: '' }, undefined, 'v1').map((e) => e.field)).toContain('reportingComponent');
  });
});

describe('reading events', () => {
  it('matches by kind, name and namespace, newest first, counting series and counts', () => {
    const a = { ...core, metadata: { name: 'a', namespace: 'default' }, series: undefined, lastTimestamp: '2026-11-24T10:01:00Z' };
    const b = { ...core, metadata: { name: 'b', namespace: 'default' }, series: undefined, lastTimestamp: '2026-11-24T10:09:00Z', count: 0 };
    const other = { ...core, metadata: { name: 'c', namespace: 'default' }, involvedObject: { ...core.involvedObject, name: 'db' } };
    const found = eventsAbout([a, other, b], { kind: 'Pod', name: 'web', namespace: 'default' });
    expect(found.map((e) => e.metadata.name)).toEqual(['b', 'a']);
    expect(occurrences(b)).toBe(1);
    expect(occurrences(core)).toBe(3);
    expect(occurrences(coreToEvents(core))).toBe(3);
  });
});
