// `npm run bench`: every benchmark, each printing ratios against a baseline measured in the same run.
import { benchServer } from './server.ts';
import { benchCluster } from './cluster.ts';
import { benchUI } from './ui.ts';

const only = process.argv[2];
if (!only || only === 'server') await benchServer();
if (!only || only === 'cluster') await benchCluster();
if (!only || only === 'ui') await benchUI();
if (!only || only === 'stall') await (await import('./stall.ts')).benchStall();
// Minutes long, so only when asked for by name.
if (only === 'scale') await (await import('./scale.ts')).benchScale();
if (!only || only === 'reachability') await (await import('./reachability.ts')).benchReachability();
// Minutes long too: only by name.
if (only === 'rolloutplan') await (await import('./rolloutplan.ts')).benchRolloutPlan();
// The DaemonSet page at 1250/2500/5000 nodes in Chromium (needs `npx vite build`): by name only.
if (only === 'daemonset-page') await (await import('./daemonset-page.ts')).benchDaemonSetPage();
// 5000 kubelets' lists and watches of their pods and Node, and a rollout under them (a few minutes): by name only.
if (only === 'kubelets') await (await import('./kubelet-watches.ts')).benchKubeletWatches();
// 5000 kubelets' heartbeats over HTTP/2 and TLS, each with its own token, against the simulated ones' and a bare HTTP/2 server's (a few minutes): by name only.
if (only === 'heartbeats') await (await import('./kubelet-heartbeats.ts')).benchKubeletHeartbeats();
// Needs Debian's etcd-server; by name only.
if (only === 'etcd') await (await import('./etcd.ts')).benchEtcd();
// Ten DaemonSets on 5000 nodes, on SQLite and on etcd (about 12 minutes; needs etcd): by name only.
if (only === 'etcd-fleet') await (await import('./etcd-fleet.ts')).benchEtcdFleet();
// Needs etcd too, and waits out a 15 s lease: by name only.
if (only === 'leader') await (await import('./leader.ts')).benchLeader();
// A 1000-node rollout twice (with and without the recorder's correlation): by name only.
if (only === 'events') await (await import('./events.ts')).benchEvents();
// SIGKILLs, 50-client read-modify-write and thousands of malformed requests: by name only.
if (only === 'faults') await (await import('./faults.ts')).benchFaults();
process.exit(process.exitCode ?? 0);
