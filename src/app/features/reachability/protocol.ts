// Messages between the page and reachability.worker.ts.
import type { Endpoint, NetworkPolicyLike, Protocol } from '../../../lib/reachability/index.ts';
import type { InputChanges } from './inputsync.ts';
import type { GraphLevel, LiveIntent, PortSpec } from './compute.ts';

type Body =
  /** A part of what changed; the last part has the version, and the worker computes on it. */
  | { type: 'input'; changes: InputChanges; version?: number }
  | { type: 'summary' }
  | { type: 'matrix'; port: number; protocol: Protocol }
  | { type: 'graph'; level: GraphLevel }
  | { type: 'explain'; from: Endpoint; to: Endpoint; port: number; protocol: Protocol }
  | { type: 'explainCell'; fromKey: string; toKey: string; port: number; protocol: Protocol }
  | { type: 'whatif'; draft: NetworkPolicyLike; original?: NetworkPolicyLike; extraPorts?: PortSpec[]; intents?: LiveIntent[] }
  | { type: 'intents'; intents: LiveIntent[] }
  | { type: 'fixCell'; fromKey: string; toKey: string; port: number; protocol: Protocol; expect: 'allowed' | 'denied' }
  | { type: 'fixIntent'; intent: LiveIntent };

export type WorkerRequest = Body & { id: number };
export type RequestBody = Body;

export type WorkerResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
