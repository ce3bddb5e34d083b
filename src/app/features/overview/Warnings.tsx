// The Overview's warnings: the cluster's Warning events (as long as the server
// keeps them, an hour by default) by reason, the reasons on most objects
// first, each opening the Events page chosen to it. One list the server
// selects (`type=Warning`), the very list the Events page shows for Warning: at
// 32,150 events it was 15 warnings and 20 KB, where all of them are tens of MB.
import { useMemo } from 'react';
import { EventTypeWarning, eventKind, eventMessage, eventReason, eventsChosen, involvedOf, lastSeenMs, occurrences } from '../../../kinds/events.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { count, plural } from '../../../lib/words.ts';
import { useList } from '../../api/hooks.ts';
import { Badge, NoAccess, useNow } from '../../components/common.tsx';
import { isForbidden } from '../../api/client.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import { NEWEST } from '../events/EventsPage.tsx';
import { ageText } from '../events/EventsSection.tsx';

/** Reasons shown; the rest are a link away. */
const SHOWN = 6;

/** The warnings of one reason: how many times (an event counts its repeats), on which objects, the newest. */
export interface WarningReason {
  reason: string;
  times: number;
  /** Objects warned of, by kind (`Pod` → 5). */
  objects: Map<string, number>;
  /** Objects warned of, of every kind. */
  objectCount: number;
  newest: KubeObject;
}

/** Warning events by reason, those on most objects first (then the most recent). */
export function warningsByReason(events: readonly KubeObject[]): WarningReason[] {
  const byReason = new Map<string, { times: number; objects: Map<string, Set<string>>; newest: KubeObject }>();
  for (const e of events) {
    const reason = eventReason(e);
    let r = byReason.get(reason);
    if (!r) byReason.set(reason, (r = { times: 0, objects: new Map(), newest: e }));
    r.times += occurrences(e);
    if (lastSeenMs(e) > lastSeenMs(r.newest)) r.newest = e;
    const io = involvedOf(e);
    const kind = io.kind ?? 'object';
    let names = r.objects.get(kind);
    if (!names) r.objects.set(kind, (names = new Set()));
    names.add(`${io.namespace ?? ''}/${io.name ?? ''}`);
  }
  return [...byReason]
    .map(([reason, r]): WarningReason => {
      const objects = new Map([...r.objects].map(([k, names]) => [k, names.size]));
      return { reason, times: r.times, newest: r.newest, objects, objectCount: [...objects.values()].reduce((a, b) => a + b, 0) };
    })
    .sort((a, b) => b.objectCount - a.objectCount || lastSeenMs(b.newest) - lastSeenMs(a.newest));
}

/** A message cut to a couple of lines (the whole on hover). */
const shortened = (m: string) => (m.length > 160 ? `${m.slice(0, 159)}…` : m);

/** "5 Pods, 1 Node". */
const objectsText = (objects: Map<string, number>) => [...objects].map(([kind, n]) => plural(n, kind)).join(', ');

export function Warnings({ namespace }: { namespace?: string }) {
  const warnings = useList(eventKind, namespace, { fieldSelector: eventsChosen({ type: EventTypeWarning }) }, NEWEST);
  const reasons = useMemo(() => warningsByReason(warnings.items), [warnings.items]);
  const refused = isForbidden(warnings.error);
  const all = withSearch(`/events?type=${EventTypeWarning}`);
  const now = useNow();
  return (
    <section className="panel" aria-label="Warning events">
      <h2>
        Warning events {warnings.items.length > 0 && <Badge tone="bad">{count(warnings.items.length)}</Badge>} {warnings.partial && <span className="muted">read so far</span>}
      </h2>
      <div className="body">
        {refused ? (
          <NoAccess />
        ) : warnings.isPending ? (
          <p className="muted">Loading…</p>
        ) : reasons.length === 0 ? (
          <p className="muted">No warning events{namespace ? ` in ${namespace}` : ''}.</p>
        ) : (
          <table className="simple">
            <tbody>
              {reasons.slice(0, SHOWN).map((r) => (
                <tr key={r.reason} data-reason={r.reason}>
                  <td className="words">
                    <Link to={withSearch(`/events?type=${EventTypeWarning}&reason=${encodeURIComponent(r.reason)}`)}>{r.reason || '(no reason)'}</Link>
                  </td>
                  <td className="muted words">
                    {r.times === 1 ? 'once' : `${count(r.times)} times`} on {objectsText(r.objects)}
                  </td>
                  <td title={eventMessage(r.newest)}>{shortened(eventMessage(r.newest))}</td>
                  <td className="muted" style={{ whiteSpace: 'nowrap' }}>
                    {ageText(r.newest, now)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {reasons.length > 0 && (
          <p>
            <Link to={all}>{reasons.length > SHOWN ? `and ${plural(reasons.length - SHOWN, 'more reason')}: every warning` : 'Every warning'}, on the Events page</Link>
          </p>
        )}
      </div>
    </section>
  );
}
