// The critical path of a DaemonSet rollout: runs the cluster bench
// (scale-cluster.ts, 5000 nodes, 200 watchers, no browser) with the server
// recording each hop of each pod's chain (ROLLOUT_TRACE, see
// src/server/controllers/rollouttrace.ts), then prints, per hop, how long it
// took across the nodes of the rollout: old pod deleted -> its kubelet sees it
// -> stops it (1 s) -> removes it -> the DaemonSet controller sees it gone and
// creates the new pod -> the scheduler binds it -> its kubelet starts it (1 s),
// Running, Ready (2 s) -> the controller sees it available and deletes the
// next old pod. Prints numbers; asserts nothing.
// ROLLOUTPATH_TRACE=<file> analyses a trace recorded before instead of running.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './cluster.ts';

type Rec = [number, string, string, string?];

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');

function dist(xs: number[]) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, mean, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.at(-1) ?? NaN };
}

/** The first time in sorted `ts` at or after `t`. */
function firstAfter(ts: number[], t: number): number {
  if (Number.isNaN(t)) return NaN; // an earlier hop was not traced: this one is not either
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return ts[lo] ?? NaN;
}

export function analyse(all0: Rec[]) {
  // The trace follows the first DaemonSet synced; it ends where another's sync starts (the bench's fleet after the rollout).
  const rolled = all0.find((r) => r[1] === 'ds.sync.start')?.[2];
  const other = all0.findIndex((r) => r[1] === 'ds.sync.start' && r[2] !== rolled);
  const recs = other < 0 ? all0 : all0.slice(0, other);
  // Per pod: each kind of record's times, in order.
  const byPod = new Map<string, Map<string, { t: number; d?: string }[]>>();
  const all = new Map<string, number[]>();
  for (const [t, what, key, d] of recs) {
    let m = byPod.get(key);
    if (!m) byPod.set(key, (m = new Map()));
    let l = m.get(what);
    if (!l) m.set(what, (l = []));
    l.push({ t, d });
    let a = all.get(what);
    if (!a) all.set(what, (a = []));
    a.push(t);
  }
  const planRecs = recs.filter((r) => r[1] === 'ds.plan');
  const t0 = planRecs.find((r) => Number(r[3]!.split('/')[1]) > 0)?.[0];
  if (t0 === undefined) throw new Error('no rolling update plan deleted a pod: was there a rollout?');
  // Nodes: the old pod (created before the rollout) and the new one.
  const oldOn = new Map<string, string>();
  const newOn = new Map<string, string>();
  for (const [t, what, pod, node] of recs) if (what === 'ds.create.done') (t < t0 ? oldOn : newOn).set(node!, pod);
  const first = (pod: string | undefined, what: string, after = -Infinity, detail?: string) =>
    byPod.get(pod ?? '')?.get(what)?.find((r) => r.t >= after && (detail === undefined || r.d === detail))?.t ?? NaN;
  const syncStarts = all.get('ds.sync.start') ?? [];
  const deleteReqs = (all.get('ds.delete.req') ?? []).filter((t) => t >= t0);
  const lastDelete = deleteReqs.at(-1) ?? t0;

  const hops: [string, number[], number][] = [
    ['DS delete (graceful) write, until the kubelet sees deletionTimestamp', [], 0],
    ['kubelet: event -> its pod worker runs', [], 0],
    ['kubelet: stop delay (1 s) + timer lateness', [], 1000],
    ['kubelet final delete write, until the DS controller sees DELETED', [], 0],
    ['DS controller: event -> sync starts', [], 0],
    ['DS controller: sync start -> create asked', [], 0],
    ['DS create write, until the scheduler sees ADDED', [], 0],
    ['scheduler: event -> schedule runs', [], 0],
    ['scheduler: schedule runs -> binding asked', [], 0],
    ['binding write, until the kubelet sees the pod bound', [], 0],
    ['kubelet: event -> pod worker runs (seenAt)', [], 0],
    ['kubelet: start delay (1 s) + timer lateness -> Running asked', [], 1000],
    ['kubelet: ready delay (2 s) + timer lateness -> Ready asked', [], 2000],
    ['kubelet Ready write, until the DS controller sees Ready', [], 0],
    ['DS controller: event -> sync starts', [], 0],
    ['DS controller: sync start -> next old pod delete asked', [], 0],
  ];
  const cycles: number[] = [];
  let complete = 0;
  for (const [node, P] of newOn) {
    const O = oldOn.get(node);
    const a = first(O, 'ds.delete.req', t0);
    const c = first(O, 'kl.see.terminating', a);
    const d = first(O, 'kl.sync', c);
    const e = first(O, 'kl.final.req', d);
    const g = first(O, 'ds.see.deleted', e);
    // A sync already running when the event came may judge the node after it and ask: then it is the one.
    const i = first(node, 'ds.create.req', g);
    const h = Math.min(firstAfter(syncStarts, g), i);
    const k = first(P, 'sch.see.added', i);
    const l = first(P, 'sch.sync', k);
    const m = first(P, 'sch.bind.req', l);
    const o = first(P, 'kl.see.bound', m);
    const p = first(P, 'kl.sync', o);
    const q = first(P, 'kl.status.req', p, 'Running');
    const r = first(P, 'kl.status.req', q, 'Running+ready');
    const t = first(P, 'ds.see.ready', r);
    // The last wave's new pods have no old pod left to replace.
    const v = t < lastDelete ? firstAfter(deleteReqs, t) : NaN;
    const u = Math.min(firstAfter(syncStarts, t), v);
    const points = [a, c, d, e, g, h, i, k, l, m, o, p, q, r, t, u, v];
    points.slice(1).forEach((x, j) => hops[j][1].push(x - points[j]));
    if (points.every(Number.isFinite)) {
      complete++;
      cycles.push(v - a);
    }
  }
  console.log(`  rollout: ${newOn.size} new pods, ${complete} nodes with every hop traced; ${syncStarts.filter((s) => s >= t0).length} DaemonSet syncs`);
  console.log('  hop (ms over the nodes: mean, p50, p90, p99, max; minus the simulated delay where there is one):');
  let sum = 0;
  for (const [name, xs, floor] of hops) {
    const s = dist(xs);
    sum += s.mean - floor;
    console.log(`    ${name.padEnd(72)} ${f(s.mean - floor).padStart(6)} ${f(s.p50 - floor).padStart(6)} ${f(s.p90 - floor).padStart(6)} ${f(s.p99 - floor).padStart(6)} ${f(s.max - floor).padStart(6)}`);
  }
  const cy = dist(cycles);
  console.log(`  one cycle (old pod delete asked -> the next delete asked after its new pod is Ready): mean ${f(cy.mean)}, p50 ${f(cy.p50)}, p90 ${f(cy.p90)} ms; over the 4000 ms of delays: ${f(sum)} ms`);

  // The DaemonSet controller's syncs during the rollout: how long, and what they waited for.
  const starts = recs.filter((r) => r[1] === 'ds.sync.start' && r[0] >= t0).map((r) => r[0]);
  const ends = recs.filter((r) => r[1] === 'ds.sync.end' && r[0] >= t0).map((r) => r[0]);
  const durations = starts.map((s) => firstAfter(ends, s) - s);
  const ds = dist(durations);
  console.log(`  DS syncs: ${starts.length}, each mean ${f(ds.mean)} ms, p50 ${f(ds.p50)}, p90 ${f(ds.p90)}, max ${f(ds.max)}; busy ${f((100 * durations.reduce((x, y) => x + (Number.isFinite(y) ? y : 0), 0)) / ((ends.at(-1) ?? t0) - t0))}% of the rollout`);
  const pair = (req: string, done: string, key = (r: Rec) => r[2]) => {
    const open = new Map<string, number>();
    const out: number[] = [];
    for (const r of recs) {
      if (r[0] < t0) continue;
      if (r[1] === req) open.set(key(r), r[0]);
      else if (r[1] === done && open.has(key(r))) {
        out.push(r[0] - open.get(key(r))!);
        open.delete(key(r));
      }
    }
    return dist(out);
  };
  for (const [name, req, done] of [
    ['DS delete', 'ds.delete.req', 'ds.delete.done'],
    ['DS status', 'ds.status.req', 'ds.status.done'],
    ['binding', 'sch.bind.req', 'sch.bind.done'],
    ['kubelet final delete', 'kl.final.req', 'kl.final.done'],
  ] as const) {
    const s = pair(req, done);
    console.log(`  write ${name}: n ${s.n}, mean ${f(s.mean)} ms, p50 ${f(s.p50)}, p90 ${f(s.p90)}, p99 ${f(s.p99)}, max ${f(s.max)}`);
  }
  const createDone = new Map(recs.filter((r) => r[1] === 'ds.create.done' && r[0] >= t0).map((r) => [r[3]!, r[0]]));
  const creates = recs.filter((r) => r[1] === 'ds.create.req' && r[0] >= t0).map((r) => (createDone.get(r[2]) ?? NaN) - r[0]);
  const cs = dist(creates);
  console.log(`  write DS create: n ${cs.n}, mean ${f(cs.mean)} ms, p50 ${f(cs.p50)}, p90 ${f(cs.p90)}, p99 ${f(cs.p99)}, max ${f(cs.max)}`);
  const st = pair('kl.status.req', 'kl.status.done', (r) => `${r[2]} ${r[3]}`);
  console.log(`  write kubelet status: n ${st.n}, mean ${f(st.mean)} ms, p50 ${f(st.p50)}, p90 ${f(st.p90)}, p99 ${f(st.p99)}, max ${f(st.max)}`);
  const manages = planRecs.filter((r) => r[0] >= t0).map((r) => r[3]);
  console.log(`  DS plans: ${manages.length}, deletes per plan: ${JSON.stringify(dist(manages.map((m) => Number(m!.split('/')[1]))))}`);
  const mg = recs.filter((r) => r[1] === 'ds.manage' && r[0] >= t0).map((r) => Number(r[3]!.split('/')[0]));
  console.log(`  DS manage passes: ${mg.length}, ${mg.filter((n) => n > 0).length} with creates, creates per pass: mean ${f(dist(mg.filter((n) => n > 0)).mean, 1)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let file = process.env.ROLLOUTPATH_TRACE;
  if (!file) {
    file = join(tmpdir(), `rollouttrace-${process.pid}.json`);
    rmSync(file, { force: true });
    process.env.ROLLOUT_TRACE = file; // the server process inherits it
    process.env.SCALE_CLUSTER_APP = '0';
    // The trace follows one rollout: the watched one (SCALE_WATCHERS=0 makes it a rollout by itself).
    process.env.SCALE_QUIET_ROLLOUT = '0';
    const { benchCluster5000 } = await import('./scale-cluster.ts');
    await benchCluster5000();
    for (let i = 0; i < 120 && !existsSync(file); i++) await sleep(500);
    console.log(`  trace: ${file}`);
  }
  analyse(JSON.parse(readFileSync(file, 'utf8')));
  process.exit(0);
}
