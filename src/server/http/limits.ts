// Bounds on what one server takes on at once, as kube-apiserver's filters set
// them (AS/pkg/server/filters/maxinflight.go, timeout.go and the watch
// handler's timeout): requests in flight, split into read-only and mutating,
// with long-running ones (watches) counted apart; a deadline for every
// request that is not long-running; a spread-out deadline for watches whose
// client named none; and a bound on what a watcher that does not read may
// leave buffered.
import type { UserInfo } from '../auth/authn.ts';
import { ApiError, errors } from './status.ts';

export interface Limits {
  /** Read-only (get, list, discovery) requests served at once; 0 is no limit. */
  maxRequestsInflight: number;
  /** Mutating requests served at once; 0 is no limit. */
  maxMutatingRequestsInflight: number;
  /** Deadline of a request that is not a watch (--request-timeout), in milliseconds. */
  requestTimeoutMs: number;
  /** Watches without timeoutSeconds end after this many seconds times [1, 2) (--min-request-timeout). */
  minRequestTimeoutSeconds: number;
  /** Bytes a watch may have waiting for a client that does not read before it is closed. */
  watchBufferBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  requestTimeoutMs: 60_000,
  minRequestTimeoutSeconds: 1800,
  // Upstream's watch cache keeps a bounded channel per watcher and drops the
  // watcher that fills it; this is the same bound in bytes of encoded events.
  watchBufferBytes: 16 * 1024 * 1024,
};

/** Verbs that change nothing (AS/pkg/server/filters/maxinflight.go: nonMutatingRequestVerbs). */
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export const isMutating = (verb: string) => !READ_ONLY_VERBS.has(verb);

/** The group whose members no limit applies to (upstream exempts system:masters). */
const PRIVILEGED_GROUP = 'system:masters';

/** kube-apiserver's answer when every slot is taken: 429 and Retry-After: 1. */
const tooManyRequests = () => errors.tooManyRequests('Too many requests, please try again later.');

/** The answer of a request past its deadline (WithTimeoutForNonLongRunningRequests). */
export const requestTimedOut = () => new ApiError(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout');

/** Counts requests in flight; `admit` takes a slot or throws the 429. */
export class InflightLimiter {
  private readOnly = 0;
  private mutating = 0;

  constructor(private readonly limits: Pick<Limits, 'maxRequestsInflight' | 'maxMutatingRequestsInflight'>) {}

  /** Takes a slot for a request; returns its release (call once when the request is done). */
  admit(user: UserInfo, verb: string): () => void {
    if (user.groups.includes(PRIVILEGED_GROUP)) return () => {};
    const mutating = isMutating(verb);
    const limit = mutating ? this.limits.maxMutatingRequestsInflight : this.limits.maxRequestsInflight;
    const inflight = mutating ? this.mutating : this.readOnly;
    if (limit > 0 && inflight >= limit) throw tooManyRequests();
    if (mutating) this.mutating++;
    else this.readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.mutating--;
      else this.readOnly--;
    };
  }

  inflight(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }
}

/**
 * The timeout of a watch: the client's timeoutSeconds, or, when it gave none
 * (or 0), minRequestTimeout × [1, 2) so that watches opened together do not
 * all end (and relist) together.
 */
export function watchTimeoutSeconds(requested: number | undefined, minRequestTimeoutSeconds: number, random = Math.random()): number {
  if (requested) return requested;
  return Math.floor(minRequestTimeoutSeconds * (random + 1));
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration ("60s", "1m30s", "1.5h", "0"), in milliseconds; undefined when not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m) return text === '0' || text === '+0' || text === '-0' ? 0 : undefined;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ms += Number(n) * DURATION_UNITS[unit];
  return m[1] === '-' ? -ms : ms;
}

/**
 * The deadline of one request: the `timeout` query parameter when it is
 * shorter than --request-timeout (AS/pkg/server/filters/request_deadline.go).
 */
export function requestDeadlineMs(timeoutParam: string | null, requestTimeoutMs: number): number {
  if (timeoutParam === null || timeoutParam === '') return requestTimeoutMs;
  const ms = parseDuration(timeoutParam);
  if (ms === undefined) throw new ApiError(400, 'BadRequest', 'invalid timeout specified in the request URL');
  return ms > 0 && ms < requestTimeoutMs ? ms : requestTimeoutMs;
}
