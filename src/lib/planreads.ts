// The parts of nodes, pods and events that a rollout plan reads (rolloutplan.ts
// and what it calls: rollout.ts, daemonnodes.ts, nodeports.ts, conditions.ts),
// and nothing else. A plan made in a worker gets its lists by copy: whole
// objects, a 5000-node DaemonSet's nodes, pods and the namespace's pod events
// (tens of thousands) were the largest cost on the page's thread as a rollout
// began. Kept here, beside the planner, so that a plan reading a new field
// keeps it here too (liveforecast.test.ts plans from whole objects and
// fails on a field read that these leave out).

type Obj = Record<string, unknown>;

/** The named fields of `o` that it has, or undefined without `o`. */
function pick(o: unknown, keys: readonly string[]): Obj | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const out: Obj = {};
  for (const k of keys) if ((o as Obj)[k] !== undefined) out[k] = (o as Obj)[k];
  return out;
}

const pickEach = (list: unknown, keys: readonly string[]) => (Array.isArray(list) ? list.map((x) => pick(x, keys)) : undefined);

/** What identifies an object in the worker's copy (liveforecast.ts keys by uid, else namespace/name); the name is also read. */
const IDENTITY = ['name', 'namespace', 'uid'] as const;

/** What a condition says (not when it was last heartbeat). */
const CONDITION = ['type', 'status', 'reason', 'message', 'lastTransitionTime'] as const;

/** Where a daemon pod may run (labels, taints; not spec.unschedulable, which daemon pods ignore), whether the node is Ready, and the simulation's fault annotations. */
export function nodeAsPlanned(whole: object) {
  const node = whole as Obj;
  const status = node.status as Obj | undefined;
  return {
    metadata: pick(node.metadata, [...IDENTITY, 'creationTimestamp', 'labels', 'annotations']),
    spec: pick(node.spec, ['taints']),
    status: status?.conditions ? { conditions: pickEach(status.conditions, CONDITION) } : undefined,
  };
}

/** What a container status says of the container now (not its image, ID, restarts or last state: a crash's message can be most of a pod). */
const CONTAINER_STATUS = ['name', 'ready', 'state'] as const;

/** A pod's owner, revision, node, age and state: what the planner counts and explains (not its containers: the template's are planned). */
export function podAsPlanned(whole: object) {
  const pod = whole as Obj;
  const status = pod.status as Obj | undefined;
  return {
    metadata: pick(pod.metadata, [...IDENTITY, 'creationTimestamp', 'deletionTimestamp', 'labels', 'ownerReferences']),
    spec: pick(pod.spec, ['nodeName', 'affinity']),
    status: status && {
      ...pick(status, ['phase', 'reason', 'message']),
      conditions: pickEach(status.conditions, CONDITION),
      containerStatuses: pickEach(status.containerStatuses, CONTAINER_STATUS),
      initContainerStatuses: pickEach(status.initContainerStatuses, CONTAINER_STATUS),
    },
  };
}

/** The pod an event is about (callers list pod events alone, by field selector: the kind is not read). */
const ABOUT = ['name', 'uid'] as const;

/** Who recorded it (component and host), about what, why and when: the old pods' stop is timed from these (rolloutplan.ts: EventLike). */
export function eventAsPlanned(whole: object) {
  const event = whole as Obj;
  return {
    metadata: pick(event.metadata, IDENTITY),
    ...pick(event, ['type', 'reason', 'source', 'deprecatedSource', 'reportingController', 'reportingComponent', 'reportingInstance', 'firstTimestamp', 'deprecatedFirstTimestamp', 'eventTime']),
    involvedObject: pick(event.involvedObject, ABOUT),
    regarding: pick(event.regarding, ABOUT),
  };
}
