// The live cluster as the reachability worker keeps it: the page sends what
// changed since its last message, each object trimmed to what the engine
// reads, and the worker keeps its copy by uid. At 60,000 pods the whole input
// sent on each change (and a text of it all, 18 MB, made to tell whether
// anything changed) kept the page's thread busy for most of the list's load;
// a pod's status update that changes nothing the engine reads sends nothing.
// What is set goes as JSON text of the trimmed objects (made anyway, to
// compare), parsed in the worker, in parts: the structured clone of 30,000
// trimmed pods took the page's thread 270 ms; a string is copied at ~6 ms a
// MB, so a part of 2000 pods (~0.6 MB) a few ms.
import type { KubeObject } from '../../../kinds/kind.ts';
import type { ContainerPortLike, NamespaceLike, NetworkPolicyLike, NodeLike, PodLike, ReachabilityInput } from '../../../lib/reachability/index.ts';
import { uidOf, type ListChange } from '../../api/watch.ts';
import { idleTime, type IdleTime } from '../../api/idletime.ts';

type Lists = keyof ReachabilityInput;
type Item<K extends Lists> = ReachabilityInput[K][number];

/**
 * What changed in each list: objects set (new or changed), their uids and a JSON array of their
 * trimmed forms in the same order, and uids gone; `reset`: the lists start over.
 */
export interface InputChanges {
  reset: boolean;
  lists: Record<Lists, { set: { uids: string[]; json: string }; remove: string[] }>;
}

const trimPod = (o: KubeObject): PodLike => {
  const p = o as PodLike & KubeObject;
  const ports = (cs?: { ports?: ContainerPortLike[] }[]) =>
    cs?.map((c) => ({ ports: Array.isArray(c?.ports) ? c.ports.map((x) => ({ name: x?.name, containerPort: x?.containerPort, protocol: x?.protocol })) : undefined }));
  return {
    metadata: { name: p.metadata.name, namespace: p.metadata.namespace, labels: p.metadata.labels },
    spec: { nodeName: p.spec?.nodeName, hostNetwork: p.spec?.hostNetwork, containers: ports(p.spec?.containers), initContainers: ports(p.spec?.initContainers) },
    status: { podIP: p.status?.podIP, podIPs: p.status?.podIPs },
  };
};
const trimNamespace = (o: KubeObject): NamespaceLike => ({ metadata: { name: o.metadata.name, labels: o.metadata.labels } });
const trimNode = (o: KubeObject): NodeLike => ({ metadata: { name: o.metadata.name }, status: { addresses: (o as NodeLike & KubeObject).status?.addresses } });
const trimPolicy = (o: KubeObject): NetworkPolicyLike => ({ metadata: { name: o.metadata.name, namespace: o.metadata.namespace }, spec: (o as NetworkPolicyLike & KubeObject).spec });

const trims: { [K in Lists]: (o: KubeObject) => Item<K> } = { pods: trimPod, namespaces: trimNamespace, policies: trimPolicy, nodes: trimNode };
const LISTS = Object.keys(trims) as Lists[];

/** An object's trimmed text, by object: node heartbeats and pod condition updates change an object but not its text. */
const texts = new WeakMap<KubeObject, string>();
/** The trimmed text of an object: the text alone is kept (the trimmed objects of 60,000 pods are tens of MB), and it is what is sent. */
function textOf(list: Lists, o: KubeObject): string {
  let text = texts.get(o);
  if (text === undefined) texts.set(o, (text = JSON.stringify(trims[list](o))));
  return text;
}
/** Objects looked at in one step of idle time. */
const STEP = 500;
/** Objects set in one message at most: a part's text is copied into the worker on the page's thread (~6 ms a MB). */
const PART = 2000;

/** What changed in a list since it was last looked at: the newest object by uid (undefined: gone), or 'all' when that is not known. */
type Changed = Map<string, KubeObject | undefined> | 'all';

/** The page's side: what it sent of each object, so that it sends what changed. */
export class SentInput {
  private sent = new Map<Lists, Map<string, string>>();
  /** Per list: the items last observed, and what changed since the last changes() (see observe). */
  private tracked = new Map<Lists, { items?: readonly KubeObject[]; changed: Changed }>(LISTS.map((l) => [l, { changed: 'all' }]));

  /** The worker starts over (a new one): everything is sent again. */
  reset() {
    this.sent.clear();
    for (const t of this.tracked.values()) t.changed = 'all';
  }

  /**
   * A list as it now is, with what changed since the state before (ListState.change), so that
   * changes() looks at the objects that changed alone: looking at every one of 60,000 pods for
   * each message to the worker was the page's largest cost through a rollout (3.4 of 45 s). A
   * change that does not follow from the items last observed (a state not seen) makes the next
   * changes() look at every object again.
   */
  observe(list: Lists, items: readonly KubeObject[], change: ListChange | undefined) {
    const t = this.tracked.get(list)!;
    if (t.items === items) return;
    if (t.changed !== 'all' && change && change.from === t.items) {
      for (const o of change.removed) t.changed.set(uidOf(o), undefined);
      for (const o of change.added) t.changed.set(uidOf(o), o);
    } else t.changed = 'all';
    t.items = items;
  }

  /**
   * The changes since the lists last given, in parts of at most PART objects set (the uids gone
   * in the last), made a STEP at a time in the page's idle time: 30,000 new pods trimmed and
   * copied to the worker in one go held the page's thread for 200-400 ms. Nothing when nothing
   * changed. A part is taken as given once the next is asked for (or the parts end).
   */
  async *changes(lists: { [K in Lists]: readonly KubeObject[] }, idle: IdleTime = idleTime()): AsyncGenerator<InputChanges> {
    let reset = this.sent.size === 0;
    let any = reset;
    let part = emptyPart();
    let size = 0;
    const take = () => {
      const out: InputChanges = { reset, lists: {} as InputChanges['lists'] };
      for (const list of LISTS) out.lists[list] = { set: { uids: part[list].uids, json: `[${part[list].items.join(',')}]` }, remove: part[list].remove };
      reset = false;
      part = emptyPart();
      size = 0;
      return out;
    };
    // What changed in each list, taken now: what is observed meanwhile is for the next changes().
    const changed = new Map<Lists, Changed>();
    for (const list of LISTS) {
      const t = this.tracked.get(list)!;
      changed.set(list, !this.sent.has(list) || t.items !== lists[list] ? 'all' : t.changed);
      t.items = lists[list];
      t.changed = new Map();
    }
    for (const list of LISTS) {
      let sent = this.sent.get(list);
      if (!sent) this.sent.set(list, (sent = new Map()));
      const only = changed.get(list)!;
      // Every object looked at: the uids not seen are gone.
      const present = only === 'all' ? new Set<string>() : undefined;
      const look = (uid: string, o: KubeObject | undefined) => {
        if (o === undefined) {
          if (sent.delete(uid)) part[list].remove.push(uid);
          return;
        }
        present?.add(uid);
        const text = textOf(list, o);
        if (sent.get(uid) === text) return;
        sent.set(uid, text);
        part[list].uids.push(uid);
        part[list].items.push(text);
        size++;
        any = true;
      };
      const objects = lists[list];
      const entries = only === 'all' ? undefined : [...only];
      const n = entries ? entries.length : objects.length;
      for (let from = 0; from < n; from += STEP) {
        await idle.room();
        const t0 = performance.now();
        for (let i = from; i < Math.min(n, from + STEP); i++) {
          if (entries) look(entries[i][0], entries[i][1]);
          else look(uidOf(objects[i]), objects[i]);
        }
        idle.took(performance.now() - t0);
        if (size >= PART) yield take();
      }
      if (present) {
        for (const uid of sent.keys()) if (!present.has(uid)) part[list].remove.push(uid);
        for (const uid of part[list].remove) sent.delete(uid);
      }
      any ||= part[list].remove.length > 0;
    }
    if (any) yield take();
  }
}

const emptyPart = () => Object.fromEntries(LISTS.map((l) => [l, { uids: [] as string[], items: [] as string[], remove: [] as string[] }])) as Record<Lists, { uids: string[]; items: string[]; remove: string[] }>;

/** The worker's side: its copy of the lists, by uid. */
export class ReceivedInput {
  private lists = new Map<Lists, Map<string, unknown>>();

  /** Takes a part of the changes in. */
  apply(changes: InputChanges) {
    if (changes.reset) this.lists.clear();
    for (const list of LISTS) {
      let copy = this.lists.get(list);
      if (!copy) this.lists.set(list, (copy = new Map()));
      const { set, remove } = changes.lists[list];
      for (const uid of remove) copy.delete(uid);
      const items = JSON.parse(set.json) as unknown[];
      set.uids.forEach((uid, i) => copy.set(uid, items[i]));
    }
  }

  /** The input as it now is. */
  input(): ReachabilityInput {
    return Object.fromEntries(LISTS.map((list) => [list, [...(this.lists.get(list)?.values() ?? [])]])) as unknown as ReachabilityInput;
  }
}
