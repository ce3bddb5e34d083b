// Host ports, as the scheduler's NodePorts filter sees them: which ports a
// pod asks of its node and whether they clash with the ports of the pods
// already there. Shared by the simulated scheduler (which keeps a pod Pending
// on a clash) and the rollout view (which explains why a surge pod waits).
// Pure: plain API objects in.

export interface HostPort {
  /** "0.0.0.0" when the port binds every address. */
  hostIP: string;
  protocol: string;
  port: number;
}

interface ContainerPortLike {
  containerPort?: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

interface ContainerLike {
  ports?: ContainerPortLike[];
  restartPolicy?: string;
}

export interface PodSpecWithPorts {
  hostNetwork?: boolean;
  containers?: ContainerLike[];
  initContainers?: ContainerLike[];
}

const ANY = '0.0.0.0';

/**
 * The host ports a pod spec asks for (schedutil.GetHostPorts): every
 * container port with a hostPort, sidecars (init containers that keep
 * running) included. With hostNetwork the API defaults hostPort to the
 * containerPort; a spec read before defaulting gets the same answer.
 */
export function hostPortsOf(spec: PodSpecWithPorts | undefined): HostPort[] {
  const out: HostPort[] = [];
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? []).filter((c) => c?.restartPolicy === 'Always')];
  for (const c of containers) {
    for (const p of Array.isArray(c?.ports) ? c.ports : []) {
      const port = p?.hostPort || (spec?.hostNetwork ? p?.containerPort : 0);
      if (typeof port !== 'number' || port <= 0) continue;
      out.push({ hostIP: p.hostIP || ANY, protocol: p.protocol || 'TCP', port });
    }
  }
  return out;
}

/** HostPortInfo.CheckConflict: same port and protocol, and either side binds every address or both bind the same one. */
export const hostPortsClash = (a: HostPort, b: HostPort) => a.port === b.port && a.protocol === b.protocol && (a.hostIP === ANY || b.hostIP === ANY || a.hostIP === b.hostIP);

/** The ports of `wanted` that `used` already holds. */
export function clashingHostPorts(wanted: HostPort[], used: HostPort[]): HostPort[] {
  return wanted.filter((w) => used.some((u) => hostPortsClash(w, u)));
}

/** 9100/TCP, or 10.0.0.1:53/UDP for a port bound to one address. */
export const formatHostPort = (p: HostPort) => `${p.hostIP === ANY ? '' : `${p.hostIP}:`}${p.port}/${p.protocol}`;

/** The scheduler's reason for a node filtered out by NodePorts (nodeports.ErrReason). */
export const NodePortsUnfitReason = "node(s) didn't have free ports for the requested pod ports";
