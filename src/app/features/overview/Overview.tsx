// The cluster at a glance: counts, nodes that are not Ready, rollouts in
// progress, volumes that failed to attach, and the warning events by reason.
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { networkPolicyKind } from '../../../kinds/networkpolicy.ts';
import { volumeAttachmentKind } from '../../../kinds/volumeattachment.ts';
import { rolloutStatus } from '../../../lib/rollout.ts';
import { count } from '../../../lib/words.ts';
import { useList } from '../../api/hooks.ts';
import { Age, Badge, Meter, NoAccess } from '../../components/common.tsx';
import { isForbidden } from '../../api/client.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import { isCordoned } from '../nodes/drain.ts';
import { conditionOf, isConditionTrue } from '../../../lib/conditions.ts';
import { Warnings } from './Warnings.tsx';


/**
 * Not finished by kubectl's rule (generation observed, all updated and
 * available); an OnDelete DaemonSet, which kubectl does not follow, while its
 * pods are not all updated and available.
 */
export function rolloutInProgress(ds: KubeObject): boolean {
  const status = rolloutStatus(ds as never);
  if (!status.error) return !status.done;
  const s = (ds.status ?? {}) as any;
  const desired = s.desiredNumberScheduled ?? 0;
  return (s.updatedNumberScheduled ?? 0) < desired || (s.numberAvailable ?? 0) < desired;
}

/** A card of the Overview: a list's count, a note, and (the Nodes card's) counts that each open a filtered list. */
interface Card {
  title: string;
  note: string;
  parts?: { text: string; to: string }[];
  to: string;
  bad: boolean;
}

/** The Nodes list filtered to the nodes not Ready (NotReady or Unknown), as the not-ready count and panel link to it. */
const NOT_READY_NODES = '/nodes?status=%21Ready';

export function Overview({ namespace }: { namespace?: string }) {
  const nodes = useList(nodeKind);
  const daemonSets = useList(daemonSetKind, namespace);
  const policies = useList(networkPolicyKind, namespace);
  const attachments = useList(volumeAttachmentKind);
  const notReady = nodes.items.filter((n) => !isConditionTrue(n, 'Ready'));
  const cordoned = nodes.items.filter(isCordoned);
  const rolling = daemonSets.items.filter(rolloutInProgress);
  const failing = attachments.items.filter((v) => (v.status as any)?.attachError || (v.status as any)?.detachError);
  // A list the user may not read is said so, not counted as empty.
  const refused = (l: { error: unknown }) => isForbidden(l.error);
  const noAccess = <NoAccess />;
  // The Nodes card's counts each open the list filtered to them (its Status filter).
  const nodeParts = [
    { text: `${count(notReady.length)} not ready`, to: NOT_READY_NODES },
    { text: `${count(cordoned.length)} cordoned`, to: '/nodes?status=SchedulingDisabled' },
  ];
  const cardsIn: (Card & { list: typeof nodes })[] = [
    { title: 'Nodes', list: nodes, note: nodeParts.map((p) => p.text).join(' · '), parts: nodeParts, to: '/nodes', bad: notReady.length > 0 },
    { title: 'Daemon sets', list: daemonSets, note: `${count(rolling.length)} rolling out`, to: '/daemonsets', bad: false },
    { title: 'Network policies', list: policies, note: namespace ? `in ${namespace}` : 'in all namespaces', to: '/networkpolicies', bad: false },
    { title: 'Volume attachments', list: attachments, note: `${count(failing.length)} with errors`, to: '/volumeattachments', bad: failing.length > 0 },
  ];
  // The counts link to their lists only once they are whole.
  const cards = cardsIn.map(({ list, parts, ...c }): Card & { value: string } => {
    if (refused(list)) return { ...c, value: '—', note: 'no access', bad: false };
    if (list.isPending) return { ...c, value: '…', note: 'loading', bad: false };
    // Later pages still coming: the counts are of what came so far, and say so.
    if (list.partial) return { ...c, value: `${count(list.items.length)}…`, note: `loading; ${c.note} so far` };
    return { ...c, value: count(list.items.length), parts };
  });
  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
      </div>
      <div className="cards">
        {cards.map((c) => (
          // A card is one link, its note part of its name ("Volume attachments 4 1 with errors"); one whose
          // counts open their own filtered lists (the Nodes card's) links its title and number apart.
          c.parts ? (
            <div key={c.title} className="card">
              <Link to={withSearch(c.to)} className="card-main">
                <h3>{c.title}</h3>
                <div className="big">{c.value}</div>
              </Link>
              <div className="note" style={c.bad ? { color: 'var(--bad)' } : undefined}>
                {c.parts.map((p, i) => (
                  <span key={p.to}>
                    {i > 0 && ' · '}
                    <Link to={withSearch(p.to)}>{p.text}</Link>
                  </span>
                ))}
              </div>
            </div>
          ) : (
            <Link key={c.title} to={withSearch(c.to)} className="card card-main">
              <h3>{c.title}</h3>
              <div className="big">{c.value}</div>
              <div className="note" style={c.bad ? { color: 'var(--bad)' } : undefined}>
                {c.note}
              </div>
            </Link>
          )
        ))}
      </div>
      <div className="grid2">
        <section className="panel">
          <h2>
            Nodes not ready {notReady.length > 0 && <Badge tone="bad">{notReady.length}</Badge>} {nodes.partial && <span className="muted">of the nodes listed so far</span>}
          </h2>
          <div className="body">
            {refused(nodes) ? (
              noAccess
            ) : notReady.length === 0 ? (
              <p className="muted">{nodes.partial ? 'Every node listed so far is Ready.' : 'Every node is Ready.'}</p>
            ) : (
              <table className="simple">
                <tbody>
                  {notReady.slice(0, 20).map((n) => {
                    const ready = conditionOf(n, 'Ready');
                    return (
                      <tr key={n.metadata.uid}>
                        <td>
                          <Link to={withSearch(detailPath(nodeKind, n))}>{n.metadata.name}</Link>
                        </td>
                        <td>
                          <Badge tone="bad">{ready ? ready.status : 'no status'}</Badge>
                        </td>
                        <td className="muted">{ready?.reason ?? 'no kubelet has reported'}</td>
                        <td>{ready && <Age time={ready.lastTransitionTime} suffix=" ago" />}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
            {notReady.length > 20 && (
              <p>
                and {count(notReady.length - 20)} more: <Link to={withSearch(NOT_READY_NODES)}>every node not Ready, on the Nodes list</Link>
              </p>
            )}
          </div>
        </section>
        <section className="panel">
          <h2>Rollouts in progress {rolling.length > 0 && <Badge tone="info">{rolling.length}</Badge>}</h2>
          <div className="body">
            {rolling.length === 0 ? (
              refused(daemonSets) ? noAccess : <p className="muted">No daemon set is rolling out.</p>
            ) : (
              <table className="simple">
                <tbody>
                  {rolling.map((ds) => {
                    const s = (ds.status ?? {}) as any;
                    return (
                      <tr key={ds.metadata.uid}>
                        <td className="words">
                          <Link to={withSearch(`/daemonsets/${ds.metadata.namespace}/${ds.metadata.name}`)}>
                            {ds.metadata.namespace}/<wbr />
                            {ds.metadata.name}
                          </Link>
                        </td>
                        <td style={{ width: '40%' }}>
                          <Meter value={s.updatedNumberScheduled ?? 0} max={s.desiredNumberScheduled ?? 0} label="updated" />
                        </td>
                        <td className="muted">
                          {s.updatedNumberScheduled ?? 0}/{s.desiredNumberScheduled ?? 0} updated, {s.numberAvailable ?? 0} available
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
          </div>
        </section>
      </div>
      <section className="panel">
        <h2>Attach and detach errors {failing.length > 0 && <Badge tone="bad">{failing.length}</Badge>}</h2>
        <div className="body">
          {failing.length === 0 ? (
            refused(attachments) ? noAccess : <p className="muted">No volume attachment reports an error.</p>
          ) : (
            <table className="simple">
              <tbody>
                {failing.map((v) => {
                  const s = (v.status ?? {}) as any;
                  const err = s.attachError ?? s.detachError;
                  return (
                    <tr key={v.metadata.uid}>
                      <td>
                        <Link to={withSearch(`/volumeattachments/${v.metadata.name}`)}>{v.metadata.name}</Link>
                      </td>
                      <td className="mono">{(v.spec as any)?.nodeName}</td>
                      <td>{err?.message}</td>
                      <td>
                        <Age time={err?.time} suffix=" ago" />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
      </section>
      <Warnings namespace={namespace} />
    </>
  );
}
