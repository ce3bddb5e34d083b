// GET of one object and LIST of 5000 nodes, each against a baseline measured
// in the same run: a bare node:http server returning the same bytes (GET), and
// the time to JSON-serialise the same 5000 nodes (LIST).
import { load, median } from './load.ts';
import { startApiServer, startBareServer } from './processes.ts';

const NODES = 5000;

export function nodeManifest(i: number) {
  const name = `node-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    spec: { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`, providerID: `sim://${name}` },
    status: {
      capacity: { cpu: '8', memory: '32Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-11-23T00:00:00Z', lastTransitionTime: '2026-11-23T00:00:00Z' }],
      addresses: [{ type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` }, { type: 'Hostname', address: name }],
      nodeInfo: { machineID: 'm', systemUUID: 'u', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian GNU/Linux 12', containerRuntimeVersion: 'containerd://1.7', kubeletVersion: 'v1.32.0', kubeProxyVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
    },
  };
}

export async function benchServer() {
  const api = await startApiServer();
  try {
    for (let i = 0; i < NODES; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, NODES - i) }, (_, j) =>
          fetch(`${api.url}/api/v1/nodes`, { method: 'POST', headers: { ...api.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(nodeManifest(i + j)) }).then((r) => {
            if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
          }),
        ),
      );
    }
    const getPath = '/api/v1/nodes/node-02500';
    const oneBody = await (await fetch(api.url + getPath, { headers: api.headers })).text();
    const bare = await startBareServer(oneBody);
    try {
      await load(api.url + getPath, { seconds: 1, headers: api.headers });
      await load(bare.url + getPath, { seconds: 1 });
      const ours = await load(api.url + getPath, { seconds: 5, headers: api.headers });
      const base = await load(bare.url + getPath, { seconds: 5 });
      console.log(`GET one node: ${ours.perSecond.toFixed(0)} req/s (p99 ${ours.p99ms.toFixed(2)} ms); bare node:http with the same bytes: ${base.perSecond.toFixed(0)} req/s`);
      console.log(`  ratio ${(ours.perSecond / base.perSecond).toFixed(2)} of the bare server's throughput (aim: at least 0.5)`);
    } finally {
      bare.stop();
    }

    const listTimes: number[] = [];
    let listBody = '';
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      listBody = await (await fetch(`${api.url}/api/v1/nodes`, { headers: api.headers })).text();
      listTimes.push(performance.now() - t0);
    }
    const items = JSON.parse(listBody).items as unknown[];
    if (items.length !== NODES) throw new Error(`listed ${items.length} nodes`);
    const serialiseTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items });
      serialiseTimes.push(performance.now() - t0);
    }
    const list = median(listTimes);
    const ser = median(serialiseTimes);
    console.log(`LIST ${NODES} nodes (${(listBody.length / 1e6).toFixed(1)} MB): ${list.toFixed(1)} ms over HTTP; JSON.stringify of the same nodes: ${ser.toFixed(1)} ms`);
    console.log(`  ratio ${(list / ser).toFixed(2)}x the serialisation time (aim: within 2x)`);
  } finally {
    api.stop();
  }
}
