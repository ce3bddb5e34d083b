// `kube-workbench rollout-plan <daemonset manifest> --cluster <kubeconfig or URL>`:
// the plan of the rollout that applying the manifest would start, from the
// cluster as it is (nodes, the DaemonSet's pods and revisions) — the same
// plan the app's review shows (src/lib/rolloutplan.ts). The manifest is
// sent as a server-side dry run (as `kubectl replace --dry-run=server`,
// or create for a new DaemonSet) so the plan sees the server's defaults.
import { readFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import { dirname, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describePlan, needsClusterPace, ownPace, paceDonors, planChange, type ClusterView, type RolloutPlan } from '../lib/rolloutplan.ts';
import { selectorParam } from '../lib/labels.ts';
import { podKind } from '../kinds/pod.ts';
import { humanDuration } from '../lib/duration.ts';
import { plural } from '../lib/words.ts';
import type { IO } from './main.ts';

const HELP = `Usage: kube-workbench rollout-plan <daemonset manifest> --cluster <kubeconfig or URL> [options]

Prints the waves of nodes the DaemonSet controller will take when the manifest
is applied (in its order, with the maxUnavailable/maxSurge budget each uses),
the nodes left out and why, the nodes expected to stall, and the expected
duration at the pace the DaemonSet (or the cluster) has shown, with its spread.

Options:
  --cluster PATH|URL   a kubeconfig file (its current context) or the API server's URL
  --context NAME       the kubeconfig context to use
  --token TOKEN        bearer token (with a URL; default $KUBE_TOKEN)
  -n, --namespace NS   namespace when the manifest names none (default: default)
  --insecure-skip-tls-verify
  --json               the plan as JSON
`;

interface Conn {
  server: string;
  headers: Record<string, string>;
  tls: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'>;
}

function fromKubeconfig(path: string, context: string | undefined, insecure: boolean): Conn {
  const cfg = parse(readFileSync(path, 'utf8')) ?? {};
  const base = dirname(resolve(path));
  const named = (list: any[] | undefined, name: string | undefined, what: string) => {
    const e = (list ?? []).find((x) => x?.name === name);
    if (!e) throw new Error(`${path}: no ${what} "${name}"`);
    return e;
  };
  const ctx = named(cfg.contexts, context ?? cfg['current-context'], 'context').context ?? {};
  const cluster = named(cfg.clusters, ctx.cluster, 'cluster').cluster ?? {};
  const user = ctx.user ? (named(cfg.users, ctx.user, 'user').user ?? {}) : {};
  const file = (p: string) => readFileSync(resolve(base, p));
  const data = (d: string | undefined, f: string | undefined) => (d ? Buffer.from(d, 'base64') : f ? file(f) : undefined);
  const headers: Record<string, string> = {};
  const token = user.token ?? (user.tokenFile ? file(user.tokenFile).toString().trim() : undefined);
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (user.username) headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  if (user.exec || user['auth-provider']) throw new Error(`${path}: user "${ctx.user}" authenticates with an exec plugin or auth provider, which this command does not run; use a token`);
  return {
    server: String(cluster.server ?? '').replace(/\/$/, ''),
    headers,
    tls: {
      ca: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
      cert: data(user['client-certificate-data'], user['client-certificate']),
      key: data(user['client-key-data'], user['client-key']),
      rejectUnauthorized: !(insecure || cluster['insecure-skip-tls-verify']),
    },
  };
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function call(conn: Conn, method: string, path: string, body?: unknown): Promise<any> {
  const url = new URL(conn.server + path);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Accept: 'application/json', ...conn.headers, ...(payload ? { 'Content-Type': 'application/json' } : {}) };
  return new Promise((ok, fail) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers, ...(url.protocol === 'https:' ? conn.tls : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: any = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        if ((res.statusCode ?? 500) >= 400) fail(new ApiError(res.statusCode ?? 500, parsed?.message ?? `${res.statusCode} ${text.slice(0, 200)}`));
        else ok(parsed);
      });
    });
    req.on('error', fail);
    req.end(payload);
  });
}

function readDaemonSets(path: string): any[] {
  const text = readFileSync(path, 'utf8');
  const docs = parseAllDocuments(text).map((d) => d.toJS());
  const flat = docs.flatMap((d: any) => (d?.kind === 'List' || d?.kind === 'DaemonSetList' ? (d.items ?? []) : [d]));
  return flat.filter((d: any) => d?.kind === 'DaemonSet');
}

const fmt = (ms: number) => humanDuration(Math.round(ms / 1000) * 1000);

export function formatPlan(ds: any, plan: RolloutPlan, hypothetical: boolean, created: boolean): string {
  const lines: string[] = [];
  const id = `${ds.metadata.namespace}/${ds.metadata.name}`;
  lines.push(`DaemonSet ${id}: ${created ? 'new' : hypothetical ? 'template unchanged — the plan of the next template change' : 'the pod template changes'}`);
  lines.push(describePlan(plan, fmt));
  if (plan.forecast) lines.push(`Pace: ${plan.forecast.pace.source}`);
  if (plan.waves.length) {
    const rows = plan.waves.map((w) => {
      const counted = w.steps.filter((s) => !s.beyondBudget && s.action !== 'remove').length + w.held;
      const nodes = w.steps.map((s) => s.nodeName + (s.stall ? ' (stalls)' : s.action === 'remove' ? ' (pod removed)' : s.beyondBudget ? ' (at once)' : ''));
      return [String(w.index + 1), `${counted}/${w.limit}${w.held ? ` (${w.held} held)` : ''}`, w.endsAt !== undefined ? fmt(w.endsAt) : '-', nodes.join(', ')];
    });
    const head = ['WAVE', 'BUDGET', 'DONE AFTER', 'NODES'];
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [head, ...rows]) lines.push(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(width[i]))).join('  '));
  }
  const stalls = plan.stalls.filter((s) => s.kind === 'stall');
  if (stalls.length) {
    lines.push('Expected to stall (each holds its share of the budget):');
    for (const s of stalls) lines.push(`  ${s.nodeName}: ${s.reason}`);
  }
  for (const s of plan.stalls.filter((x) => x.kind === 'risk')) lines.push(`At risk: ${s.nodeName}: ${s.reason}`);
  if (plan.notReached.length) lines.push(`Never reached (the budget stays held by stalled nodes): ${plan.notReached.join(', ')}`);
  if (plan.excluded.length) {
    lines.push('Left out:');
    for (const e of plan.excluded) lines.push(`  ${e.nodeName}: ${e.reason}${e.pod ? ` (its pod: ${e.pod})` : ''}`);
  }
  if (plan.done.length) lines.push(`Already on this template: ${plural(plan.done.length, 'node')}`);
  if (plan.manual.length) lines.push(`OnDelete: ${plan.manual.join(', ')} change only as their pods are deleted`);
  return lines.join('\n') + '\n';
}

export async function rolloutPlan(argv: string[], io: IO): Promise<number> {
  const opts: Record<string, string | boolean> = {};
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      io.out(HELP);
      return 0;
    }
    if (a === '--json' || a === '--insecure-skip-tls-verify') opts[a.slice(2)] = true;
    else if (['--cluster', '--context', '--token', '--namespace', '-n'].includes(a)) opts[a === '-n' ? 'namespace' : a.slice(2)] = argv[++i] ?? '';
    else if (a.startsWith('--') && a.includes('=')) opts[a.slice(2, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
    else if (a.startsWith('-')) {
      io.err(`rollout-plan: unknown option ${a}\n\n${HELP}`);
      return 2;
    } else files.push(a);
  }
  if (files.length !== 1 || !opts.cluster) {
    io.err(`rollout-plan: one manifest and --cluster are required\n\n${HELP}`);
    return 2;
  }
  try {
    const target = String(opts.cluster);
    const conn: Conn = /^https?:\/\//.test(target)
      ? { server: target.replace(/\/$/, ''), headers: (opts.token ?? process.env.KUBE_TOKEN) ? { Authorization: `Bearer ${opts.token ?? process.env.KUBE_TOKEN}` } : {}, tls: { rejectUnauthorized: !opts['insecure-skip-tls-verify'] } }
      : fromKubeconfig(target, opts.context as string | undefined, !!opts['insecure-skip-tls-verify']);
    const daemonSets = readDaemonSets(files[0]);
    if (!daemonSets.length) throw new Error(`${files[0]}: no DaemonSet in the manifest`);
    const results: unknown[] = [];
    for (const manifest of daemonSets) {
      const ns = manifest.metadata?.namespace ?? (opts.namespace as string) ?? 'default';
      const name = manifest.metadata?.name;
      if (!name) throw new Error(`${files[0]}: a DaemonSet without metadata.name`);
      const base = `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/daemonsets`;
      const current = await call(conn, 'GET', `${base}/${encodeURIComponent(name)}`).catch((e) => {
        if (e instanceof ApiError && e.code === 404) return undefined;
        throw e;
      });
      const body = { ...manifest, apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { ...manifest.metadata, namespace: ns, ...(current ? { resourceVersion: current.metadata.resourceVersion, uid: current.metadata.uid } : {}) } };
      const proposed = current ? await call(conn, 'PUT', `${base}/${encodeURIComponent(name)}?dryRun=All`, body) : await call(conn, 'POST', `${base}?dryRun=All`, body);
      const podsPath = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`;
      // The DaemonSet's own pods by its selector, not the namespace's (ten DaemonSets on 5000 nodes are 50,000 pods).
      const podsOf = (d: any) => {
        const sel = selectorParam(d?.spec?.selector);
        return call(conn, 'GET', sel ? `${podsPath}?labelSelector=${encodeURIComponent(sel)}` : podsPath);
      };
      const [nodes, pods, revisions, all, events] = await Promise.all([
        call(conn, 'GET', '/api/v1/nodes'),
        current ? podsOf(current) : { items: [] },
        call(conn, 'GET', `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/controllerrevisions`),
        call(conn, 'GET', base),
        // The kubelets' Killing and Started show the old pods' stop; unreadable events leave it estimated.
        call(conn, 'GET', `/api/v1/namespaces/${encodeURIComponent(ns)}/events?fieldSelector=${encodeURIComponent(`source=kubelet,involvedObject.kind=${podKind.kind}`)}`).catch(() => ({ items: [] })),
      ]);
      const view: ClusterView = { nodes: nodes.items, pods: pods.items, revisions: revisions.items, daemonSets: all.items, events: events.items };
      // Too few rollouts of its own: the pods of the other DaemonSets whose rollouts give the cluster's pace.
      if (!current || needsClusterPace(ownPace(current, view))) {
        const donors = await Promise.all(paceDonors(current, view).map(podsOf));
        view.pods = [...view.pods, ...donors.flatMap((l) => l.items)];
      }
      const { plan, hypothetical } = planChange({ current, proposed, view, now: Date.now() });
      if (opts.json) results.push({ daemonSet: `${ns}/${name}`, hypothetical, plan });
      else io.out(formatPlan(proposed, plan, hypothetical, !current));
    }
    if (opts.json) io.out(JSON.stringify(results.length === 1 ? results[0] : results, null, 2) + '\n');
    return 0;
  } catch (e) {
    io.err(`rollout-plan: ${(e as Error).message}\n`);
    return 1;
  }
}
