// The rollout plan shown before a DaemonSet change is applied (the editor's
// review, the strategy editor): the waves of nodes in the controller's order
// with the budget each uses, the nodes left out and why, the nodes expected
// to stall, and the forecast with its spread; for a strategy change, the
// plan before and after. The plan is src/lib/rolloutplan.ts over the lists
// the app already watches.
import { useEffect, useMemo } from 'react';
import { controllerRevisionKind } from '../../../kinds/controllerrevision.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { eventKind } from '../../../kinds/events.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { deepEqual } from '../../../lib/json.ts';
import { needsClusterPace, ownPace, paceDonors, planChange, type ClusterView, type RolloutPlan } from '../../../lib/rolloutplan.ts';
import { plural } from '../../../lib/words.ts';
import { useList, useLists } from '../../api/hooks.ts';
import { Badge } from '../../components/common.tsx';
import { formatDuration } from './rollout.ts';
import { recordFrom, savePlan } from './planstore.ts';
import { daemonPods, podEvents, unreadableOf } from './lists.ts';

/**
 * What a plan of `ds` reads, from the app's shared watches: the nodes, the DaemonSet's own pods (by
 * its selector, as its page reads them), the namespace's revisions and DaemonSets, its pods' events
 * (the kubelets' show the old pods' stop), and, when its own rollouts are too few to pace the plan
 * (`current` false: not created yet), the pods of the other DaemonSets whose rollouts give the
 * cluster's pace (paceDonors), not the namespace's whole: with ten DaemonSets on 5000 nodes the
 * review read 60,000 pods (15 s, 215 MB of heap) and planned from the first pages meanwhile.
 * `read` gives the view as the lists are now; `loaded` once each is read whole; `unreadable` when a
 * list no plan can do without (the nodes, its pods, its revisions) cannot be read (RBAC).
 */
export function useClusterView(ds: KubeObject, current: boolean): { read: () => ClusterView; loaded: boolean; unreadable?: string } {
  const ns = ds.metadata.namespace;
  const nodes = useList(nodeKind);
  const own = useList(podKind, ns, daemonPods(ds).selection);
  const revisions = useList(controllerRevisionKind, ns);
  const daemonSets = useList(daemonSetKind, ns);
  const events = useList(eventKind, ns, podEvents(ns).selection);
  // Other DaemonSets that cannot be listed (a user granted this one by name) leave the pace to this one's rollouts or the default.
  const ownRead = own.whole && revisions.whole && (daemonSets.whole || daemonSets.isError);
  // Chosen once, as the DaemonSet's own lists are in: a plan is made from a view read whole, not again on every pod event.
  const donors = useMemo(() => {
    if (!ownRead) return undefined;
    const view = { pods: own.items, revisions: revisions.items, daemonSets: daemonSets.items } as unknown as ClusterView;
    if (current && !needsClusterPace(ownPace(ds as never, view))) return [];
    return paceDonors(current ? (ds as never) : undefined, view).map((d) => daemonPods(d as KubeObject));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ownRead, ds.metadata.uid, current]);
  const donorPods = useLists(donors ?? []);
  const read = () =>
    ({
      nodes: nodes.items,
      pods: donorPods.length ? [...own.items, ...donorPods.flatMap((l) => l.items)] : own.items,
      revisions: revisions.items,
      daemonSets: daemonSets.items,
      events: events.items,
    }) as unknown as ClusterView;
  // Events that cannot be read (RBAC) leave the stop estimated, and a DaemonSet's pods that cannot be the pace estimated: not the plan waiting.
  const loaded = nodes.whole && ownRead && !!donors && donorPods.every((l) => l.whole || l.isError) && (events.whole || events.isError);
  return { read, loaded, unreadable: unreadableOf([['the nodes', nodes], ["the DaemonSet's pods", own], ['its ControllerRevisions', revisions]]) };
}

const strategyOf = (ds: KubeObject | undefined) => {
  const s = (ds?.spec ?? {}) as any;
  return { updateStrategy: s.updateStrategy, minReadySeconds: s.minReadySeconds ?? 0 };
};


/** The plan in one line: waves, budget, time. */
export function PlanLine({ plan, testid }: { plan: RolloutPlan; testid?: string }) {
  if (plan.strategy === 'OnDelete') {
    return <span data-testid={testid}>OnDelete: no rollout; {plural(plan.manual.length, 'node')} change only as their pods are deleted.</span>;
  }
  const nodes = plan.waves.reduce((n, w) => n + w.steps.length, 0);
  const f = plan.forecast;
  return (
    <span data-testid={testid}>
      <strong>{plural(plan.waves.length, 'wave')}</strong> over {plural(nodes, 'node')}, {plan.mode === 'surge' ? 'maxSurge' : 'maxUnavailable'}{' '}
      <strong>{plan.mode === 'surge' ? plan.maxSurge : plan.maxUnavailable}</strong> of {plan.desired}
      {f && (
        <>
          {' '}
          · about <strong>{formatDuration(f.p50)}</strong> <span className="muted">({formatDuration(f.p10)}–{formatDuration(f.p90)})</span>
        </>
      )}
      {f && !f.completes && (
        <>
          {' '}
          <Badge tone="bad">then stalls</Badge>
        </>
      )}
    </span>
  );
}

const MAX_WAVES = 12;
const MAX_NAMES = 8;

/** A wave's nodes in a table cell: the first `max` names, how many more, and all of them on hover. */
export function NodeNamesCell({ names, max }: { names: string[]; max: number }) {
  return (
    <td className="mono plan-nodes" title={names.join(', ')}>
      {names.slice(0, max).join(', ')}
      {names.length > max && <span className="muted"> and {names.length - max} more</span>}
    </td>
  );
}

/** Waves, stalls, nodes left out and not reached. */
export function PlanDetails({ plan }: { plan: RolloutPlan }) {
  const risks = plan.stalls.filter((s) => s.kind === 'risk');
  const stalls = plan.stalls.filter((s) => s.kind === 'stall');
  const waves = plan.waves;
  const waveRow = (w: RolloutPlan['waves'][number]) => {
    const names = w.steps.map((s) => s.nodeName + (s.stall ? ' (stalls)' : s.action === 'remove' ? ' (pod removed)' : s.beyondBudget ? ' (at once)' : ''));
    const counted = w.steps.filter((s) => !s.beyondBudget && s.action !== 'remove').length;
    return (
      <tr key={w.index} data-wave={w.index + 1}>
        <td>{w.index + 1}</td>
        <NodeNamesCell names={names} max={MAX_NAMES} />
        <td>
          {counted + w.held} of {w.limit}
          {w.held > 0 && <span className="muted"> ({w.held} held by stalled)</span>}
        </td>
        <td>{w.endsAt !== undefined ? formatDuration(w.endsAt) : '—'}</td>
      </tr>
    );
  };
  return (
    <div className="plan-details">
      {stalls.length > 0 && (
        <div className="alert bad" role="note" data-testid="plan-stalls">
          Expected to stall, each holding its share of the budget: {stalls.slice(0, 10).map((s) => (
            <div key={s.nodeName}>
              <span className="mono">{s.nodeName}</span>: {s.reason}
            </div>
          ))}
          {stalls.length > 10 && <div>and {stalls.length - 10} more</div>}
          {plan.notReached.length > 0 && (
            <div data-testid="plan-not-reached">
              The rollout stops there: {plural(plan.notReached.length, 'node')} never get the new pod ({plan.notReached.slice(0, MAX_NAMES).join(', ')}
              {plan.notReached.length > MAX_NAMES ? ', …' : ''}).
            </div>
          )}
        </div>
      )}
      {risks.length > 0 && (
        <div className="alert warn" role="note" data-testid="plan-risks">
          {risks.slice(0, 10).map((s) => (
            <div key={s.nodeName}>
              <span className="mono">{s.nodeName}</span>: {s.reason}
            </div>
          ))}
        </div>
      )}
      {waves.length > 0 && (
        <table className="simple plan-waves" data-testid="plan-waves">
          <thead>
            <tr>
              <th>Wave</th>
              <th>Nodes, in the controller's order</th>
              <th>Budget used</th>
              <th>Done after</th>
            </tr>
          </thead>
          <tbody>{waves.slice(0, MAX_WAVES).map(waveRow)}</tbody>
        </table>
      )}
      {waves.length > MAX_WAVES && (
        <details>
          <summary>{plural(waves.length - MAX_WAVES, 'more wave')}</summary>
          <table className="simple plan-waves">
            <tbody>{waves.slice(MAX_WAVES).map(waveRow)}</tbody>
          </table>
        </details>
      )}
      {plan.excluded.length > 0 && (
        <details data-testid="plan-excluded">
          <summary>{plural(plan.excluded.length, 'node')} will not get the new pod</summary>
          <ul className="plan-list">
            {plan.excluded.slice(0, 50).map((e) => (
              <li key={e.nodeName}>
                <span className="mono">{e.nodeName}</span>: {e.reason}
                {e.pod && <span className="muted"> — its pod: {e.pod}</span>}
              </li>
            ))}
            {plan.excluded.length > 50 && <li>and {plan.excluded.length - 50} more</li>}
          </ul>
        </details>
      )}
      {plan.done.length > 0 && <p className="muted">{plural(plan.done.length, 'node')} already run this template.</p>}
      {plan.forecast && <p className="muted">Pace: {plan.forecast.pace.source}; the spread is p10–p90 over runs of the controller's pipeline at that pace, each drawing the per-node times, the pace's drift and move between rollouts, and what was not observed.</p>}
    </div>
  );
}

/**
 * The editor's review of a DaemonSet change: the plan of the rollout it
 * starts, and for a strategy change the plan before and after. A template
 * change's plan is kept (planstore.ts) to judge the rollout against later.
 */
export function DaemonSetReviewPlan({ stored, proposed }: { stored?: KubeObject; proposed: KubeObject }) {
  const { read, loaded, unreadable } = useClusterView(stored ?? proposed, !!stored);
  const templateChanged = !stored || !deepEqual((stored.spec as any)?.template, (proposed.spec as any)?.template);
  const strategyChanged = !!stored && !deepEqual(strategyOf(stored), strategyOf(proposed));
  const result = useMemo(() => {
    if (!loaded || (!templateChanged && !strategyChanged)) return undefined;
    const now = Date.now();
    const view = read();
    const after = planChange({ current: stored as never, proposed: proposed as never, view, now });
    const before = strategyChanged ? planChange({ current: stored as never, proposed: { ...proposed, spec: { ...(proposed.spec as any), ...strategyOf(stored) } } as never, view, now }) : undefined;
    return { after, before };
    // The plan is made once the lists are in, not again on every pod event while the review is open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, stored, proposed]);
  useEffect(() => {
    if (result && templateChanged && stored?.metadata.uid) savePlan(recordFrom(stored, (proposed.spec as any)?.template, result.after.plan, 'review', Date.now()));
  }, [result, templateChanged, stored, proposed]);
  if (!templateChanged && !strategyChanged) return null;
  return (
    <section className="rollout-plan" aria-label="Rollout plan" data-testid="rollout-plan">
      <h3>Rollout plan {result?.after.hypothetical && <span className="muted">for the next template change (the pods are up to date)</span>}</h3>
      {unreadable ? (
        <p className="muted">No plan: {unreadable}.</p>
      ) : !result ? (
        <p className="muted">Reading nodes and pods…</p>
      ) : (
        <PlanBody before={result.before?.plan} after={result.after.plan} />
      )}
    </section>
  );
}

/** One plan, or before and after. */
export function PlanBody({ before, after }: { before?: RolloutPlan; after: RolloutPlan }) {
  return (
    <>
      {before ? (
        <div className="plan-compare">
          <div>
            <span className="muted">Before: </span>
            <PlanLine plan={before} testid="plan-before" />
          </div>
          <div>
            <span className="muted">After: </span>
            <PlanLine plan={after} testid="plan-after" />
            {before.forecast && after.forecast && before.forecast.p50 > 0 && (
              <span className="muted" data-testid="plan-change">
                {' '}
                ({after.waves.length === before.waves.length ? 'same number of waves' : `${before.waves.length} → ${after.waves.length} waves`}, time ×{(after.forecast.p50 / before.forecast.p50).toFixed(2)})
              </span>
            )}
          </div>
        </div>
      ) : (
        <p>
          <PlanLine plan={after} testid="plan-summary" />
        </p>
      )}
      <PlanDetails plan={after} />
    </>
  );
}

/** The strategy editor's preview: the plan with the strategy as stored and as edited, for the pods as they are. */
export function StrategyPlanPreview({ ds, draft }: { ds: KubeObject; draft: KubeObject }) {
  const { read, loaded, unreadable } = useClusterView(ds, true);
  const changed = !deepEqual(strategyOf(ds), strategyOf(draft));
  const plans = useMemo(() => {
    if (!loaded) return undefined;
    const now = Date.now();
    const merged = { ...ds, spec: { ...(ds.spec as any), ...strategyOf(draft) } };
    const view = read();
    try {
      return { before: planChange({ current: ds as never, proposed: ds as never, view, now }), after: planChange({ current: ds as never, proposed: merged as never, view, now }) };
    } catch {
      return undefined; // a value validation will reject
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, ds, draft]);
  if (unreadable)
    return (
      <section className="rollout-plan" aria-label="Rollout plan" data-testid="rollout-plan">
        <p className="muted">No plan: {unreadable}.</p>
      </section>
    );
  if (!plans) return null;
  return (
    <section className="rollout-plan" aria-label="Rollout plan" data-testid="rollout-plan">
      <h3>Rollout plan {plans.after.hypothetical && <span className="muted">for the next template change</span>}</h3>
      <PlanBody before={changed ? plans.before.plan : undefined} after={plans.after.plan} />
    </section>
  );
}
