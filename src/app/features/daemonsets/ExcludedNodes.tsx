// The nodes a DaemonSet leaves out, and its pods bound to no node, below the
// rollout's node grid. A DaemonSet on a few nodes of a large cluster (an agent
// for one zone, or for GPU nodes only) leaves out nearly all of them: a row per
// node was a table of 5,000 rows (25,000 elements) drawn again at every watch
// flush. So the nodes go by reason, each reason one row with its count and its
// nodes' names as one text; only the nodes left out that still have a daemon
// pod (misscheduled, or kept as a NoSchedule taint allows) and the orphan pods
// get rows of their own, the first MAX_ROWS of each.
import { memo } from 'react';
import { Badge } from '../../components/common.tsx';
import { Link, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { plural } from '../../../lib/words.ts';
import type { ExcludedNode, PodCell } from './rollout.ts';

/** Rows drawn at most for the nodes left out with a daemon pod, and for the orphan pods. */
export const MAX_ROWS = 100;

/** The nodes left out by reason, the most first (then by reason). */
export function byReason(excluded: readonly ExcludedNode[]): { reason: string; nodes: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const e of excluded) {
    const names = groups.get(e.reason);
    if (names) names.push(e.nodeName);
    else groups.set(e.reason, [e.nodeName]);
  }
  return [...groups].map(([reason, nodes]) => ({ reason, nodes })).sort((a, b) => b.nodes.length - a.nodes.length || a.reason.localeCompare(b.reason));
}

const more = (n: number, what: string) => (n > 0 ? <p className="muted">and {n} more {what}</p> : null);

/**
 * `nodesComplete`: every node is read. Until then a pod whose node is not read yet is no orphan: the
 * pods' list often completes first, and every pod then looked bound to no existing node.
 */
export const ExcludedNodes = memo(function ExcludedNodes({ excluded, orphans, nodesComplete }: { excluded: readonly ExcludedNode[]; orphans: readonly PodCell[]; nodesComplete: boolean }) {
  const shownOrphans = nodesComplete ? orphans : [];
  if (!excluded.length && !shownOrphans.length) return null;
  const withPods = excluded.filter((e) => e.pods.length > 0);
  const anyMisscheduled = withPods.some((e) => e.misscheduled);
  return (
    <details className="excluded" open={anyMisscheduled || shownOrphans.length > 0} data-testid="excluded-nodes">
      <summary>
        {plural(excluded.length, 'node')} left out
        {anyMisscheduled && <Badge tone="bad">misscheduled pods</Badge>}
        {shownOrphans.length > 0 && <Badge tone="warn">{plural(shownOrphans.length, 'pod')} bound to no node</Badge>}
      </summary>
      {excluded.length > 0 && (
        <table className="simple excluded-reasons">
          <colgroup>
            <col style={{ width: '40%' }} />
            <col style={{ width: '8%' }} />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th>Why</th>
              <th>Nodes</th>
              <th>Which</th>
            </tr>
          </thead>
          <tbody>
            {byReason(excluded).map((g) => (
              <tr key={g.reason} data-excluded-reason={g.reason}>
                <td>{g.reason}</td>
                <td>{g.nodes.length}</td>
                <td>
                  <div className="mono excluded-names">{g.nodes.join(', ')}</div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {withPods.length > 0 && (
        <table className="simple">
          <tbody>
            {withPods.slice(0, MAX_ROWS).map((e) => (
              <tr key={e.nodeName} data-excluded={e.nodeName}>
                <td className="mono">
                  <Link to={withSearch(detailPath(nodeKind, { metadata: { name: e.nodeName } }))}>{e.nodeName}</Link>
                </td>
                <td>{e.reason}</td>
                <td>
                  {e.misscheduled ? <Badge tone="bad">misscheduled: {e.pods.map((p) => p.name).join(', ')}</Badge> : <Badge tone="warn">pod kept: {e.pods.map((p) => p.name).join(', ')}</Badge>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more(withPods.length - MAX_ROWS, 'nodes left out with a pod')}
      {shownOrphans.length > 0 && (
        <table className="simple">
          <tbody>
            {shownOrphans.slice(0, MAX_ROWS).map((p) => (
              <tr key={p.uid} data-orphan={p.name}>
                <td className="mono">{p.name}</td>
                <td>pod not bound to an existing node</td>
                <td>
                  <Badge tone="warn">{p.state}</Badge>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more(shownOrphans.length - MAX_ROWS, 'pods bound to no node')}
    </details>
  );
});
