// IntOrString helpers (apimachinery pkg/util/intstr): DaemonSet rolling
// update maxUnavailable / maxSurge are either absolute numbers or percents.

export type IntOrString = number | string;

export const PERCENT_ERROR =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** A string value ending in `%` is treated as a percent (as GetScaledValueFromIntOrPercent does). */
export function isPercent(v: IntOrString): boolean {
  return typeof v === 'string' && v.endsWith('%');
}

/** validation.IsValidPercent. */
export function percentErrors(v: string): string[] {
  return /^[0-9]+%$/.test(v) ? [] : [PERCENT_ERROR];
}

const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;

/** strconv.Atoi with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < INT_MIN || n > INT_MAX) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(n);
}

/**
 * intstr.GetScaledValueFromIntOrPercent: a number is returned as is, `N%` is
 * N percent of total rounded up or down. Any other string throws with
 * upstream's message. undefined counts as 0 (callers default absent fields).
 */
export function scaledValueFromIntOrPercent(v: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return Math.trunc(v);
  if (!v.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  let pct: number;
  try {
    pct = atoi(v.slice(0, -1));
  } catch (e) {
    throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}: ${(e as Error).message}`);
  }
  // Same float64 arithmetic as upstream: value * total / 100, then ceil/floor.
  const scaled = (pct * total) / 100;
  return (roundUp ? Math.ceil(scaled) : Math.floor(scaled)) + 0; // + 0 turns -0 into 0
}
