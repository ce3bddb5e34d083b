// The Events section of a detail page, as `kubectl describe` ends with one:
// what happened to this object, newest first, warnings marked, live through
// the shared watch of events (all namespaces for cluster-scoped objects,
// whose events live in `default`; the object's namespace otherwise).
import { useMemo } from 'react';
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';
import { eventFrom, eventKind, eventMessage, eventsAbout, involvedOf, lastSeenMs, occurrences } from '../../../kinds/events.ts';
import { useList } from '../../api/hooks.ts';
import { Badge, ErrorAlert, useNow } from '../../components/common.tsx';
import { humanDuration } from '../../../lib/duration.ts';
import './events.css';

const SHOWN = 50;

export function EventsSection({ kind, object }: { kind: KindDefinition; object: KubeObject }) {
  const namespaced = kind.scope === 'Namespaced';
  const events = useList(eventKind, namespaced ? object.metadata.namespace : undefined);
  const mine = useMemo(
    () => eventsAbout(events.items, { kind: kind.kind, name: object.metadata.name!, namespace: namespaced ? object.metadata.namespace : undefined }),
    [events.items, kind.kind, object.metadata.name, object.metadata.namespace, namespaced],
  );
  const warnings = mine.filter((e) => e.type === 'Warning').length;
  return (
    <section className="panel" aria-label="Events">
      <h2>
        Events{' '}
        <span className="muted">
          {mine.length} {warnings > 0 && <Badge tone="bad">{warnings} warning{warnings === 1 ? '' : 's'}</Badge>}
        </span>
      </h2>
      <div className="body">
        <ErrorAlert error={events.error} />
        {mine.length === 0 ? (
          <p className="muted">{events.isPending ? 'Loading…' : 'No events.'}</p>
        ) : (
          <EventTable events={mine.slice(0, SHOWN)} />
        )}
        {mine.length > SHOWN && <p className="muted">and {mine.length - SHOWN} older events</p>}
      </div>
    </section>
  );
}

/** Type, reason, age (with the count as `kubectl describe` says it: `3m (x4 over 10m)`), from and message. */
export function EventTable({ events, showObject }: { events: any[]; showObject?: boolean }) {
  const now = useNow();
  return (
    <table className="simple events">
      <thead>
        <tr>
          <th>Type</th>
          <th>Reason</th>
          <th>Age</th>
          {showObject && <th>Object</th>}
          <th>From</th>
          <th>Message</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.metadata.uid ?? e.metadata.name} className={e.type === 'Warning' ? 'event-warning' : undefined} data-reason={e.reason}>
            <td>{e.type === 'Warning' ? <Badge tone="bad">⚠ Warning</Badge> : <span className="muted">{e.type || 'Normal'}</span>}</td>
            <td>{e.reason}</td>
            <td className="nowrap">{ageText(e, now)}</td>
            {showObject && <td className="mono">{objectText(e)}</td>}
            <td>{eventFrom(e)}</td>
            <td>{eventMessage(e)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ageText(e: any, now: number): string {
  const last = humanDuration(Math.max(0, now - lastSeenMs(e)));
  const n = occurrences(e);
  if (n <= 1) return last;
  const first = Date.parse(e.firstTimestamp ?? e.deprecatedFirstTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '');
  return Number.isNaN(first) ? `${last} (x${n})` : `${last} (x${n} over ${humanDuration(Math.max(0, now - first))})`;
}

export const objectText = (e: any) => {
  const io = involvedOf(e);
  return `${io.kind ?? ''}/${io.name ?? ''}`;
};
