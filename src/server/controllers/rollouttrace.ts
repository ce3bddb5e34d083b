// Timestamps of each hop of a pod's chain of reactions (the DaemonSet
// controller, the scheduler, the simulated kubelets): when a controller saw an
// event, when its work queue or timer let it act, when it asked for a write
// and when the write came back. Off unless ROLLOUT_TRACE names a file; the
// records are written there as the process exits, for bench/rolloutpath.ts.
import { renameSync, writeFileSync } from 'node:fs';
import type { KubeObject } from '../../kinds/kind.ts';
import { isPodReady } from '../../lib/rollout.ts';
import type { CacheEvent } from '../watch/cache.ts';

const file = process.env.ROLLOUT_TRACE;
/** [ms since the epoch, what happened, the pod (or node, DaemonSet) it concerns, detail]. */
const records: [number, string, string, string?][] = [];

/** Whether hops are being recorded (callers skip working out a detail otherwise). */
export const tracing = !!file;

export function trace(what: string, key: string, detail?: string) {
  if (file) records.push([performance.timeOrigin + performance.now(), what, key, detail]);
}

if (file) {
  process.on('exit', () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(records));
    renameSync(`${file}.tmp`, file);
  });
}

/** What a pod event means for the rollout's chain (bench/rolloutpath.ts), recorded as `<who>.see.<what>`. */
export function tracePodEvent(who: string, e: CacheEvent) {
  const pod = e.object.object;
  const name = pod.metadata.name!;
  const ready = (p: KubeObject | undefined) => !!p && isPodReady(p);
  if (e.type === 'DELETED') trace(`${who}.see.deleted`, name);
  else if (!e.previous) trace(`${who}.see.added`, name);
  else {
    if (pod.metadata.deletionTimestamp && !e.previous.metadata.deletionTimestamp) trace(`${who}.see.terminating`, name);
    if ((pod.spec as any)?.nodeName && !(e.previous.spec as any)?.nodeName) trace(`${who}.see.bound`, name);
    if (ready(pod) && !ready(e.previous)) trace(`${who}.see.ready`, name);
    if ((pod.status as any)?.phase === 'Running' && (e.previous.status as any)?.phase !== 'Running') trace(`${who}.see.running`, name);
  }
}
