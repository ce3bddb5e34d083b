// Decoding and validating 50,000 pods (the work of a large DaemonSet's
// creates): the full PodSpec schema must stay cheap. Prints the time per pod
// for the pods of each corpus DaemonSet and in total.
//   npx tsx bench/podschema.ts [count]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { podKind } from '../src/kinds/pod.ts';
import { decodeObject } from '../src/server/registry/decode.ts';

const count = Number(process.argv[2] ?? 50_000);
const dir = join(import.meta.dirname, '..', 'src', 'kinds', 'testdata', 'daemonsets');
const pods = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => {
    const ds = parse(readFileSync(join(dir, f), 'utf8'));
    return { name: f, pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: ds.spec.template.metadata.labels }, spec: { ...ds.spec.template.spec, nodeName: 'node-1' } } };
  });

let total = 0;
for (const { name, pod } of pods) {
  const n = Math.ceil(count / pods.length);
  const raw = JSON.stringify(pod);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const obj = decodeObject(podKind, JSON.parse(raw), { fieldValidation: (process.env.FIELD_VALIDATION as 'Strict' | 'Warn') ?? 'Strict', warnings: [] });
    const errs = podKind.validate(obj, {});
    if (errs.length && i === 0) console.log(name, 'invalid:', errs.slice(0, 3).map((e: any) => `${e.field}: ${e.detail ?? e.type}`).join('; '));
  }
  const ms = performance.now() - start;
  total += ms;
  console.log(`${name.padEnd(28)} ${(ms / n * 1000).toFixed(1)} µs/pod`);
}
console.log(`total for ${count} pods: ${(total / 1000).toFixed(2)} s`);
