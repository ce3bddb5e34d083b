// The recorded events a rollout view shows: the kubelet's (or anyone's) last
// warning about each node's daemon pod, or about the node itself, which says
// why a node is stalled; and the events about the DaemonSet and its pods for
// the timeline.
import type { KubeObject } from '../../../kinds/kind.ts';
import { eventFrom, eventMessage, involvedOf, lastSeenMs } from '../../../kinds/events.ts';
import type { NodeRow } from './rollout.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { podKind } from '../../../kinds/pod.ts';
import { nodeKind } from '../../../kinds/node.ts';

export interface RecordedEvent {
  at: number;
  type: string;
  reason: string;
  message: string;
  from: string;
  object: string;
  /** `<object>.<hex nanoseconds>` from the recorder: orders events of one second. */
  name: string;
}

const toRecorded = (e: any): RecordedEvent => {
  const io = involvedOf(e);
  return { at: lastSeenMs(e), type: e.type || 'Normal', reason: e.reason ?? '', message: eventMessage(e), from: eventFrom(e), object: `${io.kind}/${io.name}`, name: e.metadata?.name ?? '' };
};

export function rolloutEvents(ds: KubeObject, rows: NodeRow[], events: readonly KubeObject[]): { lastWarning: Map<string, RecordedEvent>; about: RecordedEvent[] } {
  const nodeOfPod = new Map<string, string>();
  for (const r of rows) for (const p of r.pods) nodeOfPod.set(p.name, r.nodeName);
  const nodes = new Set(rows.map((r) => r.nodeName));
  const lastWarning = new Map<string, RecordedEvent>();
  const about: RecordedEvent[] = [];
  for (const e of events as any[]) {
    const io = involvedOf(e);
    const isDs = io.kind === daemonSetKind.kind && io.name === ds.metadata.name && io.namespace === ds.metadata.namespace;
    const podNode = io.kind === podKind.kind && io.namespace === ds.metadata.namespace ? nodeOfPod.get(io.name ?? '') : undefined;
    const node = podNode ?? (io.kind === nodeKind.kind && nodes.has(io.name ?? '') ? io.name : undefined);
    if (!isDs && !podNode) {
      if (!node) continue;
    } else about.push(toRecorded(e));
    if (node && e.type === 'Warning') {
      const r = toRecorded(e);
      const prev = lastWarning.get(node);
      if (!prev || r.at > prev.at || (r.at === prev.at && r.name > prev.name)) lastWarning.set(node, r);
    }
  }
  about.sort((a, b) => b.at - a.at);
  return { lastWarning, about };
}
