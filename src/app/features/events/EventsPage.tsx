// Events across the cluster (or the namespace chosen in the top bar), newest
// first, filterable by the involved object's kind, type, reason and text,
// live through the shared watch. Only the rows in view are drawn (WindowedRows), and the filters'
// values, the rows they let through and their order are kept from the watch's changes (a flush
// re-derives the events it replaced, not all it keeps), so a flood of events keeps the page smooth and
// the tab's CPU free. The page keeps the
// newest NEWEST.max: ten DaemonSets rolled out on 5000 nodes leave 400,000 events for the hour they
// live, over 600 MB in a tab; it says how many there are and keeps the newest as more come.
import { useMemo } from 'react';
import { count } from '../../../lib/words.ts';
import { EventTypeNormal, EventTypeWarning, eventFrom, eventKind, eventMessage, involvedOf, lastSeenMs } from '../../../kinds/events.ts';
import { useList } from '../../api/hooks.ts';
import type { Newest } from '../../api/watch.ts';
import { Badge, ErrorAlert, useNow } from '../../components/common.tsx';
import { WindowedRows } from '../../components/WindowedRows.tsx';
import { useFilteredRows } from '../../components/filteredRows.ts';
import { useSortedRows } from '../../components/sortedRows.ts';
import { useTally } from '../../components/tally.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { Link, useSearchParam } from '../../routes/router.tsx';
import { ageText, objectText } from './EventsSection.tsx';
import './events.css';

const ROW = 34;
const kindOf = (e: KubeObject) => involvedOf(e).kind ?? '';
const reasonOf = (e: KubeObject) => String((e as { reason?: string }).reason ?? '');
const typeOf = (e: KubeObject) => String((e as { type?: string }).type || EventTypeNormal);
/** The events the page keeps (api/watch.ts, Newest): at most a few tens of MB. */
const NEWEST: Newest = { max: 20_000, at: lastSeenMs };
/** The rows' narrowest width (events.css: the columns, their gaps and padding); below it the list scrolls sideways. */
const EVENTS_MIN_WIDTH = 1124;

/**
 * How many events show, of those the page keeps and (when it keeps only the newest) of all there are:
 * "the newest 20000 of 91841" unfiltered, "12 of the newest 20000 (91841 in all)" filtered. While the
 * list is read (`read` of `total` so far), those kept are only the newest so far, and it says so: a
 * cluster's 600,000 events take the tab most of a minute to read.
 */
export function eventsCount(shown: number, kept: number, total: number | undefined, read?: number): string {
  const [s, k, t] = [count(shown), count(kept), total === undefined ? '' : count(total)];
  if (read !== undefined && total !== undefined && read < total) {
    const part = kept === read ? s : shown === kept ? `the newest ${k}` : `${s} of the newest ${k}`;
    return `${part} of ${count(read)} read so far (${t} in all)…`;
  }
  if (total === undefined || total <= kept) return `${s} of ${k}`;
  return shown === kept ? `the newest ${k} of ${t}` : `${s} of the newest ${k} (${t} in all)`;
}

export function EventsPage({ objectLink }: { objectLink(kind: string, apiVersion: string, namespace: string | undefined, name: string): string | undefined }) {
  const [ns] = useSearchParam('ns');
  const [kind, setKind] = useSearchParam('kind');
  const [type, setType] = useSearchParam('type');
  const [reason, setReason] = useSearchParam('reason');
  const [text, setText] = useSearchParam('q');
  const events = useList(eventKind, ns || undefined, undefined, NEWEST);
  const items = events.items;
  const change = events.data?.change;
  const now = useNow();

  // Kept from the watch's changes (a rollout brings hundreds of events a second): the filters' values,
  // the rows the filters let through, newest first, and their warnings.
  const kinds = useTally(items, change, kindOf).values;
  const reasons = useTally(items, change, reasonOf).values;
  const match = useMemo(() => {
    const q = text.toLowerCase();
    if (!kind && !type && !reason && !q) return undefined;
    return (e: any) =>
      (!kind || involvedOf(e).kind === kind) &&
      (!type || typeOf(e) === type) &&
      (!reason || e.reason === reason) &&
      (!q || `${eventMessage(e)} ${involvedOf(e).name ?? ''}`.toLowerCase().includes(q));
  }, [kind, type, reason, text]);
  const filtered = useFilteredRows(items, change, match);
  const shown = useSortedRows(filtered.items, filtered.change, lastSeenMs, true).rows;
  const warnings = useTally(filtered.items, filtered.change, typeOf).counts.get(EventTypeWarning) ?? 0;

  return (
    <div className="events-page">
      <div className="page-head">
        <h1>Events</h1>
        <span className="muted">
          {events.isPending ? 'loading…' : eventsCount(shown.length, items.length, events.total, events.read)}
          {ns ? ` in ${ns}` : ' across the cluster'}
        </span>
        {warnings > 0 && <Badge tone="bad">{warnings} warning{warnings === 1 ? '' : 's'}</Badge>}
      </div>
      <ErrorAlert error={events.error} />
      <div className="toolbar">
        <label className="check">
          Kind{' '}
          <select className="input" value={kind} onChange={(e) => setKind(e.target.value)} aria-label="Kind">
            <option value="">any</option>
            {[...new Set([...kinds, kind].filter(Boolean))].map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label className="check">
          Type{' '}
          <select className="input" value={type} onChange={(e) => setType(e.target.value)} aria-label="Type">
            <option value="">any</option>
            <option>Normal</option>
            <option>Warning</option>
          </select>
        </label>
        <label className="check">
          Reason{' '}
          <select className="input" value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Reason">
            <option value="">any</option>
            {[...new Set([...reasons, reason].filter(Boolean))].map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <input className="input grow" placeholder="Filter by message or object name" value={text} onChange={(e) => setText(e.target.value)} aria-label="Filter events" />
      </div>
      <div className="events-list" role="table" aria-label="Events">
        <WindowedRows
          count={shown.length}
          rowHeight={ROW}
          overscan={15}
          minWidth={EVENTS_MIN_WIDTH}
          style={{ height: 'calc(100vh - 260px)', minHeight: 200 }}
          header={
            // Inside the scroller (sticky), so it keeps the rows' width when a scrollbar takes some.
            <div className="events-row events-head" role="row">
              <span role="columnheader">Last seen</span>
              <span role="columnheader">Type</span>
              <span role="columnheader">Reason</span>
              <span role="columnheader">Object</span>
              <span role="columnheader">Message</span>
              <span role="columnheader">From</span>
            </div>
          }
          empty={
            <p className="muted" style={{ padding: 12 }}>
              {events.isPending ? 'Loading…' : 'No events.'}
            </p>
          }
          renderRow={(i, top, slot) => {
            const e: any = shown[i];
            const io = involvedOf(e);
            const href = io.kind && io.name ? objectLink(io.kind, (io as any).apiVersion ?? '', io.namespace || undefined, io.name) : undefined;
            return (
              <div
                key={slot}
                role="row"
                className={`events-row${e.type === EventTypeWarning ? ' event-warning' : ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${top}px)` }}
                data-reason={e.reason}
              >
                <span role="cell">{ageText(e, now)}</span>
                <span role="cell">{e.type === EventTypeWarning ? <Badge tone="bad">⚠ Warning</Badge> : typeOf(e)}</span>
                <span role="cell">{e.reason}</span>
                <span role="cell" className="mono" title={objectText(e)}>
                  {href ? <Link to={href}>{objectText(e)}</Link> : objectText(e)}
                </span>
                <span role="cell" title={eventMessage(e)}>
                  {eventMessage(e)}
                </span>
                <span role="cell">{eventFrom(e)}</span>
              </div>
            );
          }}
        />
      </div>
    </div>
  );
}
