import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../kinds/kind.ts';
import { RolloutEvents } from './events.ts';
import { ListChanges } from '../../api/listchanges.ts';
import type { NodeRow } from './rollout.ts';

const ds = { metadata: { name: 'd', namespace: 'ns', uid: 'ds-uid' } } as unknown as KubeObject;
const event = (name: string, kind: string, object: string, type: string, at: string, count = 1) =>
  ({
    metadata: { name, namespace: 'ns', uid: name },
    involvedObject: { kind, name: object, namespace: kind === 'Node' ? undefined : 'ns' },
    type,
    reason: type === 'Warning' ? 'Failed' : 'Started',
    message: `${name} x${count}`,
    source: { component: 'kubelet' },
    count,
    lastTimestamp: at,
  }) as unknown as KubeObject;
const row = (nodeName: string, pods: string[]) => ({ nodeName, pods: pods.map((name) => ({ name })) }) as unknown as NodeRow;

describe('the rollout events, taken in as the watch delivers them', () => {
  it('gives a node the last warning about it or its pods, and keeps one timeline line per event', () => {
    const index = new RolloutEvents();
    const daemonPods = new Set(['d-1', 'd-2']);
    const e1 = event('e1', 'Pod', 'd-1', 'Warning', '2026-01-01T00:00:01Z');
    const e2 = event('e2', 'Node', 'n2', 'Warning', '2026-01-01T00:00:02Z');
    const e3 = event('e3', 'Pod', 'other', 'Normal', '2026-01-01T00:00:03Z');
    expect(index.update('all', ds, [e1, e2, e3], (n) => daemonPods.has(n))).toBe(true);
    expect(index.warningFor(row('n1', ['d-1']))?.message).toBe('e1 x1');
    expect(index.warningFor(row('n2', ['d-2']))?.message).toBe('e2 x1');
    expect(index.about().map((e) => e.name)).toEqual(['e1']);
    // The same list again is nothing new; the event seen again (count 2, later) replaces its line.
    const list = [e1, e2, e3];
    index.update('all', ds, list, (n) => daemonPods.has(n));
    expect(index.update('all', ds, list, (n) => daemonPods.has(n))).toBe(false);
    const e1again = event('e1', 'Pod', 'd-1', 'Warning', '2026-01-01T00:00:09Z', 2);
    index.update('all', ds, [e1again, e2, e3], (n) => daemonPods.has(n));
    expect(index.about().map((e) => e.message)).toEqual(['e1 x2']);
    expect(index.warningFor(row('n2', ['d-1']))?.message).toBe('e1 x2');
  });

  it('looks only at what the watch added, over every change since the list taken in last', () => {
    const index = new RolloutEvents();
    const changes = new ListChanges();
    const e1 = event('e1', 'Pod', 'd-1', 'Warning', '2026-01-01T00:00:01Z');
    const e2 = event('e2', 'Pod', 'd-1', 'Warning', '2026-01-01T00:00:05Z');
    const e3 = event('e3', 'Pod', 'd-1', 'Normal', '2026-01-01T00:00:03Z');
    const list = [e1];
    changes.record({ items: list, resourceVersion: '1' });
    index.update('all', ds, list, () => true, changes);
    // Two flushes before the next update: both changes are taken. An object no change names is not read,
    // even one never seen: the changes are the watch's word.
    const unseen = event('e0', 'Pod', 'd-1', 'Warning', '2026-01-01T00:00:09Z');
    const second = [e1, unseen, e2];
    changes.record({ items: second, resourceVersion: '2', change: { from: list, removed: [], added: [e2] } });
    const third = [...second, e3];
    changes.record({ items: third, resourceVersion: '3', change: { from: second, removed: [], added: [e3] } });
    expect(index.update('all', ds, third, () => true, changes)).toBe(true);
    expect(index.about().map((e) => e.name)).toEqual(['e2', 'e3', 'e1']);
    // A list that does not follow from the one taken in (a relist) is read whole.
    const relisted = [...third];
    changes.record({ items: relisted, resourceVersion: '9' });
    expect(index.update('all', ds, relisted, () => true, changes)).toBe(true);
    expect(index.about().map((e) => e.name)).toEqual(['e0', 'e2', 'e3', 'e1']);
  });

  it('takes in several lists, each followed on its own', () => {
    const index = new RolloutEvents();
    const pods = [event('p1', 'Pod', 'd-1', 'Normal', '2026-01-01T00:00:01Z')];
    const nodes = [event('n1', 'Node', 'n1', 'Warning', '2026-01-01T00:00:02Z')];
    expect(index.update('pods', ds, pods, () => true)).toBe(true);
    expect(index.update('nodes', ds, nodes, () => true)).toBe(true);
    // Each list is compared with its own last state: the pods' list again is nothing new.
    expect(index.update('pods', ds, pods, () => true)).toBe(false);
    expect(index.warningFor(row('n1', ['d-1']))?.message).toBe('n1 x1');
    expect(index.about().map((e) => e.name)).toEqual(['p1']);
  });
});
