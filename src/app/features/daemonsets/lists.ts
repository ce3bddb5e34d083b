// The lists a DaemonSet's page reads: first those it needs to count its nodes,
// small and free of the page's own code, so the route can start them from the
// address, before the page's chunks have loaded (routes/views.tsx); then the
// recorded events, which only add to the counts (the warnings beside nodes, the
// timeline, the old pods' stop in a plan), so the page reads them once the counts show.
import type { KubeObject } from '../../../kinds/kind.ts';
import { eventKind, eventsAbout, nodeWarnings, podEventsButStarts } from '../../../kinds/events.ts';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { controllerRevisionKind } from '../../../kinds/controllerrevision.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { selectorParam } from '../../../lib/labels.ts';
import type { ListRef } from '../../api/hooks.ts';
import { errorText } from '../../api/client.ts';

/**
 * The DaemonSet's pod selector as a `labelSelector`, so the page lists and watches its own pods
 * only, not the namespace's (ten DaemonSets on 5000 nodes are 50,000 pods, and the others' events
 * would each be parsed and looked at to be thrown away); undefined when it selects everything.
 */
export const podSelectorOf = (ds: KubeObject): string | undefined => selectorParam((ds.spec as any)?.selector);

/** The DaemonSet's pods, by its selector. */
export const daemonPods = (ds: KubeObject): ListRef => ({ kind: podKind, namespace: ds.metadata.namespace, selection: { labelSelector: podSelectorOf(ds) } });

/** The DaemonSet's pods, every node and the namespace's ControllerRevisions, in the order the page reads them. */
export const rolloutLists = (ds: KubeObject): ListRef[] => [
  daemonPods(ds),
  { kind: nodeKind },
  { kind: controllerRevisionKind, namespace: ds.metadata.namespace },
];

/** The namespace's pods' events a plan and the timeline read (kinds/events.ts: podEventsButStarts). */
export const podEvents = (namespace: string | undefined): ListRef => ({ kind: eventKind, namespace, selection: { fieldSelector: podEventsButStarts } });

/**
 * The recorded events the page reads, by field selector, not the namespace's all: those about the
 * DaemonSet, its namespace's pods' (podEvents) and the nodes' warnings.
 */
export const rolloutEventLists = (ds: KubeObject): ListRef[] => [
  { kind: eventKind, namespace: ds.metadata.namespace, selection: { fieldSelector: eventsAbout(daemonSetKind.kind, ds.metadata.name!) } },
  podEvents(ds.metadata.namespace),
  { kind: eventKind, selection: { fieldSelector: nodeWarnings } },
];

/**
 * The first of `lists` that could not be read (RBAC: the edit role grants no nodes), said as
 * "the nodes could not be read (…)": a view that needs it says so instead of loading for ever.
 */
export function unreadableOf(lists: readonly (readonly [string, { isError: boolean; error: unknown }])[]): string | undefined {
  const refused = lists.find(([, l]) => l.isError);
  return refused && `${refused[0]} could not be read (${refused[1].error ? errorText(refused[1].error) : 'unknown error'})`;
}
