// A node page's cordon, uncordon and drain (drain.ts does them). The drain
// dialog says first which pods leave and which stay, then how the drain
// stands: evicted, refused for now, still terminating.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { useConnection } from '../../api/connection.ts';
import { useCanI } from '../../api/access.ts';
import { ConfirmDialog, ErrorAlert, useStoppable } from '../../components/common.tsx';
import { cordon, drain, DrainStopped, isCordoned, type DrainProgress } from './drain.ts';
import { NodeDrainPreview } from './DrainPreview.tsx';
import { DrainStanding } from './DrainStanding.tsx';

interface DrainRun {
  phase: 'asking' | 'running' | 'stopped' | 'done' | 'failed';
  progress?: DrainProgress;
  error?: unknown;
}

export function NodeActions({ object }: { object: KubeObject }) {
  const conn = useConnection();
  const name = object.metadata.name!;
  const unschedulable = isCordoned(object);
  const [run, setRun] = useState<DrainRun>();
  const stoppable = useStoppable();
  const toggle = useMutation({ mutationFn: () => cordon(conn, name, !unschedulable) });
  // Cordon patches the node; drain also evicts pods in any namespace.
  const canPatch = useCanI('patch', nodeKind, undefined, undefined, name);
  const canEvict = useCanI('create', podKind, undefined, 'eviction');
  const drainRefused = [canPatch, canEvict].find((a) => a?.allowed === false);

  const start = () => {
    const signal = stoppable.start();
    setRun({ phase: 'running' });
    drain(conn, object, { signal, onProgress: (progress) => setRun((r) => r && { ...r, progress }) }).then(
      (progress) => setRun({ phase: 'done', progress }),
      (error) => setRun((r) => ({ ...r, phase: error instanceof DrainStopped ? 'stopped' : 'failed', error })),
    );
  };
  const phase = run?.phase;
  return (
    <>
      <button className="btn" onClick={() => toggle.mutate()} disabled={toggle.isPending || canPatch?.allowed === false} title={canPatch?.allowed === false ? canPatch.message : undefined}>
        {unschedulable ? 'Uncordon' : 'Cordon'}
      </button>
      <button className="btn" onClick={() => setRun({ phase: 'asking' })} disabled={!!drainRefused} title={drainRefused?.message}>
        Drain
      </button>
      {toggle.error && <ErrorAlert error={toggle.error} />}
      {run && (
        <ConfirmDialog
          open
          title={phase === 'asking' ? `Drain node ${name}?` : phase === 'done' ? `Node ${name} drained` : `Draining node ${name}`}
          danger={phase === 'asking'}
          confirmLabel={phase === 'asking' ? `Drain ${name}` : phase === 'running' ? 'Draining…' : 'Done'}
          busy={phase === 'running'}
          stoppable
          cancelLabel={phase === 'running' ? 'Stop' : phase === 'asking' ? 'Cancel' : null}
          onConfirm={() => (phase === 'asking' ? start() : setRun(undefined))}
          onCancel={() => (phase === 'running' ? stoppable.stop() : setRun(undefined))}
        >
          <p>
            The node is cordoned, then every pod on it is evicted except those owned by a DaemonSet, and the drain waits until they are gone (as <code>kubectl drain --ignore-daemonsets</code>).
          </p>
          {phase === 'asking' ? <NodeDrainPreview node={name} /> : run.progress && <DrainStanding progress={run.progress} />}
          {phase === 'done' && <div className="alert info">Drained: no pod but those left in place runs on {name}.</div>}
          {phase === 'stopped' && <div className="alert warn">{(run.error as Error).message}; the node stays cordoned.</div>}
          {phase === 'failed' && <ErrorAlert error={run.error} />}
        </ConfirmDialog>
      )}
    </>
  );
}
