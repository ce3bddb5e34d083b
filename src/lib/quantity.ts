// resource.Quantity (apimachinery pkg/api/resource/quantity.go) with exact
// integer arithmetic. The server stores capacities the way kube-apiserver
// does: parsed, rounded up to milli precision (core/v1 SetDefaults_ResourceList)
// and re-serialized in the canonical form of the suffix family it was written in.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

export const ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const INT64_MAX = 2n ** 63n - 1n;
/** Beyond this decimal exponent we refuse rather than build astronomically large integers. */
const MAX_EXPONENT = 10000;

const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXPONENT = new Map(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]));
const BIN_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

interface Scanned {
  positive: boolean;
  /** Integer digits without leading zeros ("0" when none). */
  num: string;
  /** Fraction digits. */
  denom: string;
  suffix: string;
}

/** parseQuantityString: sign, digits, optional fraction, suffix letters, optional signed exponent digits. */
function scan(str: string): Scanned {
  const out: Scanned = { positive: true, num: '0', denom: '', suffix: '' };
  let pos = 0;
  if (str[0] === '-' || str[0] === '+') {
    out.positive = str[0] === '+';
    pos++;
  }
  while (str[pos] === '0') pos++;
  if (pos >= str.length) return out;
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  if (pos > numStart) out.num = str.slice(numStart, pos);
  if (pos >= str.length) return out;
  if (str[pos] === '.') {
    const start = ++pos;
    while (isDigit(str[pos])) pos++;
    out.denom = str.slice(start, pos);
    if (pos >= str.length) return out;
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (pos < str.length && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) throw new QuantityParseError(ERR_FORMAT_WRONG);
  out.suffix = str.slice(suffixStart);
  return out;
}

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  if (Object.hasOwn(DEC_SUFFIXES, s)) return { base: 10, exponent: DEC_SUFFIXES[s], format: 'DecimalSI' };
  if (Object.hasOwn(BIN_SUFFIXES, s)) return { base: 2, exponent: BIN_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?[0-9]+$/.test(s.slice(1))) {
    const e = BigInt(s.slice(1));
    if (e >= -(2n ** 63n) && e <= INT64_MAX) {
      // Very negative exponents just round up to 1m; very large ones are refused (see MAX_EXPONENT).
      if (e > BigInt(MAX_EXPONENT)) throw new QuantityParseError(ERR_NUMERIC);
      if (e < -(2n ** 31n)) throw new QuantityParseError(ERR_SUFFIX);
      return { base: 10, exponent: Number(e), format: 'DecimalExponent' };
    }
  }
  throw new QuantityParseError(ERR_SUFFIX);
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** Integer division rounding away from zero (inf.RoundUp on a non-negative numerator). */
function divCeil(n: bigint, d: bigint): bigint {
  return n / d + (n % d === 0n ? 0n : 1n);
}

export interface ParsedQuantity {
  /** The value in thousandths, rounded away from zero. */
  milli: bigint;
  format: QuantityFormat;
  /**
   * The text kube-apiserver echoes back: upstream keeps the input string when
   * it was already canonical and milli rounding did not change it (e.g. `+1`, `1E3`).
   */
  serialized: string;
}

/** Full parse, including the string upstream would serialize the stored value as. */
export function parseQuantityDetailed(input: string | number): ParsedQuantity {
  // Quantity.UnmarshalJSON trims surrounding whitespace; a JSON number arrives as its
  // text, which for large numbers JSON writes as `1e21` rather than JS's `1e+21`.
  const str = typeof input === 'number' ? String(input).replace('e+', 'e') : input.trim();
  if (str === '') throw new QuantityParseError(ERR_FORMAT_WRONG);
  if (str === '0') return { milli: 0n, format: 'DecimalSI', serialized: '0' };

  const { positive, num, denom, suffix } = scan(str);
  const { base, exponent, format: parsedFormat } = interpretSuffix(suffix);

  // value = digits × 10^e10 × 2^(binary exponent)
  let n = BigInt(num + denom);
  let e10 = -denom.length;
  if (base === 10) e10 += exponent;
  else n <<= BigInt(exponent);
  if (e10 + 3 > MAX_EXPONENT) throw new QuantityParseError(ERR_NUMERIC);

  // BinarySI values are silently capped at 2^63-1.
  if (base === 2 && (e10 >= 0 ? n * pow10(e10) : n) > (e10 >= 0 ? INT64_MAX : INT64_MAX * pow10(-e10))) {
    n = INT64_MAX;
    e10 = 0;
  }
  let milli: bigint;
  const shift = e10 + 3;
  if (shift >= 0) milli = n * pow10(shift);
  else if (-shift > n.toString().length) milli = n === 0n ? 0n : 1n; // far below a milli: rounds up to 1m
  else milli = divCeil(n, pow10(-shift));
  if (!positive) milli = -milli;

  // A BinarySI value strictly between 0 and 1 is treated as DecimalSI (upstream: "avoids rounding").
  let format = parsedFormat;
  if (format === 'BinarySI' && n !== 0n && (e10 >= 0 ? n * pow10(e10) : n) < (e10 >= 0 ? 1n : pow10(-e10))) format = 'DecimalSI';

  const cached = canonicalInputKept(num, denom, base, exponent);
  return { milli, format, serialized: cached ? str : formatMilliQuantity(milli, format) };
}

/**
 * Upstream's fast path remembers the input string when it is already in
 * canonical form; rounding to milli drops it only when the scale was finer.
 */
function canonicalInputKept(num: string, denom: string, base: 2 | 10, exponent: number): boolean {
  if (base === 10) {
    if (18 - (num.length + denom.length) < 0) return false;
    const scale = exponent - denom.length;
    const shifted = num + denom;
    return scale >= -3 && scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  }
  if (denom !== '' || 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return false;
  const value = BigInt(num);
  return value << BigInt(exponent) <= INT64_MAX && (value & 7n) !== 0n;
}

/** Quantity.CanonicalizeBytes for a value given in thousandths. */
export function formatMilliQuantity(milli: bigint, format: QuantityFormat): string {
  if (milli === 0n) return '0';
  const abs = milli < 0n ? -milli : milli;
  const sign = milli < 0n ? '-' : '';
  if (format === 'BinarySI' && abs >= 1024000n && abs % 1000n === 0n) {
    let v = abs / 1000n;
    let power = 0;
    while (v >= 1024n && v % 1024n === 0n && power < BIN_BY_POWER.length - 1) {
      v /= 1024n;
      power++;
    }
    return `${sign}${v}${BIN_BY_POWER[power]}`;
  }
  // Decimal: strip factors of ten into the exponent, then lower it to a multiple of 3.
  let mantissa = abs;
  let exp = -3;
  while (mantissa >= 10n && mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp++;
  }
  const r = ((exp % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(r);
  exp -= r;
  let suffix: string;
  if (format === 'DecimalExponent') suffix = exp === 0 ? '' : `e${exp}`;
  else suffix = DEC_BY_EXPONENT.get(exp) ?? `e${exp}`; // beyond E (10^18) upstream falls back to an exponent
  return `${sign}${mantissa}${suffix}`;
}

/** resource.ParseQuantity followed by RoundUp(milli). */
export function parseQuantity(s: string | number): { milli: bigint; format: QuantityFormat } {
  const { milli, format } = parseQuantityDetailed(s);
  return { milli, format };
}

/** The text kube-apiserver stores and returns for this quantity (e.g. `1000m` → `1`, `1.5Gi` → `1536Mi`). */
export function canonicalQuantity(s: string | number): string {
  return parseQuantityDetailed(s).serialized;
}

/** The value in base units as a float (`500m` → 0.5, `1Gi` → 1073741824). */
export function quantityToNumber(s: string | number): number {
  const { milli } = parseQuantity(s);
  const whole = milli / 1000n;
  return Number(whole) + Number(milli - whole * 1000n) / 1000;
}

export function compareQuantities(a: string | number, b: string | number): -1 | 0 | 1 {
  const x = parseQuantity(a).milli;
  const y = parseQuantity(b).milli;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Validation's "must be an integer": MilliValue() % 1000 == 0. */
export function isWholeNumber(s: string | number): boolean {
  return parseQuantity(s).milli % 1000n === 0n;
}
