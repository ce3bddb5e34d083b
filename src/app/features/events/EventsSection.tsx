// The Events section of a detail page, as `kubectl describe` ends with one:
// what happened to this object, newest first, warnings marked, live through
// a watch of the object's own events (by field selector, in all namespaces
// for cluster-scoped objects, whose events live in `default`; in the
// object's namespace otherwise).
import { useMemo, useRef } from 'react';
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';
import { EventTypeNormal, EventTypeWarning, EventsAbout, eventFrom, eventKind, eventMessage, eventsAbout, involvedOf, lastSeenMs, occurrences } from '../../../kinds/events.ts';
import { queryKeys, useList } from '../../api/hooks.ts';
import { useConnection } from '../../api/connection.ts';
import { useListChanges } from '../../api/listchanges.ts';
import { Badge, ErrorAlert, useNow } from '../../components/common.tsx';
import { humanDuration } from '../../../lib/duration.ts';
import './events.css';

const SHOWN = 50;

/** `after`: the page's own lists are still being read; the events wait for them. Once started, they stay. */
export function EventsSection({ kind, object, after = false }: { kind: KindDefinition; object: KubeObject; after?: boolean }) {
  const started = useRef(false);
  started.current ||= !after;
  if (!started.current)
    return (
      <section className="panel" aria-label="Events">
        <h2>Events</h2>
        <div className="body">
          <p className="muted">Loading…</p>
        </div>
      </section>
    );
  return <ObjectEvents kind={kind} object={object} />;
}

function ObjectEvents({ kind, object }: { kind: KindDefinition; object: KubeObject }) {
  const namespace = kind.scope === 'Namespaced' ? object.metadata.namespace : undefined;
  const name = object.metadata.name!;
  // Listed by field selector: a Node's page once read the cluster's every event (400,000 after ten
  // DaemonSets rolled out on 5000 nodes: 330 MB in the tab 40 s in, still reading) to show its one or two.
  const selection = { fieldSelector: eventsAbout(kind.kind, name) };
  const events = useList(eventKind, namespace, selection);
  const changes = useListChanges(queryKeys.list(useConnection(), eventKind, namespace, selection));
  // The events about the object, kept as the watch changes the list (kinds/events.ts, EventsAbout).
  const about = useMemo(() => ({ index: new EventsAbout({ kind: kind.kind, name, namespace }), list: [] as readonly KubeObject[] }), [kind.kind, name, namespace]);
  const shown = useMemo(() => {
    if (events.items !== about.list) {
      const steps = changes.take(about.list, events.items);
      if (steps) for (const c of steps) about.index.take(c.removed, c.added);
      else about.index.reset(events.items);
      about.list = events.items;
    }
    return about.index.newest(SHOWN);
  }, [events.items, about, changes]);
  const { count, warnings } = about.index;
  return (
    <section className="panel" aria-label="Events">
      <h2>
        Events{' '}
        <span className="muted">
          {count} {warnings > 0 && <Badge tone="bad">{warnings} warning{warnings === 1 ? '' : 's'}</Badge>}
        </span>
      </h2>
      <div className="body">
        <ErrorAlert error={events.error} />
        {count === 0 ? <p className="muted">{events.isPending ? 'Loading…' : 'No events.'}</p> : <EventTable events={shown} />}
        {count > SHOWN && <p className="muted">and {count - SHOWN} older events</p>}
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
          <tr key={e.metadata.uid ?? e.metadata.name} className={e.type === EventTypeWarning ? 'event-warning' : undefined} data-reason={e.reason}>
            <td className="nowrap">{e.type === EventTypeWarning ? <Badge tone="bad">⚠ Warning</Badge> : <span className="muted">{e.type || EventTypeNormal}</span>}</td>
            <td className="words">{e.reason}</td>
            <td className="nowrap">{ageText(e, now)}</td>
            {showObject && <td className="mono">{objectText(e)}</td>}
            <td className="words">{eventFrom(e)}</td>
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
