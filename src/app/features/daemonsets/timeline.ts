// The rollout's timeline since the page opened, built from what the watches
// deliver: pods created, ready, available and deleted, and the DaemonSet's
// status moving; with the pace it implies and the time left at that pace.
import { useEffect, useRef, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { rolloutEstimate, rolloutStatus } from '../../../lib/rollout.ts';
import type { NodeRow } from './rollout.ts';

export interface TimelineEvent {
  at: number;
  kind: 'created' | 'ready' | 'available' | 'deleted' | 'stalled' | 'status';
  text: string;
  revision?: 'new' | 'old';
}

interface Seen {
  name: string;
  revision: 'new' | 'old';
  ready: boolean;
  available: boolean;
  node: string;
}

const MAX_EVENTS = 300;

/** `loaded`: the pod and node lists have arrived; until then nothing is compared, so the first list is not read as pods being created. */
export function useRolloutTimeline(ds: KubeObject, rows: NodeRow[], updatedAvailable: number, desired: number, stalledNodes: number, loaded: boolean) {
  const seen = useRef<Map<string, Seen> | null>(null);
  const stalled = useRef(new Set<string>());
  const lastMessage = useRef<string>('');
  const samples = useRef<{ at: number; done: number }[]>([]);
  const [events, setEvents] = useState<TimelineEvent[]>([]);

  useEffect(() => {
    if (!loaded) return;
    const now = Date.now();
    const next = new Map<string, Seen>();
    for (const row of rows) for (const p of row.pods) if (p.state !== 'terminating') next.set(p.uid, { name: p.name, revision: p.revision, ready: p.ready, available: p.state === 'available', node: row.nodeName });
    const fresh: TimelineEvent[] = [];
    const previous = seen.current;
    if (previous) {
      for (const [uid, s] of next) {
        const before = previous.get(uid);
        if (!before) fresh.push({ at: now, kind: 'created', revision: s.revision, text: `${s.name} created on ${s.node}` });
        if (s.ready && !before?.ready) fresh.push({ at: now, kind: 'ready', revision: s.revision, text: `${s.name} on ${s.node} is Ready` });
        if (s.available && !before?.available) fresh.push({ at: now, kind: 'available', revision: s.revision, text: `${s.name} on ${s.node} is available` });
      }
      for (const [uid, s] of previous) if (!next.has(uid)) fresh.push({ at: now, kind: 'deleted', revision: s.revision, text: `pod on ${s.node} (${s.revision} revision) deleted` });
    }
    for (const row of rows) {
      if (row.state === 'stalled' && !stalled.current.has(row.nodeName)) {
        stalled.current.add(row.nodeName);
        fresh.push({ at: now, kind: 'stalled', text: `${row.nodeName} stalled: ${row.stalledMessage ?? 'new pod not available'}` });
      } else if (row.state !== 'stalled') stalled.current.delete(row.nodeName);
    }
    const status = rolloutStatus(ds as never);
    const message = (status.error ?? status.message).trim();
    if (message !== lastMessage.current) {
      if (lastMessage.current || !previous) fresh.push({ at: now, kind: 'status', text: message });
      lastMessage.current = message;
    }
    seen.current = next;
    const last = samples.current[samples.current.length - 1];
    if (!last || last.done !== updatedAvailable) samples.current.push({ at: now, done: updatedAvailable });
    if (fresh.length) setEvents((e) => [...fresh.reverse(), ...e].slice(0, MAX_EVENTS));
  }, [ds, rows, updatedAvailable, loaded]);

  // Pace over what was observed; no finish time while a node is stalled.
  const estimate = rolloutEstimate(samples.current, desired, stalledNodes);
  return { events, ...estimate };
}
