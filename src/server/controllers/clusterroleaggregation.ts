// The ClusterRole aggregation controller
// (K/pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go):
// a ClusterRole with `aggregationRule.clusterRoleSelectors` has its `rules`
// kept equal to the rules of every other ClusterRole whose labels match a
// selector, in name order, without duplicates. Any ClusterRole change
// re-syncs every aggregated one (admin aggregates edit, which aggregates view).
import type { KubeObject } from '../../kinds/kind.ts';
import { aggregationSources, clusterRoleKind, type PolicyRuleType } from '../../kinds/rbac.ts';
import { deepEqual } from '../../lib/json.ts';
import type { Client } from '../client.ts';
import { controllerIdentity, type ControllerContext } from './context.ts';
import { inform } from '../watch/informer.ts';
import { WorkQueue } from './workqueue.ts';

export const AGGREGATION_CONTROLLER = 'clusterrole-aggregation-controller';

/** The rules an aggregated ClusterRole should hold, from the current ClusterRoles. */
export function aggregatedRules(role: KubeObject, all: KubeObject[]): PolicyRuleType[] {
  const rules: PolicyRuleType[] = [];
  for (const other of aggregationSources(role, all)) {
    for (const r of (other.rules as PolicyRuleType[] | undefined) ?? []) if (!rules.some((x) => deepEqual(x, r))) rules.push(r);
  }
  return rules;
}

/** Brings one aggregated ClusterRole up to date; true when it changed. */
async function syncRole(client: Client, name: string): Promise<boolean> {
  const all = (await client.list(clusterRoleKind)).map((c) => c.object);
  const role = all.find((r) => r.metadata.name === name);
  if (!(role?.aggregationRule as any)?.clusterRoleSelectors?.length) return false;
  const want = aggregatedRules(role!, all);
  if (deepEqual((role!.rules as unknown[] | undefined) ?? [], want)) return false;
  await client.update(clusterRoleKind, undefined, name, (o) => void (o.rules = want));
  return true;
}

/** One pass until nothing changes (nested aggregation settles in a few rounds); used at start before requests are served. */
export async function aggregateAll(client: Client): Promise<void> {
  for (let round = 0; round < 5; round++) {
    let changed = false;
    for (const c of await client.list(clusterRoleKind)) if (await syncRole(client, c.object.metadata.name!)) changed = true;
    if (!changed) return;
  }
}

export function startClusterRoleAggregation(ctx: ControllerContext): () => void {
  const client = ctx.client.as(controllerIdentity(AGGREGATION_CONTROLLER));
  const store = ctx.stores.get(clusterRoleKind)!;
  const queue = new WorkQueue((name) => syncRole(client, name).then(() => {}));
  const enqueueAggregated = () => {
    for (const c of ctx.cache.list(store.resourcePrefix)) if ((c.object.aggregationRule as any)?.clusterRoleSelectors?.length) queue.add(c.object.metadata.name!);
  };
  enqueueAggregated();
  const informer = inform(ctx.cache, { list: [], watch: [[store.resourcePrefix, enqueueAggregated]] });
  return () => {
    queue.stop();
    informer.stop();
  };
}
