// Status conditions, read the one way everywhere: an object's condition of a
// type, and whether it is True.

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

/** Any API object (its status is read loosely: objects arrive as JSON). */
type WithConditions = { status?: unknown } | { [key: string]: unknown };

/** The object's status condition of `type`, if it has one. */
export function conditionOf(o: WithConditions | undefined, type: string): Condition | undefined {
  const conditions = ((o as { status?: { conditions?: Condition[] } } | undefined)?.status)?.conditions;
  return conditions?.find((c) => c.type === type);
}

/** Whether the object's condition of `type` is True. */
export const isConditionTrue = (o: WithConditions | undefined, type: string) => conditionOf(o, type)?.status === 'True';
