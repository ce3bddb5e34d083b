// A pod readably: where it runs, its phase and readiness, and its containers.
import type { KubeObject } from '../../../kinds/kind.ts';
import { Age, Badge } from '../../components/common.tsx';
import { conditionOf } from '../../../lib/conditions.ts';

export function PodDetails({ object }: { object: KubeObject }) {
  const spec = (object.spec ?? {}) as any;
  const status = (object.status ?? {}) as any;
  const ready = conditionOf(object, 'Ready');
  return (
    <div className="grid2">
      <section className="panel">
        <h2>
          Pod <Badge tone={status.phase === 'Running' ? 'ok' : status.phase === 'Failed' ? 'bad' : 'warn'}>{status.phase ?? 'Unknown'}</Badge>
          {ready && <Badge tone={ready.status === 'True' ? 'ok' : 'warn'}>{ready.status === 'True' ? 'Ready' : 'Not ready'}</Badge>}
        </h2>
        <div className="body">
          <dl className="kv">
            <dt>Node</dt>
            <dd className="mono">{spec.nodeName ?? '—'}</dd>
            <dt>Pod IP</dt>
            <dd className="mono">{status.podIP ?? '—'}</dd>
            <dt>Started</dt>
            <dd>
              <Age time={status.startTime} suffix=" ago" />
            </dd>
          </dl>
        </div>
      </section>
      <section className="panel">
        <h2>Containers</h2>
        <div className="body">
          <table className="simple">
            <tbody>
              {(spec.containers ?? []).map((c: any) => {
                const cs = (status.containerStatuses ?? []).find((s: any) => s.name === c.name);
                return (
                  <tr key={c.name}>
                    <td>
                      <strong>{c.name}</strong>
                    </td>
                    <td className="mono">{c.image}</td>
                    <td>{(c.ports ?? []).map((p: any) => `${p.containerPort}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`).join(', ')}</td>
                    <td>{cs ? `${cs.ready ? 'ready' : 'not ready'}, ${cs.restartCount ?? 0} restarts` : ''}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
