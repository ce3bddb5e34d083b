import type { ComponentType, ReactNode } from 'react';
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';

/** How the app shows one kind: the routes table maps kinds to these. */
export interface KindView {
  kind: KindDefinition;
  /** Plural label for navigation and headings. */
  label: string;
  icon: ReactNode;
  /** The readable rendering of spec and status on the detail page. */
  Details?: ComponentType<{ object: KubeObject }>;
  /** Extra buttons on the detail page (cordon, drain…). */
  Actions?: ComponentType<{ object: KubeObject }>;
  /** Buttons on the list page acting on every object it shows (cordon the nodes a selector picks); `whole` once the list is read whole. */
  ListActions?: ComponentType<{ items: readonly KubeObject[]; whole: boolean }>;
  /** Shown beside the editor while an object of the kind is edited (the NetworkPolicy what-if); `invalid` while the draft does not validate. */
  EditorAside?: ComponentType<{ draft: KubeObject; original?: KubeObject; invalid?: boolean }>;
  /** Shown in the review beside the diff (a DaemonSet's rollout plan): the stored object and the server's dry-run answer. */
  ReviewAside?: ComponentType<{ stored?: KubeObject; proposed: KubeObject }>;
  /** What the kind's objects own (`its pods and revisions`): deletion then asks what becomes of them. */
  dependents?: string;
}

export const detailPath = (kind: KindDefinition, o: { metadata: { namespace?: string; name?: string } }) =>
  kind.scope === 'Namespaced' ? `/${kind.plural}/${o.metadata.namespace}/${o.metadata.name}` : `/${kind.plural}/${o.metadata.name}`;
