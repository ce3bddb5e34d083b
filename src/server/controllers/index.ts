// The in-process controllers of the embedded mode. Each acts through a Client
// under its own identity, like any other client of the API.
import type { KindDefinition } from '../../kinds/kind.ts';
import type { Client } from '../client.ts';
import type { Store } from '../registry/store.ts';
import type { WatchCache } from '../watch/cache.ts';
import { startNamespaceController } from './namespace.ts';
import { startNodeAgents } from './nodeagent.ts';
import { startAttacher } from './attacher.ts';
import { startDaemonSetController } from './daemonset.ts';
import { startGarbageCollector } from './garbagecollector.ts';
import { startPodGC, type PodGCOptions } from './podgc.ts';
import { startClusterRoleAggregation } from './clusterroleaggregation.ts';
import { startScheduler } from './scheduler.ts';
import type { SimulationOptions } from './simulation.ts';

export interface ControllerContext {
  /** An admin client; call `.as(user)` for a controller's own identity. */
  client: Client;
  stores: Map<KindDefinition, Store>;
  cache: WatchCache;
}

export interface ControllerOptions {
  /** Whether to run them at all (`--no-controllers` turns them off). */
  enabled: boolean;
  /** Delays and scope of the simulated cluster (scheduler, kubelets, CSI attacher); false leaves them out. */
  simulation?: SimulationOptions | false;
  /** Pod garbage collection (the quarantine of pods on missing nodes). */
  podGC?: PodGCOptions;
}

export const controllerIdentity = (name: string) => ({
  name: `system:serviceaccount:kube-system:${name}`,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
});

/** Starts every controller; returns the function that stops them all. */
export function startControllers(ctx: ControllerContext, opts: ControllerOptions): () => void {
  if (!opts.enabled) return () => {};
  const stops = [
    startNamespaceController(ctx.client.as(controllerIdentity('namespace-controller')), ctx.stores, ctx.cache),
    startDaemonSetController(ctx),
    startGarbageCollector(ctx),
    startPodGC(ctx, opts.podGC),
    startClusterRoleAggregation(ctx),
  ];
  if (opts.simulation !== false) stops.push(startScheduler(ctx), startNodeAgents(ctx, opts.simulation ?? {}), startAttacher(ctx, opts.simulation ?? {}));
  return () => stops.forEach((stop) => stop());
}
