// What a drain would do, said before it starts: how many pods it evicts and
// how many it leaves, and of those evicted the ones nothing makes again and
// those whose emptyDir data goes with them. For one node (its page), or for
// many (the Nodes list), whose pods are read node by node meanwhile.
import { useEffect, useMemo, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { podKind, podsOnNode } from '../../../kinds/pod.ts';
import { count, plural, someOf } from '../../../lib/words.ts';
import { useConnection } from '../../api/connection.ts';
import { useList } from '../../api/hooks.ts';
import { Meter } from '../../components/common.tsx';
import { noOutlook, readDrainOutlook, withNodePods, type DrainOutlook } from './drain.ts';

const LEFT = 'DaemonSet, mirror or finished pod';

/** `of`: how many nodes the outlook is to cover, for a drain of many; their pods are still being read while `outlook.nodes + outlook.unread.length` is short of it. */
export function DrainPreview({ outlook, of }: { outlook: DrainOutlook; of?: number }) {
  const { evict, stay, orphans, scratch, unread } = outlook;
  const settled = outlook.nodes + unread.length;
  const reading = of !== undefined && settled < of;
  const where = of === undefined ? '' : reading ? `, on ${plural(outlook.nodesToEvict, 'node')}` : `, on ${count(outlook.nodesToEvict)} of the ${plural(of, 'node')}`;
  return (
    <div data-testid="drain-preview">
      {reading && (
        <>
          <Meter value={settled} max={of} label="Nodes whose pods were read" />
          <p className="muted">
            Reading the pods on each node: {count(settled)} of {count(of)} read. So far:
          </p>
        </>
      )}
      <p>
        {evict ? `${plural(evict, 'pod')} to evict${where}` : 'No pod to evict'}
        {stay ? `; ${plural(stay, LEFT)} left in place.` : '.'}
      </p>
      {orphans.length > 0 && (
        <div className="alert warn">
          No controller owns <span className="mono">{someOf(orphans)}</span>: once evicted, nothing makes {orphans.length === 1 ? 'it' : 'them'} again.
        </div>
      )}
      {scratch.length > 0 && (
        <div className="alert warn">
          The emptyDir volumes of <span className="mono">{someOf(scratch)}</span> are deleted with {scratch.length === 1 ? 'it' : 'them'} (kubectl wants --delete-emptydir-data).
        </div>
      )}
      {unread.length > 0 && (
        <div className="alert warn">
          The pods on {plural(unread.length, 'node')} could not be read, so they are not counted: <span className="mono">{unread[0].node}</span>: {unread[0].message}
          {unread.length > 1 && ` (and ${count(unread.length - 1)} more)`}.
        </div>
      )}
    </div>
  );
}

/** What draining the node would do, from its pods as listed and watched now. */
export function NodeDrainPreview({ node }: { node: string }) {
  const selection = useMemo(() => ({ fieldSelector: podsOnNode(node) }), [node]);
  const pods = useList(podKind, undefined, selection);
  const outlook = useMemo(() => withNodePods(noOutlook(), pods.items), [pods.items]);
  if (pods.isPending) return <p className="muted">Reading the node's pods…</p>;
  return <DrainPreview outlook={outlook} />;
}

/**
 * What draining these nodes would do, their pods read node by node while it is
 * shown (a zone's 1,667 nodes take a few seconds; the drain need not wait for
 * it), and no longer once it is gone.
 */
export function NodesDrainPreview({ nodes }: { nodes: readonly KubeObject[] }) {
  const conn = useConnection();
  const [outlook, setOutlook] = useState(noOutlook);
  useEffect(() => {
    const stop = new AbortController();
    setOutlook(noOutlook());
    void readDrainOutlook(
      conn,
      nodes.map((n) => n.metadata.name!),
      { signal: stop.signal, onProgress: setOutlook },
    );
    return () => stop.abort();
  }, [conn, nodes]);
  return <DrainPreview outlook={outlook} of={nodes.length} />;
}
