// The watches and lists real kubelets make, one set per node: each kubelet
// lists and watches the pods bound to it (`fieldSelector=spec.nodeName=<node>`)
// and its own Node (`fieldSelector=metadata.name=<node>`). A cluster of 5000
// nodes has 10,000 such watches open on its API server, each wanting a tiny
// share of the events; the simulated kubelets of this server share one watch
// in-process, so only this bench puts that load on the API.
//
// Prints, against baselines measured in the same run on the same server:
// - a kubelet's first LIST of its pods (resourceVersion=0, as client-go's
//   reflector) against a GET of one pod (the same answer size, about);
// - the server's CPU during a rollout with the 10,000 watches open, against
//   the same rollout before they were opened; and that every watch got the
//   events of its own pods and node and no others.
import { jsonLines } from '../src/lib/ndjson.ts';
import { simNodeName } from '../src/server/controllers/nodeagent.ts';
import { benchDaemonSetDone, clusterApi, cpuSeconds, createBenchDaemonSet, inParallel, machine, rollBenchDaemonSet, rolloutFloorSeconds, rssMB, sleep, startCluster, waitReady, type Cluster } from './cluster.ts';

const NODES = Number(process.env.KUBELET_WATCH_NODES ?? 5000);
const f = (n: number, d = 1) => n.toFixed(d);
/** The i-th simulated node, from 0 (the simulation numbers them from 1). */
const nodeName = (i: number) => simNodeName(i + 1);

/** One watch: what it got, by event type, and whether any was not its own. */
class KubeletWatch {
  readonly counts = { ADDED: 0, MODIFIED: 0, DELETED: 0, BOOKMARK: 0, ERROR: 0 } as Record<string, number>;
  foreign = 0;
  ended = false;
  private readonly stopped = new AbortController();
  constructor(
    private readonly c: Cluster,
    private readonly path: string,
    /** Whether an event's object is this watch's (its node's pod, or its node). */
    private readonly own: (o: any) => boolean,
  ) {}

  /** Resolves once the server answered; the events are read from then on. */
  async start(): Promise<void> {
    const res = await fetch(this.c.url + this.path, { headers: this.c.headers, signal: this.stopped.signal });
    if (res.status !== 200) throw new Error(`${this.path}: HTTP ${res.status}`);
    void (async () => {
      for await (const e of jsonLines(res.body!)) {
        this.counts[e.type]++;
        if (e.type !== 'BOOKMARK' && e.type !== 'ERROR' && !this.own(e.object)) this.foreign++;
      }
    })()
      .catch(() => {})
      .finally(() => (this.ended = !this.stopped.signal.aborted));
  }

  stop() {
    this.stopped.abort();
  }
}

async function rollout(c: Cluster, image: string) {
  const pid = c.child.pid!;
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  await benchDaemonSetDone(c, NODES, await rollBenchDaemonSet(c, image));
  const wall = (performance.now() - t0) / 1000;
  return { wall, cpu: cpuSeconds(pid) - cpu0 };
}

export async function benchKubeletWatches() {
  console.log(`\n== Kubelets' watches: ${NODES} nodes, each with a watch on its pods (spec.nodeName) and on its Node (metadata.name) (${machine()})`);
  const c = await startCluster(NODES);
  const pid = c.child.pid!;
  const watches: KubeletWatch[] = [];
  try {
    await waitReady(c, NODES, 'kubelet-watches bench');
    await createBenchDaemonSet(c);
    await benchDaemonSetDone(c, NODES);
    const pods: any[] = (await clusterApi(c, '/api/v1/namespaces/default/pods?labelSelector=app%3Dbench')).items;
    const podOf = new Map<string, string>(pods.map((p) => [p.spec.nodeName, p.metadata.name]));
    console.log(`  ${NODES} nodes Ready, the DaemonSet on every one (${pods.length} pods); server RSS ${f(rssMB(pid), 0)} MB`);

    // A kubelet's first list against a GET of about the same size, in turns, 8 at a time.
    const get = (path: string) => clusterApi(c, path);
    const rounds: { list: number; get: number; listCpu: number; getCpu: number }[] = [];
    for (let r = 0; r < 3; r++) {
      let cpu0 = cpuSeconds(pid);
      const list = await inParallel(NODES, 8, (i) => get(`/api/v1/pods?fieldSelector=spec.nodeName%3D${nodeName(i)}&resourceVersion=0`));
      const listCpu = cpuSeconds(pid) - cpu0;
      cpu0 = cpuSeconds(pid);
      const one = await inParallel(NODES, 8, (i) => get(`/api/v1/namespaces/default/pods/${podOf.get(nodeName(i))}`));
      rounds.push({ list, get: one, listCpu, getCpu: cpuSeconds(pid) - cpu0 });
    }
    for (const r of rounds) {
      console.log(
        `  ${NODES} kubelets list their pods: ${f((r.list / NODES) * 1e6, 0)} µs each (server ${f((r.listCpu / NODES) * 1e6, 0)} µs CPU), ` +
          `GET of one pod ${f((r.get / NODES) * 1e6, 0)} µs (${f((r.getCpu / NODES) * 1e6, 0)} µs CPU): ${f(r.list / r.get, 2)}x`,
      );
    }

    const floor = rolloutFloorSeconds(NODES);
    const before = await rollout(c, 'busybox:1.37');
    console.log(`  rollout without the kubelets' watches: ${f(before.wall)} s (${f(before.wall / floor, 2)}x the ${floor} s floor), server ${f(before.cpu)} CPU-s, ${f(before.cpu / before.wall, 2)} cores (${machine()})`);

    // Each kubelet lists its pods and its Node (resourceVersion=0, from the cache) and watches both from there.
    const opened = await inParallel(NODES, 50, async (i) => {
      const node = nodeName(i);
      const [pods, nodes] = await Promise.all([get(`/api/v1/pods?fieldSelector=spec.nodeName%3D${node}&resourceVersion=0`), get(`/api/v1/nodes?fieldSelector=metadata.name%3D${node}&resourceVersion=0`)]);
      const podWatch = new KubeletWatch(c, `/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=${pods.metadata.resourceVersion}&fieldSelector=spec.nodeName%3D${node}`, (o) => o?.spec?.nodeName === node);
      const nodeWatch = new KubeletWatch(c, `/api/v1/nodes?watch=1&allowWatchBookmarks=true&resourceVersion=${nodes.metadata.resourceVersion}&fieldSelector=metadata.name%3D${node}`, (o) => o?.metadata?.name === node);
      watches.push(podWatch, nodeWatch);
      await Promise.all([podWatch.start(), nodeWatch.start()]);
    });
    console.log(`  ${NODES} kubelets listed and began watching in ${f(opened)} s (50 at a time; ${watches.length} watches); server RSS ${f(rssMB(pid), 0)} MB`);
    await sleep(2000);

    const during = await rollout(c, 'busybox:1.38');
    await sleep(2000); // the last events on their way
    console.log(
      `  rollout with them: ${f(during.wall)} s (${f(during.wall / floor, 2)}x the floor), server ${f(during.cpu)} CPU-s, ${f(during.cpu / during.wall, 2)} cores: ` +
        `${f(during.cpu / before.cpu, 2)}x the CPU of the rollout without them (${machine()}); server RSS ${f(rssMB(pid), 0)} MB`,
    );
    const podWatches = watches.filter((_, i) => i % 2 === 0);
    const nodeWatches = watches.filter((_, i) => i % 2 === 1);
    const replaced = podWatches.filter((w) => w.counts.ADDED >= 1 && w.counts.DELETED >= 1).length;
    const foreign = watches.reduce((n, w) => n + w.foreign, 0);
    const ended = watches.filter((w) => w.ended).length;
    const errors = watches.reduce((n, w) => n + w.counts.ERROR, 0);
    const events = (ws: KubeletWatch[]) => ws.reduce((n, w) => n + w.counts.ADDED + w.counts.MODIFIED + w.counts.DELETED, 0);
    console.log(
      `  pod watches: ${replaced} of ${podWatches.length} saw their pod replaced (ADDED and DELETED), ${events(podWatches)} events in all; ` +
        `node watches: ${events(nodeWatches)} events; ${foreign} events of another node's, ${ended} watches ended early, ${errors} ERROR events`,
    );
  } finally {
    for (const w of watches) w.stop();
    c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchKubeletWatches();
  process.exit(0);
}
