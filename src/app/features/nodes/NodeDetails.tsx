// A node readably: conditions with relative times, capacity against
// allocatable, addresses, system info, taints, attached volumes, the pods
// bound to it and its images.
import type { KubeObject } from '../../../kinds/kind.ts';
import { Age, Badge, CamelWords, KeyValues } from '../../components/common.tsx';
import { NodePods } from './NodePods.tsx';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

/** Ready is good when True; the pressure conditions are good when False. */
const conditionTone = (c: Condition) => {
  const good = c.type === 'Ready' ? c.status === 'True' : c.status === 'False';
  return good ? 'ok' : c.status === 'Unknown' ? 'warn' : 'bad';
};

export function NodeDetails({ object }: { object: KubeObject }) {
  const spec = (object.spec ?? {}) as any;
  const status = (object.status ?? {}) as any;
  const conditions: Condition[] = status.conditions ?? [];
  const resources = [...new Set([...Object.keys(status.capacity ?? {}), ...Object.keys(status.allocatable ?? {})])].sort();
  const info = status.nodeInfo ?? {};
  return (
    <>
      <div className="grid2">
        <section className="panel">
          <h2>Conditions</h2>
          <div className="body">
            {conditions.length ? (
              <table className="simple">
                <thead>
                  <tr>
                    <th>Type</th>
                    <th>Status</th>
                    <th>Heartbeat</th>
                    <th>Changed</th>
                    <th>Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {conditions.map((c) => (
                    <tr key={c.type} title={c.message}>
                      <td>
                        <CamelWords text={c.type} />
                      </td>
                      <td>
                        <Badge tone={conditionTone(c)}>{c.status}</Badge>
                      </td>
                      <td>
                        <Age time={c.lastHeartbeatTime} suffix=" ago" />
                      </td>
                      <td>
                        <Age time={c.lastTransitionTime} suffix=" ago" />
                      </td>
                      <td>
                        <CamelWords text={c.reason} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="muted">The node has not reported any condition (no kubelet is posting status).</p>
            )}
          </div>
        </section>
        <section className="panel">
          <h2>Capacity and allocatable</h2>
          <div className="body">
            <table className="simple">
              <thead>
                <tr>
                  <th>Resource</th>
                  <th>Capacity</th>
                  <th>Allocatable</th>
                </tr>
              </thead>
              <tbody>
                {resources.map((r) => (
                  <tr key={r}>
                    <td>{r}</td>
                    <td className="mono">{status.capacity?.[r] ?? '—'}</td>
                    <td className="mono">{status.allocatable?.[r] ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      </div>
      <div className="grid2">
        <section className="panel">
          <h2>System</h2>
          <div className="body">
            <dl className="kv">
              <dt>Schedulable</dt>
              <dd>{spec.unschedulable ? <Badge tone="warn">cordoned (SchedulingDisabled)</Badge> : <Badge tone="ok">yes</Badge>}</dd>
              <dt>Addresses</dt>
              <dd>{(status.addresses ?? []).map((a: any) => `${a.type} ${a.address}`).join(', ') || '—'}</dd>
              <dt>Kubelet</dt>
              <dd>{info.kubeletVersion || '—'}</dd>
              <dt>OS image</dt>
              <dd>{info.osImage || '—'}</dd>
              <dt>Kernel</dt>
              <dd>{info.kernelVersion || '—'}</dd>
              <dt>Runtime</dt>
              <dd>{info.containerRuntimeVersion || '—'}</dd>
              <dt>Architecture</dt>
              <dd>{[info.operatingSystem, info.architecture].filter(Boolean).join('/') || '—'}</dd>
              <dt>Pod CIDRs</dt>
              <dd className="mono">{(spec.podCIDRs ?? (spec.podCIDR ? [spec.podCIDR] : [])).join(', ') || '—'}</dd>
              <dt>Provider ID</dt>
              <dd className="mono">{spec.providerID || '—'}</dd>
              <dt>Kubelet port</dt>
              <dd>{status.daemonEndpoints?.kubeletEndpoint?.Port || '—'}</dd>
            </dl>
          </div>
        </section>
        <section className="panel">
          <h2>Taints</h2>
          <div className="body">
            {spec.taints?.length ? (
              <div className="chips">
                {spec.taints.map((t: any) => (
                  <span className="chip" key={`${t.key}:${t.effect}`}>
                    {t.key}
                    {t.value ? `=${t.value}` : ''}:{t.effect}
                  </span>
                ))}
              </div>
            ) : (
              <span className="muted">No taints: any pod may be scheduled here.</span>
            )}
            <h3 style={{ fontSize: 13, margin: '16px 0 8px' }}>Volumes attached</h3>
            {status.volumesAttached?.length ? (
              <table className="simple">
                <tbody>
                  {status.volumesAttached.map((v: any) => (
                    <tr key={v.name}>
                      <td className="mono">{v.name}</td>
                      <td className="mono">{v.devicePath}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <span className="muted">None.</span>
            )}
          </div>
        </section>
      </div>
      <NodePods node={object.metadata.name!} />
      {status.images?.length ? (
        <section className="panel">
          <h2>Images ({status.images.length})</h2>
          <div className="body">
            <KeyValues map={Object.fromEntries(status.images.map((i: any) => [i.names?.[0] ?? '?', `${Math.round((i.sizeBytes ?? 0) / 1e6)} MB`]))} />
          </div>
        </section>
      ) : null}
    </>
  );
}
