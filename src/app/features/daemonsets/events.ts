// The recorded events a rollout view shows: the kubelet's (or anyone's) last
// warning about each node's daemon pod, or about the node itself, which says
// why a node is stalled; and the events about the DaemonSet and its pods for
// the timeline. Kept incrementally: a rollout across 5000 nodes records tens
// of thousands of events, so each update looks only at the events the watch
// added or replaced (by object identity), and a node's warning is looked up
// when its row is drawn.
import type { KubeObject } from '../../../kinds/kind.ts';
import { EventTypeWarning, eventFrom, eventMessage, eventReason, involvedOf, lastSeenMs } from '../../../kinds/events.ts';
import type { NodeRow } from './rollout.ts';
import type { ListChanges } from '../../api/listchanges.ts';
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
  return { at: lastSeenMs(e), type: e.type || 'Normal', reason: eventReason(e), message: eventMessage(e), from: eventFrom(e), object: `${io.kind}/${io.name}`, name: e.metadata?.name ?? '' };
};

const later = (a: RecordedEvent, b: RecordedEvent | undefined) => !b || a.at > b.at || (a.at === b.at && a.name > b.name);

/** The newest events about the DaemonSet and its pods kept for the timeline. */
const MAX_ABOUT = 300;

export class RolloutEvents {
  /** The events already taken in (the watch replaces an event object when it changes). */
  private seen = new WeakSet<KubeObject>();
  /** Each list's items as last taken in, by the list's name. */
  private lists = new Map<string, readonly KubeObject[]>();
  /** The last Warning about each pod (of the DaemonSet's namespace) and each node, by `Pod/<name>` or `Node/<name>`. */
  private warnings = new Map<string, RecordedEvent>();
  private aboutList: RecordedEvent[] = [];
  private aboutByName = new Map<string, RecordedEvent>();
  private sorted = true;
  private listeners = new Set<() => void>();
  /** Bumped when the last warning of a node (or its pod) changes. */
  warningsVersion = 0;

  /**
   * Takes in the events of one list (`list` names it: the page reads a few,
   * lists.ts) as the watch has them now. `isDaemonPod(name)` says whether a pod
   * of that name is (or was) one of the DaemonSet's; an event is judged when
   * it first arrives. `changes`: the watch's changes of the list, so only
   * those since the list given last are looked at.
   */
  update(list: string, ds: KubeObject, events: readonly KubeObject[], isDaemonPod: (name: string) => boolean, changes?: ListChanges): boolean {
    const before = this.lists.get(list) ?? [];
    if (events === before) return false;
    // What the watch says it added (or replaced) since the list taken in last, else the whole list.
    const fresh = changes?.take(before, events)?.flatMap((c) => c.added) ?? events;
    this.lists.set(list, events);
    let changed = false;
    let warned = false;
    for (const e of fresh) {
      if (this.seen.has(e)) continue;
      this.seen.add(e);
      const io = involvedOf(e);
      const isDs = io.kind === daemonSetKind.kind && io.name === ds.metadata.name && io.namespace === ds.metadata.namespace;
      const isPod = io.kind === podKind.kind && io.namespace === ds.metadata.namespace;
      const isNode = io.kind === nodeKind.kind;
      if (!isDs && !isPod && !isNode) continue;
      const r = toRecorded(e);
      if ((isPod || isNode) && r.type === EventTypeWarning) {
        const key = `${io.kind}/${io.name}`;
        if (later(r, this.warnings.get(key))) {
          this.warnings.set(key, r);
          warned = true;
        }
      }
      if (isDs || (isPod && isDaemonPod(io.name ?? ''))) {
        // An event seen again (its count went up) replaces its earlier line.
        this.aboutByName.set(r.name, r);
        this.sorted = false;
        changed = true;
      }
    }
    if (!this.sorted) {
      this.aboutList = [...this.aboutByName.values()].sort((a, b) => b.at - a.at).slice(0, MAX_ABOUT);
      this.aboutByName = new Map(this.aboutList.map((r) => [r.name, r]));
      this.sorted = true;
    }
    if (warned) this.warningsVersion++;
    if (changed || warned) this.listeners.forEach((l) => l());
    return changed || warned;
  }

  /** Hears of each update that changed the warnings or the events about the DaemonSet (a store for useSyncExternalStore). */
  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** The events about the DaemonSet and its pods, newest first (the last MAX_ABOUT); a new array when they change. */
  about = (): RecordedEvent[] => this.aboutList;

  /** The last warning about the node or any of its daemon pods. */
  warningFor(row: NodeRow): RecordedEvent | undefined {
    let best = this.warnings.get(`${nodeKind.kind}/${row.nodeName}`);
    for (const p of row.pods) {
      const w = this.warnings.get(`${podKind.kind}/${p.name}`);
      if (w && later(w, best)) best = w;
    }
    return best;
  }
}
