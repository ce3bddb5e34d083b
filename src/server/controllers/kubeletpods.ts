// What a simulated kubelet reports for a pod bound to its node: Pending while
// the containers are being created, Running once they start, Ready once their
// (simulated) readiness probes pass; fault annotations make readiness fail or
// the containers crash-loop. The status follows the kubelet's
// generateAPIPodStatus: conditions PodReadyToStartContainers, Initialized,
// ContainersReady, Ready and PodScheduled, one containerStatus per container.
import { clone } from '../../lib/json.ts';
import { rfc3339 } from '../../lib/duration.ts';
import { Annotations, hex, isTrue, memoByName } from './simulation.ts';

/** What the kubelet remembers about a pod between syncs (lost on restart; times then come from the status). */
export interface PodMemo {
  /** When the kubelet first saw the pod (ms). */
  seenAt: number;
  /** Precise start time per container (the status keeps whole seconds). */
  startedAt: Map<string, number>;
  /** Precise time of each crash-looping container's last crash. */
  crashedAt: Map<string, number>;
  /** The IP allocated for the pod, so that computing a status twice allocates once. */
  podIP?: string;
  /** What the last status was computed from (statusHolds). */
  computed?: { pod?: string; node?: string; until: number };
}

/**
 * Whether the status last computed for a pod still holds: computed from the
 * same pod and node (by resourceVersion) and its next delay not yet run out.
 * The status depends on nothing else (the memo changes only as it is
 * computed), so the kubelet need not compute it again for every event of
 * the pod: its own status write comes back as one, as do the writes of others.
 */
export function statusHolds(memo: PodMemo, pod: any, node: any, now: number): boolean {
  const c = memo.computed;
  return !!c && c.pod !== undefined && c.pod === pod.metadata?.resourceVersion && c.node === node.metadata?.resourceVersion && now < c.until;
}

/** Notes what the status just computed (or written: `pod` is then the stored object) came from, and until when it holds. */
export function statusComputed(memo: PodMemo, pod: any, node: any, wakeAt: number | undefined) {
  memo.computed = { pod: pod.metadata?.resourceVersion, node: node.metadata?.resourceVersion, until: wakeAt ?? Infinity };
}

export interface PodSyncContext {
  now: number;
  hostIP: string;
  /** Allocates the pod's IP the first time it runs (not for hostNetwork pods, which use hostIP). */
  allocatePodIP: () => string;
  startDelayMs: number;
  readyDelayMs: number;
  crashBackoffMs: number;
  /** The node cannot pull images: containers not yet started wait in ImagePullBackOff. */
  imagePullError?: boolean;
}

const MAX_BACKOFF_MS = 300_000;
export const backoffMs = (first: number, restarts: number) => Math.min(MAX_BACKOFF_MS, first * 2 ** Math.max(0, restarts));

function setCondition(conds: any[], type: string, status: string, now: string, reason?: string, message?: string) {
  const i = conds.findIndex((x) => x.type === type);
  const old = i >= 0 ? conds[i] : undefined;
  const next: any = { type, status, lastTransitionTime: old && old.status === status ? (old.lastTransitionTime ?? now) : now };
  if (reason) next.reason = reason;
  if (message) next.message = message;
  if (i >= 0) conds[i] = next;
  else conds.push(next);
}

/** The image as the runtime reports it (fully qualified) and a stable fake digest. */
const imageRef = memoByName((image) => {
  const first = image.split('/')[0];
  const full = !image.includes('/') ? `docker.io/library/${image}` : first.includes('.') || first.includes(':') || first === 'localhost' ? image : `docker.io/${image}`;
  const repo = full.split('@')[0].replace(/:[^/:]+$/, '');
  return { full, id: `${repo}@sha256:${hex(image)}` };
});

/**
 * The status the kubelet would post now, and when it next has something to
 * do for this pod (a delay running out). Mutates nothing but `memo`.
 */
export function kubeletPodStatus(pod: any, memo: PodMemo, ctx: PodSyncContext): { status: any; wakeAt?: number } {
  const now = ctx.now;
  const nowStr = rfc3339(new Date(now));
  const s = clone(pod.status ?? {});
  const ann = pod.metadata?.annotations;
  const containers: any[] = pod.spec?.containers ?? [];
  const inits: any[] = pod.spec?.initContainers ?? [];
  const conds: any[] = (s.conditions ??= []);
  let wakeAt: number | undefined;
  const wake = (t: number) => (wakeAt = wakeAt === undefined ? t : Math.min(wakeAt, t));

  s.hostIP = ctx.hostIP;
  s.hostIPs = [{ ip: ctx.hostIP }];
  s.startTime ??= nowStr;
  setCondition(conds, 'PodScheduled', 'True', nowStr);

  const previous = new Map<string, any>((s.containerStatuses ?? []).map((c: any) => [c.name, c]));
  const startDue = memo.seenAt + ctx.startDelayMs;
  const started = s.phase === 'Running' || now >= startDue;
  // Not started yet: the sandbox is being created, or (a node fault) the images cannot be pulled.
  const pullError = s.phase !== 'Running' && ctx.imagePullError;
  if (pullError || !started) {
    s.phase = 'Pending';
    const names = containers.map((c) => c.name).join(' ');
    setCondition(conds, 'PodReadyToStartContainers', pullError ? 'True' : 'False', nowStr);
    setCondition(conds, 'Initialized', 'True', nowStr);
    setCondition(conds, 'Ready', 'False', nowStr, 'ContainersNotReady', `containers with unready status: [${names}]`);
    setCondition(conds, 'ContainersReady', 'False', nowStr, 'ContainersNotReady', `containers with unready status: [${names}]`);
    s.containerStatuses = containers.map((c) => ({
      name: c.name,
      state: { waiting: pullError ? { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image ?? ''}"` } : { reason: 'ContainerCreating' } },
      ready: false,
      restartCount: 0,
      image: imageRef(c.image ?? '').full,
      imageID: '',
      started: false,
    }));
    if (!pullError) wake(startDue);
    return { status: order(s), wakeAt };
  }

  s.phase = 'Running';
  if (!s.podIP || (pod.spec?.hostNetwork && s.podIP !== ctx.hostIP)) {
    // A pod on the host's network has the node's address; others get one from the pod CIDR.
    const ip = pod.spec?.hostNetwork ? ctx.hostIP : ctx.allocatePodIP();
    s.podIP = ip;
    s.podIPs = [{ ip }];
  }
  setCondition(conds, 'PodReadyToStartContainers', 'True', nowStr);
  setCondition(conds, 'Initialized', 'True', nowStr);
  if (inits.length) {
    const prevInit = new Map<string, any>((s.initContainerStatuses ?? []).map((c: any) => [c.name, c]));
    s.initContainerStatuses = inits.map((c) => {
      const ref = imageRef(c.image ?? '');
      return (
        prevInit.get(c.name) ?? {
          name: c.name,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: s.startTime, finishedAt: nowStr, containerID: `containerd://${hex(pod.metadata.uid + c.name)}` } },
          ready: true,
          restartCount: 0,
          image: ref.full,
          imageID: ref.id,
          containerID: `containerd://${hex(pod.metadata.uid + c.name)}`,
          started: false,
        }
      );
    });
  }

  const crash = isTrue(ann, Annotations.podCrash);
  const failReadiness = isTrue(ann, Annotations.podFailReadiness);
  const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
  let failed = false;
  s.containerStatuses = containers.map((c) => {
    const ref = imageRef(c.image ?? '');
    const prev = previous.get(c.name);
    let restartCount: number = prev?.restartCount ?? 0;
    const cid = (n: number) => `containerd://${hex(`${pod.metadata.uid}/${c.name}/${n}`)}`;
    const base = { name: c.name, image: ref.full, imageID: ref.id };
    if (crash) {
      const runningSince = prev?.state?.running?.startedAt ?? nowStr;
      if (restartPolicy === 'Never') {
        failed = true;
        const terminated = prev?.state?.terminated ?? { exitCode: 1, reason: 'Error', startedAt: runningSince, finishedAt: nowStr, containerID: cid(restartCount) };
        return { ...base, state: { terminated }, ready: false, restartCount, containerID: terminated.containerID, started: false };
      }
      let lastState = prev?.lastState;
      if (!prev?.state?.waiting || prev.state.waiting.reason !== 'CrashLoopBackOff') {
        // The container just crashed: it waits out the first back-off.
        lastState = { terminated: { exitCode: 1, reason: 'Error', startedAt: runningSince, finishedAt: nowStr, containerID: cid(restartCount) } };
        memo.crashedAt.set(c.name, now);
      } else {
        const crashedAt = memo.crashedAt.get(c.name) ?? Date.parse(lastState?.terminated?.finishedAt ?? nowStr);
        const due = crashedAt + backoffMs(ctx.crashBackoffMs, restartCount);
        if (now >= due) {
          // Restarted after the back-off and crashed again at once.
          restartCount++;
          lastState = { terminated: { exitCode: 1, reason: 'Error', startedAt: nowStr, finishedAt: nowStr, containerID: cid(restartCount) } };
          memo.crashedAt.set(c.name, now);
        }
      }
      const delay = backoffMs(ctx.crashBackoffMs, restartCount);
      wake((memo.crashedAt.get(c.name) ?? now) + delay);
      return {
        ...base,
        state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})` } },
        lastState,
        ready: false,
        restartCount,
        containerID: lastState.terminated.containerID,
        started: false,
      };
    }
    let startedAt: string | undefined = prev?.state?.running?.startedAt;
    if (!startedAt) {
      if (prev?.state?.waiting?.reason === 'CrashLoopBackOff') restartCount++; // the fault is gone: this start succeeds
      startedAt = nowStr;
      memo.startedAt.set(c.name, now);
    }
    const since = memo.startedAt.get(c.name) ?? Date.parse(startedAt);
    const readyAt = since + ctx.readyDelayMs;
    const ready = !failReadiness && now >= readyAt;
    if (!ready && !failReadiness) wake(readyAt);
    const out: any = { ...base, state: { running: { startedAt } }, ready, restartCount, containerID: cid(restartCount), started: true };
    if (prev?.lastState && Object.keys(prev.lastState).length) out.lastState = prev.lastState;
    return out;
  });

  if (failed) s.phase = 'Failed';
  const unready = s.containerStatuses.filter((c: any) => !c.ready).map((c: any) => c.name);
  if (unready.length) {
    const msg = `containers with unready status: [${unready.join(' ')}]`;
    setCondition(conds, 'ContainersReady', 'False', nowStr, 'ContainersNotReady', msg);
    setCondition(conds, 'Ready', 'False', nowStr, 'ContainersNotReady', msg);
  } else {
    setCondition(conds, 'ContainersReady', 'True', nowStr);
    setCondition(conds, 'Ready', 'True', nowStr);
  }
  return { status: order(s), wakeAt };
}

const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
function order(s: any) {
  s.conditions.sort((a: any, b: any) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));
  return s;
}
