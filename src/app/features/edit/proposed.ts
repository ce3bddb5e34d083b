// A draft another page proposes for the editor (a reachability fix): handed
// over in memory, keyed by the editor's path, and taken once, so the editor
// opens with it as an unsaved draft and Review/apply work as for any edit.
import type { KubeObject } from '../../../kinds/kind.ts';

const proposed = new Map<string, KubeObject>();

/** The editor path for an object of the kind (`/edit/...` when it exists, `/new/...` otherwise). */
export function editorPath(plural: string, obj: { metadata: { namespace?: string; name?: string } }, exists: boolean, namespaced = true): string {
  const ns = obj.metadata.namespace ?? 'default';
  if (!exists) return `/new/${plural}${namespaced ? `?ns=${encodeURIComponent(ns)}` : ''}`;
  return `/edit/${plural}/${namespaced ? `${encodeURIComponent(ns)}/` : ''}${encodeURIComponent(obj.metadata.name ?? '')}`;
}

const keyOf = (plural: string, namespace: string | undefined, name: string | undefined) => `${plural}/${namespace ?? ''}/${name ?? ''}`;

export function proposeDraft(plural: string, obj: KubeObject, exists: boolean) {
  proposed.set(keyOf(plural, obj.metadata.namespace, exists ? obj.metadata.name : undefined), obj);
}

/** The proposed draft for this editor, if any (removed: a second visit starts from the stored object). */
export function takeProposedDraft(plural: string, namespace: string | undefined, name: string | undefined): KubeObject | undefined {
  const k = keyOf(plural, namespace, name);
  const o = proposed.get(k);
  proposed.delete(k);
  return o;
}
