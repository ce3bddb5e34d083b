// Cordon and uncordon, as kubectl does them: a merge patch of
// spec.unschedulable (true, or removed). One node from its page; many from
// the Nodes list, as `kubectl cordon -l <selector>`, a few at a time.
import { nodeKind } from '../../../kinds/node.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { api, type Connection } from '../../api/client.ts';

export const cordon = (conn: Connection, name: string, unschedulable: boolean) =>
  api.mergePatch(conn, nodeKind, undefined, name, { spec: { unschedulable: unschedulable || null } });

export const isCordoned = (node: KubeObject) => !!(node.spec as { unschedulable?: boolean } | undefined)?.unschedulable;

/** Patches in flight at once: kubectl patches one after another; 5000 nodes so would take minutes. */
export const CORDON_AT_ONCE = 8;

/**
 * Runs `patch` for each name, `atOnce` at a time, until all are settled or
 * `signal` stops it (those in flight finish); `settled` hears each outcome.
 * A failure stops nothing else: a node deleted meanwhile is one node.
 */
export async function forEachNode(names: readonly string[], patch: (name: string) => Promise<unknown>, settled: (name: string, error?: unknown) => void, signal?: AbortSignal, atOnce = CORDON_AT_ONCE) {
  let next = 0;
  const worker = async () => {
    while (next < names.length && !signal?.aborted) {
      const name = names[next++];
      try {
        await patch(name);
        settled(name);
      } catch (e) {
        settled(name, e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, names.length) }, worker));
}
