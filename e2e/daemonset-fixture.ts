import { expect } from '@playwright/test';
import { apiRequest, nodeManifest } from './helpers.ts';

/**
 * A DaemonSet on simulated nodes of its own: the nodes carry `selector` (and
 * any per-node labels or spec, such as a taint, set before the DaemonSet
 * exists so its first pods already respect it), and the DaemonSet selects
 * them by it, so nodes other tests create never join its rollouts.
 * RollingUpdate, maxUnavailable 1, one container `agent` at `agent:v1`.
 */
export async function daemonSetOnOwnNodes(o: {
  name: string;
  namespace?: string;
  nodes: string[];
  selector: Record<string, string>;
  nodeLabels?: (node: string) => Record<string, string>;
  nodeSpec?: (node: string) => Record<string, unknown> | undefined;
}): Promise<string> {
  const ns = o.namespace ?? 'default';
  for (const n of o.nodes) {
    const manifest = nodeManifest(n, { ...o.selector, ...o.nodeLabels?.(n) });
    const spec = o.nodeSpec?.(n);
    expect((await apiRequest('/api/v1/nodes', 'POST', spec ? { ...manifest, spec } : manifest)).status).toBe(201);
  }
  const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: o.name, namespace: ns },
    spec: {
      selector: { matchLabels: { app: o.name } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: { metadata: { labels: { app: o.name } }, spec: { nodeSelector: o.selector, containers: [{ name: 'agent', image: 'agent:v1' }] } },
    },
  };
  expect((await apiRequest(path, 'POST', ds)).status).toBe(201);
  return path;
}
