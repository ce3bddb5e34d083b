// Leader election on a coordination.k8s.io/v1 Lease, with client-go's
// leaderelection semantics (k8s.io/client-go/tools/leaderelection): candidates
// try to acquire the lease every retryPeriod (jittered); the holder renews it
// every retryPeriod and stops leading when it has not renewed for
// renewDeadline; another candidate takes it over once it has seen the same
// record unchanged for leaseDurationSeconds (measured on its own clock, so
// clocks need not agree). Every write is an update at the resourceVersion read,
// so two candidates never both succeed. A clean stop releases the lease
// (holderIdentity "", leaseDurationSeconds 1) so that the next one takes over
// at once.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { leaseKind } from '../kinds/coordination.ts';
import type { KubeObject } from '../kinds/kind.ts';
import type { Client } from './client.ts';
import type { UserInfo } from './auth/authn.ts';
import { ApiError } from './http/status.ts';

/** The user kube-controller-manager elects as; its bootstrap role may get and update this one lease. */
export const CONTROLLER_MANAGER_USER: UserInfo = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };

export interface LeaderElectionTimings {
  /** How long candidates wait, after last seeing the record change, before taking the lease over (15 s). */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it stops leading (10 s). */
  renewDeadlineMs: number;
  /** Between attempts to acquire or renew (2 s). */
  retryPeriodMs: number;
}

/** kube-controller-manager's defaults (--leader-elect-lease-duration etc.). */
export const DEFAULT_TIMINGS: LeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface LeaderElectionConfig extends LeaderElectionTimings {
  /** The Lease: kube-controller-manager's own, `kube-system/kube-controller-manager`. */
  namespace: string;
  name: string;
  /** `<hostname>_<uuid>`, new for every process, as kube-controller-manager's. */
  identity: string;
  /**
   * No other process can reach this store (the SQLite file is this process's
   * alone): a holder other than us is a previous process that died without
   * releasing, so there is nobody to wait for.
   */
  exclusive?: boolean;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  log?: (line: string) => void;
}

export const newIdentity = () => `${hostname()}_${randomUUID()}`;

/** metav1.MicroTime as JSON: RFC 3339 with microseconds. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

const recordOf = (lease: KubeObject): LeaseRecord => {
  const spec = (lease.spec ?? {}) as Partial<LeaseRecord>;
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime,
    renewTime: spec.renewTime,
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
};

export class LeaderElector {
  private readonly client: Client;
  private observed?: LeaseRecord;
  private observedRaw = '';
  private observedResourceVersion = '';
  /** Local time the observed record last changed (client-go's observedTime). */
  private observedTime = 0;
  /** Local time of our last successful acquire or renew. */
  private lastRenew = 0;
  private leading = false;
  private stopped = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  private running?: Promise<boolean>;

  constructor(
    client: Client,
    readonly config: LeaderElectionConfig,
  ) {
    this.client = client.as(CONTROLLER_MANAGER_USER);
  }

  get lease() {
    return `${this.config.namespace}/${this.config.name}`;
  }

  /** Whether this process holds the lease and runs the controllers. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen on the lease ('' when released or never seen). */
  leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Makes a first attempt (so that a free or expired lease is ours before
   * this returns, and startup waits for nothing), then keeps electing in the
   * background until `stop`.
   */
  async start(): Promise<void> {
    this.config.log?.(`leaderelection: attempting to acquire leader lease ${this.lease} as ${this.config.identity}...`);
    if (await this.tryAcquireOrRenew()) this.startLeading();
    this.loop = this.run();
  }

  /** Stops electing; a leader stops its controllers and releases the lease (ReleaseOnCancel). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.stopLeading('shutting down');
      await this.release();
    }
  }

  /**
   * The `leaderElection` health check (client-go's HealthzAdaptor): fails only
   * when this process believes it leads but has not renewed for longer than
   * the lease plus 20 s of tolerance.
   */
  healthCheck(): { error?: string; detail: string } {
    const { name, namespace } = this.config;
    if (this.leading && Date.now() > this.lastRenew + this.config.leaseDurationMs + 20_000) {
      return { error: `failed election to renew leadership on lease ${name}`, detail: '' };
    }
    const holder = this.leader();
    const detail = this.leading
      ? `leading on lease ${namespace}/${name} as ${this.config.identity}`
      : `standing by on lease ${namespace}/${name} (leader: ${holder || '<none>'}; this replica: ${this.config.identity})`;
    return { detail };
  }

  private async run(): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs } = this.config;
    while (!this.stopped) {
      if (!this.leading) {
        // acquire: wait.JitterUntil(retryPeriod, 1.2)
        await this.sleep(retryPeriodMs * (1 + Math.random() * 1.2));
        if (this.stopped) break;
        if (await this.attempt()) this.startLeading();
        continue;
      }
      // renew, as client-go's renew loop: retryPeriod after the last renewal, a round of attempts every
      // retryPeriod, bounded by renewDeadline from the round's start (not from the last renewal's start:
      // a renewal that took seconds on a busy etcd would leave the next round only what remained).
      await this.sleep(retryPeriodMs);
      if (this.stopped) break;
      const roundEnd = Date.now() + renewDeadlineMs;
      let renewed = false;
      for (let left = renewDeadlineMs; left > 0 && !this.stopped; left = roundEnd - Date.now()) {
        renewed = await withTimeout(this.attempt(), left);
        if (renewed || this.takenOver()) break;
        await this.sleep(Math.min(retryPeriodMs, Math.max(0, roundEnd - Date.now())));
      }
      if (this.stopped) break;
      if (renewed) continue;
      this.stopLeading(
        this.takenOver()
          ? `lease ${this.lease} is now held by ${this.observed!.holderIdentity || '<nobody>'}`
          : `failed to renew lease ${this.lease}: timed out waiting for the condition`,
      );
    }
  }

  /** Whether the lease was last seen held by someone else (or released). */
  private takenOver(): boolean {
    return !!this.observed && this.observed.holderIdentity !== this.config.identity;
  }

  private startLeading() {
    if (this.stopped || this.leading) return;
    this.leading = true;
    this.config.log?.(`leaderelection: successfully acquired lease ${this.lease}; this replica (${this.config.identity}) is the leader and runs the controllers`);
    this.config.onStartedLeading();
  }

  private stopLeading(why: string) {
    if (!this.leading) return;
    this.leading = false;
    this.config.log?.(`leaderelection: stopped leading (${why}); the controllers are stopped on this replica`);
    this.config.onStoppedLeading();
  }

  private observe(lease: KubeObject) {
    const record = recordOf(lease);
    const raw = JSON.stringify(record);
    this.observedResourceVersion = lease.metadata.resourceVersion ?? '';
    if (raw === this.observedRaw) return;
    const before = this.observed?.holderIdentity;
    this.observed = record;
    this.observedRaw = raw;
    this.observedTime = Date.now();
    if (record.holderIdentity && record.holderIdentity !== before && record.holderIdentity !== this.config.identity) {
      this.config.log?.(`leaderelection: new leader elected: ${record.holderIdentity}`);
    }
  }

  /**
   * One attempt at a time: an attempt still running when the next is due (one that outlived its
   * round on a busy storage) is waited for, not raced by another, whose write would conflict with it.
   */
  private attempt(): Promise<boolean> {
    return (this.running ??= this.tryAcquireOrRenew().finally(() => (this.running = undefined)));
  }

  /** client-go's tryAcquireOrRenew: true when we hold the lease after it. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.config;
    const now = Date.now();
    const desired: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.round(this.config.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      let current: KubeObject;
      try {
        // Read as client-go's elector reads it (from etcd, not a watch cache): a cache behind a busy etcd
        // would hand back our previous renewal, and the renewal written against it would conflict until the lease expired.
        current = await this.client.getLatest(leaseKind, namespace, name);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
        const created = await this.client.create(leaseKind, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: desired,
        });
        this.observe(created);
        this.lastRenew = now;
        return true;
      }
      this.observe(current);
      const old = this.observed!;
      const mine = old.holderIdentity === identity;
      const valid = this.observedTime + old.leaseDurationSeconds * 1000 > now;
      if (old.holderIdentity && !mine && valid && !this.config.exclusive) return false;
      if (mine && this.leading) {
        desired.acquireTime = old.acquireTime;
        desired.leaseTransitions = old.leaseTransitions;
      } else {
        desired.leaseTransitions = old.leaseTransitions + (mine ? 0 : 1);
      }
      const rv = this.observedResourceVersion;
      const updated = await this.client.update(
        leaseKind,
        namespace,
        name,
        (o) => {
          // The resourceVersion we judged by: a write by anyone since is a 409, never overwritten.
          o.metadata.resourceVersion = rv;
          o.spec = { ...(o.spec as object), ...desired };
        },
        undefined,
        { returnWhenStored: true },
      );
      this.observe(updated);
      this.lastRenew = now;
      return true;
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) {
        this.config.log?.(`leaderelection: error acquiring or renewing lease ${this.lease}: ${(e as Error).message}`);
      }
      return false;
    }
  }

  /** client-go's release: an empty holder and a 1 s lease, so the next candidate need not wait. */
  private async release() {
    const { namespace, name, identity } = this.config;
    const rv = this.observedResourceVersion;
    try {
      const now = microTime(Date.now());
      await this.client.update(leaseKind, namespace, name, (o) => {
        if ((o.spec as any)?.holderIdentity !== identity) throw new ApiError(409, 'Conflict', 'lease taken over');
        o.metadata.resourceVersion = rv;
        o.spec = { ...(o.spec as object), holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
      });
      this.config.log?.(`leaderelection: released lease ${this.lease}`);
    } catch (e) {
      this.config.log?.(`leaderelection: failed to release lease ${this.lease}: ${(e as Error).message}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

function withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}
