// Intents and fixes at scale: 1000 pods in 20 namespaces, 200 policies
// (the size the reachability views are measured at), 20 intents. Prints
// times; run with `npx tsx bench/reachability-intents.ts`.
import { analyzeReachability, evaluateIntents, proposeIntentFix, proposePairFix, type Intent, type NetworkPolicyLike, type PodLike } from '../src/lib/reachability/index.ts';

const NS = 20;
const APPS = 25;
const pods: PodLike[] = [];
for (let n = 0; n < NS; n++) for (let i = 0; i < 1000 / NS; i++) pods.push({ metadata: { namespace: `ns${n}`, name: `p${i}`, labels: { app: `a${i % APPS}`, tier: i % 2 ? 'web' : 'db' } }, spec: { containers: [{ ports: [{ name: 'http', containerPort: 8080 }] }] }, status: { podIP: `10.${n}.0.${i + 1}` } });
const namespaces = Array.from({ length: NS }, (_, n) => ({ metadata: { name: `ns${n}`, labels: { team: `t${n % 4}` } } }));
const policies: NetworkPolicyLike[] = [];
for (let k = 0; k < 200; k++) {
  const n = k % NS;
  policies.push({
    metadata: { namespace: `ns${n}`, name: `np${k}` },
    spec: { podSelector: { matchLabels: { app: `a${k % APPS}` } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: `t${k % 4}` } }, podSelector: { matchLabels: { tier: 'web' } } }], ports: [{ port: 8080 + (k % 3) }] }] },
  });
}
const input = { namespaces, pods, policies, nodes: [] };
const intents: Intent[] = Array.from({ length: 20 }, (_, k) => ({
  name: `i${k}`,
  expect: k % 2 ? 'denied' : 'allowed',
  from: { namespace: `ns${k % NS}`, podSelector: { matchLabels: { tier: 'web' } } },
  to: { namespaceSelector: { matchLabels: { team: `t${k % 4}` } }, podSelector: { matchLabels: { app: `a${k % APPS}` } } },
  ...(k % 3 ? { ports: [{ port: 8080 }] } : {}),
}));

const time = <T>(label: string, f: () => T): T => {
  const t0 = performance.now();
  const r = f();
  console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
  return r;
};
const analysis = time('analysis + first matrix', () => {
  const a = analyzeReachability(input);
  a.matrix(8080, 'TCP');
  return a;
});
const results = time('20 intents (exact over every port region)', () => evaluateIntents(input, intents, { analysis }));
console.log(`  ${results.filter((r) => r.status === 'violated').length} violated`);
time('pair fix (allow)', () => proposePairFix(input, { namespace: 'ns1', name: 'p1' }, { namespace: 'ns2', name: 'p0' }, 8080, 'TCP', 'allowed'));
time('pair fix (deny)', () => proposePairFix(input, { namespace: 'ns0', name: 'p1' }, { namespace: 'ns0', name: 'p0' }, 8080, 'TCP', 'denied'));
const violated = intents.find((i, k) => results[k].status === 'violated' && i.expect === 'allowed');
if (violated) time(`intent fix (${violated.name})`, () => proposeIntentFix(input, violated));
