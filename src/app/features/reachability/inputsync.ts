// The live cluster as the reachability worker keeps it: the page sends what
// changed since its last message, each object trimmed to what the engine
// reads, and the worker keeps its copy by uid. At 60,000 pods the whole input
// sent on each change (and a text of it all, 18 MB, made to tell whether
// anything changed) kept the page's thread busy for most of the list's load;
// a pod's status update that changes nothing the engine reads sends nothing.
import type { KubeObject } from '../../../kinds/kind.ts';
import type { ContainerPortLike, NamespaceLike, NetworkPolicyLike, NodeLike, PodLike, ReachabilityInput } from '../../../lib/reachability/index.ts';
import { uidOf } from '../../api/watch.ts';

type Lists = keyof ReachabilityInput;
type Item<K extends Lists> = ReachabilityInput[K][number];

/** What changed in each list: objects set (new or changed), by uid, and uids gone; `reset`: the lists start over. */
export interface InputChanges {
  reset: boolean;
  lists: { [K in Lists]: { set: [string, Item<K>][]; remove: string[] } };
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
/** The page's side: what it sent of each object, so that it sends what changed. */
export class SentInput {
  private sent = new Map<Lists, Map<string, string>>();

  /** The worker starts over (a new one): everything is sent again. */
  reset() {
    this.sent.clear();
  }

  /** The changes since the lists last given; undefined when there are none. */
  changes(lists: { [K in Lists]: readonly KubeObject[] }): InputChanges | undefined {
    const reset = this.sent.size === 0;
    let any = reset;
    const out = {} as InputChanges['lists'];
    for (const list of LISTS) {
      let sent = this.sent.get(list);
      if (!sent) this.sent.set(list, (sent = new Map()));
      const set: [string, unknown][] = [];
      const remove: string[] = [];
      const present = new Set<string>();
      for (const o of lists[list]) {
        const uid = uidOf(o);
        present.add(uid);
        // The text alone is kept (the trimmed objects of 60,000 pods are tens of MB): made again to be sent.
        let text = texts.get(o);
        let item: unknown;
        if (text === undefined) texts.set(o, (text = JSON.stringify((item = trims[list](o)))));
        if (sent.get(uid) === text) continue;
        sent.set(uid, text);
        set.push([uid, item ?? trims[list](o)]);
      }
      for (const uid of sent.keys()) if (!present.has(uid)) remove.push(uid);
      for (const uid of remove) sent.delete(uid);
      (out as Record<Lists, unknown>)[list] = { set, remove };
      any ||= set.length > 0 || remove.length > 0;
    }
    return any ? { reset, lists: out } : undefined;
  }
}

/** The worker's side: its copy of the lists, by uid. */
export class ReceivedInput {
  private lists = new Map<Lists, Map<string, unknown>>();

  /** Takes the changes in; the input as it now is. */
  apply(changes: InputChanges): ReachabilityInput {
    if (changes.reset) this.lists.clear();
    const input = {} as Record<Lists, unknown[]>;
    for (const list of LISTS) {
      let copy = this.lists.get(list);
      if (!copy) this.lists.set(list, (copy = new Map()));
      const { set, remove } = changes.lists[list];
      for (const uid of remove) copy.delete(uid);
      for (const [uid, item] of set) copy.set(uid, item);
      input[list] = [...copy.values()];
    }
    return input as unknown as ReachabilityInput;
  }
}
