// Cordon, uncordon or drain every node the Nodes list shows (its name filter
// and label selector pick them), as `kubectl cordon -l <selector>` and
// `kubectl drain -l <selector> --ignore-daemonsets` do: before a zone's
// maintenance, 1,667 nodes are one action, not 1,667 pages.
import { useMemo, useState } from 'react';
import type { KubeObject } from '../../../kinds/kind.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { count, plural, someOf } from '../../../lib/words.ts';
import { useConnection } from '../../api/connection.ts';
import { useCanI } from '../../api/access.ts';
import { errorText, type Connection } from '../../api/client.ts';
import { ConfirmDialog, Meter, useStoppable } from '../../components/common.tsx';
import { cordon, drain, DRAINS_AT_ONCE, DrainStopped, forEachNode, isCordoned, NODES_AT_ONCE, type DrainOptions, type DrainProgress } from './drain.ts';
import { DrainStanding } from './DrainStanding.tsx';
import { NodesDrainPreview } from './DrainPreview.tsx';

/** What an action does to one node, and how it is told. */
interface NodeAction {
  verb: string;
  doing: string;
  done: string;
  /** The nodes it changes; the others shown are so already (`already`). */
  picks(node: KubeObject): boolean;
  already?: string;
  explain: string;
  /** Does it to one node (as the list holds it); resolves to the pods it evicted there. */
  run(conn: Connection, node: KubeObject, opts: DrainOptions): Promise<number>;
  /** It evicts pods: it needs `create pods/eviction` too, says how many went, and asks as a danger. */
  evicts?: boolean;
  /** Nodes worked on at once. */
  atOnce: number;
}

const ACTIONS = {
  cordon: {
    verb: 'Cordon',
    doing: 'Cordoning',
    done: 'cordoned',
    picks: (n) => !isCordoned(n),
    already: 'cordoned',
    explain: 'No new pods are scheduled on them; the pods there keep running (as kubectl cordon).',
    run: (conn, node) => cordon(conn, node.metadata.name!, true).then(() => 0),
    atOnce: NODES_AT_ONCE,
  },
  uncordon: {
    verb: 'Uncordon',
    doing: 'Uncordoning',
    done: 'uncordoned',
    picks: (n) => isCordoned(n),
    already: 'schedulable',
    explain: 'New pods may be scheduled on them again (as kubectl uncordon).',
    run: (conn, node) => cordon(conn, node.metadata.name!, false).then(() => 0),
    atOnce: NODES_AT_ONCE,
  },
  drain: {
    verb: 'Drain',
    doing: 'Draining',
    done: 'drained',
    picks: () => true,
    explain: 'Each is cordoned, then every pod on it is evicted except those owned by a DaemonSet, and its drain ends when they are gone (as kubectl drain --ignore-daemonsets).',
    run: (conn, node, opts) => drain(conn, node, opts).then((d) => d.evicted.length),
    evicts: true,
    atOnce: DRAINS_AT_ONCE,
  },
} satisfies Record<string, NodeAction>;
type ActionName = keyof typeof ACTIONS;

interface Run {
  action: ActionName;
  /** The nodes to change, fixed when asked: the list may move meanwhile. */
  nodes: KubeObject[];
  /** Shown but already so, left alone. */
  already: number;
  phase: 'asking' | 'running' | 'stopped' | 'done';
  changed: number;
  /** Pods evicted on the nodes settled. */
  evicted: number;
  failed: { name: string; message: string }[];
  /** Nodes whose drain was under way when stopped: cordoned, some pods maybe still there. */
  interrupted: number;
  /** The drains under way, together. */
  live: Pick<DrainProgress, 'evicted' | 'terminating' | 'refused'>;
}

const NO_DRAIN: Run['live'] = { evicted: [], terminating: [], refused: [] };

/** The drains under way as one. */
const together = (drains: Iterable<DrainProgress>): Run['live'] => {
  const all = [...drains];
  return { evicted: all.flatMap((d) => d.evicted), terminating: all.flatMap((d) => d.terminating), refused: all.flatMap((d) => d.refused) };
};

export function NodeListActions({ items, whole }: { items: readonly KubeObject[]; whole: boolean }) {
  const conn = useConnection();
  const canPatch = useCanI('patch', nodeKind);
  const canEvict = useCanI('create', podKind, undefined, 'eviction');
  const [run, setRun] = useState<Run>();
  const stoppable = useStoppable();

  const ask = (action: ActionName) => {
    const nodes = items.filter((n) => ACTIONS[action].picks(n));
    setRun({ action, nodes, already: items.length - nodes.length, phase: 'asking', changed: 0, evicted: 0, failed: [], interrupted: 0, live: NO_DRAIN });
  };
  const start = (r: Run) => {
    const signal = stoppable.start();
    setRun({ ...r, phase: 'running' });
    const action: NodeAction = ACTIONS[r.action];
    const drains = new Map<string, DrainProgress>();
    const heard = (name: string, progress: DrainProgress) => {
      drains.set(name, progress);
      setRun((now) => now && { ...now, live: together(drains.values()) });
    };
    void forEachNode(
      r.nodes,
      (node) => action.run(conn, node, { signal, onProgress: (p) => heard(node.metadata.name!, p) }),
      (node, error, evicted = 0) => {
        const name = node.metadata.name!;
        drains.delete(name);
        const live = together(drains.values());
        setRun(
          (now) =>
            now &&
            (error instanceof DrainStopped
              ? { ...now, live, interrupted: now.interrupted + 1 }
              : error
                ? { ...now, live, failed: [...now.failed, { name, message: errorText(error) }] }
                : { ...now, live, changed: now.changed + 1, evicted: now.evicted + evicted }),
        );
      },
      signal,
      action.atOnce,
    ).then(() => setRun((now) => now && { ...now, phase: signal.aborted ? 'stopped' : 'done' }));
  };

  const button = (name: ActionName) => {
    const action: NodeAction = ACTIONS[name];
    const todo = items.reduce((n, o) => n + Number(action.picks(o)), 0);
    const refused = [canPatch, ...(action.evicts ? [canEvict] : [])].find((a) => a?.allowed === false);
    const why = refused ? refused.message : !whole ? 'The list is still being read: every node it shows is needed first.' : !todo ? `Every node shown is ${action.already ?? action.done} already.` : undefined;
    return (
      <button key={name} className="btn" onClick={() => ask(name)} disabled={!!why} title={why ?? `${action.verb} the ${plural(todo, 'node')} shown`}>
        {action.verb} shown
      </button>
    );
  };

  const action: NodeAction | undefined = run && ACTIONS[run.action];
  // Named once per run, not at each of the hundreds of renders a drain's progress makes.
  const names = useMemo(() => run?.nodes.map((n) => n.metadata.name!) ?? [], [run?.nodes]);
  const settled = run ? run.changed + run.failed.length + run.interrupted : 0;
  return (
    <>
      {(Object.keys(ACTIONS) as ActionName[]).map(button)}
      {run && action && (
        <ConfirmDialog
          open
          title={`${action.verb} ${plural(run.nodes.length, 'node')}?`}
          danger={action.evicts && run.phase === 'asking'}
          confirmLabel={run.phase === 'asking' ? `${action.verb} ${plural(run.nodes.length, 'node')}` : run.phase === 'running' ? `${action.doing}…` : 'Done'}
          busy={run.phase === 'running'}
          stoppable
          cancelLabel={run.phase === 'running' ? 'Stop' : run.phase === 'asking' ? 'Cancel' : null}
          onConfirm={() => (run.phase === 'asking' ? start(run) : setRun(undefined))}
          onCancel={() => (run.phase === 'running' ? stoppable.stop() : setRun(undefined))}
        >
          <p>
            {action.explain} The nodes shown by the filters: <span className="mono">{someOf(names)}</span>.
          </p>
          {run.phase === 'asking' && action.evicts && <NodesDrainPreview nodes={run.nodes} />}
          {run.already > 0 && action.already && (
            <p className="muted">
              {plural(run.already, 'other node')} shown {run.already === 1 ? 'is' : 'are'} {action.already} already and left as {run.already === 1 ? 'it is' : 'they are'}.
            </p>
          )}
          {run.phase !== 'asking' && (
            <div data-testid="bulk-progress">
              <Meter value={settled} max={run.nodes.length} label={`Nodes ${action.done}`} />
              <p>
                {count(run.changed)} of {plural(run.nodes.length, 'node')} {action.done}
                {action.evicts && ` (${plural(run.evicted, 'pod')} evicted)`}
                {run.failed.length > 0 && `, ${count(run.failed.length)} failed`}
                {run.phase === 'running'
                  ? '…'
                  : run.phase === 'stopped'
                    ? `; stopped${run.interrupted ? `, ${plural(run.interrupted, 'node')} left part-drained (cordoned)` : ''}, ${count(run.nodes.length - settled)} not tried.`
                    : '.'}
              </p>
            </div>
          )}
          {run.phase === 'running' && action.evicts && run.live.evicted.length + run.live.refused.length > 0 && (
            <>
              <p className="muted">On the nodes under way:</p>
              <DrainStanding progress={run.live} />
            </>
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
