// IPv4/IPv6 addresses and CIDRs without Node APIs, with Go's semantics:
//  - parseIP / parseCIDR behave like Go 1.22+ net.ParseIP / net.ParseCIDR
//    (netip rules: no IPv4 leading zeros, at most 4 hex digits per group);
//  - the *Sloppy variants behave like k8s.io/utils/net ParseIPSloppy /
//    ParseCIDRSloppy (Go 1.16 rules), which Kubernetes' legacy validation uses.
// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is an IPv4 address, as for net.IP.

export interface IPAddress {
  family: 4 | 6;
  /** 4 bytes for IPv4 (including IPv4-mapped IPv6), 16 bytes for IPv6. */
  bytes: Uint8Array;
}

export interface CIDR {
  family: 4 | 6;
  /** The address as written (host bits kept); 4 or 16 bytes like IPAddress. */
  ip: Uint8Array;
  /** Prefix length in the family's address space (0–32 or 0–128). */
  prefix: number;
}

const BIG = 0xffffff; // Go's dtoi/xtoi overflow guard

/** Go's dtoi: leading decimal digits; `ok` false when there are none or they overflow. */
function dtoi(s: string, from = 0): { n: number; end: number; ok: boolean } {
  let n = 0;
  let i = from;
  for (; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) {
    n = n * 10 + (s.charCodeAt(i) - 48);
    if (n >= BIG) return { n: BIG, end: i, ok: false };
  }
  return { n, end: i, ok: i > from };
}

function hexValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/** Dotted quad. Strict (netip) forbids leading zeros; sloppy (Go 1.16) reads them as decimal. */
function parseIPv4(s: string, sloppy: boolean): Uint8Array | null {
  const out = new Uint8Array(4);
  let pos = 0;
  for (let i = 0; i < 4; i++) {
    if (i > 0) {
      if (s[pos] !== '.') return null;
      pos++;
    }
    const { n, end, ok } = dtoi(s, pos);
    if (!ok || n > 255) return null;
    if (!sloppy && end - pos > 1 && s[pos] === '0') return null;
    out[i] = n;
    pos = end;
  }
  return pos === s.length ? out : null;
}

function parseIPv6(s: string, sloppy: boolean): Uint8Array | null {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let rest = s;
  if (rest.startsWith('::')) {
    ellipsis = 0;
    rest = rest.slice(2);
    if (rest === '') return ip;
  }
  let i = 0;
  while (i < 16) {
    let n = 0;
    let digits = 0;
    for (; digits < rest.length; digits++) {
      const h = hexValue(rest[digits]);
      if (h < 0) break;
      n = n * 16 + h;
      if (!sloppy && digits > 3) return null; // netip: at most 4 digits per group
      if (n >= BIG) return null;
    }
    if (digits === 0 || n > 0xffff) return null;
    if (rest[digits] === '.') {
      // Trailing dotted quad: only as the last 32 bits, or after a "::".
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return null;
      const v4 = parseIPv4(rest, sloppy);
      if (!v4) return null;
      ip.set(v4, i);
      rest = '';
      i += 4;
      break;
    }
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    rest = rest.slice(digits);
    if (rest === '') break;
    if (rest[0] !== ':' || rest.length === 1) return null;
    rest = rest.slice(1);
    if (rest[0] === ':') {
      if (ellipsis >= 0) return null;
      ellipsis = i;
      rest = rest.slice(1);
      if (rest === '') break;
    }
  }
  if (rest !== '') return null;
  if (i < 16) {
    if (ellipsis < 0) return null;
    const shift = 16 - i;
    ip.copyWithin(ellipsis + shift, ellipsis, i);
    ip.fill(0, ellipsis, ellipsis + shift);
  } else if (ellipsis >= 0) {
    return null; // "::" must stand for at least one group
  }
  return ip;
}

const V4_IN_V6_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function isMapped(b: Uint8Array): boolean {
  return b.length === 16 && V4_IN_V6_PREFIX.every((x, i) => b[i] === x);
}

function to16(v4: Uint8Array): Uint8Array {
  const b = new Uint8Array(16);
  b.set(V4_IN_V6_PREFIX);
  b.set(v4, 12);
  return b;
}

/** Parses to the 16-byte form plus whether the text was a plain dotted quad (Go's Is4). */
function parseAddr16(s: string, sloppy: boolean): { ip16: Uint8Array; is4: boolean } | null {
  if (s.includes('%')) return null; // zones are never accepted by net.ParseIP / ParseCIDR
  const v4 = parseIPv4(s, sloppy);
  if (v4) return { ip16: to16(v4), is4: true };
  const v6 = parseIPv6(s, sloppy);
  return v6 ? { ip16: v6, is4: false } : null;
}

function toAddress(ip16: Uint8Array): IPAddress {
  return isMapped(ip16) ? { family: 4, bytes: ip16.slice(12) } : { family: 6, bytes: ip16.slice() };
}

/** Go 1.22+ net.ParseIP. */
export function parseIP(s: string): IPAddress | null {
  const a = parseAddr16(s, false);
  return a ? toAddress(a.ip16) : null;
}

/** k8s.io/utils/net ParseIPSloppy: also accepts IPv4 octets with leading zeros (read as decimal). */
export function parseIPSloppy(s: string): IPAddress | null {
  const a = parseAddr16(s, true);
  return a ? toAddress(a.ip16) : null;
}

// ---------------------------------------------------------------------------
// Go's net.IPNet as parsed, before it is turned into the public CIDR shape.

interface RawNet {
  ip16: Uint8Array;
  /** Mask length in bits of the mask Go builds: 32 for dotted quads, 128 otherwise (even IPv4-mapped). */
  bits: 32 | 128;
  ones: number;
}

function parseRaw(s: string, sloppy: boolean): RawNet | null {
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  const a = parseAddr16(s.slice(0, slash), sloppy);
  if (!a) return null;
  const mask = s.slice(slash + 1);
  const { n, end, ok } = dtoi(mask);
  const bits = a.is4 ? 32 : 128;
  if (!ok || end !== mask.length || n > bits) return null;
  return { ip16: a.ip16, bits, ones: n };
}

function maskBytes(b: Uint8Array, ones: number): Uint8Array {
  const out = b.slice();
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, ones - i * 8));
    out[i] &= (0xff << (8 - keep)) & 0xff;
  }
  return out;
}

function rawToCIDR(r: RawNet): CIDR {
  const ones128 = r.bits === 32 ? r.ones + 96 : r.ones;
  // Like IPNet.String/Contains: the network is IPv4 when its masked address is IPv4-mapped.
  if (ones128 >= 96 && isMapped(r.ip16)) return { family: 4, ip: r.ip16.slice(12), prefix: ones128 - 96 };
  return { family: 6, ip: r.ip16.slice(), prefix: r.ones };
}

/** Go 1.22+ net.ParseCIDR (the address may have host bits; see networkOf). */
export function parseCIDR(s: string): CIDR | null {
  const r = parseRaw(s, false);
  return r ? rawToCIDR(r) : null;
}

/** k8s.io/utils/net ParseCIDRSloppy: what Kubernetes' legacy CIDR validation accepts. */
export function parseCIDRSloppy(s: string): CIDR | null {
  const r = parseRaw(s, true);
  return r ? rawToCIDR(r) : null;
}

export function networkOf(c: CIDR): CIDR {
  return { family: c.family, ip: maskBytes(c.ip, c.prefix), prefix: c.prefix };
}

function formatIPv6(b: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i] << 8) | b[i + 1]);
  // RFC 5952: compress the longest run (>= 2) of zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j > i ? j : i + 1;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

const dotted = (b: Uint8Array) => Array.from(b).join('.');

/** net.IP.String(): dotted quad for IPv4 (and IPv4-mapped), RFC 5952 text for IPv6. */
export function formatIP(ip: IPAddress): string {
  if (ip.bytes.length === 4) return dotted(ip.bytes);
  if (isMapped(ip.bytes)) return dotted(ip.bytes.slice(12));
  return formatIPv6(ip.bytes);
}

/** `<ip as written>/<prefix>`; an IPv4-mapped address in an IPv6-sized prefix keeps its `::ffff:` form. */
export function formatCIDR(c: CIDR): string {
  if (c.family === 6 && isMapped(c.ip)) return `::ffff:${dotted(c.ip.slice(12))}/${c.prefix}`;
  return `${formatIP({ family: c.family, bytes: c.ip })}/${c.prefix}`;
}

function samePrefixBits(a: Uint8Array, b: Uint8Array, ones: number): boolean {
  const ma = maskBytes(a, ones);
  const mb = maskBytes(b, ones);
  return ma.every((x, i) => x === mb[i]);
}

export function cidrContainsIP(c: CIDR, ip: IPAddress): boolean {
  return c.family === ip.family && c.ip.length === ip.bytes.length && samePrefixBits(c.ip, ip.bytes, c.prefix);
}

export function cidrContainsCIDR(outer: CIDR, inner: CIDR): boolean {
  return outer.family === inner.family && outer.prefix <= inner.prefix && samePrefixBits(outer.ip, inner.ip, outer.prefix);
}

/** NetworkPolicy ipBlock.except: the except network lies inside cidr and has a strictly longer prefix. */
export function isStrictSubset(inner: CIDR, outer: CIDR): boolean {
  return cidrContainsCIDR(outer, inner) && outer.prefix < inner.prefix;
}

// ---------------------------------------------------------------------------
// Kubernetes validation texts (apimachinery pkg/util/validation/ip.go)

export const INVALID_CIDR_MESSAGE = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
export const INVALID_IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** netip.ParsePrefix: strict address, prefix length without sign or leading zeros. */
function parsePrefixStrict(s: string): RawNet | null {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return null;
  const bitsText = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) return null;
  const a = parseAddr16(s.slice(0, slash), false);
  if (!a) return null;
  const bits = a.is4 ? 32 : 128;
  const ones = Number(bitsText);
  return ones > bits ? null : { ip16: a.ip16, bits, ones };
}

const hostBitsSet = (r: RawNet) => !samePrefixBits(r.ip16, maskBytes(r.ip16, r.bits === 32 ? r.ones + 96 : r.ones), 128);

/** IPNet.String() of the masked network. */
function networkString(r: RawNet): string {
  const c = networkOf(rawToCIDR(r));
  return c.family === 4 ? `${dotted(c.ip)}/${c.prefix}` : `${formatIPv6(c.ip)}/${c.prefix}`;
}

/**
 * IsValidCIDRForLegacyField. Legacy (default, StrictIPCIDRValidation off):
 * anything ParseCIDRSloppy accepts. Strict: also no leading zeros, no
 * IPv4-mapped IPv6, no host bits.
 */
export function cidrErrors(s: string, strict = false): string[] {
  const raw = parseRaw(s, true);
  if (!raw) return [INVALID_CIDR_MESSAGE];
  if (!strict) return [];
  const p = parsePrefixStrict(s);
  if (!p) return ['must not have leading 0s in IP or prefix length'];
  if (p.bits !== 32 && isMapped(p.ip16)) return ['must not have an IPv4-mapped IPv6 address'];
  if (hostBitsSet(p)) return ['must not have bits set beyond the prefix length'];
  return [];
}

/** IsValidCIDR (for new fields): strict, and the text must be the canonical network form. */
export function cidrCanonicalErrors(s: string): string[] {
  const errs = cidrErrors(s, true);
  if (errs.length) return errs;
  const canonical = networkString(parseRaw(s, true)!);
  return s === canonical ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

/** GetWarningsForCIDR without the `<path>: ` prefix; [] for values cidrErrors rejects. */
export function cidrWarnings(s: string): string[] {
  const raw = parseRaw(s, true);
  if (!raw) return [];
  const warnings: string[] = [];
  const net = networkString(raw);
  if (hostBitsSet(raw)) {
    const single = `${formatIP(toAddress(raw.ip16))}/${raw.bits}`;
    warnings.push(`CIDR value ${JSON.stringify(s)} is ambiguous in this context (should be ${JSON.stringify(net)} or ${JSON.stringify(single)}?)`);
  }
  const p = parsePrefixStrict(s);
  const mapped = p !== null && p.bits !== 32 && isMapped(p.ip16);
  if (!p || mapped) {
    warnings.push(`non-standard CIDR value ${JSON.stringify(s)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(net)}`);
  }
  if (warnings.length === 0 && p && p.bits !== 32) {
    const canonical = `${formatIPv6(p.ip16)}/${p.ones}`;
    if (canonical !== s) warnings.push(`IPv6 CIDR value ${JSON.stringify(s)} should be in RFC 5952 canonical format (${JSON.stringify(canonical)})`);
  }
  return warnings;
}

/** IsValidIPForLegacyField with strict validation off: anything ParseIPSloppy accepts. */
export function ipErrors(s: string): string[] {
  return parseIPSloppy(s) ? [] : [INVALID_IP_MESSAGE];
}
