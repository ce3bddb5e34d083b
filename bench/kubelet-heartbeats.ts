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
// Prints the server's cores against the issue's aim (0.5 of a core for 5000
// nodes), against the in-process simulated heartbeats of as many nodes and
// against a bare node:http2 server over TLS answering the same kubelets'
// requests with the same bytes (what HTTP/2 and TLS alone cost), all measured
// in the same run, the requests' latencies as the kubelets saw them, and any
// request that failed.
import { connect, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coresOver, inParallel, machine, rssMB, simulatedHeartbeats, sleep, startCluster, type Cluster } from './cluster.ts';
import { BASE_IMAGES, DEFAULT_ALLOCATABLE, DEFAULT_CAPACITY, HEALTHY_NODE_CONDITIONS, KUBELET_VERSION, SIMULATED_LABEL } from '../src/server/controllers/nodeagent.ts';
import { microTime } from '../src/server/controllers/nodelease.ts';
import { rfc3339 } from '../src/lib/duration.ts';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/auth/credentials.ts';
import { startBareHttp2Server, type Proc } from './processes.ts';

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
  private session: ClientHttp2Session;
  private readonly name: string;
  private readonly token: string;
  private lease: any;
  private nextReport: number;
  constructor(private readonly c: Pick<Cluster, 'httpsUrl' | 'ca'>, private readonly i: number) {
    this.name = nodeName(i);
    this.token = tokenOf(i);
    this.session = this.connect();
    this.nextReport = Date.now() + (i / NODES) * REPORT_MS;
  }

  private connect() {
    const session = connect(this.c.httpsUrl, { ca: this.c.ca });
    session.on('error', () => {});
    return session;
  }

  /** A request on this kubelet's connection, connecting again first if it was lost (as client-go does; 5000 handshakes at once can lose one). */
  private call(method: string, path: string, body?: unknown, type?: string) {
    if (this.session.destroyed || this.session.closed) this.session = this.connect();
    return request(this.session, this.token, method, path, body, type);
  }

  private async timed(kind: Requests, method: string, path: string, body?: unknown, type?: string) {
    const t0 = performance.now();
    const r = await this.call(method, path, body, type).catch((e: Error) => ({ status: 0, body: e.message }));
    if (r.status >= 200 && r.status < 300) kind.ms.push(performance.now() - t0);
    else {
      const why = `${method} ${r.status} ${r.body?.reason ?? ''}`.trim();
      kind.failed.set(why, (kind.failed.get(why) ?? 0) + 1);
    }
    return r;
  }

  /** Creates this kubelet's object in `collection`, again over a new connection if the first was lost (it may exist then). */
  private async create(collection: string, body: unknown) {
    for (let attempt = 0; ; attempt++) {
      const r = await this.call('POST', collection, body).catch(() => ({ status: 0, body: undefined }));
      if (r.status === 409 && attempt > 0) return this.call('GET', `${collection}/${this.name}`);
      if (r.status !== 0 || attempt === 2) return r;
    }
  }

  /** Registers the Node (with its status, as the kubelet does) and creates its Lease, owned by the Node. */
  async register() {
    const now = rfc3339(new Date());
    const node = await this.create('/api/v1/nodes', {
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
    if (node.status !== 201 && node.status !== 200) throw new Error(`${this.name}: creating its Node: HTTP ${node.status} ${JSON.stringify(node.body)}`);
    const lease = await this.create('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: node.body.metadata.uid }] },
      spec: { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
    });
    if (lease.status !== 201 && lease.status !== 200) throw new Error(`${this.name}: creating its Lease: HTTP ${lease.status} ${JSON.stringify(lease.body)}`);
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
      const fresh = await this.call('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.name}`).catch(() => ({ status: 0, body: undefined }));
      if (fresh.status === 200) this.lease = fresh.body;
    }
  }

  close() {
    this.session.close();
  }

  /** The bytes the server answered this kubelet's last Lease PUT and its Node GET with (JSON and a newline, as ours writes them). */
  async answers() {
    const node = await this.call('GET', `/api/v1/nodes/${this.name}?resourceVersion=0`);
    return { node: JSON.stringify(node.body) + '\n', lease: JSON.stringify(this.lease) + '\n' };
  }
}

/**
 * Runs `kubelets`' heartbeats, each at its own phase of the interval, for a
 * round to warm up and then `seconds` measured; returns the cores of process
 * `pid` meanwhile and the heartbeats counted.
 */
async function heartbeatsOf(kubelets: Kubelet[], pid: number, seconds: number, during?: { start(): void; stop(): void }) {
  let stopped = false;
  // As 5000 machines' clocks fall.
  const loop = (async () => {
    const start = Date.now();
    for (let cycle = 0; !stopped; cycle++) {
      const cycleStart = start + cycle * INTERVAL_MS;
      for (let i = 0; i < kubelets.length && !stopped; i++) {
        const wait = cycleStart + (i / kubelets.length) * INTERVAL_MS - Date.now();
        if (wait > 0) await sleep(wait);
        void kubelets[i].beat();
      }
    }
  })();
  try {
    await sleep(INTERVAL_MS); // one round to warm up
    for (const r of Object.values(requests)) r.reset();
    during?.start();
    const m = await coresOver(pid, seconds);
    during?.stop();
    const failed = Object.values(requests).reduce((n, r) => n + [...r.failed.values()].reduce((a, x) => a + x, 0), 0);
    const summary = { lease: requests.lease.summary(m.wall), get: requests.get.summary(m.wall), status: requests.status.summary(m.wall) };
    return { ...m, beats: requests.lease.ms.length, failed, summary };
  } finally {
    stopped = true;
    await loop;
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
  let bare: Proc | undefined;
  try {
    const registered = await inParallel(NODES, 50, (i) => kubelets[i].register());
    console.log(`  ${NODES} kubelets connected, registered their Node and created their Lease in ${f(registered)} s (50 at a time); server RSS ${f(rssMB(pid), 0)} MB`);
    await sleep(5000);
    // What the server uses with these nodes and no heartbeats: its own timers, compaction, the controllers.
    const idle = await coresOver(pid, INTERVAL_MS / 1000);
    // KUBELET_HEARTBEAT_PROFILE=<file>: a CPU profile of the server over the measured window.
    const profile = process.env.KUBELET_HEARTBEAT_PROFILE;
    const m = await heartbeatsOf(kubelets, pid, MEASURE_SECONDS, profile ? { start: () => c.send('profile-start'), stop: () => c.send(`profile-stop ${profile}`) } : undefined);
    console.log(
      `  server ${f(m.cores, 3)} cores (aim 0.5; ${f(m.cores / sim.cores, 2)}x the simulated kubelets' in-process heartbeats; ${f(idle.cores, 3)} without heartbeats), ` +
        `${f(((m.cores - idle.cores) * m.wall * 1e6) / Math.max(1, m.beats), 0)} µs of server CPU a heartbeat beyond that; the bench's kubelets ${f(m.clientCores, 2)} cores; RSS ${f(rssMB(pid), 0)} MB (${machine()})`,
    );
    console.log(`  Lease PUTs:           ${m.summary.lease}`);
    console.log(`  Node GETs (cache):    ${m.summary.get}`);
    console.log(`  Node status PATCHes:  ${m.summary.status}`);
    if (profile) await sleep(3000); // written before the server stops

    // The baseline of the transport: a bare node:http2 server over TLS answering the same requests of as many
    // kubelets with the bytes ours answered them with, doing nothing else.
    const answers = await kubelets[0].answers();
    for (const k of kubelets) k.close();
    c.stop();
    const ca = createCertificateAuthority('bench-bare-ca');
    bare = await startBareHttp2Server(
      [
        { method: 'GET', path: '/nodes/', body: answers.node },
        { method: 'PATCH', path: '/nodes/', body: answers.node },
        { method: 'POST', path: '/nodes', body: answers.node },
        { method: 'PUT', path: '/leases/', body: answers.lease },
        { method: 'POST', path: '/leases', body: answers.lease },
      ],
      issueServingCertificate(ca, ['localhost', '127.0.0.1']),
    );
    const bareKubelets = Array.from({ length: NODES }, (_, i) => new Kubelet({ httpsUrl: bare!.url, ca: ca.cert }, i));
    await inParallel(NODES, 50, (i) => bareKubelets[i].register());
    const b = await heartbeatsOf(bareKubelets, bare.child.pid!, MEASURE_SECONDS);
    for (const k of bareKubelets) k.close();
    console.log(
      `  a bare node:http2 server over TLS answering the same requests with the same bytes: ${f(b.cores, 3)} cores, ${f((b.cores * b.wall * 1e6) / Math.max(1, b.beats), 0)} µs a heartbeat` +
        ` (${b.failed} failed); the server ${f(m.cores / b.cores, 2)}x it, ${f(m.cores - b.cores, 3)} cores beyond it (${machine()})`,
    );
  } finally {
    // Ours again, should the bench have stopped before it did (both are idempotent).
    for (const k of kubelets) k.close();
    c.stop();
    bare?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchKubeletHeartbeats();
  process.exit(0);
}
