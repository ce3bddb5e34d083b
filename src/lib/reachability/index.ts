// NetworkPolicy reachability: who may open a connection to whom, on which
// port, and why. Pure TypeScript over plain API objects, so it runs in a Web
// Worker as well as in Node.
//
// Semantics (SPEC.md 2.2 and the upstream NetworkPolicy documentation):
//  - a policy selects the pods of its own namespace matching spec.podSelector
//    (empty: all of them); policyTypes defaults to Ingress, plus Egress when
//    the policy has egress rules; a pod is isolated for a direction when some
//    selecting policy has that type, and then only the union of those
//    policies' rules lets traffic through;
//  - peers: podSelector alone = pods of the policy's namespace;
//    namespaceSelector alone = all pods of matching namespaces; both = AND;
//    ipBlock (with except, IPv4 and IPv6) matches the peer's address: pod IPs
//    for cluster pods (any of a dual-stack pod's IPs), the address itself for
//    `{ ip }` endpoints outside the pods; empty `from`/`to` = every peer;
//  - ports: numeric, ranges with endPort, named ports resolved against the
//    destination pod's container ports (for egress too; a named port never
//    matches a destination that is not a pod), protocol TCP by default, UDP,
//    SCTP; empty `ports` = all ports;
//  - a connection is allowed when the source's egress and the destination's
//    ingress both allow it; traffic from the destination's own node (any
//    address of the node the destination runs on) always passes its ingress.
//
// Choices where upstream leaves it to the network plugin:
//  - pods without an IP (pending) are analysed by their labels: policies
//    select them and selector peers match them, ipBlocks never do, and an
//    `{ ip }` endpoint cannot name them;
//  - host-network pods are their node on the wire: no policy selects them
//    (their traffic is not isolated in either direction), no pod or
//    namespace selector matches them, ipBlocks see their (node) IP, and
//    traffic from one of them to a pod on the same node is node-local;
//    an `{ ip }` equal to a node address is that node, not a pod;
//  - a pod talking to itself is decided like any other pair (upstream's e2e
//    suite assumes loopback is always allowed; we report what the policies say);
//  - invalid fields (a selector with an unknown operator, an unparsable CIDR)
//    select or match nothing.
//
// Use:
//   const a = analyzeReachability({ namespaces, pods, policies, nodes });
//   a.allowed({ namespace: 'x', name: 'a' }, { ip: '203.0.113.7' }, 443, 'TCP');
//   const m = a.matrix(80, 'TCP');            // m.pods[i] -> m.pods[j]: matrixAllowed(m, i, j)
//   a.explain(from, to, 80, 'TCP').summary;   // plus per-direction policies and rule indexes
//   diffMatrices(before.matrix(80), after.matrix(80)); // what-if, then diffPairs(d, 'newlyDenied', 100)
// Matrices, explanations, summaries and diffs are plain data (typed arrays
// included) and survive structured clone; the analysis object itself has
// methods, so build it inside the Web Worker.
import { Engine } from './engine.ts';
import { buildModel, podKey, type AnalysisMemo, type ClusterModel } from './model.ts';
export { AnalysisMemo } from './model.ts';
import { naiveContext, naiveExplain, resolveEndpoint, type NaiveContext } from './naive.ts';
import type { Endpoint, Explanation, PodRef, PolicySummary, Protocol, Reachability, ReachabilityInput, ReachabilityMatrix } from './types.ts';

export * from './types.ts';
export { diffMatrices, diffPairs } from './diff.ts';

export interface ReachabilityAnalysis extends Reachability {
  readonly pods: readonly PodRef[];
  /** Number of pod equivalence classes (pods no policy can tell apart). */
  readonly classCount: number;
  /** Index of a pod in `pods` (and in every matrix), -1 when unknown. */
  indexOf(pod: PodRef): number;
  /** What the analysis read of the pod at an index: its labels and whether it is on its node's network. */
  pod(index: number): { readonly labels: Readonly<Record<string, string>>; readonly hostNetwork: boolean };
  /** Per policy (input order): the pods it selects, the pods each peer matches, and warnings. */
  policies(): PolicySummary[];
}

/** Analyse a cluster: `namespaces`, `pods`, `policies` (NetworkPolicies) and `nodes` as the API returns them. */
export function analyzeReachability(input: ReachabilityInput, memo?: AnalysisMemo): ReachabilityAnalysis {
  const model: ClusterModel = buildModel(
    {
      namespaces: input.namespaces ?? [],
      pods: input.pods ?? [],
      policies: input.policies ?? [],
      nodes: input.nodes ?? [],
    },
    memo,
  );
  const engine = new Engine(model, memo);
  let naive: NaiveContext | undefined;
  const explainer = () => (naive ??= naiveContext(model));
  const pods = model.pods.map((p) => p.ref);

  return {
    pods,
    classCount: engine.classCount,
    indexOf: (pod) => model.podByKey.get(podKey(pod))?.index ?? -1,
    pod: (index) => model.pods[index],
    policies: () => engine.policySummaries(),
    allowed(from: Endpoint, to: Endpoint, port: number, protocol: Protocol = 'TCP'): boolean {
      const src = resolveEndpoint(model, from);
      const dst = resolveEndpoint(model, to);
      if (src.pod && dst.pod) {
        const { egress, ingress } = engine.classAllowed(port, protocol, engine.podClass[src.pod.index], engine.podClass[dst.pod.index]);
        return egress && (ingress || Engine.fromOwnNode(src.pod, dst.pod));
      }
      // An address that is no pod's has no policies of its own.
      if (src.pod) return engine.externalAllowed(src.pod, dst.ips[0], dst.text, true, port, protocol);
      if (dst.pod) return engine.externalAllowed(dst.pod, src.ips[0], src.text, false, port, protocol);
      return true;
    },
    explain(from: Endpoint, to: Endpoint, port: number, protocol: Protocol = 'TCP'): Explanation {
      return naiveExplain(explainer(), from, to, port, protocol);
    },
    matrix(port: number, protocol: Protocol = 'TCP'): ReachabilityMatrix {
      return engine.matrix(port, protocol);
    },
  };
}
export * from './intents.ts';
export * from './probes.ts';
export * from './fix.ts';
