// The rollout's timeline since the page opened, built from what the watches
// deliver: pods created, ready, available and deleted, and the DaemonSet's
// status moving; with the pace it implies and the time left at that pace.
import { useEffect, useRef, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { rolloutEstimate, rolloutStatus } from '../../../lib/rollout.ts';
import type { NodeRow, PodCell } from './rollout.ts';

export interface TimelineEvent {
  /** Unique on the page: the key its line keeps as newer lines come in above it. */
  id: string;
  at: number;
  kind: 'created' | 'ready' | 'available' | 'deleted' | 'stalled' | 'status';
  text: string;
  revision?: 'new' | 'old';
}

const MAX_EVENTS = 300;
let seq = 0;

const isLive = (p: PodCell) => p.state !== 'terminating';

/**
 * `loaded`: the pod and node lists have arrived; until then nothing is
 * compared, so the first list is not read as pods being created. Rows the
 * model kept (the same object in the same place) are not looked into: only
 * the nodes that changed are compared, pod by pod.
 */
export function useRolloutTimeline(ds: KubeObject, rows: NodeRow[], updatedAvailable: number, desired: number, stalledNodes: number, loaded: boolean) {
  const seen = useRef<NodeRow[] | null>(null);
  const lastMessage = useRef<string>('');
  const samples = useRef<{ at: number; done: number }[]>([]);
  const [events, setEvents] = useState<TimelineEvent[]>([]);

  useEffect(() => {
    if (!loaded) return;
    const now = Date.now();
    const previous = seen.current;
    const fresh: TimelineEvent[] = [];
    // The index replaces a changed node's row in its place: rows are compared by position, and looked up by
    // name only where a row moved (a node came or went).
    let byName: Map<string, NodeRow> | undefined;
    for (let i = 0; previous && i < rows.length; i++) {
      const row = rows[i];
      if (previous[i] === row) continue;
      const before = previous[i]?.nodeName === row.nodeName ? previous[i] : (byName ??= new Map(previous.map((r) => [r.nodeName, r]))).get(row.nodeName);
      if (before === row) continue;
      const was = new Map((before?.pods ?? []).filter(isLive).map((p) => [p.uid, p]));
      for (const p of row.pods) {
        if (!isLive(p)) continue;
        const b = was.get(p.uid);
        was.delete(p.uid);
        if (!b) fresh.push({ id: `t${++seq}`, at: now, kind: 'created', revision: p.revision, text: `${p.name} created on ${row.nodeName}` });
        if (p.ready && !b?.ready) fresh.push({ id: `t${++seq}`, at: now, kind: 'ready', revision: p.revision, text: `${p.name} on ${row.nodeName} is Ready` });
        if (p.state === 'available' && b?.state !== 'available') fresh.push({ id: `t${++seq}`, at: now, kind: 'available', revision: p.revision, text: `${p.name} on ${row.nodeName} is available` });
      }
      for (const b of was.values()) fresh.push({ id: `t${++seq}`, at: now, kind: 'deleted', revision: b.revision, text: `pod on ${row.nodeName} (${b.revision} revision) deleted` });
      if (row.state === 'stalled' && before?.state !== 'stalled')
        fresh.push({ id: `t${++seq}`, at: now, kind: 'stalled', text: `${row.nodeName} stalled: ${row.stalledMessage ?? 'new pod not available'}` });
    }
    if (!previous)
      for (const row of rows) if (row.state === 'stalled') fresh.push({ id: `t${++seq}`, at: now, kind: 'stalled', text: `${row.nodeName} stalled: ${row.stalledMessage ?? 'new pod not available'}` });
    const status = rolloutStatus(ds as never);
    const message = (status.error ?? status.message).trim();
    if (message !== lastMessage.current) {
      if (lastMessage.current || !previous) fresh.push({ id: `t${++seq}`, at: now, kind: 'status', text: message });
      lastMessage.current = message;
    }
    seen.current = rows;
    const last = samples.current[samples.current.length - 1];
    if (!last || last.done !== updatedAvailable) samples.current.push({ at: now, done: updatedAvailable });
    if (fresh.length) setEvents((e) => [...fresh.reverse(), ...e].slice(0, MAX_EVENTS));
  }, [ds, rows, updatedAvailable, loaded]);

  // Pace over what was observed; no finish time while a node is stalled.
  const estimate = rolloutEstimate(samples.current, desired, stalledNodes);
  return { events, ...estimate };
}
