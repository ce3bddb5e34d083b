// Which kinds the app shows and how: the one place that pairs a kind
// definition with its feature components.
import { nodeKind } from '../../kinds/node.ts';
import { networkPolicyKind } from '../../kinds/networkpolicy.ts';
import { daemonSetKind } from '../../kinds/daemonset.ts';
import { volumeAttachmentKind } from '../../kinds/volumeattachment.ts';
import { namespaceKind } from '../../kinds/namespace.ts';
import { podKind } from '../../kinds/pod.ts';
import { apiVersionOf } from '../../kinds/kind.ts';
import { icons } from '../components/icons.tsx';
import type { KindView } from '../features/resources/types.ts';
import { detailPath } from '../features/resources/types.ts';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from '../../kinds/rbac.ts';
import { lazy, Suspense, type ComponentType } from 'react';
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { rolloutLists } from '../features/daemonsets/lists.ts';
import type { ListRef } from '../api/hooks.ts';

/**
 * A feature component loaded when first drawn: detail pages, editors and their
 * asides stay out of the bundle a list page waits for. Each waits in its own
 * Suspense, so the rest of its page shows meanwhile.
 */
export function later<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Lazy = lazy(() => load().then((c) => ({ default: c })));
  const Later = (props: P) => (
    <Suspense fallback={null}>
      <Lazy {...props} />
    </Suspense>
  );
  loaders.set(Later, load);
  return Later;
}

const loaders = new WeakMap<object, () => Promise<unknown>>();

/** Starts loading the code of a component made by `later` (a page the address names, before React asks for it). */
export function preload(c: object | undefined) {
  const load = c && loaders.get(c);
  load?.().catch(() => undefined); // React's own load reports a failure
}

const NodeDetails = later(() => import('../features/nodes/NodeDetails.tsx').then((m) => m.NodeDetails));
const NodeActions = later(() => import('../features/nodes/NodeActions.tsx').then((m) => m.NodeActions));
const NodeListActions = later(() => import('../features/nodes/NodeListActions.tsx').then((m) => m.NodeListActions));
const DaemonSetDetails = later(() => import('../features/daemonsets/DaemonSetDetails.tsx').then((m) => m.DaemonSetDetails));
const DaemonSetReviewPlan = later(() => import('../features/daemonsets/RolloutPlanView.tsx').then((m) => m.DaemonSetReviewPlan));
const VolumeAttachmentDetails = later(() => import('../features/volumeattachments/VolumeAttachmentDetails.tsx').then((m) => m.VolumeAttachmentDetails));
const NetworkPolicyWhatIf = later(() => import('../features/reachability/NetworkPolicyWhatIf.tsx').then((m) => m.NetworkPolicyWhatIf));
const NetworkPolicyDetails = later(() => import('../features/networkpolicies/NetworkPolicyDetails.tsx').then((m) => m.NetworkPolicyDetails));
const PodDetails = later(() => import('../features/namespaces/PodDetails.tsx').then((m) => m.PodDetails));
const RoleDetails = later(() => import('../features/access/RbacDetails.tsx').then((m) => m.RoleDetails));
const BindingDetails = later(() => import('../features/access/RbacDetails.tsx').then((m) => m.BindingDetails));

export const primaryViews: KindView[] = [
  { kind: nodeKind, label: 'Nodes', icon: icons.node, Details: NodeDetails, Actions: NodeActions, ListActions: NodeListActions },
  { kind: networkPolicyKind, label: 'Network policies', icon: icons.networkpolicy, Details: NetworkPolicyDetails, EditorAside: NetworkPolicyWhatIf },
  { kind: daemonSetKind, label: 'Daemon sets', icon: icons.daemonset, Details: DaemonSetDetails, ReviewAside: DaemonSetReviewPlan, dependents: 'its pods and ControllerRevisions' },
  { kind: volumeAttachmentKind, label: 'Volume attachments', icon: icons.volumeattachment, Details: VolumeAttachmentDetails },
];

export const supportingViews: KindView[] = [
  { kind: namespaceKind, label: 'Namespaces', icon: icons.namespace },
  { kind: podKind, label: 'Pods', icon: icons.pod, Details: PodDetails },
];

/** Who may do what: listed under Access control, beside the who-can views. */
export const accessViews: KindView[] = [
  { kind: roleKind, label: 'Roles', icon: icons.role, Details: RoleDetails },
  { kind: clusterRoleKind, label: 'Cluster roles', icon: icons.role, Details: RoleDetails },
  { kind: roleBindingKind, label: 'Role bindings', icon: icons.binding, Details: BindingDetails },
  { kind: clusterRoleBindingKind, label: 'Cluster role bindings', icon: icons.binding, Details: BindingDetails },
];

export const allViews = [...primaryViews, ...supportingViews, ...accessViews];

/**
 * The lists a kind's detail page reads before it shows what matters, by the object (a DaemonSet's
 * rollout: its pods, the nodes, its revisions). The route starts them as soon as the object is
 * known, while the page's own code loads, and the page's Events section waits for them
 * (routes/detaillists.tsx).
 */
export const detailLists = new Map<KindDefinition, (o: KubeObject) => ListRef[]>([[daemonSetKind, rolloutLists]]);

export const viewForPlural = (plural: string) => allViews.find((v) => v.kind.plural === plural);

/** The detail page of an owner reference, when the app has a view for its kind. */
export function ownerLink(kind: string, apiVersion: string, namespace: string | undefined, name: string): string | undefined {
  const v = allViews.find((x) => x.kind.kind === kind && apiVersionOf(x.kind) === apiVersion);
  return v ? detailPath(v.kind, { metadata: { namespace, name } }) : undefined;
}
