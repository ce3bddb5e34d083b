// A DaemonSet readably: its rollout, live (RolloutView), its update strategy,
// selector and template, and its status conditions.
import type { KubeObject } from '../../../kinds/kind.ts';
import { formatLabelSelector, formatLabels } from '../../../lib/labels.ts';
import { Age } from '../../components/common.tsx';
import { RolloutView } from './RolloutView.tsx';

interface DaemonSetStatus {
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  updatedNumberScheduled?: number;
  numberMisscheduled?: number;
  observedGeneration?: number;
  collisionCount?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

const describeToleration = (t: { key?: string; operator?: string; value?: string; effect?: string }) =>
  !t.key && t.operator === 'Exists' ? `every taint${t.effect ? ` with effect ${t.effect}` : ''}` : `${t.key}${t.operator === 'Exists' ? '' : `=${t.value ?? ''}`}:${t.effect ?? 'any effect'}`;

export function DaemonSetDetails({ object }: { object: KubeObject }) {
  const spec = (object.spec ?? {}) as any;
  const status = (object.status ?? {}) as DaemonSetStatus;
  const strategy = spec.updateStrategy ?? {};
  return (
    <>
      <RolloutView ds={object} />
      <div className="grid2">
        <section className="panel">
          <h2>Update strategy</h2>
          <div className="body">
            <dl className="kv">
              <dt>Type</dt>
              <dd>{strategy.type ?? 'RollingUpdate'}</dd>
              {strategy.type !== 'OnDelete' && (
                <>
                  <dt>Max unavailable</dt>
                  <dd>{String(strategy.rollingUpdate?.maxUnavailable ?? 1)}</dd>
                  <dt>Max surge</dt>
                  <dd>{String(strategy.rollingUpdate?.maxSurge ?? 0)}</dd>
                </>
              )}
              <dt>Min ready seconds</dt>
              <dd>{spec.minReadySeconds ?? 0}</dd>
              <dt>Revision history</dt>
              <dd>{spec.revisionHistoryLimit ?? 10}</dd>
              <dt>Generation</dt>
              <dd>
                {object.metadata.generation ?? '—'} <span className="muted">(observed {status.observedGeneration ?? '—'})</span>
              </dd>
            </dl>
          </div>
        </section>
        <section className="panel">
          <h2>Template</h2>
          <div className="body">
            <dl className="kv">
              <dt>Selector</dt>
              <dd className="mono">{formatLabelSelector(spec.selector)}</dd>
              <dt>Node selector</dt>
              <dd className="mono">{formatLabels(spec.template?.spec?.nodeSelector)}</dd>
              <dt>Containers</dt>
              <dd>
                {(spec.template?.spec?.containers ?? []).map((c: any) => (
                  <div key={c.name}>
                    <strong>{c.name}</strong> <span className="mono">{c.image}</span>
                  </div>
                ))}
              </dd>
              <dt>Tolerations</dt>
              <dd className="mono">{(spec.template?.spec?.tolerations ?? []).map(describeToleration).join(', ') || '—'}</dd>
            </dl>
          </div>
        </section>
      </div>
      {status.conditions?.length ? (
        <section className="panel">
          <h2>Conditions</h2>
          <div className="body">
            <table className="simple">
              <tbody>
                {status.conditions.map((c) => (
                  <tr key={c.type}>
                    <td>{c.type}</td>
                    <td>{c.status}</td>
                    <td>{c.reason}</td>
                    <td>{c.message}</td>
                    <td>
                      <Age time={c.lastTransitionTime} suffix=" ago" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
    </>
  );
}
