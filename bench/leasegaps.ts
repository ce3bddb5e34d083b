// How the simulated kubelets' heartbeats fare while the server is busy: the
// node Leases and the Nodes, listed and then watched.
// Each Lease's renewTime is the kubelet's own clock at its renewal, so the
// gap between two of them is how long that node went unheard; a gap past the
// grace period (40 s at a 10 s interval) is a node the lifecycle controller
// marks Unknown, and in a real cluster taints unreachable and evicts from.
// The nodes whose Ready condition left True meanwhile are counted too.
import { jsonBatches } from '../src/lib/ndjson.ts';
import type { Cluster } from './cluster.ts';

export interface LeaseGaps {
  /** Renewal gaps, ms: between two renewals of a node. */
  gaps: number[];
  /** The longest gap, ms, the open ones (from a node's last renewal to the end) included. */
  longest: number;
  /** Nodes whose Ready condition was not True at some point. */
  notReady: Set<string>;
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

/** Lists the Leases and Nodes and watches them from there until `stop()`: the renewal gaps and the nodes seen not Ready. */
export async function watchLeaseGaps(c: Cluster): Promise<{ stop(): Promise<LeaseGaps> }> {
  const controller = new AbortController();
  const last = new Map<string, number>();
  const gaps: number[] = [];
  const notReady = new Set<string>();
  const onLease = (l: any) => {
    const at = Date.parse(l.spec?.renewTime);
    const before = last.get(l.metadata.name);
    if (before !== undefined && at > before) gaps.push(at - before);
    last.set(l.metadata.name, at);
  };
  const onNode = (n: any) => {
    if (n.status?.conditions?.find((k: any) => k.type === 'Ready')?.status !== 'True') notReady.add(n.metadata.name);
  };
  const follow: [string, (o: any) => void][] = [
    [LEASES, onLease],
    ['/api/v1/nodes', onNode],
  ];
  // Listed first (every node's last renewal before the watch), then watched from the list's revision.
  const revisions = await Promise.all(
    follow.map(async ([path, on]) => {
      const list = await (await fetch(c.url + path, { headers: c.headers })).json();
      list.items.forEach(on);
      return list.metadata.resourceVersion as string;
    }),
  );
  const watching = follow.map(async ([path, on], i) => {
    const res = await fetch(`${c.url}${path}?watch=1&resourceVersion=${revisions[i]}`, { headers: c.headers, signal: controller.signal });
    for await (const batch of jsonBatches(res.body!)) for (const e of batch) if (e.type === 'ADDED' || e.type === 'MODIFIED') on(e.object);
  });
  return {
    async stop() {
      const end = Date.now();
      controller.abort();
      await Promise.allSettled(watching);
      let longest = gaps.reduce((a, b) => Math.max(a, b), 0);
      for (const at of last.values()) longest = Math.max(longest, end - at);
      return { gaps, longest, notReady };
    },
  };
}
