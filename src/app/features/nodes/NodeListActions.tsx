// Cordon or uncordon every node the Nodes list shows (its name filter and
// label selector pick them), as `kubectl cordon -l <selector>` does: before a
// zone's maintenance, 500 nodes are one action, not 500 pages.
import { useRef, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { count, plural } from '../../../lib/words.ts';
import { useConnection } from '../../api/connection.ts';
import { useCanI } from '../../api/access.ts';
import { KubeError } from '../../api/client.ts';
import { ConfirmDialog, Meter } from '../../components/common.tsx';
import { cordon, forEachNode, isCordoned } from './cordon.ts';

/** Names shown in the dialog before "and N more". */
const NAMED = 5;

interface Run {
  unschedulable: boolean;
  /** The nodes to change, fixed when asked: the list may move meanwhile. */
  names: string[];
  /** Shown but already so, left alone. */
  already: number;
  phase: 'asking' | 'running' | 'stopped' | 'done';
  changed: number;
  failed: { name: string; message: string }[];
}

const verbOf = (unschedulable: boolean) => (unschedulable ? 'Cordon' : 'Uncordon');
const someOf = (names: readonly string[]) => `${names.slice(0, NAMED).join(', ')}${names.length > NAMED ? ` and ${count(names.length - NAMED)} more` : ''}`;

export function NodeListActions({ items, whole }: { items: readonly KubeObject[]; whole: boolean }) {
  const conn = useConnection();
  const canPatch = useCanI('patch', nodeKind);
  const [run, setRun] = useState<Run>();
  const stop = useRef<AbortController>(undefined);

  const ask = (unschedulable: boolean) => {
    const names = items.filter((n) => isCordoned(n) !== unschedulable).map((n) => n.metadata.name!);
    setRun({ unschedulable, names, already: items.length - names.length, phase: 'asking', changed: 0, failed: [] });
  };
  const start = (r: Run) => {
    const controller = new AbortController();
    stop.current = controller;
    setRun({ ...r, phase: 'running' });
    void forEachNode(
      r.names,
      (name) => cordon(conn, name, r.unschedulable),
      (name, error) =>
        setRun((now) =>
          now && (error ? { ...now, failed: [...now.failed, { name, message: error instanceof KubeError && error.reason ? `${error.reason}: ${error.message}` : String((error as Error)?.message ?? error) }] } : { ...now, changed: now.changed + 1 }),
        ),
      controller.signal,
    ).then(() => setRun((now) => now && { ...now, phase: controller.signal.aborted ? 'stopped' : 'done' }));
  };

  const button = (unschedulable: boolean) => {
    const verb = verbOf(unschedulable);
    const todo = items.reduce((n, o) => n + Number(isCordoned(o) !== unschedulable), 0);
    const why =
      canPatch?.allowed === false ? canPatch.message : !whole ? 'The list is still being read: every node it shows is needed first.' : !todo ? `Every node shown is ${unschedulable ? 'cordoned' : 'schedulable'} already.` : undefined;
    return (
      <button className="btn" onClick={() => ask(unschedulable)} disabled={!!why} title={why ?? `${verb} the ${plural(todo, 'node')} shown`}>
        {verb} shown
      </button>
    );
  };

  const settled = run ? run.changed + run.failed.length : 0;
  const past = run?.unschedulable ? 'cordoned' : 'uncordoned';
  return (
    <>
      {button(true)}
      {button(false)}
      {run && (
        <ConfirmDialog
          open
          title={`${verbOf(run.unschedulable)} ${plural(run.names.length, 'node')}?`}
          confirmLabel={run.phase === 'asking' ? `${verbOf(run.unschedulable)} ${plural(run.names.length, 'node')}` : run.phase === 'running' ? `${verbOf(run.unschedulable)}ing…` : 'Done'}
          busy={run.phase === 'running'}
          stoppable
          cancelLabel={run.phase === 'running' ? 'Stop' : run.phase === 'asking' ? 'Cancel' : null}
          onConfirm={() => (run.phase === 'asking' ? start(run) : setRun(undefined))}
          onCancel={() => (run.phase === 'running' ? stop.current?.abort() : setRun(undefined))}
        >
          <p>
            {run.unschedulable
              ? 'No new pods are scheduled on them; the pods there keep running (as kubectl cordon). '
              : 'New pods may be scheduled on them again (as kubectl uncordon). '}
            The nodes shown by the filters: <span className="mono">{someOf(run.names)}</span>.
          </p>
          {run.already > 0 && <p className="muted">{plural(run.already, 'other node')} shown {run.already === 1 ? 'is' : 'are'} {run.unschedulable ? 'cordoned' : 'schedulable'} already and left as {run.already === 1 ? 'it is' : 'they are'}.</p>}
          {run.phase !== 'asking' && (
            <div data-testid="bulk-progress">
              <Meter value={settled} max={run.names.length} label={`Nodes ${past}`} />
              <p>
                {count(run.changed)} of {plural(run.names.length, 'node')} {past}
                {run.failed.length > 0 && `, ${count(run.failed.length)} failed`}
                {run.phase === 'running' ? '…' : run.phase === 'stopped' ? `; stopped, ${count(run.names.length - settled)} not tried.` : '.'}
              </p>
            </div>
          )}
          {run.failed.length > 0 && (
            <div className="alert bad" role="alert">
              <ul>
                {run.failed.slice(0, 10).map((f) => (
                  <li key={f.name}>
                    <span className="mono">{f.name}</span>: {f.message}
                  </li>
                ))}
              </ul>
              {run.failed.length > 10 && <p>and {plural(run.failed.length - 10, 'other')}.</p>}
            </div>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
