// The two Event versions convert field by field and back without loss, and
// the readers the app uses order and match events as kubectl describe does.
import { describe, expect, it } from 'vitest';
import { coreToEvents, EventsAbout, eventsToCore, occurrences, validateEvent } from './events.ts';

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
    const found = new EventsAbout({ kind: 'Pod', name: 'web', namespace: 'default' });
    found.reset([a, other, b]);
    expect(found.newest(50).map((e) => e.metadata.name)).toEqual(['b', 'a']);
    expect([found.count, found.warnings]).toEqual([2, 2]);
    expect(occurrences(b)).toBe(1);
    expect(occurrences(core)).toBe(3);
    expect(occurrences(coreToEvents(core))).toBe(3);
  });

  it('follows the changes of the list: the newest n, the count and the warnings as a full sort would have them', () => {
    const about = { kind: 'Pod', name: 'web', namespace: 'default' };
    const at = (s: number) => new Date(Date.parse('2026-11-24T10:00:00Z') + s * 1000).toISOString().replace('.000Z', 'Z');
    const ev = (name: string, s: number, type = 'Normal', obj = 'web') => ({ ...core, metadata: { name, namespace: 'default', uid: name }, involvedObject: { ...core.involvedObject, name: obj }, series: undefined, lastTimestamp: at(s), type });
    const index = new EventsAbout(about);
    let list: any[] = [];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const removed: any[] = [];
      const added: any[] = [];
      const next = list.slice();
      for (let k = rand(4); k >= 0; k--) {
        const name = `e${rand(40)}`;
        const i = next.findIndex((e) => e.metadata.name === name);
        if (i >= 0) removed.push(next[i]);
        if (rand(5) === 0 && i >= 0) next.splice(i, 1);
        else {
          // Seen again (a later time) or new; about the object or another; a warning or not.
          const e = ev(name, rand(30), rand(3) === 0 ? 'Warning' : 'Normal', rand(4) === 0 ? 'db' : 'web');
          added.push(e);
          if (i >= 0) next[i] = e;
          else next.push(e);
        }
      }
      index.take(removed, added);
      list = next;
      const mine = list.filter((e) => e.involvedObject.name === 'web');
      const sorted = mine
        .map((e) => ({ e, at: Date.parse(e.lastTimestamp) }))
        .sort((x, y) => y.at - x.at || (x.e.metadata.name < y.e.metadata.name ? 1 : -1))
        .map((x) => x.e.metadata.name);
      expect(index.newest(5).map((e) => e.metadata.name)).toEqual(sorted.slice(0, 5));
      expect([index.count, index.warnings]).toEqual([mine.length, mine.filter((e) => e.type === 'Warning').length]);
    }
  });
});
