// The in-process controllers of the embedded mode. Each acts through a Client
// under its own identity, like any other client of the API. With leader
// election (the default) they run only on the replica that holds the Lease
// kube-system/kube-controller-manager, as kube-controller-manager's do.
import { controllerIdentity, type ControllerContext } from './context.ts';
import { startNamespaceController } from './namespace.ts';
import { startNodeAgents } from './nodeagent.ts';
import { startAttacher } from './attacher.ts';
import { startDaemonSetController } from './daemonset.ts';
import { startGarbageCollector } from './garbagecollector.ts';
import { startPodGC, type PodGCOptions } from './podgc.ts';
import { startClusterRoleAggregation } from './clusterroleaggregation.ts';
import { startScheduler } from './scheduler.ts';
import type { SimulationOptions } from './simulation.ts';
import { DEFAULT_TIMINGS, LeaderElector, newIdentity, type LeaderElectionTimings } from '../leader.ts';
import type { HealthCheck } from '../http/healthz.ts';
import { yieldToEventLoop } from '../registry/turns.ts';

export interface ControllerOptions {
  /** Whether to run them at all (`--no-controllers` turns them off). */
  enabled: boolean;
  /** Delays and scope of the simulated cluster (scheduler, kubelets, CSI attacher); false leaves them out. */
  simulation?: SimulationOptions | false;
  /** Pod garbage collection (the quarantine of pods on missing nodes). */
  podGC?: PodGCOptions;
}

/**
 * Starts every controller, each in a turn of the event loop of its own, and
 * returns the function that stops them all. Each indexes what the cache holds
 * as it starts: at 60,000 pods the DaemonSet controller, the kubelets, the
 * scheduler and the pod GC took 160-210 ms each, 0.7 s in one turn that every
 * request waited out.
 */
export function startControllers(ctx: ControllerContext, opts: ControllerOptions): () => void {
  if (!opts.enabled) return () => {};
  const starts = [
    () => startNamespaceController(ctx.client.as(controllerIdentity('namespace-controller')), ctx.stores, ctx.cache),
    () => startDaemonSetController(ctx),
    () => startGarbageCollector(ctx),
    () => startPodGC(ctx, opts.podGC),
    () => startClusterRoleAggregation(ctx),
  ];
  const simulation = opts.simulation;
  if (simulation !== false) starts.push(() => startScheduler(ctx), () => startNodeAgents(ctx, simulation ?? {}), () => startAttacher(ctx, simulation ?? {}));
  const stops: (() => void)[] = [];
  let stopped = false;
  void (async () => {
    for (const start of starts) {
      if (stopped) return;
      stops.push(start());
      await yieldToEventLoop();
    }
  })();
  return () => {
    stopped = true;
    stops.forEach((stop) => stop());
  };
}

export interface LeaderElectionOptions extends Partial<LeaderElectionTimings> {
  /** The replica's identity (`<hostname>_<uuid>` by default). */
  identity?: string;
  /** No other process shares the store (SQLite): a lease left by a dead predecessor is taken at once. */
  exclusive?: boolean;
}

/** kube-controller-manager's lease: `kubectl -n kube-system get lease kube-controller-manager` shows the leader. */
export const CONTROLLERS_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager' };

/**
 * The controllers of one replica: started and stopped with the leadership
 * (OnStartedLeading / OnStoppedLeading), or at once without an election.
 */
export class ControllerManager {
  readonly elector?: LeaderElector;
  readonly healthChecks: HealthCheck[] = [];
  private stopRunning?: () => void;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: ControllerOptions,
    election: LeaderElectionOptions | false,
    log?: (line: string) => void,
  ) {
    if (!opts.enabled || election === false) return;
    this.elector = new LeaderElector(ctx.client, {
      ...CONTROLLERS_LEASE,
      leaseDurationMs: election.leaseDurationMs ?? DEFAULT_TIMINGS.leaseDurationMs,
      renewDeadlineMs: election.renewDeadlineMs ?? DEFAULT_TIMINGS.renewDeadlineMs,
      retryPeriodMs: election.retryPeriodMs ?? DEFAULT_TIMINGS.retryPeriodMs,
      identity: election.identity ?? newIdentity(),
      exclusive: election.exclusive,
      onStartedLeading: () => this.run(),
      onStoppedLeading: () => this.halt(),
      log,
    });
    const elector = this.elector;
    this.healthChecks.push({ name: 'leaderElection', endpoints: ['healthz', 'readyz'], check: () => elector.healthCheck() });
  }

  /** Whether this replica runs the controllers now. */
  get running(): boolean {
    return this.stopRunning !== undefined;
  }

  async start(): Promise<void> {
    if (this.elector) await this.elector.start();
    else this.run();
  }

  async stop(): Promise<void> {
    if (this.elector) await this.elector.stop();
    this.halt();
  }

  private run() {
    if (!this.stopRunning) this.stopRunning = startControllers(this.ctx, this.opts);
  }

  private halt() {
    const stop = this.stopRunning;
    this.stopRunning = undefined;
    stop?.();
  }
}
