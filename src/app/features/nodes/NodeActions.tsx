// A node page's cordon, uncordon and drain (drain.ts does them).
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { useConnection } from '../../api/connection.ts';
import { useCanI } from '../../api/access.ts';
import { ConfirmDialog, ErrorAlert } from '../../components/common.tsx';
import { cordon, drain, isCordoned } from './drain.ts';

export function NodeActions({ object }: { object: KubeObject }) {
  const conn = useConnection();
  const name = object.metadata.name!;
  const unschedulable = isCordoned(object);
  const [draining, setDraining] = useState(false);
  const toggle = useMutation({ mutationFn: () => cordon(conn, name, !unschedulable) });
  const drainMutation = useMutation({ mutationFn: () => drain(conn, name) });
  // Cordon patches the node; drain also evicts pods in any namespace.
  const canPatch = useCanI('patch', nodeKind, undefined, undefined, name);
  const canEvict = useCanI('create', podKind, undefined, 'eviction');
  const drainRefused = [canPatch, canEvict].find((a) => a?.allowed === false);
  return (
    <>
      <button className="btn" onClick={() => toggle.mutate()} disabled={toggle.isPending || canPatch?.allowed === false} title={canPatch?.allowed === false ? canPatch.message : undefined}>
        {unschedulable ? 'Uncordon' : 'Cordon'}
      </button>
      <button className="btn" onClick={() => (drainMutation.reset(), setDraining(true))} disabled={!!drainRefused} title={drainRefused?.message}>
        Drain
      </button>
      {toggle.error && <ErrorAlert error={toggle.error} />}
      <ConfirmDialog
        open={draining}
        title={`Drain node ${name}?`}
        confirmLabel={drainMutation.isSuccess ? 'Done' : `Drain ${name}`}
        busy={drainMutation.isPending}
        onConfirm={() => (drainMutation.isSuccess ? setDraining(false) : drainMutation.mutate())}
        onCancel={() => setDraining(false)}
      >
        <p>
          The node is cordoned, then every pod on it is evicted except those owned by a DaemonSet (as <code>kubectl drain --ignore-daemonsets</code>).
        </p>
        {drainMutation.data && (
          <div className="alert info">
            Evicted {drainMutation.data.evicted.length} pod(s){drainMutation.data.evicted.length ? `: ${drainMutation.data.evicted.join(', ')}` : ''}. Left{' '}
            {drainMutation.data.skipped.length} DaemonSet or finished pod(s) in place.
          </div>
        )}
        <ErrorAlert error={drainMutation.error} />
      </ConfirmDialog>
    </>
  );
}
