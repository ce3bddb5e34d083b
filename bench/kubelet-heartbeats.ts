// Heartbeats of 5000 kubelets as real ones send them: each kubelet has a
// credential of its own (`system:node:<node>` in `system:nodes`, a token of
// the server's token file) and one HTTP/2 connection over TLS, as client-go
// keeps, and every 10 s it GETs its Node from the server's cache
// (`resourceVersion=0`, the kubelet's node status loop) and renews its Lease
// with a PUT of the Lease it got back last time (the lease controller); it
// patches its Node's status (a strategic merge patch of the conditions'
// heartbeat times) only every 5 minutes, spread so that a fifth of the nodes
// patch in any minute. The simulated kubelets of this server renew in-process,
// so only this bench puts the heartbeats' requests (TLS, authentication, the
// Node authorizer, NodeRestriction, decoding, validation) on the API.
//
// Prints the server's cores against the aim (0.5 of a core for 5000
// nodes) and against the in-process simulated heartbeats of as many nodes
// measured in the same run, the requests' latencies as the kubelets saw them,
// and any request that failed.
import { connect, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coresOver, inParallel, machine, rssMB, simulatedHeartbeats, sleep, startCluster, type Cluster } from './cluster.ts';
import { BASE_IMAGES, DEFAULT_ALLOCATABLE, DEFAULT_CAPACITY, HEALTHY_NODE_CONDITIONS, KUBELET_VERSION, SIMULATED_LABEL } from '../src/server/controllers/nodeagent.ts';
import { microTime } from '../src/server/controllers/nodelease.ts';
import { rfc3339 } from '../src/lib/duration.ts';

const NODES = Number(process.env.KUBELET_HEARTBEAT_NODES ?? 5000);
const MEASURE_SECONDS = Number(process.env.KUBELET_HEARTBEAT_SECONDS ?? 60);
const INTERVAL_MS = 10_000;
const REPORT_MS = 300_000;
const f = (n: number, d = 1) => n.toFixed(d);
const nodeName = (i: number) => `kubelet-${String(i + 1).padStart(5, '0')}`;
const tokenOf = (i: number) => `kubelet-bench-token-${i + 1}`;

/** Latencies (ms) and failures of one kind of request. */
class Requests {
  readonly ms: number[] = [];
  readonly failed = new Map<string, number>();
  reset() {
    this.ms.length = 0;
    this.failed.clear();
  }
  summary(seconds: number) {
    const s = [...this.ms].sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
    const failed = [...this.failed].map(([k, n]) => `${n} ${k}`).join(', ') || 'none failed';
    return `${s.length} (${f(s.length / seconds, 0)}/s), p50 ${f(at(0.5), 2)} ms, p99 ${f(at(0.99), 2)} ms, max ${f(s.at(-1) ?? 0, 0)} ms; ${failed}`;
  }
}
const requests = { get: new Requests(), lease: new Requests(), status: new Requests() };

/** One request on a kubelet's connection; resolves with the status and the parsed body. */
function request(session: ClientHttp2Session, token: string, method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ':method': method, ':path': path, authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': `kubelet/${KUBELET_VERSION} (linux/amd64) kubernetes/bench` };
    if (body !== undefined) headers['content-type'] = type;
    const stream = session.request(headers);
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      try {
        resolve({ status, body: text ? JSON.parse(text) : undefined });
      } catch {
        resolve({ status, body: text });
      }
    });
    stream.on('error', reject);
    stream.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** One kubelet: its connection, its Lease as last written, and when its status is next reported. */
class Kubelet {
  private readonly session: ClientHttp2Session;
  private readonly name: string;
  private readonly token: string;
  private lease: any;
  private nextReport: number;
  constructor(c: Cluster, private readonly i: number) {
    this.name = nodeName(i);
    this.token = tokenOf(i);
    this.session = connect(c.httpsUrl, { ca: c.ca });
    this.session.on('error', () => {});
    this.nextReport = Date.now() + (i / NODES) * REPORT_MS;
  }

  private async timed(kind: Requests, method: string, path: string, body?: unknown, type?: string) {
    const t0 = performance.now();
    const r = await request(this.session, this.token, method, path, body, type).catch((e: Error) => ({ status: 0, body: e.message }));
    if (r.status >= 200 && r.status < 300) kind.ms.push(performance.now() - t0);
    else {
      const why = `${method} ${r.status} ${r.body?.reason ?? ''}`.trim();
      kind.failed.set(why, (kind.failed.get(why) ?? 0) + 1);
    }
    return r;
  }

  /** Registers the Node (with its status, as the kubelet does) and creates its Lease, owned by the Node. */
  async register() {
    const now = rfc3339(new Date());
    const node = await request(this.session, this.token, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.name,
        labels: { 'kubernetes.io/hostname': this.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' },
        annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', 'node.alpha.kubernetes.io/ttl': '0' },
      },
      spec: {},
      status: {
        capacity: DEFAULT_CAPACITY,
        allocatable: DEFAULT_ALLOCATABLE,
        conditions: HEALTHY_NODE_CONDITIONS.map(([type, status, reason, message]) => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now })),
        addresses: [
          { type: 'InternalIP', address: `172.20.${this.i >> 8}.${(this.i & 255) + 1}` },
          { type: 'Hostname', address: this.name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          machineID: 'bench',
          systemUUID: 'bench',
          bootID: 'bench',
          kernelVersion: '6.1.0-28-cloud-amd64',
          osImage: 'Debian GNU/Linux 12 (bookworm)',
          containerRuntimeVersion: 'containerd://1.7.24',
          kubeletVersion: KUBELET_VERSION,
          kubeProxyVersion: KUBELET_VERSION,
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
        images: BASE_IMAGES.map((n, k) => ({ names: [n], sizeBytes: 700_000 + k * 30_000_000 })),
      },
    });
    if (node.status !== 201) throw new Error(`${this.name}: creating its Node: HTTP ${node.status} ${JSON.stringify(node.body)}`);
    const lease = await request(this.session, this.token, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: node.body.metadata.uid }] },
      spec: { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
    });
    if (lease.status !== 201) throw new Error(`${this.name}: creating its Lease: HTTP ${lease.status} ${JSON.stringify(lease.body)}`);
    this.lease = lease.body;
  }

  /** A heartbeat: the node status loop's GET (and its patch when a report is due), and the Lease's renewal. */
  async beat() {
    const now = Date.now();
    const node = await this.timed(requests.get, 'GET', `/api/v1/nodes/${this.name}?resourceVersion=0`);
    if (node.status === 200 && now >= this.nextReport) {
      this.nextReport = now + REPORT_MS;
      const at = rfc3339(new Date(now));
      // As the kubelet's two-way strategic merge patch of the node before and after its status setters.
      await this.timed(requests.status, 'PATCH', `/api/v1/nodes/${this.name}/status`, { status: { '$setElementOrder/conditions': HEALTHY_NODE_CONDITIONS.map(([type]) => ({ type })), conditions: HEALTHY_NODE_CONDITIONS.map(([type]) => ({ type, lastHeartbeatTime: at })) } }, 'application/strategic-merge-patch+json');
    }
    this.lease.spec.renewTime = microTime(Date.now());
    const r = await this.timed(requests.lease, 'PUT', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.name}`, this.lease);
    if (r.status === 200) this.lease = r.body;
    else if (r.status === 409) {
      // As the lease controller: read it again, renew next time.
      const fresh = await request(this.session, this.token, 'GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.name}`);
      if (fresh.status === 200) this.lease = fresh.body;
    }
  }

  close() {
    this.session.close();
  }
}

export async function benchKubeletHeartbeats() {
  console.log(`\n== Kubelets' heartbeats over HTTP/2 and TLS: ${NODES} nodes, each renewing its Lease and reading its Node every ${INTERVAL_MS / 1000} s, its status patched every ${REPORT_MS / 60_000} minutes (${machine()})`);
  // The baseline: the simulated kubelets' in-process heartbeats of as many nodes, on a server of their own.
  const sim = await simulatedHeartbeats(NODES, MEASURE_SECONDS);
  console.log(`  simulated kubelets (in-process, ${NODES} nodes): server ${f(sim.cores, 3)} cores, ${sim.heartbeat.count} renewals (${f(sim.heartbeat.count / sim.wall, 0)}/s), p99 ${f(sim.heartbeat.p99, 2)} ms; RSS ${f(sim.rss, 0)} MB (${machine()})`);

  const dir = mkdtempSync(join(tmpdir(), 'kw-kubelets-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, Array.from({ length: NODES }, (_, i) => `${tokenOf(i)},system:node:${nodeName(i)},${nodeName(i)},system:nodes\n`).join(''));
  // No simulated nodes, and the simulation leaves these alone (they lack its label): the bench is their kubelet.
  const c = await startCluster(0, { tokenFile, simulateNodes: SIMULATED_LABEL });
  const pid = c.child.pid!;
  const kubelets = Array.from({ length: NODES }, (_, i) => new Kubelet(c, i));
  let stopped = false;
  try {
    const registered = await inParallel(NODES, 50, (i) => kubelets[i].register());
    console.log(`  ${NODES} kubelets connected, registered their Node and created their Lease in ${f(registered)} s (50 at a time); server RSS ${f(rssMB(pid), 0)} MB`);
    await sleep(5000);
    // What the server uses with these nodes and no heartbeats: its own timers, compaction, the controllers.
    const idle = await coresOver(pid, INTERVAL_MS / 1000);

    // Each kubelet beats at its own phase of the interval, as 5000 machines' clocks fall.
    const loop = (async () => {
      const start = Date.now();
      let cycle = 0;
      while (!stopped) {
        const cycleStart = start + cycle * INTERVAL_MS;
        for (let i = 0; i < NODES && !stopped; i++) {
          const due = cycleStart + (i / NODES) * INTERVAL_MS;
          const wait = due - Date.now();
          if (wait > 0) await sleep(wait);
          void kubelets[i].beat();
        }
        cycle++;
      }
    })();
    await sleep(INTERVAL_MS); // one round to warm up
    for (const r of Object.values(requests)) r.reset();
    // KUBELET_HEARTBEAT_PROFILE=<file>: a CPU profile of the server over the measured window.
    const profile = process.env.KUBELET_HEARTBEAT_PROFILE;
    if (profile) c.send('profile-start');
    const m = await coresOver(pid, MEASURE_SECONDS);
    if (profile) c.send(`profile-stop ${profile}`);
    const beats = requests.lease.ms.length;
    console.log(
      `  server ${f(m.cores, 3)} cores (aim 0.5; ${f(m.cores / sim.cores, 2)}x the simulated kubelets' in-process heartbeats; ${f(idle.cores, 3)} without heartbeats), ` +
        `${f(((m.cores - idle.cores) * m.wall * 1e6) / Math.max(1, beats), 0)} µs of server CPU a heartbeat beyond that; the bench's kubelets ${f(m.clientCores, 2)} cores; RSS ${f(rssMB(pid), 0)} MB (${machine()})`,
    );
    console.log(`  Lease PUTs:           ${requests.lease.summary(m.wall)}`);
    console.log(`  Node GETs (cache):    ${requests.get.summary(m.wall)}`);
    console.log(`  Node status PATCHes:  ${requests.status.summary(m.wall)}`);
    stopped = true;
    await loop;
    if (profile) await sleep(3000); // written before the server stops
  } finally {
    stopped = true;
    for (const k of kubelets) k.close();
    c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchKubeletHeartbeats();
  process.exit(0);
}
