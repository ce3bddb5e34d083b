// What a simulated kubelet says about its pods and its node, read off the
// change between the status it had posted and the one it posts now, with the
// kubelet's reasons and messages (pkg/kubelet/events, kuberuntime, images,
// prober, nodestatus).
import type { KubeObject } from '../../kinds/kind.ts';
import type { EventType } from './recorder.ts';

export interface KubeletEvent {
  type: EventType;
  reason: string;
  message: string;
  fieldPath?: string;
}

const containerPath = (name: string) => `spec.containers{${name}}`;

/** Events for one pod whose status went from `before` to `after`. */
export function kubeletPodEvents(pod: KubeObject, before: any, after: any): KubeletEvent[] {
  const out: KubeletEvent[] = [];
  const containers: any[] = (pod.spec as any)?.containers ?? [];
  const prev = new Map<string, any>((before?.containerStatuses ?? []).map((c: any) => [c.name, c]));
  for (const c of containers) {
    const was = prev.get(c.name);
    const now = (after?.containerStatuses ?? []).find((x: any) => x.name === c.name);
    if (!now) continue;
    const image = c.image ?? '';
    const fieldPath = containerPath(c.name);
    const waiting = now.state?.waiting?.reason;
    const wasWaiting = was?.state?.waiting?.reason;
    if (!was && (waiting === 'ContainerCreating' || waiting === 'ImagePullBackOff')) {
      out.push({ type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, fieldPath });
    }
    if (waiting === 'ImagePullBackOff' && wasWaiting !== 'ImagePullBackOff') {
      out.push({ type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull and unpack image "${image}": simulated pull failure (node annotation sim.k8s.io/image-pull-error)`, fieldPath });
      out.push({ type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', fieldPath });
    }
    if (waiting === 'ImagePullBackOff') {
      // Every sync of a pod in back-off says so again; the recorder counts the repeats into one event.
      out.push({ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, fieldPath });
      out.push({ type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', fieldPath });
    }
    const running = !!now.state?.running;
    const wasRunning = !!was?.state?.running;
    if (running && (!wasRunning || was?.containerID !== now.containerID)) {
      if (!was || wasWaiting === 'ContainerCreating' || wasWaiting === 'ImagePullBackOff') {
        out.push({ type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in 1.021s (1.021s including waiting). Image size: 5000000 bytes.`, fieldPath });
      } else {
        out.push({ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine`, fieldPath });
      }
      out.push({ type: 'Normal', reason: 'Created', message: `Created container: ${c.name}`, fieldPath });
      out.push({ type: 'Normal', reason: 'Started', message: `Started container ${c.name}`, fieldPath });
    }
    if (waiting === 'CrashLoopBackOff' && (wasWaiting !== 'CrashLoopBackOff' || was?.restartCount !== now.restartCount)) {
      // The container was started (again) and exited before the kubelet backed off.
      const first = !was || wasWaiting === 'ContainerCreating';
      out.push(
        first
          ? { type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in 1.021s (1.021s including waiting). Image size: 5000000 bytes.`, fieldPath }
          : { type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine`, fieldPath },
        { type: 'Normal', reason: 'Created', message: `Created container: ${c.name}`, fieldPath },
        { type: 'Normal', reason: 'Started', message: `Started container ${c.name}`, fieldPath },
      );
      out.push({
        type: 'Warning',
        reason: 'BackOff',
        message: `Back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
        fieldPath,
      });
    }
    if (now.state?.terminated && !was?.state?.terminated && now.state.terminated.reason === 'Error') {
      out.push({ type: 'Warning', reason: 'Failed', message: `Error: container ${c.name} exited with code ${now.state.terminated.exitCode}`, fieldPath });
    }
    // The prober's first failure once the container runs (or after it was Ready); the simulation probes no further.
    if (running && !now.ready && failingReadiness(pod) && (!wasRunning || was?.ready)) {
      out.push({ type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503', fieldPath });
    }
  }
  if (after?.phase === 'Failed' && before?.phase !== 'Failed' && after.reason) {
    out.push({ type: 'Warning', reason: after.reason, message: after.message ?? '' });
  }
  return out;
}

const failingReadiness = (pod: KubeObject) => pod.metadata.annotations?.['sim.k8s.io/fail-readiness'] === 'true';

/** `Stopping container <name>` for each container of a pod being deleted (the kubelet's Killing). */
export function killingEvents(pod: KubeObject): KubeletEvent[] {
  return ((pod.spec as any)?.containers ?? []).map((c: any) => ({ type: 'Normal' as const, reason: 'Killing', message: `Stopping container ${c.name}`, fieldPath: containerPath(c.name) }));
}

/** A change of a node's status as the kubelet (recordNodeStatusEvent) and the node lifecycle controller word it: `Node x status is now: NodeReady`. */
export const nodeStatusEvent = (name: string, reason: string): KubeletEvent => ({ type: 'Normal', reason, message: `Node ${name} status is now: ${reason}` });

/** Node condition changes as the kubelet reports them. */
export function kubeletNodeEvents(name: string, before: any, after: any): KubeletEvent[] {
  const out: KubeletEvent[] = [];
  const cond = (s: any, t: string) => (s?.conditions ?? []).find((c: any) => c.type === t);
  if (!cond(before, 'Ready')) {
    out.push({ type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
    out.push({ type: 'Normal', reason: 'NodeAllocatableEnforced', message: 'Updated Node Allocatable limit across pods' });
  }
  const pairs: [string, string, string][] = [
    ['MemoryPressure', 'NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
    ['DiskPressure', 'NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
    ['PIDPressure', 'NodeHasInsufficientPID', 'NodeHasSufficientPID'],
  ];
  for (const [type, bad, good] of pairs) {
    const a = cond(after, type)?.status;
    if (a && a !== cond(before, type)?.status) {
      out.push(nodeStatusEvent(name, a === 'True' ? bad : good));
    }
  }
  // The dynamic kubelet config moved to another source (the kubelet restarts to use it).
  const active = after?.config?.active?.configMap;
  const wasActive = before?.config?.active?.configMap;
  if (JSON.stringify(active ?? null) !== JSON.stringify(wasActive ?? null) && (active || wasActive)) {
    out.push({
      type: 'Normal',
      reason: 'KubeletConfigChanged',
      message: active
        ? `Kubelet restarting to use /api/v1/namespaces/${active.namespace}/configmaps/${active.name}, UID: ${active.uid ?? ''}, ResourceVersion: ${active.resourceVersion ?? ''}, KubeletConfigKey: ${active.kubeletConfigKey ?? ''}`
        : 'Kubelet restarting to use local config',
    });
  }
  const ready = cond(after, 'Ready')?.status;
  const wasReady = cond(before, 'Ready')?.status;
  if (ready && ready !== wasReady && ready !== 'Unknown') {
    out.push(nodeStatusEvent(name, ready === 'True' ? 'NodeReady' : 'NodeNotReady'));
  }
  return out;
}
