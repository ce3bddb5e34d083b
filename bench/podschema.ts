// Decoding and validating pods (the work of a large DaemonSet's creates): the
// whole PodSpec schema must stay cheap. Decodes and validates the pods of the
// corpus DaemonSets with this checkout's kinds and, side by side in the same
// process, with a baseline checkout's (default: none), and prints the ratio.
//   npx tsx bench/podschema.ts [count] [baseline checkout dir, e.g. a git worktree of an older commit]
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const count = Number(process.argv[2] ?? 50_000);
const baselineDir = process.argv[3] ? resolve(process.argv[3]) : undefined;
const dir = join(import.meta.dirname, '..', 'src', 'kinds', 'testdata', 'daemonsets');
const pods = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => {
    const ds = parse(readFileSync(join(dir, f), 'utf8'));
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: ds.spec.template.metadata.labels }, spec: { ...ds.spec.template.spec, nodeName: 'node-1' } };
    return { name: f, raw: JSON.stringify(pod) };
  });

async function load(root: string) {
  const { podKind } = await import(join(root, 'src/kinds/pod.ts'));
  const { decodeObject } = await import(join(root, 'src/server/registry/decode.ts'));
  // Warn: the baseline may not know every field of the corpus.
  return (raw: string) => podKind.validate(decodeObject(podKind, JSON.parse(raw), { fieldValidation: 'Warn', warnings: [] }), {});
}

const runs: { label: string; run: (raw: string) => unknown }[] = [{ label: 'this', run: await load(join(import.meta.dirname, '..')) }];
if (baselineDir) runs.push({ label: 'baseline', run: await load(baselineDir) });

const per = Math.ceil(count / pods.length);
const totals = new Map<string, number>(runs.map((r) => [r.label, 0]));
// Interleaved in slices, so that load from other processes falls on both alike.
for (let slice = 0; slice < 10; slice++) {
  for (const { raw } of pods) {
    for (const r of runs) {
      const start = performance.now();
      for (let i = 0; i < per / 10; i++) r.run(raw);
      totals.set(r.label, totals.get(r.label)! + performance.now() - start);
    }
  }
}
for (const [label, ms] of totals) console.log(`${label.padEnd(9)} ${(ms / 1000).toFixed(2)} s for ${per * pods.length} pods (${((ms / (per * pods.length)) * 1000).toFixed(0)} µs/pod)`);
if (baselineDir) console.log(`ratio this/baseline: ${(totals.get('this')! / totals.get('baseline')!).toFixed(2)}`);
