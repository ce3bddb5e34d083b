// Hostile strings for the regular expressions that see request data: each is
// sent to a real server (child process) beside a benign string of the same
// length, at two lengths. A linear check keeps the ratio hostile/benign flat
// as the length grows four times; a quadratic one multiplies it by ~4 (at
// 400 KB the '=' padding of binaryData took minutes before it was a scan).
// Also the deep YAML body that aborted the process (yamldepth.ts): answered?
//   flock /tmp/bench.lock npx tsx bench/fuzz-redos.ts
import { loadavg } from 'node:os';
import { startApiServer } from './processes.ts';

const server = await startApiServer();
const { url, headers } = server;
let n = 0;

async function timed(path: string, init: RequestInit): Promise<{ ms: number; status: number }> {
  const t = performance.now();
  const res = await fetch(url + path, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  await res.text();
  return { ms: performance.now() - t, status: res.status };
}

const json = { 'Content-Type': 'application/json' };
const configMap = (value: string) => ({
  path: '/api/v1/namespaces/default/configmaps',
  init: { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `redos-${n++}` }, binaryData: { k: value } }) },
});
const daemonSet = (fieldPath: string) => ({
  path: '/apis/apps/v1/namespaces/default/daemonsets',
  init: {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: `redos-${n++}` },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } }] }] } },
      },
    }),
  },
});
const path = (p: string) => ({ path: '/api/v1/namespaces/' + p, init: {} });

const cases: [string, (len: number) => { path: string; init: RequestInit }, (len: number) => { path: string; init: RequestInit }, number][] = [
  ['ConfigMap binaryData "===…=x"', (len) => configMap('='.repeat(len) + 'x'), (len) => configMap('A'.repeat(len + 1)), 100_000],
  ['env fieldRef.fieldPath "[[[…\\n"', (len) => daemonSet('['.repeat(len) + '\n'), (len) => daemonSet('a'.repeat(len + 1)), 100_000],
  ['request path "///…/x"', (len) => path('/'.repeat(len) + 'x'), (len) => path('a'.repeat(len) + 'x'), 3_000],
];

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const [name, hostile, benign, len] of cases) {
  // One of each first, so that neither side pays for loading and compiling the code (nor for starting the body decoder's worker).
  await timed(benign(len).path, benign(len).init);
  await timed(hostile(10).path, hostile(10).init);
  const ratios: string[] = [];
  for (const l of [len, len * 4]) {
    const b = await timed(benign(l).path, benign(l).init);
    const h = await timed(hostile(l).path, hostile(l).init);
    ratios.push(`${l} chars: hostile ${h.ms.toFixed(0)} ms (${h.status}) / benign ${b.ms.toFixed(0)} ms (${b.status}) = ${(h.ms / b.ms).toFixed(1)}`);
  }
  console.log(`${name}\n  ${ratios.join('\n  ')}`);
}

// The body that aborted the server: the same deep YAML twice.
const deepYaml = '['.repeat(9_999) + ']'.repeat(9_999);
for (let i = 0; i < 2; i++) {
  const r = await timed('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/yaml' }, body: deepYaml }).catch((e: Error) => ({ ms: NaN, status: e.message }));
  console.log(`deep YAML [[[…]]] 9,999 levels, send ${i + 1}: ${r.status} in ${r.ms.toFixed(0)} ms`);
}
const health = await fetch(url + '/healthz').then((r) => r.status, () => 'no answer: the server is gone');
console.log(`/healthz after: ${health}`);
server.stop();
