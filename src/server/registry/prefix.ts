// Where a resource's objects live in the storage: kube-apiserver's
// `/registry/<group>/<resource>/` keys (`core` for the legacy group).
import type { KindDefinition } from '../../kinds/kind.ts';

export const resourcePrefixOf = (k: Pick<KindDefinition, 'group' | 'plural'>) => `/registry/${k.group || 'core'}/${k.plural}/`;
