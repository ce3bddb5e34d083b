// What every controller is given, and the identity it acts under. Its own
// module: index.ts starts the controllers, and they must not import it back.
import type { KindDefinition } from '../../kinds/kind.ts';
import type { Client } from '../client.ts';
import type { Store } from '../registry/store.ts';
import type { WatchCache } from '../watch/cache.ts';

export interface ControllerContext {
  /** An admin client; call `.as(user)` for a controller's own identity. */
  client: Client;
  stores: Map<KindDefinition, Store>;
  cache: WatchCache;
}

/** A controller's user: the service account kube-controller-manager gives it (`--use-service-account-credentials`). */
export const controllerIdentity = (name: string) => ({
  name: `system:serviceaccount:kube-system:${name}`,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
});
