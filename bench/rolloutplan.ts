// How good is the rollout forecast? On a simulated cluster (our server with
// N simulated kubelets, default pod delays: stop 1 s, start 1 s, ready 2 s), a
// DaemonSet rolls out once to be observed; then, for each strategy below, the
// plan is made from what the API serves (the same planChange the app and the
// CLI use, pace from this DaemonSet's previous rollout), the image changes,
// and the rollout is timed until `kubectl rollout status` would say done.
// Prints forecast (p50 and p10–p90) against the measured time and the error,
// and the error of the re-plan the live view makes half-way (pace so far).
// Switching between surge and no surge changes the per-node hand-off (the
// old pod's stop), which the last rollout's pods cannot show; the planner
// reads it off the kubelets' events of earlier rollouts: the rows after a
// switch measure that, the rows after the same mode the pace itself. Each
// row also prints the phases planned against those the rollout then showed,
// where its wall time went, and at the end a table: nodes, forecast,
// spread, actual, error, and whether the actual fell inside the spread.
// Goal: within 20% for rollouts of at least 100 nodes, inside the spread in most.
import { startApiServer } from './processes.ts';
import { describePlan, ownPace, planChange, type ClusterView } from '../src/lib/rolloutplan.ts';
import { podKind } from '../src/kinds/pod.ts';

const NODES = Number(process.env.BENCH_PLAN_NODES ?? 120);
const NAME = 'planned';
const DS_PATH = `/apis/apps/v1/namespaces/default/daemonsets`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const STRATEGIES: { label: string; rollingUpdate: Record<string, unknown> }[] = [
  { label: 'maxUnavailable 10%', rollingUpdate: { maxUnavailable: '10%' } },
  { label: 'maxUnavailable 25%', rollingUpdate: { maxUnavailable: '25%' } },
  { label: 'maxSurge 20%', rollingUpdate: { maxUnavailable: 0, maxSurge: '20%' } },
  { label: 'maxSurge 20% again', rollingUpdate: { maxUnavailable: 0, maxSurge: '20%' } },
  { label: 'maxUnavailable 8', rollingUpdate: { maxUnavailable: 8 } },
];

export async function benchRolloutPlan(): Promise<void> {
  const server = await startApiServer(['--sim-nodes', String(NODES)]);
  const api = async (path: string, init: { method?: string; body?: unknown; type?: string } = {}) => {
    const r = await fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { ...server.headers, 'Content-Type': init.type ?? 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const body = (await r.json()) as any;
    if (!r.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  const view = async (): Promise<ClusterView> => ({
    nodes: (await api('/api/v1/nodes')).items,
    pods: (await api('/api/v1/namespaces/default/pods')).items,
    revisions: (await api('/apis/apps/v1/namespaces/default/controllerrevisions')).items,
    daemonSets: (await api(DS_PATH)).items,
    // The kubelets' Killing and Started: the old pods' stop, which the pods no longer show.
    events: (await api(`/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`source=kubelet,involvedObject.kind=${podKind.kind}`)}`)).items,
  });
  const rolledOut = async (generation: number) => {
    for (;;) {
      const st = (await api(`${DS_PATH}/${NAME}`)).status ?? {};
      if (st.observedGeneration >= generation && st.desiredNumberScheduled === NODES && st.updatedNumberScheduled === NODES && st.numberAvailable === NODES) return;
      await sleep(200);
    }
  };
  let image = 0;
  /** Rolls the next image out; returns its wall time and the forecast made half-way (what the live view shows then). */
  const roll = async (spec: Record<string, unknown> = {}) => {
    const patched = await api(`${DS_PATH}/${NAME}`, {
      method: 'PATCH',
      type: 'application/merge-patch+json',
      body: { spec: { ...spec, template: { spec: { containers: [{ name: 'c', image: `busybox:1.${++image}` }] } } } },
    });
    const t0 = performance.now();
    const at = Date.now();
    let halfway: number | undefined;
    for (;;) {
      const ds = await api(`${DS_PATH}/${NAME}`);
      const st = ds.status ?? {};
      if (st.observedGeneration >= patched.metadata.generation && st.updatedNumberScheduled === NODES && st.numberAvailable === NODES) break;
      if (halfway === undefined && st.observedGeneration >= patched.metadata.generation && st.updatedNumberScheduled >= NODES / 2) {
        // The view's re-plan: the pods as they are, the pace of this rollout so far.
        const { plan } = planChange({ current: ds, proposed: ds, view: await view(), now: Date.now() });
        if (plan.forecast) halfway = performance.now() - t0 + plan.forecast.p50;
      }
      await sleep(200);
    }
    return { wall: performance.now() - t0, halfway, at };
  };
  try {
    for (;;) {
      const nodes = (await api('/api/v1/nodes')).items as any[];
      if (nodes.length >= NODES && nodes.every((n) => (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'))) break;
      await sleep(500);
    }
    const created = await api(DS_PATH, {
      method: 'POST',
      body: {
        metadata: { name: NAME },
        spec: {
          selector: { matchLabels: { app: NAME } },
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: STRATEGIES[0].rollingUpdate },
          template: { metadata: { labels: { app: NAME } }, spec: { containers: [{ name: 'c', image: 'busybox:1.0' }] } },
        },
      },
    });
    await rolledOut(created.metadata.generation);
    const learn = await roll();
    console.log(`\nrollout plan forecast on ${NODES} simulated nodes (first rollout, ${STRATEGIES[0].label}, observed only: ${fmt(learn.wall)})`);
    const errors: number[] = [];
    const halfErrors: number[] = [];
    const rows: { label: string; forecast: number; p10: number; p90: number; actual: number }[] = [];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    for (const s of STRATEGIES) {
      // As the review plans it: the DaemonSet as stored, and the change (strategy and image) at once.
      const current = await api(`${DS_PATH}/${NAME}`);
      const proposed = structuredClone(current);
      proposed.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: s.rollingUpdate };
      proposed.spec.template.spec.containers[0].image = `busybox:1.${image + 1}`;
      const cluster = await view();
      const t = performance.now();
      const { plan } = planChange({ current, proposed, view: cluster, now: Date.now() });
      const planMs = performance.now() - t;
      const f = plan.forecast!;
      const { wall: actual, halfway, at } = await roll({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: null, maxSurge: null, ...s.rollingUpdate } } });
      // What the rollout showed afterwards, per node: the phases the plan drew against those observed.
      const after = await view();
      const seen = ownPace(after.daemonSets!.find((d) => d.metadata?.name === NAME)!, after)!;
      const error = (f.p50 - actual) / actual;
      errors.push(Math.abs(error));
      rows.push({ label: s.label, forecast: f.p50, p10: f.p10, p90: f.p90, actual });
      if (halfway !== undefined) halfErrors.push(Math.abs((halfway - actual) / actual));
      console.log(
        `  ${s.label.padEnd(20)} plan: ${describePlan(plan, fmt)} [made in ${planMs.toFixed(0)} ms; pace: ${f.pace.source}]\n` +
          `  ${''.padEnd(20)} forecast ${fmt(f.p50)} (p10–p90 ${fmt(f.p10)}–${fmt(f.p90)}), measured ${fmt(actual)}: error ${(error * 100).toFixed(1)}%${actual >= f.p10 && actual <= f.p90 ? ', inside the spread' : ', outside the spread'}${Math.abs(error) > 0.2 ? '  (OVER 20%)' : ''}\n` +
          `  ${''.padEnd(20)} per node: hand-off planned ${fmt(f.perNode.handoff)}, observed ${fmt(mean(seen.handoff))}; pod start planned ${fmt(f.perNode.startup)}, observed ${fmt(mean(seen.startup))}\n` +
          `  ${''.padEnd(20)} measured: PATCH → revision ${fmt(seen.startedAt! - at)}, revision → last pod available ${fmt(seen.finishedAt! - seen.startedAt!)} (whole seconds), → status done ${fmt(at + actual - seen.finishedAt!)}` +
          (halfway !== undefined ? `\n  ${''.padEnd(20)} re-planned half-way (pace so far): ${fmt(halfway)}, error ${(((halfway - actual) / actual) * 100).toFixed(1)}%` : ''),
      );
    }
    console.log(`\n  ${'rollout'.padEnd(20)} ${'nodes'.padStart(5)} ${'forecast'.padStart(9)} ${'p10–p90'.padStart(13)} ${'actual'.padStart(8)} ${'error'.padStart(7)}  inside`);
    for (const r of rows) {
      const e = ((r.forecast - r.actual) / r.actual) * 100;
      const spread = `${(r.p10 / 1000).toFixed(1)}–${(r.p90 / 1000).toFixed(1)} s`;
      console.log(`  ${r.label.padEnd(20)} ${String(NODES).padStart(5)} ${fmt(r.forecast).padStart(9)} ${spread.padStart(13)} ${fmt(r.actual).padStart(8)} ${`${e >= 0 ? '+' : ''}${e.toFixed(1)}%`.padStart(7)}  ${r.actual >= r.p10 && r.actual <= r.p90 ? 'yes' : 'no'}`);
    }
    const inside = rows.filter((r) => r.actual >= r.p10 && r.actual <= r.p90).length;
    console.log(`  inside the spread: ${inside} of ${rows.length}; within 20%: ${errors.filter((e) => e <= 0.2).length} of ${rows.length}`);
    console.log(`  forecast at apply: mean absolute error ${(mean(errors) * 100).toFixed(1)}%, worst ${(Math.max(...errors) * 100).toFixed(1)}% (goal: within 20%)`);
    if (halfErrors.length) console.log(`  re-planned half-way: mean absolute error ${(mean(halfErrors) * 100).toFixed(1)}%, worst ${(Math.max(...halfErrors) * 100).toFixed(1)}%`);
    console.log(`  (load average while measuring: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}; other processes' load moves the pace between rollouts)`);
  } finally {
    server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchRolloutPlan();
  process.exit(0);
}
