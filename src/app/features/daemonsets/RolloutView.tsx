// A DaemonSet's rollout, live: how far it is (kubectl's own words and
// completion rule), the budget in force, every node with its pods, the nodes
// left out and why, and a timeline of what happened since the page opened.
// Everything comes from watches of the DaemonSet, its pods, the nodes and its
// ControllerRevisions; nothing polls.
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type Ref, type RefObject } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { controllerRevisionKind } from '../../../kinds/controllerrevision.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { EventTypeWarning } from '../../../kinds/events.ts';
import { rollingUpdateLimits, rolloutStatus } from '../../../lib/rollout.ts';
import { plural } from '../../../lib/words.ts';
import { queryKeys, useList } from '../../api/hooks.ts';
import { useConnection } from '../../api/connection.ts';
import { useListChanges } from '../../api/listchanges.ts';
import { Badge, Meter, useNow } from '../../components/common.tsx';
import { WindowedRows } from '../../components/WindowedRows.tsx';
import { Link, useSearchParam, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import { NODE_STATES, RolloutIndex, formatDuration, type NodeRow, type NodeState, type PodCell, type RolloutModel } from './rollout.ts';
import { daemonPods, rolloutEventLists, unreadableOf } from './lists.ts';
import type { ListRef } from '../../api/hooks.ts';
import { listId } from '../../routes/detaillists.tsx';
import { useRolloutTimeline, type TimelineEvent } from './timeline.ts';
import { RolloutHistory } from './RolloutHistory.tsx';
import { StrategyEditor } from './StrategyEditor.tsx';
import { isConditionTrue } from '../../../lib/conditions.ts';
import { RolloutEvents, type RecordedEvent } from './events.ts';
import { ForecastLine, PlanVsActual, useLiveForecast } from './RolloutForecast.tsx';
import { ExcludedNodes } from './ExcludedNodes.tsx';
import './rollout.css';

const ZONE = 'topology.kubernetes.io/zone';
const STALL_CHOICES = [15, 60, 300];
/** Lines of the timeline drawn, newest first. */
const TIMELINE_SHOWN = 200;

const stateBadge: Record<NodeState, { tone: 'ok' | 'warn' | 'bad' | 'info' | undefined; label: string; symbol: string }> = {
  updated: { tone: 'ok', label: 'Updated', symbol: '✓' },
  progressing: { tone: 'info', label: 'Progressing', symbol: '◐' },
  old: { tone: undefined, label: 'Old revision', symbol: '○' },
  missing: { tone: 'warn', label: 'No pod', symbol: '–' },
  stalled: { tone: 'bad', label: 'Stalled', symbol: '!' },
};

/** The groupings besides labels: by the node's rollout state, or none. */
const BY_STATE = 'state';

type Show = '' | 'pending' | 'stalled' | 'missing' | NodeState;

const showFilter = (show: string): ((r: NodeRow) => boolean) | undefined =>
  show === 'pending' ? (r) => r.state !== 'updated' : show && (NODE_STATES as string[]).includes(show) ? (r) => r.state === show : undefined;

/** A row matches the search when its node's name, a label value or why it waits contains the text. */
function searchFilter(q: string): ((r: NodeRow) => boolean) | undefined {
  const t = q.trim().toLowerCase();
  if (!t) return undefined;
  return (r) => {
    if (r.nodeName.toLowerCase().includes(t)) return true;
    for (const v of Object.values(r.node?.metadata.labels ?? {})) if (v.toLowerCase().includes(t)) return true;
    if (r.stalledMessage?.toLowerCase().includes(t)) return true;
    return r.pods.some((p) => p.message?.toLowerCase().includes(t));
  };
}

export function RolloutView({ ds }: { ds: KubeObject }) {
  const ns = ds.metadata.namespace;
  const own = daemonPods(ds);
  const pods = useList(podKind, ns, own.selection);
  const nodes = useList(nodeKind);
  const revisions = useList(controllerRevisionKind, ns);
  // Every change of these lists, not only the last one before each render: the derived state follows them.
  const conn = useConnection();
  const podChanges = useListChanges(queryKeys.list(conn, podKind, ns, own.selection));
  const nodeChanges = useListChanges(queryKeys.list(conn, nodeKind));
  const opened = useRef(Date.now()).current;
  const tick = useNow();
  const [groupParam, setGroup] = useSearchParam('group');
  const [stallParam, setStall] = useSearchParam('stall');
  const [show, setShow] = useSearchParam('show');
  const [query, setQuery] = useSearchParam('q');
  const [inGroup, setInGroup] = useSearchParam('in');
  const grouping = groupParam === 'none' ? '' : groupParam || ZONE;
  const groupBy = grouping === BY_STATE ? '' : grouping;
  const stallSeconds = Number(stallParam) > 0 ? Number(stallParam) : 60;

  // One index for the page's life (per DaemonSet): each watch flush re-derives only the nodes it touched.
  const index = useRef<RolloutIndex>(null);
  index.current ??= new RolloutIndex();
  const model = useMemo(
    () => {
      index.current!.update({
        ds,
        pods: pods.items,
        nodes: nodes.items,
        revisions: revisions.items,
        now: Date.now(),
        stallAfterMs: stallSeconds * 1000,
        groupBy,
        podChanges,
        nodeChanges,
      });
      return index.current!.model();
    },
    // `tick` re-evaluates availability (minReadySeconds) and stalls as time passes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [ds, pods.items, nodes.items, revisions.items, stallSeconds, groupBy, tick],
  );
  const loaded = pods.whole && nodes.whole && revisions.isSuccess;
  // A user the per-node view's lists are refused to (the edit role grants no nodes) is told so, not shown "loading…" for ever.
  const unreadable = unreadableOf([['the nodes', nodes], ["the DaemonSet's pods", pods]]);
  // The recorded events are read once the lists above are (or have failed): see lists.ts.
  const [eventsOn, setEventsOn] = useState(false);
  if (!eventsOn && [pods, nodes, revisions].every((l) => l.isError || l.whole)) setEventsOn(true);
  const status = rolloutStatus(ds as never);
  const st = (ds.status ?? {}) as Record<string, number | undefined>;
  const desired = st.desiredNumberScheduled ?? 0;
  const stalled = model.counts.stalled;
  const timeline = useRolloutTimeline(ds, model.rows, model.counts.updatedAvailable, model.counts.desired, stalled, loaded);
  const forecast = useLiveForecast(ds, { pods: pods.items, revisions: revisions.items, nodes: nodes.items.length }, loaded, model.counts);
  const strategy = (ds.spec as any)?.updateStrategy ?? {};
  const rolling = (strategy.type ?? 'RollingUpdate') === 'RollingUpdate';

  // Recorded events: the last warning per node beside it, and those since the page opened on the timeline.
  // Fed by EventsFeed; the parts that show them hear of their changes from the index itself, so an events
  // update draws those parts, not the whole view.
  const recordedIndex = useRef<RolloutEvents>(null);
  recordedIndex.current ??= new RolloutEvents();
  const recorded = recordedIndex.current;

  const rows = useMemo(() => {
    const tests = [showFilter(show), searchFilter(query), inGroup ? (r: NodeRow) => (grouping === BY_STATE ? r.state === inGroup : r.group === inGroup) : undefined].filter((t) => t !== undefined);
    return tests.length ? model.rows.filter((r) => tests.every((t) => t(r))) : model.rows;
  }, [model.rows, show, query, inGroup, grouping]);
  const groupKeys = useMemo(
    () => [...new Set(nodes.items.flatMap((n) => Object.keys(n.metadata.labels ?? {})))].filter((k) => k !== ZONE && !k.startsWith('kubernetes.io/hostname')).sort(),
    // Label keys rarely change: looked at again when nodes come or go, not on every status post.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [nodes.items.length],
  );

  return (
    <>
      <section className="panel rollout rollout-live" aria-label="Rollout">
        <h2>
          Rollout
          {status.error ? (
            <Badge>OnDelete: pods are replaced when you delete them</Badge>
          ) : status.done ? (
            <Badge tone="ok">complete</Badge>
          ) : stalled > 0 ? (
            <Badge tone="bad">{stalledOn(stalled)}</Badge>
          ) : (
            <Badge tone="info">in progress</Badge>
          )}
        </h2>
        <div className="body">
          <pre className="rollout-message" data-testid="rollout-message">
            {status.error ?? status.message.trimEnd()}
          </pre>
          <div className="rollout-bars">
            {(
              [
                ['Updated', st.updatedNumberScheduled],
                ['Ready', st.numberReady],
                ['Available', st.numberAvailable],
              ] as const
            ).map(([label, value]) => (
              <div key={label} className="rollout-bar">
                <div className="rollout-bar-head">
                  <span>{label}</span>
                  <strong data-testid={`rollout-${label.toLowerCase()}`}>
                    {value ?? 0} / {desired}
                  </strong>
                </div>
                <Meter value={value ?? 0} max={desired} label={`${label} pods of ${desired}`} />
              </div>
            ))}
          </div>
          <p className="rollout-facts">
            {rolling ? <BudgetLine model={model} loaded={loaded} rollingUpdate={strategy.rollingUpdate} controllerCount={unreadable ? { ds, desired } : undefined} /> : <span>Update strategy OnDelete: a pod moves to the new template only when it is deleted.</span>}
            {!status.done && !status.error && stalled > 0 ? (
              <span data-testid="rollout-estimate">
                {' '}
                · <strong>{stalledOn(stalled)}</strong>: no finish time while {stalled === 1 ? 'it stays' : 'they stay'} stalled
              </span>
            ) : (
              timeline.eta !== undefined &&
              !status.done &&
              !forecast.left && (
                <span data-testid="rollout-estimate">
                  {' '}
                  · pace {timeline.pace!.toFixed(timeline.pace! < 1 ? 2 : 1)} nodes/s, about <strong>{formatDuration(timeline.eta)}</strong> left
                </span>
              )
            )}
            {!status.done && !status.error && <ForecastLine forecast={forecast} />}
          </p>
          <StrategyEditor ds={ds} />
        </div>
      </section>

      <section className="panel rollout-live" aria-label="Nodes">
        <h2>
          Nodes <span className="muted">{unreadable ? 'not shown' : loaded ? `${model.rows.length} should run this daemon` : `${model.rows.length} so far, loading…`}</span>
        </h2>
        <div className="body">
          {unreadable ? (
            <div className="alert info" role="note" data-testid="nodes-unreadable">
              Each node's progress needs every node and the DaemonSet's pods, and {unreadable}. The counts above are the controller's.
            </div>
          ) : (
            <>
              <div className="toolbar">
                <label className="check">
                  Group by{' '}
                  <select
                    className="input"
                    value={groupParam || ZONE}
                    onChange={(e) => {
                      setInGroup('');
                      setGroup(e.target.value === ZONE ? '' : e.target.value);
                    }}
                    aria-label="Group nodes by"
                  >
                    <option value={ZONE}>zone</option>
                    <option value={BY_STATE}>rollout state</option>
                    <option value="none">nothing</option>
                    {groupKeys.map((k) => (
                      <option key={k} value={k}>
                        {k}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="check">
                  Show{' '}
                  <select className="input" value={show} onChange={(e) => setShow(e.target.value)} aria-label="Which nodes">
                    <option value="">all</option>
                    <option value="pending">not yet updated</option>
                    <option value="stalled">stalled</option>
                    <option value="missing">without a pod</option>
                    <option value="progressing">progressing</option>
                    <option value="old">old revision</option>
                    <option value="updated">updated</option>
                  </select>
                </label>
                <label className="check">
                  Stalled after{' '}
                  <select className="input" value={String(stallSeconds)} onChange={(e) => setStall(e.target.value === '60' ? '' : e.target.value)} aria-label="Stalled after">
                    {[...new Set([...STALL_CHOICES, stallSeconds])]
                      .sort((a, b) => a - b)
                      .map((s) => (
                        <option key={s} value={s}>
                          {formatDuration(s * 1000)}
                        </option>
                      ))}
                  </select>
                </label>
                <input
                  className="input grow node-search"
                  type="search"
                  data-node-search=""
                  aria-label="Find nodes"
                  placeholder="Find nodes: name, label value, reason"
                  value={query}
                  onChange={(e) => setQuery(e.target.value)}
                />
              </div>
              {stalled > 0 && <StalledNodes rows={model.stalled} recorded={recorded} onShowAll={() => setShow('stalled')} />}
              <GroupSummary
                model={model}
                byState={grouping === BY_STATE}
                grouped={!!grouping}
                selected={inGroup}
                show={show as Show}
                onPick={(group, state) => {
                  setInGroup(group);
                  setShow(state);
                }}
                loaded={loaded}
              />
              <p className="muted" style={{ margin: '8px 0 0' }}>
                <span data-nodes-shown={rows.length}>{rows.length === model.rows.length ? `${rows.length} nodes` : `${rows.length} of ${model.rows.length} nodes`}</span>
                {(show || query || inGroup) && (
                  <>
                    {' '}
                    <button
                      className="btn small"
                      onClick={() => {
                        setShow('');
                        setQuery('');
                        setInGroup('');
                      }}
                    >
                      Show all
                    </button>
                  </>
                )}
              </p>
              <NodeGrid rows={rows} grouping={grouping} recorded={recorded} />
              <ExcludedNodes excluded={model.excluded} orphans={model.orphans} nodesComplete={nodes.whole} />
            </>
          )}
        </div>
      </section>

      <RolloutHistory ds={ds} revisions={revisions.items} podsPerHash={model.podsPerHash} />
      <section className="panel rollout-live below-fold" aria-label="Plan against what happened">
        <h2>
          Plan against what happened <span className="muted">plans kept in this browser</span>
        </h2>
        <div className="body">
          <PlanVsActual ds={ds} pods={pods.items} revisions={revisions.items} progress={Math.floor(model.counts.updatedAvailable / Math.max(1, Math.ceil(model.counts.desired / 50)))} />
        </div>
      </section>
      <Timeline lines={timeline.events} recorded={recorded} opened={opened} />
      {eventsOn && <EventsFeed ds={ds} recorded={recorded} isDaemonPod={index.current.isDaemonPod} />}
    </>
  );
}

/** Takes the recorded events the page reads (lists.ts, rolloutEventLists) into `recorded` as the watches change them. Renders nothing. */
function EventsFeed({ ds, recorded, isDaemonPod }: { ds: KubeObject; recorded: RolloutEvents; isDaemonPod: (name: string) => boolean }) {
  return rolloutEventLists(ds).map((list) => <EventsOf key={listId(list)} name={listId(list)} list={list} ds={ds} recorded={recorded} isDaemonPod={isDaemonPod} />);
}

function EventsOf({ name, list, ds, recorded, isDaemonPod }: { name: string; list: ListRef; ds: KubeObject; recorded: RolloutEvents; isDaemonPod: (name: string) => boolean }) {
  const events = useList(list.kind, list.namespace, list.selection);
  const changes = useListChanges(queryKeys.list(useConnection(), list.kind, list.namespace, list.selection));
  // After the commit: the index tells the parts that show events, which draw before the frame is painted.
  useLayoutEffect(() => {
    recorded.update(name, ds, events.items, isDaemonPod, changes);
  }, [name, ds, events.items, recorded, isDaemonPod, changes]);
  return null;
}

type TimelineItem = { id: string; at: number; kind: string; revision?: 'new' | 'old'; warning: boolean; recorded: boolean; text: string };

/**
 * The timeline's lines (newest first): what the watches showed happen, and the events recorded
 * about the DaemonSet and its pods since the page opened. Drawn again only when a line comes or
 * goes, and only while on (or near) the screen: a 5000-node rollout adds lines many times a
 * second, and making their elements below the fold was a tenth of the page's main-thread time.
 */
function Timeline({ lines, recorded, opened }: { lines: TimelineEvent[]; recorded: RolloutEvents; opened: number }) {
  const about = useSyncExternalStore(recorded.subscribe, recorded.about);
  const items = useMemo(
    () =>
      [
        ...lines.map((e) => ({ ...e, warning: false, recorded: false })),
        ...about
          .filter((e) => e.at >= opened - 1000)
          .map((e) => ({ id: `e${e.name}`, at: e.at, kind: 'event', revision: undefined, warning: e.type === EventTypeWarning, recorded: true, text: `${e.reason} (${e.object}, ${e.from}): ${e.message}` })),
      ]
        .sort((a, b) => b.at - a.at)
        .slice(0, TIMELINE_SHOWN),
    [lines, about, opened],
  );
  const ref = useRef<HTMLElement>(null);
  const onScreen = useOnScreen(ref);
  return <TimelinePanel ref={ref} items={items} frozen={!onScreen} />;
}

/** Draws the caller again when the last warning of a node changes. */
const useWarnings = (recorded: RolloutEvents) => useSyncExternalStore(recorded.subscribe, () => recorded.warningsVersion);

/** Whether the element is within a screen's height of the view; true until known. */
function useOnScreen(ref: RefObject<Element | null>): boolean {
  const [on, setOn] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver(([e]) => setOn(e.isIntersecting), { rootMargin: '100% 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [ref]);
  return on;
}

/** `frozen`: keeps what it drew last. */
const TimelinePanel = memo(
  function TimelinePanel({ items, ref }: { items: TimelineItem[]; frozen: boolean; ref: Ref<HTMLElement> }) {
    return (
      <section ref={ref} className="panel rollout-live below-fold" aria-label="Timeline">
        <h2>
          Timeline <span className="muted">since this page opened</span>
        </h2>
        <div className="body timeline">
          {items.length === 0 ? (
            <p className="muted">Nothing has happened yet. Events appear here as the watches deliver them.</p>
          ) : (
            <ol>
              {items.map((e) => (
                <li key={e.id} className={`tl-${e.kind}${e.warning ? ' tl-warning' : ''}`}>
                  <time>{new Date(e.at).toLocaleTimeString()}</time>
                  {e.revision && <Badge tone={e.revision === 'new' ? 'info' : undefined}>{e.revision}</Badge>}
                  {e.recorded && <Badge tone={e.warning ? 'bad' : undefined}>{e.warning ? '⚠ event' : 'event'}</Badge>}
                  <span>{e.text}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      </section>
    );
  },
  (before, after) => after.frozen || before.items === after.items,
);

const stalledOn = (n: number) => `stalled on ${plural(n, 'node')}`;

function BudgetLine({ model, loaded, rollingUpdate, controllerCount }: { model: RolloutModel; loaded: boolean; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string }; controllerCount?: { ds: KubeObject; desired: number } }) {
  const b = model.budget;
  const ru = b.mode === 'surge' ? 'maxSurge' : 'maxUnavailable';
  const limit = b.mode === 'surge' ? b.maxSurge : b.maxUnavailable;
  // The nodes cannot be read: resolved against the controller's count of nodes; how much is in use is not known here.
  if (controllerCount) {
    const l = rollingUpdateLimits(controllerCount.ds as never, controllerCount.desired);
    return (
      <span data-testid="rollout-budget">
        Budget: {ru} resolves to <strong>{b.mode === 'surge' ? l.maxSurge : l.maxUnavailable}</strong> of {plural(controllerCount.desired, 'node')} (the controller's count)
      </span>
    );
  }
  // Resolved against the nodes listed so far it would be a wrong number (10% of the first page's nodes).
  if (!loaded)
    return (
      <span data-testid="rollout-budget">
        Budget: {ru} {String(rollingUpdate?.[ru] ?? (ru === 'maxSurge' ? 0 : 1))}, counted once every node and pod is listed ({model.rows.length} nodes so far)
      </span>
    );
  return (
    <span data-testid="rollout-budget">
      Budget: {ru} resolves to <strong>{limit}</strong> of {plural(b.desiredNumberScheduled, 'node')};{' '}
      {b.mode === 'surge' ? `${b.inUse} surging now, ${b.remaining} more may surge` : `${b.inUse} without an available pod now, ${b.remaining} more may go down`}
    </span>
  );
}

const STALLED_SHOWN = 10;

/** Stalled nodes with their reasons in full (the grid's note column is cut to one line). */
function StalledNodes({ rows, recorded, onShowAll }: { rows: NodeRow[]; recorded: RolloutEvents; onShowAll: () => void }) {
  useWarnings(recorded);
  const shown = rows.slice(0, STALLED_SHOWN);
  return (
    <div className="alert bad" role="region" aria-label="Stalled nodes">
      <strong>{stalledOn(rows.length)}</strong>: {rows.length === 1 ? 'its new pod has' : 'their new pods have'} not become available within the stalled-after time.
      <ul className="stalled-list">
        {shown.map((r) => {
          const w = recorded.warningFor(r);
          return (
            <li key={r.nodeName} data-stalled-node={r.nodeName}>
              <span className="mono">{r.nodeName}</span> for {formatDuration(Date.now() - (r.stalledSince ?? Date.now()))}: {r.stalledMessage}
              {w && <span className="node-warning"> — last warning: {warningText(w)}</span>}
            </li>
          );
        })}
        {rows.length > shown.length && (
          <li>
            and {rows.length - shown.length} more{' '}
            <button className="btn small" onClick={onShowAll}>
              Show all stalled
            </button>
          </li>
        )}
      </ul>
    </div>
  );
}

const stateLabel = (s: NodeState) => stateBadge[s].label;

/**
 * One row per group (zone, another label, or rollout state) with its nodes per
 * state; a count picks those nodes in the list below. Counts come from the
 * index, so this draws a handful of rows whatever the number of nodes.
 */
const GroupSummary = memo(function GroupSummary({
  model,
  byState,
  grouped,
  selected,
  show,
  onPick,
  loaded,
}: {
  model: RolloutModel;
  byState: boolean;
  grouped: boolean;
  selected: string;
  show: Show;
  onPick: (group: string, state: Show) => void;
  loaded: boolean;
}) {
  const total = model.rows.length;
  const all = { group: '', total, states: Object.fromEntries(NODE_STATES.map((s) => [s, model.groups.reduce((n, g) => n + g.states[s], 0)])) as Record<NodeState, number> };
  const groups = !grouped ? [] : byState ? NODE_STATES.filter((s) => all.states[s] > 0).map((s) => ({ group: s, total: all.states[s], states: all.states })) : model.groups;
  const cell = (group: string, state: NodeState, n: number) =>
    n === 0 ? (
      <span className="muted">0</span>
    ) : (
      <button
        className={`linkish${selected === group && show === state ? ' active' : ''}`}
        data-pick={`${group}/${state}`}
        onClick={() => onPick(group, state)}
        title={`${stateLabel(state)} nodes${group ? ` in ${group}` : ''}`}
      >
        {n}
      </button>
    );
  return (
    <table className="simple group-summary" aria-label="Node groups" data-nodes-total={loaded ? total : undefined}>
      <thead>
        <tr>
          <th>{byState ? 'Rollout state' : 'Group'}</th>
          <th>Nodes</th>
          {!byState &&
            NODE_STATES.map((s) => (
              <th key={s}>
                <Badge tone={stateBadge[s].tone}>
                  {stateBadge[s].symbol} {stateBadge[s].label}
                </Badge>
              </th>
            ))}
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => (
          <tr key={g.group} data-group={g.group} className={selected === g.group ? 'selected' : undefined}>
            <td>
              <button className="linkish" onClick={() => onPick(g.group, '')}>
                {byState ? stateLabel(g.group as NodeState) : g.group || '(no value)'}
              </button>
            </td>
            <td>{byState ? cell('', g.group as NodeState, g.total) : g.total}</td>
            {!byState && NODE_STATES.map((s) => <td key={s}>{cell(g.group, s, g.states[s])}</td>)}
          </tr>
        ))}
        <tr data-group="" className="group-total">
          <td>
            <strong>All</strong>
          </td>
          <td>
            <strong>{total}</strong>
          </td>
          {!byState && NODE_STATES.map((s) => <td key={s}>{cell('', s, all.states[s])}</td>)}
        </tr>
      </tbody>
    </table>
  );
});

const ROW = 38;
/** The column heads' height (styles.css), above the rows in the same scroller. */
const HEAD = 32;

type GridItem = { header: true; group: string; count: number } | NodeRow;

/** Drawn again when the rows change, and when a node's last warning does (its row looks it up again). */
const NodeGrid = memo(function NodeGrid({ rows, grouping, recorded }: { rows: NodeRow[]; grouping: string; recorded: RolloutEvents }) {
  useWarnings(recorded);
  const grouped = useRef<{ rows: NodeRow[]; grouping: string; items: GridItem[]; at: Map<string, number> }>(null);
  const items: GridItem[] = useMemo(() => {
    if (!grouping) return rows;
    const keyOf = grouping === BY_STATE ? (r: NodeRow) => r.state : (r: NodeRow) => r.group;
    // The index replaces a changed node's row in its place: while no row changed its node or its group, the
    // items are the last ones with those rows replaced (grouping 5000 rows afresh was ~0.5 ms on each change).
    const last = grouped.current;
    if (last && last.grouping === grouping && last.rows.length === rows.length) {
      let next: GridItem[] | undefined;
      let i = 0;
      for (; i < rows.length; i++) {
        const r = rows[i];
        const was = last.rows[i];
        if (r === was) continue;
        if (r.nodeName !== was.nodeName || keyOf(r) !== keyOf(was)) break;
        next ??= last.items.slice();
        next[last.at.get(r.nodeName)!] = r;
      }
      if (i === rows.length) {
        grouped.current = { ...last, rows, items: next ?? last.items };
        return grouped.current.items;
      }
    }
    const groups = new Map<string, NodeRow[]>();
    for (const r of rows) {
      const k = keyOf(r);
      const list = groups.get(k);
      if (list) list.push(r);
      else groups.set(k, [r]);
    }
    const order =
      grouping === BY_STATE
        ? (a: string, b: string) => NODE_STATES.indexOf(a as NodeState) - NODE_STATES.indexOf(b as NodeState)
        : (a: string, b: string) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b));
    // Pushed into one array: a flatMap of spread groups made and copied an array per group, ~1 ms a render at 5000 nodes.
    const out: GridItem[] = [];
    const at = new Map<string, number>();
    for (const [group, list] of [...groups.entries()].sort(([a], [b]) => order(a, b))) {
      out.push({ header: true, group: grouping === BY_STATE ? stateLabel(group as NodeState) : group, count: list.length });
      for (const r of list) at.set(r.nodeName, out.push(r) - 1);
    }
    grouped.current = { rows, grouping, items: out, at };
    return out;
  }, [rows, grouping]);
  return (
    <div className="node-grid" role="table" aria-label="Nodes and their daemon pods" aria-rowcount={rows.length}>
      <WindowedRows
        className="node-grid-body"
        count={items.length}
        rowHeight={ROW}
        // 4 rows beyond each edge, as the list tables: with the default 12, three times the ~11 rows in view were
        // drawn, and redrawn as a rollout replaced them (and mounted anew when "show stalled" changed the rows).
        overscan={4}
        style={{ height: HEAD + Math.min(440, Math.max(1, items.length) * ROW + 2) }}
        header={
          <div className="node-grid-head" role="row">
            <span role="columnheader">Node</span>
            <span role="columnheader">State</span>
            <span role="columnheader">Pods</span>
            <span role="columnheader">Available since</span>
            <span role="columnheader">Restarts</span>
            <span role="columnheader">Note</span>
          </div>
        }
        empty={
          <p className="muted" style={{ padding: 12 }}>
            No nodes to show.
          </p>
        }
        renderRow={(index, top) => {
          const item = items[index];
          if ('header' in item)
            return (
              <div key={`g-${item.group}`} className="node-grid-group" style={{ transform: `translateY(${top}px)`, height: ROW }} role="row">
                <span role="cell" aria-colspan={6}>
                  {item.group || '(no value)'} <span className="muted">{item.count}</span>
                </span>
              </div>
            );
          // Keyed by node: a row keeps its memo as it moves.
          return <NodeGridRow key={item.nodeName} row={item} top={top} warning={item.state === 'updated' ? undefined : recorded.warningFor(item)} />;
        }}
      />
    </div>
  );
});

const warningText = (w: RecordedEvent) => `${w.reason} (${w.from}): ${w.message}`;

/** Drawn again only when its row (a new object when the node or its pods change), its place or its warning changes. */
const NodeGridRow = memo(function NodeGridRow({ row, top, warning }: { row: NodeRow; top: number; warning?: RecordedEvent }) {
  const style = { transform: `translateY(${top}px)`, height: ROW };
  const b = stateBadge[row.state];
  const live = row.pods.filter((p) => p.state !== 'terminating');
  const main = live.find((p) => p.revision === 'new') ?? live[0];
  return (
    <div className={`node-grid-row state-${row.state}`} style={style} role="row" data-node={row.nodeName} data-state={row.state} data-rv={row.resourceVersion} data-pod={main?.name}>
      <span role="cell" className="mono">
        <Link to={withSearch(detailPath(nodeKind, { metadata: { name: row.nodeName } }))}>{row.nodeName}</Link> {row.node && !isConditionTrue(row.node, 'Ready') && <Badge tone="bad">NotReady</Badge>}
      </span>
      <span role="cell">
        <Badge tone={b.tone}>
          {b.symbol} {b.label}
        </Badge>
      </span>
      <span role="cell" className="pod-chips">
        {row.pods.map((p) => (
          <PodChip key={p.uid} pod={p} />
        ))}
      </span>
      <span role="cell">{main?.availableSince !== undefined && main.availableSince <= Date.now() ? new Date(main.availableSince).toLocaleTimeString() : '—'}</span>
      <span role="cell">{main ? main.restarts : '—'}</span>
      <span role="cell" className="note" title={warning ? warningText(warning) : (row.stalledMessage ?? main?.message)}>
        {warning ? (
          // Why this node is not done: the last warning recorded about it or its pod (the kubelet's, usually).
          <span className="node-warning" data-node-warning={row.nodeName}>
            ⚠ {warningText(warning)}
          </span>
        ) : row.state === 'stalled' ? (
          `for ${formatDuration(Date.now() - (row.stalledSince ?? Date.now()))}: ${row.stalledMessage}`
        ) : (
          (main?.message ?? '')
        )}
      </span>
    </div>
  );
});

function PodChip({ pod }: { pod: PodCell }) {
  const tone = pod.state === 'available' ? 'ok' : pod.state === 'failed' ? 'bad' : pod.state === 'terminating' ? undefined : 'warn';
  return (
    <span className={`pod-chip rev-${pod.revision}`} title={`${pod.name}: ${pod.phase}${pod.ready ? ', Ready' : ''}${pod.hash ? `, revision ${pod.hash}` : ''}`}>
      <span className="rev">{pod.revision}</span>
      <span className="mono">{pod.hash?.slice(0, 6) ?? '—'}</span>
      <Badge tone={tone}>{pod.state}</Badge>
    </span>
  );
}

