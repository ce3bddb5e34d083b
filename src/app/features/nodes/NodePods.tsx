// The pods bound to a node, live, as `kubectl describe node` lists them: one
// list and watch of pods by `spec.nodeName` across namespaces (the API
// server's cache indexes pods by it, ours and kube-apiserver's), never the
// cluster's every pod. The columns are the Pods list's (the kind's printer columns).
import { useMemo } from 'react';
import { podKind, podsOnNode } from '../../../kinds/pod.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { useList } from '../../api/hooks.ts';
import { ErrorAlert, useNow } from '../../components/common.tsx';
import { cellTone, columnsFor, type Column } from '../../components/ResourceTable.tsx';
import { sortRows } from '../../components/sortedRows.ts';
import { Link, withSearch } from '../../routes/router.tsx';
import { detailPath } from '../resources/types.ts';

/** A cell as the Pods list shows it (a status as a badge). */
function Cell({ column, pod, now }: { column: Column; pod: KubeObject; now: Date }) {
  const v = column.cell(pod, now);
  const tone = cellTone(column.name, v);
  return tone ? <span className={`badge ${tone}`}>{String(v)}</span> : <>{String(v)}</>;
}

export function NodePods({ node }: { node: string }) {
  const selection = useMemo(() => ({ fieldSelector: podsOnNode(node) }), [node]);
  const pods = useList(podKind, undefined, selection);
  const columns = useMemo(() => columnsFor(podKind, false, true), []);
  const now = new Date(useNow());
  // In the Pods list's order when sorted by its Namespace column (then name).
  const rows = useMemo(() => sortRows(undefined, pods.items, columns.find((c) => c.name === 'Namespace')!.sortValue, false).rows, [pods.items, columns]);
  return (
    <section className="panel" aria-label="Pods">
      <h2>
        Pods <span className="muted">{pods.isPending ? '' : rows.length}</span>
      </h2>
      <div className="body">
        <ErrorAlert error={pods.error} />
        {rows.length === 0 ? (
          <p className="muted">{pods.isPending ? 'Loading…' : 'No pods on this node.'}</p>
        ) : (
          <table className="simple">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.name}>{c.name}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.metadata.uid ?? `${p.metadata.namespace}/${p.metadata.name}`}>
                  {columns.map((c) => (
                    <td key={c.name} className={c.name === 'Name' ? 'mono' : 'words'}>
                      {c.name === 'Name' ? <Link to={withSearch(detailPath(podKind, p))}>{p.metadata.name}</Link> : <Cell column={c} pod={p} now={now} />}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}
