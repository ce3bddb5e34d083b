// Events across the cluster (or the namespace chosen in the top bar), newest
// first, filterable by the involved object's kind, type, reason and text,
// live through the shared watch. Kind, type and reason are chosen by the server (a field
// selector), so a choice finds every such event it holds, not only those among the newest the
// page keeps; the text is matched in the page. Only the rows in view are drawn (WindowedRows), and the filters'
// values, the rows they let through and their order are kept from the watch's changes (a flush
// re-derives the events it replaced, not all it keeps), so a flood of events keeps the page smooth and
// the tab's CPU free. The page keeps the
// newest NEWEST.max: ten DaemonSets rolled out on 5000 nodes leave 400,000 events for the hour they
// live, over 600 MB in a tab; it says how many there are and keeps the newest as more come.
import { useMemo, useRef } from 'react';
import { count, plural } from '../../../lib/words.ts';
import { EventTypeNormal, EventTypeWarning, eventFrom, eventKind, eventMessage, eventReason, eventsChosen, involvedOf, lastSeenMs } from '../../../kinds/events.ts';
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
const typeOf = (e: KubeObject) => String((e as { type?: string }).type || EventTypeNormal);
/** The events the page keeps (api/watch.ts, Newest): at most a few tens of MB. The Overview's warnings keep as many, so both share one list. */
export const NEWEST: Newest = { max: 20_000, at: lastSeenMs };
/** The rows' narrowest width (events.css: the columns, their gaps and padding); below it the list scrolls sideways. */
const EVENTS_MIN_WIDTH = 1124;

/**
 * How many events show, of those the page keeps and (when it keeps only the newest) of all there are:
 * "the newest 20000 of 91841" unfiltered, "12 of the newest 20000 (91841 in all)" filtered. While the
 * list is read (`read` of `total` so far), those kept are only the newest so far, and it says so: a
 * cluster's 600,000 events take the tab most of a minute to read. A list the server selects from
 * (a kind, type or reason chosen) has no total: "15 events", or "4,000 events read so far…".
 */
export function eventsCount(shown: number, kept: number, total: number | undefined, read?: number, partial = false): string {
  const [s, k, t] = [count(shown), count(kept), total === undefined ? '' : count(total)];
  if (read !== undefined && total !== undefined && read < total) {
    const part = kept === read ? s : shown === kept ? `the newest ${k}` : `${s} of the newest ${k}`;
    return `${part} of ${count(read)} read so far (${t} in all)…`;
  }
  // A list the server selects from says no total: while it is read, what came so far.
  if (partial && total === undefined) return shown === kept ? `${plural(kept, 'event')} read so far…` : `${s} of the ${k} read so far…`;
  if (total === undefined || total <= kept) return shown === kept ? plural(kept, 'event') : `${s} of ${k}`;
  return shown === kept ? `the newest ${k} of ${t}` : `${s} of the newest ${k} (${t} in all)`;
}

/** A menu's values: those of the list shown, and those seen earlier that it does not hold. */
interface Menu {
  now: readonly string[];
  earlier: readonly string[];
}

/**
 * A menu's values: those of the list shown (and the one chosen), and those seen since the page
 * opened that it does not hold: a choice narrows the list the server sends, and the menu still
 * offers the other kinds and reasons to change to, apart, as "seen earlier".
 */
function useMenu(values: readonly string[], chosen: string): Menu {
  const seen = useRef(new Set<string>());
  return useMemo(() => {
    const now = [...new Set([...values, chosen].filter(Boolean))].sort();
    for (const v of now) seen.current.add(v);
    return { now, earlier: [...seen.current].filter((v) => !now.includes(v)).sort() };
  }, [values, chosen]);
}

function MenuOptions({ menu }: { menu: Menu }) {
  const options = (values: readonly string[]) => values.map((v) => <option key={v}>{v}</option>);
  if (!menu.earlier.length) return <>{options(menu.now)}</>;
  return (
    <>
      <optgroup label="In this list">{options(menu.now)}</optgroup>
      <optgroup label="Seen earlier">{options(menu.earlier)}</optgroup>
    </>
  );
}

export function EventsPage({ objectLink }: { objectLink(kind: string, apiVersion: string, namespace: string | undefined, name: string): string | undefined }) {
  const [ns] = useSearchParam('ns');
  const [kind, setKind] = useSearchParam('kind');
  const [type, setType] = useSearchParam('type');
  const [reason, setReason] = useSearchParam('reason');
  const [text, setText] = useSearchParam('q');
  const chosen = eventsChosen({ kind, type, reason });
  const selection = useMemo(() => (chosen ? { fieldSelector: chosen } : undefined), [chosen]);
  const events = useList(eventKind, ns || undefined, selection, NEWEST);
  const items = events.items;
  const change = events.data?.change;
  const now = useNow();

  // Kept from the watch's changes (a rollout brings hundreds of events a second): the menus' values,
  // the rows the text lets through, newest first, and their warnings.
  const kinds = useMenu(useTally(items, change, kindOf).values, kind);
  const reasons = useMenu(useTally(items, change, eventReason).values, reason);
  const match = useMemo(() => {
    const q = text.toLowerCase();
    if (!q) return undefined;
    return (e: any) => `${eventMessage(e)} ${involvedOf(e).name ?? ''}`.toLowerCase().includes(q);
  }, [text]);
  const filtered = useFilteredRows(items, change, match);
  const shown = useSortedRows(filtered.items, filtered.change, lastSeenMs, true).rows;
  const warnings = useTally(filtered.items, filtered.change, typeOf).counts.get(EventTypeWarning) ?? 0;

  return (
    <div className="events-page">
      <div className="page-head">
        <h1>Events</h1>
        <span className="muted">
          {events.isPending ? 'loading…' : eventsCount(shown.length, items.length, events.total, events.read, events.partial)}
          {ns ? ` in ${ns}` : ' across the cluster'}
        </span>
        {warnings > 0 && <Badge tone="bad">{plural(warnings, 'warning')}</Badge>}
      </div>
      <ErrorAlert error={events.error} />
      <div className="toolbar">
        <label className="check">
          Kind{' '}
          <select className="input" value={kind} onChange={(e) => setKind(e.target.value)} aria-label="Kind">
            <option value="">any</option>
            <MenuOptions menu={kinds} />
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
            <MenuOptions menu={reasons} />
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
