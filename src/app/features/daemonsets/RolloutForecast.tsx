// The rollout judged against its plan. While it runs: the finish time
// forecast from the plan and the pace so far (re-planned from the pods as
// they are, each time a node completes), and a flag when it has fallen
// behind the plan. After it: the plan next to what happened, per wave and
// per node. The plan is the one the review showed (planstore.ts), or, for
// a rollout started elsewhere, the one made when this page first saw it.
import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { hashKey, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { controllerRevisionKind } from '../../../kinds/controllerrevision.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { eventKind } from '../../../kinds/events.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { deepEqual } from '../../../lib/json.ts';
import { rolloutStatus } from '../../../lib/rollout.ts';
import { hashOfTemplate, revisionsOfDaemonSet, type ClusterView, type RolloutPlan } from '../../../lib/rolloutplan.ts';
import { useConnection } from '../../api/connection.ts';
import { queryKeys, useList } from '../../api/hooks.ts';
import type { ListState } from '../../api/watch.ts';
import { ForecastMirror, ForecastSender, type ForecastAnswer, type ForecastList, type ForecastRequest } from '../../workers/liveforecast.ts';
import { Badge } from '../../components/common.tsx';
import { formatDuration } from './rollout.ts';
import { findPlan, plansOf, plansVersion, recordFrom, saveOutcome, savePlan, type Outcome, type PlanRecord } from './planstore.ts';
import { podEvents, podSelectorOf } from './lists.ts';
import { outcomeOf } from './outcome.ts';
import { NodeNamesCell } from './RolloutPlanView.tsx';

export interface LiveForecast {
  record?: PlanRecord;
  /** The rollout's start (its revision's creation), epoch ms. */
  start?: number;
  /** Time left, p10 / p50 / p90 (ms), from now. */
  left?: { p10: number; p50: number; p90: number; completes: boolean };
  /** Nodes finished per second so far. */
  pace?: number;
  behind?: string;
}

const REPLAN_MS = 3000;

/**
 * The forecast's worker (src/app/workers), fed the lists a plan reads as the
 * watches change them: each change of the cached list (every one, from the
 * query cache, not only those a render sees) sends what it added and removed;
 * a list whose last change was not seen is sent whole; held while no forecast
 * is `wanted` (ForecastSender). Where there are no workers (tests), the same
 * mirror answers on this thread.
 */
function useForecastWorker(namespace: string | undefined, podSelector: string | undefined, wanted: boolean, onAnswer: (a: ForecastAnswer) => void) {
  const qc = useQueryClient();
  const conn = useConnection();
  const answer = useRef(onAnswer);
  answer.current = onAnswer;
  const port = useRef<{ post(m: ForecastRequest): void } | null>(null);
  const sender = useRef<ForecastSender | null>(null);
  const isWanted = useRef(wanted);
  isWanted.current = wanted;
  // The other lists are the page's own; the namespace's DaemonSets (their pace, when this one has none) are kept live here.
  // The pods are the DaemonSet's own (the page's list, by its selector), not the namespace's: the other DaemonSets'
  // old pods' stop still comes from the events, their pods' start-up no longer (this one's last rollout gives it).
  useList(daemonSetKind, namespace);
  useEffect(() => {
    let post: (m: ForecastRequest) => void;
    let stop = () => {};
    if (typeof Worker !== 'undefined') {
      const w = new Worker(new URL('../../workers/forecast.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (e: MessageEvent<ForecastAnswer>) => answer.current(e.data);
      post = (m) => w.postMessage(m);
      stop = () => w.terminate();
    } else {
      const mirror = new ForecastMirror();
      post = (m) => {
        const a = mirror.handle(m);
        if (a) queueMicrotask(() => answer.current(a));
      };
    }
    const keys: [ForecastList, QueryKey][] = [
      ['nodes', queryKeys.list(conn, nodeKind)],
      ['pods', queryKeys.list(conn, podKind, namespace, { labelSelector: podSelector })],
      ['revisions', queryKeys.list(conn, controllerRevisionKind, namespace)],
      ['daemonSets', queryKeys.list(conn, daemonSetKind, namespace)],
      ['events', queryKeys.list(conn, eventKind, namespace, podEvents(namespace).selection)],
    ];
    // Changes are gathered and sent every FEED_MS, not as the watch flushes: the copy into the worker
    // left the frame flush (it delayed the render of every update), and an object that changed several
    // times meanwhile (a pod goes through five states in a few seconds) is copied once.
    // (The lists hold no managedFields, most of a pod's bytes: each object sent is copied into the worker.)
    const batch = new ForecastSender(post);
    sender.current = batch;
    const feed = (list: ForecastList, state: ListState | undefined) => {
      if (state) batch.take(list, state);
    };
    const byHash = new Map(keys.map(([list, key]) => [hashKey(key), list]));
    for (const [list, key] of keys) feed(list, qc.getQueryData<ListState>(key));
    const unsubscribe = qc.getQueryCache().subscribe((e) => {
      const list = e.type === 'updated' ? byHash.get(e.query.queryHash) : undefined;
      if (list) feed(list, e.query.state.data as ListState | undefined);
    });
    // A plan reads the lists as they are now.
    port.current = { post: (m) => (m.type === 'plan' ? (batch.send(), batch.then(() => post(m))) : post(m)) };
    batch.setActive(isWanted.current);
    return () => {
      unsubscribe();
      batch.stop();
      stop();
      port.current = null;
      sender.current = null;
    };
  }, [qc, conn, namespace, podSelector]);
  useEffect(() => sender.current?.setActive(wanted), [wanted]);
  return port;
}

/**
 * The forecast of the rollout in progress, planned in a worker. Re-planned as
 * nodes finish (in steps of a fiftieth of the rollout) or stalls change, not
 * on every pod event, and at most every few seconds.
 */
export function useLiveForecast(
  ds: KubeObject,
  lists: { pods: KubeObject[]; revisions: KubeObject[]; nodes: number },
  loaded: boolean,
  progress: { updatedAvailable: number; stalled: number },
): LiveForecast {
  const status = rolloutStatus(ds as never);
  const running = loaded && !status.done && !status.error;
  const template = (ds.spec as any)?.template;
  const uid = ds.metadata.uid;
  // Re-plan about 50 times over a rollout, however many nodes it has: each plan runs the whole rollout many times.
  const desired = (ds.status as any)?.desiredNumberScheduled ?? 0;
  const step = Math.floor(progress.updatedAvailable / Math.max(1, Math.ceil(desired / 50)));
  // The DaemonSet's status and the nodes' status posts change many times a second in a large rollout: the
  // plan is made again for what it depends on (template, strategy, the set of nodes), not for each of those.
  const spec = ds.spec as any;
  const planKey = JSON.stringify([uid, template, spec?.updateStrategy, spec?.minReadySeconds, lists.nodes, lists.revisions.length]);
  const latest = useRef({ ds, template });
  latest.current = { ds, template };
  const asked = useRef<{ id: number; at: number; key: string; planKey: string }>(undefined);
  const [planned, setPlanned] = useState<{ planKey: string; result: LiveForecast }>();
  const worker = useForecastWorker(ds.metadata.namespace, podSelectorOf(ds), running, (a) => {
    const ask = asked.current;
    if (!ask || a.id !== ask.id || a.error || !a.forecast || a.start === undefined) return;
    const { ds, template } = latest.current;
    const now = Date.now();
    let record = findPlan(ds.metadata.uid, template);
    if (!record && a.plan) {
      // No plan from a review in this browser: the plan as first seen, its times shifted to the rollout's start.
      record = recordFrom(ds, template, shift(a.plan, now - a.start), 'first seen', now);
      savePlan(record, true);
    }
    const f = a.forecast;
    const elapsed = now - a.start;
    let behind: string | undefined;
    if (record && !f.completes && record.completes) behind = 'a node stalls that the plan did not expect';
    else if (record?.completes && elapsed + f.p50 > record.p90)
      behind = `finishing in about ${formatDuration(elapsed + f.p50)} against ${formatDuration(record.p50)} planned (${formatDuration(record.p90)} at worst)`;
    setPlanned({ planKey: ask.planKey, result: { record, start: a.start, left: f, pace: elapsed > 0 ? a.done / (elapsed / 1000) : undefined, behind } });
  });
  useEffect(() => {
    if (!running) return;
    const key = `${planKey} ${progress.stalled}`;
    if (asked.current && asked.current.key === key && Date.now() - asked.current.at < REPLAN_MS) return;
    const id = (asked.current?.id ?? 0) + 1;
    asked.current = { id, at: Date.now(), key, planKey };
    worker.current?.post({ type: 'plan', id, ds: latest.current.ds, now: Date.now(), withPlan: !findPlan(uid, template) });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [running, planKey, step, progress.stalled]);

  // Not running (or no forecast yet): the plan kept for this template and the rollout's start.
  const version = plansVersion();
  const idle = useMemo((): LiveForecast => {
    if (!loaded) return {};
    const view = { revisions: lists.revisions } as unknown as ClusterView;
    const hash = hashOfTemplate(ds as never, view);
    const rev = revisionsOfDaemonSet(ds as never, view).find((r) => r.hash === hash);
    const start = rev ? Date.parse(rev.object.metadata.creationTimestamp ?? '') : undefined;
    return { record: findPlan(uid, template), start: start === undefined || Number.isNaN(start) ? undefined : start };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, uid, template, lists.revisions, version]);
  const result = running && planned?.planKey === planKey ? planned.result : idle;

  // Once finished, keep what happened beside the plan (the next rollout deletes these pods).
  useEffect(() => {
    if (!loaded || !status.done || !result.record || result.start === undefined || result.record.outcome?.finishedAt) return;
    const hash = hashOfTemplate(ds as never, { revisions: lists.revisions } as unknown as ClusterView);
    if (hash) saveOutcome(ds.metadata.uid!, template, outcomeOf(ds, lists.pods, hash, result.start));
  }, [loaded, status.done, result, ds, lists.pods, lists.revisions, template]);
  return result;
}

/** The plan's times moved later by `ms` (a plan made mid-rollout, measured from the rollout's start). */
function shift(plan: RolloutPlan, ms: number): RolloutPlan {
  const f = plan.forecast;
  if (!f) return plan;
  const nodeFinish = Object.fromEntries(Object.entries(f.nodeFinish).map(([k, v]) => [k, v + ms]));
  return {
    ...plan,
    waves: plan.waves.map((w) => ({ ...w, endsAt: w.endsAt === undefined ? undefined : w.endsAt + ms })),
    forecast: { ...f, p10: f.p10 + ms, p50: f.p50 + ms, p90: f.p90 + ms, nodeFinish },
  };
}

/** The forecast line of the live view. */
export function ForecastLine({ forecast }: { forecast: LiveForecast }) {
  const { left, record, start, behind } = forecast;
  if (!left || start === undefined) return null;
  const at = new Date(Date.now() + left.p50);
  return (
    <span data-testid="rollout-forecast" className="rollout-forecast">
      {' '}
      ·{' '}
      {left.completes ? (
        <>
          forecast: done at <strong>{at.toLocaleTimeString()}</strong> (in {formatDuration(left.p50)}, {formatDuration(left.p10)}–{formatDuration(left.p90)})
        </>
      ) : (
        <>forecast: the reachable nodes done in {formatDuration(left.p50)}, then stalled</>
      )}
      {record && (
        <span className="muted">
          {' '}
          · plan {record.source === 'review' ? 'at review' : 'when first seen'}: {formatDuration(record.p50)} ({formatDuration(record.p10)}–{formatDuration(record.p90)}),{' '}
          {formatDuration(Date.now() - start)} gone
        </span>
      )}
      {forecast.pace !== undefined && forecast.pace > 0 && <span className="muted"> · pace so far {forecast.pace.toFixed(forecast.pace < 1 ? 2 : 1)} nodes/s</span>}{' '}
      {behind ? (
        <Badge tone="bad" title={behind}>
          behind plan
        </Badge>
      ) : (
        record && <Badge tone="ok">on plan</Badge>
      )}
      {behind && <span data-testid="rollout-behind"> {behind}</span>}
    </span>
  );
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`;

/** After rollouts: each kept plan next to what happened, per wave and per node. */
/**
 * `progress` (a fiftieth of the nodes updated and available) says when to look again: the plans
 * (read from local storage) and what happened (from every pod) are taken
 * again as nodes finish, not on every pod event of a large rollout.
 */
export function PlanVsActual({ ds, pods, revisions, progress }: { ds: KubeObject; pods: KubeObject[]; revisions: KubeObject[]; progress: number }) {
  const podsNow = useRef(pods);
  podsNow.current = pods;
  const status = rolloutStatus(ds as never);
  const template = (ds.spec as any)?.template;
  const shown = useMemo(() => {
    const records = plansOf(ds.metadata.uid);
    const view = { revisions } as unknown as ClusterView;
    const list = revisionsOfDaemonSet(ds as never, view);
    return records.slice(0, 5).map((r) => {
      const rev = list.find((x) => deepEqual(x.template, r.template));
      const live = rev && deepEqual(template, r.template) ? outcomeOf(ds, podsNow.current, rev.hash, Date.parse(rev.object.metadata.creationTimestamp ?? '') || r.madeAt) : undefined;
      return { record: r, outcome: r.outcome?.finishedAt ? r.outcome : (live ?? r.outcome), revision: rev?.revision };
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ds.metadata.uid, template, revisions, progress, status.done, plansVersion()]);
  if (!shown.length) {
    return <p className="muted">No rollout plan kept in this browser yet: the review of a template change keeps its plan here, to be set against what happens.</p>;
  }
  return (
    <div className="plan-history" data-testid="plan-history">
      {shown.map((s, i) => (
        <PlanRecordView key={i} record={s.record} outcome={s.outcome} revision={s.revision} />
      ))}
    </div>
  );
}

/** Drawn again only when its record or outcome changes (they are kept while a rollout moves). */
const PlanRecordView = memo(function PlanRecordView({ record, outcome, revision }: { record: PlanRecord; outcome?: Outcome; revision?: number }) {
  const total = outcome?.finishedAt !== undefined ? outcome.finishedAt - outcome.start : undefined;
  const allDone = outcome && record.waves.every((w) => w.nodes.every((n) => w.stalls.includes(n) || outcome.nodes[n]?.available !== undefined));
  const actualOf = (n: string) => {
    const a = outcome?.nodes[n]?.available;
    return a === undefined || !outcome ? undefined : a - outcome.start;
  };
  return (
    <details className="plan-record" open={revision !== undefined} data-plan-revision={revision ?? ''}>
      <summary>
        {revision !== undefined ? `Revision ${revision}` : 'A revision no longer kept'}: planned <strong>{formatDuration(record.p50)}</strong> ({formatDuration(record.p10)}–
        {formatDuration(record.p90)}) under {record.budget}
        {total !== undefined && allDone ? (
          <>
            , took <strong data-testid="plan-actual">{formatDuration(total)}</strong> ({pct((total - record.p50) / Math.max(1, record.p50))}){' '}
            {total >= record.p10 && total <= record.p90 ? <Badge tone="ok">within the spread</Badge> : <Badge tone="warn">outside the spread</Badge>}
          </>
        ) : (
          <span className="muted">, not finished</span>
        )}
        <span className="muted">
          {' '}
          · plan {record.source === 'review' ? 'from the review' : 'made when first seen'}, {new Date(record.madeAt).toLocaleString()}
        </span>
      </summary>
      <table className="simple plan-waves">
        <thead>
          <tr>
            <th>Wave</th>
            <th>Nodes</th>
            <th>Planned done after</th>
            <th>Done after</th>
          </tr>
        </thead>
        <tbody>
          {record.waves.slice(0, 30).map((w, k) => {
            const times = w.nodes.map(actualOf);
            const finished = times.every((t) => t !== undefined);
            const end = finished && times.length ? Math.max(...(times as number[])) : undefined;
            return (
              <tr key={k}>
                <td>{k + 1}</td>
                <NodeNamesCell names={w.nodes} max={6} />
                <td>{w.endsAt !== undefined ? formatDuration(w.endsAt) : '—'}</td>
                <td>
                  {end !== undefined ? formatDuration(end) : w.stalls.length ? 'stalled' : '—'}
                  {end !== undefined && w.endsAt ? <span className="muted"> ({pct((end - w.endsAt) / w.endsAt)})</span> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {record.waves.length > 30 && <p className="muted">and {record.waves.length - 30} more waves</p>}
      <PerNode>
        {() => (
          <table className="simple">
            <thead>
              <tr>
                <th>Node</th>
                <th>Wave</th>
                <th>Planned done after</th>
                <th>Done after</th>
              </tr>
            </thead>
            <tbody>
              {record.waves
                .flatMap((w, k) => w.nodes.map((n) => ({ n, k })))
                .slice(0, 300)
                .map(({ n, k }) => {
                  const a = actualOf(n);
                  const p = record.nodeFinish[n];
                  return (
                    <tr key={n} data-plan-node={n}>
                      <td className="mono">{n}</td>
                      <td>{k + 1}</td>
                      <td>{p !== undefined ? formatDuration(p) : 'stalls'}</td>
                      <td>
                        {a !== undefined ? formatDuration(a) : '—'}
                        {a !== undefined && p ? <span className="muted"> ({pct((a - p) / p)})</span> : null}
                      </td>
                    </tr>
                  );
                })}
            </tbody>
          </table>
        )}
      </PerNode>
    </details>
  );
});

/**
 * The per-node table, made only once opened: up to 300 rows a large rollout would otherwise redraw unseen.
 * A function, so that while closed its rows are not made at all (they were, on each outcome, and dropped).
 */
function PerNode({ children }: { children: () => ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Per node</summary>
      {open && children()}
    </details>
  );
}
