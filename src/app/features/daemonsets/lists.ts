// The lists a DaemonSet's page reads before it can count its nodes: small and
// free of the page's own code, so the route can start them from the address,
// before the page's chunks have loaded (routes/views.tsx). The namespace's
// events are not among them: after a rollout across 5000 nodes they are a list
// as big as the nodes and pods together, and they only add to the counts
// (the warnings beside nodes), so the page reads them once the counts show.
import type { KubeObject } from '../../../kinds/kind.ts';
import { controllerRevisionKind } from '../../../kinds/controllerrevision.ts';
import { nodeKind } from '../../../kinds/node.ts';
import { podKind } from '../../../kinds/pod.ts';
import { formatLabelSelector } from '../../../lib/labels.ts';
import type { ListRef } from '../../routes/detaillists.tsx';

/**
 * The DaemonSet's pod selector as a `labelSelector`, so the page lists and watches its own pods
 * only, not the namespace's (ten DaemonSets on 5000 nodes are 50,000 pods, and the others' events
 * would each be parsed and looked at to be thrown away); undefined when it selects everything.
 */
export function podSelectorOf(ds: KubeObject): string | undefined {
  const s = formatLabelSelector((ds.spec as any)?.selector);
  return s === '<none>' || s === '<error>' ? undefined : s;
}

/** The DaemonSet's pods, every node and the namespace's ControllerRevisions, in the order the page reads them. */
export const rolloutLists = (ds: KubeObject): ListRef[] => [
  { kind: podKind, namespace: ds.metadata.namespace, labelSelector: podSelectorOf(ds) },
  { kind: nodeKind },
  { kind: controllerRevisionKind, namespace: ds.metadata.namespace },
];
