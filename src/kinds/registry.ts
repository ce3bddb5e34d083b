// Every kind the project knows. Adding a kind is one file beside this one and
// one line in `kinds` below.
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { nodeKind } from './node.ts';
import { networkPolicyKind } from './networkpolicy.ts';
import { daemonSetKind } from './daemonset.ts';
import { volumeAttachmentKind } from './volumeattachment.ts';
import { namespaceKind } from './namespace.ts';
import { podKind } from './pod.ts';
import { configMapKind } from './configmap.ts';
import { controllerRevisionKind } from './controllerrevision.ts';
import { leaseKind } from './coordination.ts';
import { eventKind, eventsEventKind } from './events.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from './rbac.ts';

export const kinds: readonly KindDefinition[] = [
  nodeKind,
  networkPolicyKind,
  daemonSetKind,
  volumeAttachmentKind,
  namespaceKind,
  podKind,
  configMapKind,
  controllerRevisionKind,
  roleKind,
  clusterRoleKind,
  roleBindingKind,
  clusterRoleBindingKind,
  leaseKind,
  eventKind,
  eventsEventKind,
];

/** The four kinds the product is about; the others support them. */
export const primaryKinds: readonly KindDefinition[] = [nodeKind, networkPolicyKind, daemonSetKind, volumeAttachmentKind];

export function kindFor(group: string, version: string, plural: string): KindDefinition | undefined {
  return kinds.find((k) => k.group === group && k.version === version && k.plural === plural);
}

export function kindByApiVersion(apiVersion: string, kind: string): KindDefinition | undefined {
  return kinds.find((k) => apiVersionOf(k) === apiVersion && k.kind === kind);
}
