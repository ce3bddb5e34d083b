// Query parameters read as kube-apiserver reads them: its parameter codec
// converts booleans with runtime.Convert_Slice_string_To_bool (only "0" and
// "false" in any case are false; any other value, even empty, is true) and
// integers with strconv.ParseInt (anything else is a 400 quoting Go's error);
// `pretty` alone goes through strconv.ParseBool, a bad value being false.

/** A boolean query parameter (Convert_Slice_string_To_bool); absent is false. */
export function queryBool(v: string | null): boolean {
  if (v === null) return false;
  return v !== '0' && v.toLowerCase() !== 'false';
}

/** A `*bool` query parameter: undefined when absent. */
export const queryOptionalBool = (v: string | null): boolean | undefined => (v === null ? undefined : queryBool(v));

/** Go's strconv.ParseBool; undefined for anything it refuses. */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** strconv.ParseInt's error, whose text the apiserver answers with. */
export class IntParseError extends Error {}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(v, 10, 64): an optional sign and decimal digits, within int64. */
export function parseInt64(v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw new IntParseError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) throw new IntParseError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}
