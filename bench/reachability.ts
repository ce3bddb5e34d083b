// NetworkPolicy reachability: time of a full pod matrix (analysis included)
// for 1000 pods x 200 policies and 5000 pods x 500 policies, on clusters
// generated the way real ones look (teams' namespaces, deployments with a
// handful of replicas, default-deny plus per-tier allow policies, DNS and
// monitoring exceptions, ipBlocks for egress), and its ratio to the naive
// pairwise evaluator on the same input in the same run. The naive side runs
// every pair when that fits in the time budget, otherwise a random sample of
// rows that is extrapolated (the output says which). Prints numbers and
// checks the two agree on every pair the naive side computed.
import { availableParallelism, loadavg } from 'node:os';
import { analyzeReachability } from '../src/lib/reachability/index.ts';
import { naiveContext, naiveRow } from '../src/lib/reachability/naive.ts';
import { rng } from '../src/lib/reachability/test-helpers.ts';
import { Session } from '../src/app/features/reachability/compute.ts';
import type { ContainerPortLike, NamespaceLike, NetworkPolicyLike, NetworkPolicyPeerLike, NodeLike, PodLike, ReachabilityInput } from '../src/lib/reachability/types.ts';

const NAIVE_BUDGET_MS = Number(process.env.BENCH_NAIVE_MS ?? 15_000);

const TIERS = ['web', 'api', 'worker', 'db', 'cache'] as const;
const TIER_PORTS: Record<string, ContainerPortLike[]> = {
  web: [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }],
  api: [{ name: 'http', containerPort: 8000 }, { name: 'grpc', containerPort: 9000 }, { name: 'metrics', containerPort: 9090 }],
  worker: [{ name: 'metrics', containerPort: 9090 }],
  db: [{ name: 'postgres', containerPort: 5432 }, { name: 'metrics', containerPort: 9187 }],
  cache: [{ name: 'redis', containerPort: 6379 }],
};

/** A cluster of `podCount` pods and exactly `policyCount` policies. */
export function generateCluster(podCount: number, policyCount: number, seed = 42): ReachabilityInput {
  const r = rng(seed);
  const nsCount = Math.max(4, Math.round(podCount / 100));
  const teams = ['payments', 'search', 'identity', 'platform', 'data', 'growth', 'infra', 'mobile'];
  const envs = ['prod', 'staging', 'dev'];
  const namespaces: NamespaceLike[] = [
    { metadata: { name: 'kube-system', labels: { 'kubernetes.io/metadata.name': 'kube-system' } } },
    { metadata: { name: 'monitoring', labels: { 'kubernetes.io/metadata.name': 'monitoring', purpose: 'monitoring' } } },
  ];
  const teamNs: { name: string; team: string; env: string }[] = [];
  for (let i = 0; i < nsCount; i++) {
    const team = teams[i % teams.length];
    const env = r.pick(envs);
    const name = `${team}-${env}-${i}`;
    teamNs.push({ name, team, env });
    namespaces.push({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name, team, env, ...(r.chance(0.3) ? { 'istio-injection': 'enabled' } : {}) } } });
  }
  const nodeCount = Math.max(3, Math.round(podCount / 50));
  const nodes: NodeLike[] = Array.from({ length: nodeCount }, (_, i) => ({
    metadata: { name: `node-${i}` },
    status: { addresses: [{ type: 'InternalIP', address: `192.168.${i >> 8}.${i & 255}` }, { type: 'Hostname', address: `node-${i}` }] },
  }));
  const pods: PodLike[] = [];
  let ipSeq = 0;
  const addPod = (namespace: string, name: string, labels: Record<string, string>, ports: ContainerPortLike[]) => {
    const n = r.int(nodeCount);
    const k = ipSeq++;
    pods.push({
      metadata: { namespace, name, labels },
      spec: { nodeName: `node-${n}`, containers: [{ ports }] },
      status: { podIP: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`, podIPs: [{ ip: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}` }] },
    });
  };
  for (let i = 0; i < 4; i++) addPod('kube-system', `coredns-${i}`, { 'k8s-app': 'kube-dns' }, [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }]);
  for (let i = 0; i < 4; i++) addPod('monitoring', `prometheus-${i}`, { app: 'prometheus' }, [{ name: 'web', containerPort: 9090 }]);
  // Deployments with a skewed replica count, until the pods are there.
  const apps: { ns: string; app: string; tier: string }[] = [];
  while (pods.length < podCount) {
    const ns = r.pick(teamNs);
    const tier = r.pick(TIERS);
    const app = `${tier}-${apps.length}`;
    apps.push({ ns: ns.name, app, tier });
    const replicas = Math.min(podCount - pods.length, 1 + Math.floor(-Math.log(1 - r.next()) * 4));
    const hash = (apps.length * 2654435761 >>> 0).toString(16).slice(0, 8);
    for (let j = 0; j < replicas; j++) {
      const labels: Record<string, string> = { app, tier, 'pod-template-hash': hash };
      if (r.chance(0.5)) labels.version = r.pick(['v1', 'v2']);
      addPod(ns.name, `${app}-${hash}-${j}`, labels, TIER_PORTS[tier]);
    }
  }
  // Policies: each namespace gets a default deny and DNS egress, then per-app allows.
  const policies: NetworkPolicyLike[] = [];
  const add = (namespace: string, name: string, spec: NetworkPolicyLike['spec']) => policies.length < policyCount && policies.push({ metadata: { namespace, name }, spec });
  const dns: NetworkPolicyPeerLike = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } };
  const monitoring: NetworkPolicyPeerLike = { namespaceSelector: { matchLabels: { purpose: 'monitoring' } }, podSelector: { matchLabels: { app: 'prometheus' } } };
  for (const ns of teamNs) {
    add(ns.name, 'default-deny', { podSelector: {}, policyTypes: ['Ingress'] });
    if (r.chance(0.5)) add(ns.name, 'egress-dns-and-namespace', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [dns], ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }, { to: [{ podSelector: {} }] }] });
    add(ns.name, 'allow-monitoring', { podSelector: {}, ingress: [{ from: [monitoring], ports: [{ port: 'metrics' }] }] });
  }
  let i = 0;
  while (policies.length < policyCount) {
    const a = apps[i++ % apps.length];
    const ns = teamNs.find((n) => n.name === a.ns)!;
    const k = r.int(6);
    if (a.tier === 'web' || k === 0) {
      add(a.ns, `${a.app}-from-anywhere-${i}`, { podSelector: { matchLabels: { app: a.app } }, ingress: [{ ports: [{ port: 'http' }, { port: 8443 }] }] });
    } else if (a.tier === 'api' || k === 1) {
      add(a.ns, `${a.app}-from-web-${i}`, {
        podSelector: { matchLabels: { app: a.app } },
        ingress: [
          { from: [{ podSelector: { matchLabels: { tier: 'web' } } }, { namespaceSelector: { matchLabels: { team: ns.team } }, podSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] } }], ports: [{ port: 'http' }, { port: 'grpc' }] },
        ],
      });
    } else if (a.tier === 'db' || a.tier === 'cache' || k === 2) {
      add(a.ns, `${a.app}-from-api-${i}`, {
        podSelector: { matchLabels: { tier: a.tier }, matchExpressions: [{ key: 'version', operator: 'NotIn', values: ['v0'] }] },
        ingress: [{ from: [{ podSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['api', 'worker'] }] } }], ports: [{ port: 5432 }, { port: 6379 }, { port: 6000, endPort: 6999 }] }],
        egress: [{ to: [{ podSelector: { matchLabels: { tier: a.tier } } }] }, { to: [dns], ports: [{ protocol: 'UDP', port: 53 }] }],
      });
    } else {
      add(a.ns, `${a.app}-egress-${i}`, {
        podSelector: { matchLabels: { app: a.app }, matchExpressions: [{ key: 'version', operator: 'Exists' }] },
        policyTypes: ['Egress'],
        egress: [
          { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '192.168.0.0/16', '169.254.169.254/32'] } }], ports: [{ port: 443 }] },
          { to: [{ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: [ns.env] }] } }] },
          { to: [{ ipBlock: { cidr: `10.0.${r.int(4)}.0/24`, except: [`10.0.${r.int(4)}.${r.int(256)}/32`] } }], ports: [{ port: 8000, endPort: 9000 }] },
        ],
      });
    }
  }
  return { namespaces, pods, policies, nodes };
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function runCase(podCount: number, policyCount: number) {
  const input = generateCluster(podCount, policyCount);
  const port = 8000;
  const times: number[] = [];
  let matrix!: ReturnType<ReturnType<typeof analyzeReachability>['matrix']>;
  let classes = 0;
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now();
    const analysis = analyzeReachability(input);
    matrix = analysis.matrix(port, 'TCP');
    times.push(performance.now() - t0);
    classes = analysis.classCount;
  }
  const fast = median(times);
  let allowed = 0;
  for (const w of matrix.bits) {
    let x = w;
    while (x) {
      x &= x - 1;
      allowed++;
    }
  }

  // Naive: compile, then rows in random order until every row is done or the budget is spent.
  const n = matrix.pods.length;
  const t0 = performance.now();
  const ctx = naiveContext(input);
  const bits = new Uint32Array(matrix.bits.length);
  const order = Array.from({ length: n }, (_, i) => i);
  const r = rng(7);
  for (let i = n - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  let rows = 0;
  while (rows < n && (rows < 5 || performance.now() - t0 < NAIVE_BUDGET_MS)) naiveRow(ctx, order[rows++], port, 'TCP', bits);
  const naiveSpent = performance.now() - t0;
  const naive = (naiveSpent * n) / rows;
  let mismatches = 0;
  for (let k = 0; k < rows; k++) {
    const i = order[k];
    for (let w = 0; w < matrix.rowWords; w++) if (bits[i * matrix.rowWords + w] !== matrix.bits[i * matrix.rowWords + w]) mismatches++;
  }
  const how = rows === n ? `all ${n} rows` : `sampled ${rows} of ${n} random rows (${((rows * 100) / n).toFixed(1)}%), extrapolated`;
  console.log(
    `reachability ${podCount} pods x ${policyCount} policies (TCP ${port}): full matrix ${fast.toFixed(0)} ms (median of 5, analysis included; ${classes} pod classes; ${allowed} of ${n * n} pairs allowed)`,
  );
  console.log(
    `  naive pairwise: ${(naive / 1000).toFixed(1)} s (${how}); engine is ${(naive / fast).toFixed(0)}x faster; ${mismatches === 0 ? `agrees on all ${rows * n} pairs compared` : `DISAGREES on ${mismatches} words`}`,
  );
  if (podCount === 1000) console.log(`  aim: under 300 ms and at least 20x faster than naive: ${fast < 300 && naive / fast >= 20 ? 'met' : 'NOT met'}`);
  return mismatches === 0;
}

/**
 * The live page's worker through a rollout: the app-like cluster of 5000 pods and 500 policies
 * plus ten DaemonSets on 5000 nodes (55,000 pods), analysed once, then again each time 100 daemon
 * pods are replaced (new names and addresses, as a rollout step brings), against a new session
 * given the same input in the same run (what every step cost before the session kept what it read
 * of each pod).
 */
function runLiveCase() {
  const input = generateCluster(5000, 500);
  const NODES = 5000;
  const nodes = Array.from({ length: NODES }, (_, i): NodeLike => ({ metadata: { name: `fleet-node-${i}` }, status: { addresses: [{ type: 'InternalIP', address: `172.16.${i >> 8}.${i & 255}` }] } }));
  let seq = 0;
  const daemonPod = (d: number, n: number, suffix = ''): PodLike => {
    const k = seq++;
    const ip = `100.${64 + ((k >> 16) & 63)}.${(k >> 8) & 255}.${k & 255}`;
    return { metadata: { namespace: 'fleet', name: `fleet-${d}-${n.toString(36)}${suffix}`, labels: { app: `fleet-${d}`, 'controller-revision-hash': `r${suffix}` } }, spec: { nodeName: `fleet-node-${n}`, containers: [{}] }, status: { podIP: ip, podIPs: [{ ip }] } };
  };
  const pods = [...input.pods];
  for (let d = 0; d < 10; d++) for (let n = 0; n < NODES; n++) pods.push(daemonPod(d, n));
  const live: ReachabilityInput = { ...input, namespaces: [...input.namespaces, { metadata: { name: 'fleet' } }], pods, nodes: [...input.nodes, ...nodes] };
  const step = (s: Session, version: number) => {
    const t0 = performance.now();
    const summary = s.setInput({ ...live, pods: [...pods] }, version);
    const port = summary.suggestedPorts[0] ?? { port: 80, protocol: 'TCP' as const };
    s.matrixView(port.port, port.protocol);
    return performance.now() - t0;
  };
  const session = new Session();
  const first = step(session, 1);
  const kept: number[] = [];
  const fresh: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (let k = 0; k < 100; k++) {
      const i = input.pods.length + ((round * 100 + k) * 487) % (10 * NODES);
      const [, d, n] = pods[i].metadata.name!.match(/^fleet-(\d+)-([0-9a-z]+)/)!;
      pods[i] = daemonPod(Number(d), parseInt(n, 36), `-r${round}`);
    }
    kept.push(step(session, round + 2));
    fresh.push(step(new Session(), round + 2));
  }
  const k = median(kept);
  const f = median(fresh);
  console.log(`reachability live session, ${pods.length} pods x ${live.policies.length} policies: first input ${first.toFixed(0)} ms; after 100 pods replaced ${k.toFixed(0)} ms against ${f.toFixed(0)} ms for a new session on the same input (${(k / f).toFixed(2)}x; median of 5, summary and one port's matrix included)`);
}

export async function benchReachability() {
  console.log(`reachability bench: ${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)} at start (other work on the machine slows both sides alike)`);
  const ok = [runCase(1000, 200), runCase(5000, 500)].every(Boolean);
  runLiveCase();
  if (!ok) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReachability();
