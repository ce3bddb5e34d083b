// `kube-workbench reach <dir-or-files...> [--intents file] [--base dir] [--port 80,53/UDP] [--format table|json|md]`
//
// The reachability of a set of manifests, as the app computes it for a live
// cluster (same engine, same objects): the matrix at the ports the policies
// and pods name, what changed against --base, and every intent's result
// (intents from --intents and from labelled ConfigMaps among the manifests).
// Exit status: 0 all intents met, 1 an intent is violated, 2 bad input.
import { parseArgs } from 'node:util';
import {
  analyzeReachability,
  describeIntent,
  endpointText,
  evaluateIntents,
  matrixAllowed,
  reachabilityEffect,
  type FixEffect,
  type IntentResult,
  type PortSpec,
  type Protocol,
  type ReachabilityInput,
} from '../lib/reachability/index.ts';
import { tableToMarkdown, tableToText, type MatrixTable } from '../lib/reachability/export.ts';
import { readIntentsFile, readManifests, type IntentSource } from './manifests.ts';

export const REACH_USAGE = `Usage: kube-workbench reach <dir-or-files...> [options]

Reads NetworkPolicy, Namespace and Pod manifests, and workloads (Deployment,
StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) as the pods they would create,
and prints who may connect to whom.

Options:
  --intents <file>   intents to check (an intents.yaml document or ConfigMap); labelled
                     ConfigMaps among the manifests are checked too
  --base <dir>       manifests to compare with: pairs newly allowed and newly denied
  --port <list>      ports for the matrix, e.g. 80,443,53/UDP (default: the ports the
                     policies and pods name)
  --format <f>       table (default), md or json
  -h, --help         this text

Exit status: 0 when every intent is met, 1 when one is violated, 2 on bad input.
`;

export interface ReachIO {
  out: (s: string) => void;
  err: (s: string) => void;
}

const PROTOCOL_SET = new Set(['TCP', 'UDP', 'SCTP']);

export function parsePorts(text: string): PortSpec[] {
  return text.split(',').map((part) => {
    const [p, proto = 'TCP'] = part.trim().split('/');
    const port = Number(p);
    const protocol = proto.toUpperCase();
    if (!Number.isInteger(port) || port < 1 || port > 65535 || !PROTOCOL_SET.has(protocol)) throw new Error(`--port: "${part}" is not a port (1-65535, optionally /TCP, /UDP or /SCTP)`);
    return { port, protocol: protocol as Protocol };
  });
}

/** Ports worth a matrix: those the policies name, then those the pods declare (80 when none). */
export function suggestedPorts(input: ReachabilityInput, limit = 8): PortSpec[] {
  const out = new Map<string, PortSpec>();
  const add = (port: unknown, protocol?: string) => {
    const proto = (protocol === 'UDP' || protocol === 'SCTP' ? protocol : 'TCP') as Protocol;
    if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 && out.size < limit) out.set(`${proto}/${port}`, { port, protocol: proto });
  };
  for (const np of input.policies) for (const r of [...(np.spec?.ingress ?? []), ...(np.spec?.egress ?? [])]) for (const e of r?.ports ?? []) add(e?.port, e?.protocol);
  for (const p of input.pods) for (const c of p.spec?.containers ?? []) for (const cp of c?.ports ?? []) add(cp?.containerPort, cp?.protocol);
  if (!out.size) add(80);
  return [...out.values()].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));
}

export interface ReachReport {
  pods: { namespace: string; name: string; from?: string }[];
  matrices: { port: number; protocol: Protocol; allowedPairs: number; rows: string[] }[];
  diff?: FixEffect;
  intents: (IntentResult & { source: string; description: string })[];
  errors: string[];
}

export function buildReport(paths: string[], opts: { intents?: string; base?: string; ports?: PortSpec[] }): ReachReport {
  const m = readManifests(paths);
  const errors = [...m.errors];
  const analysis = analyzeReachability(m.input);
  const ports = opts.ports ?? suggestedPorts(m.input);
  const pods = analysis.pods.map((p) => ({ ...p, ...(m.origins.has(`${p.namespace}/${p.name}`) ? { from: m.origins.get(`${p.namespace}/${p.name}`) } : {}) }));
  const matrices = ports.map((p) => {
    const mx = analysis.matrix(p.port, p.protocol);
    let allowedPairs = 0;
    const rows = mx.pods.map((_, i) =>
      mx.pods
        .map((__, j) => {
          const ok = matrixAllowed(mx, i, j);
          if (ok) allowedPairs++;
          return ok ? '1' : '0';
        })
        .join(''),
    );
    return { ...p, allowedPairs, rows };
  });
  let diff: FixEffect | undefined;
  if (opts.base) {
    const base = readManifests([opts.base]);
    errors.push(...base.errors.map((e) => `--base: ${e}`));
    // The base's policies over these pods: what the change of policies does to the workloads as they are now.
    diff = reachabilityEffect({ ...m.input, policies: base.input.policies, namespaces: mergeNamespaces(m.input, base.input) }, { ...m.input, namespaces: mergeNamespaces(m.input, base.input) }, 1000);
  }
  const sources: IntentSource[] = [...m.intents];
  if (opts.intents) {
    const f = readIntentsFile(opts.intents);
    errors.push(...f.errors);
    sources.push(...f.intents);
  }
  const intents = sources.flatMap((s) => evaluateIntents(m.input, s.intents, { analysis }).map((r, k) => ({ ...r, source: s.source, description: describeIntent(s.intents[k]) })));
  return { pods, matrices, diff, intents, errors };
}

/** Namespaces of both sets (labels from the new set where both define one). */
function mergeNamespaces(a: ReachabilityInput, b: ReachabilityInput) {
  const out = new Map(b.namespaces.map((n) => [n.metadata.name, n]));
  for (const n of a.namespaces) out.set(n.metadata.name, n);
  return [...out.values()];
}

const podLabel = (p: ReachReport['pods'][number]) => `${p.namespace}/${p.name}${p.from ? ` (${p.from.split(' ')[0]})` : ''}`;

function tables(r: ReachReport): MatrixTable[] {
  const names = r.pods.map(podLabel);
  return r.matrices.map((m) => ({
    title: `${m.protocol} ${m.port}`,
    rows: names,
    cols: names,
    cells: m.rows.map((row) => [...row].map((c) => (c === '1' ? { state: 'allowed' as const, text: '✓' } : { state: 'denied' as const, text: '·' }))),
  }));
}

const caseText = (v: IntentResult['violations'][number]) => `${endpointText(v.from)} → ${endpointText(v.to)} ${v.protocol} ${v.port}`;

export function formatReport(r: ReachReport, format: 'table' | 'md' | 'json'): string {
  if (format === 'json') return JSON.stringify(r, null, 2) + '\n';
  const md = format === 'md';
  const out: string[] = [];
  const h = (s: string) => out.push(md ? `## ${s}\n` : `${s}\n${'='.repeat(s.length)}`);
  h('Reachability');
  out.push(`${r.pods.length} pods, ${r.matrices.length} port${r.matrices.length === 1 ? '' : 's'}. Rows are sources, columns destinations: ✓ may connect, · may not.\n`);
  for (const t of tables(r)) out.push(md ? tableToMarkdown(t) : tableToText(t));
  if (r.diff) {
    h('Changes against the base');
    if (!r.diff.totalAllowed && !r.diff.totalDenied) out.push('No pod pair changes on any port.\n');
    for (const [label, list, total] of [['Newly allowed', r.diff.newlyAllowed, r.diff.totalAllowed], ['Newly denied', r.diff.newlyDenied, r.diff.totalDenied]] as const) {
      if (!total) continue;
      out.push(`${md ? '**' : ''}${label}${md ? '**' : ''} (${list.length} pod pair${list.length === 1 ? '' : 's'}):`);
      for (const p of list) out.push(`${md ? '- ' : '  '}${p.from.namespace}/${p.from.name} → ${p.to.namespace}/${p.to.name}  ${p.ports.join(', ')}`);
      out.push('');
    }
  }
  if (r.intents.length) {
    h('Intents');
    for (const i of r.intents) {
      const mark = i.status === 'met' ? '✓ met     ' : '✗ VIOLATED';
      out.push(`${md ? '- ' : ''}${mark} ${md ? '`' : ''}${i.name}${md ? '`' : ''}: ${i.description}`);
      const pad = md ? '  - ' : '             ';
      if (i.status === 'violated') {
        out.push(`${pad}${i.violationCount} of ${i.checked} cases ${i.expect === 'allowed' ? 'denied' : 'allowed'}, e.g. ${i.violations.slice(0, 3).map(caseText).join('; ')}`);
        if (i.policies.length) out.push(`${pad}${i.expect === 'allowed' ? 'isolated by' : 'let through by'}: ${i.policies.map((p) => `${p.namespace}/${p.name}`).join(', ')}`);
      }
      for (const w of i.warnings) out.push(`${pad}note: ${w}`);
    }
    out.push('');
  }
  return out.join('\n');
}

export function reach(argv: string[], io: ReachIO): number {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { intents: { type: 'string' }, base: { type: 'string' }, port: { type: 'string' }, format: { type: 'string', default: 'table' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    io.err(`${e instanceof Error ? e.message : String(e)}\n\n${REACH_USAGE}`);
    return 2;
  }
  const v = args.values as { intents?: string; base?: string; port?: string; format?: string; help?: boolean };
  if (v.help) {
    io.out(REACH_USAGE);
    return 0;
  }
  if (!args.positionals.length) {
    io.err(`reach: give at least one file or directory of manifests\n\n${REACH_USAGE}`);
    return 2;
  }
  if (!['table', 'md', 'json'].includes(v.format ?? '')) {
    io.err(`--format must be table, md or json, not "${v.format}"\n`);
    return 2;
  }
  let report: ReachReport;
  try {
    report = buildReport(args.positionals, { intents: v.intents, base: v.base, ports: v.port ? parsePorts(v.port) : undefined });
  } catch (e) {
    io.err(`reach: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  io.out(formatReport(report, v.format as 'table' | 'md' | 'json'));
  for (const e of report.errors) io.err(`error: ${e}\n`);
  if (report.errors.length) return 2;
  return report.intents.some((i) => i.status === 'violated') ? 1 : 0;
}
