// ipBlock peers compiled once and tested against addresses without
// allocating (the library's cidrContainsIP masks copies; this runs pods x
// distinct ipBlocks times). IPv4 networks are also kept as 32-bit integers.
import { parseCIDRSloppy, type CIDR, type IPAddress } from '../cidr.ts';

interface V4Net {
  net: number;
  mask: number;
}

export interface CompiledIPBlock {
  key: string;
  cidr: CIDR | null;
  except: CIDR[];
  /** The cidr and excepts as integers when the cidr is IPv4. */
  v4?: V4Net;
  v4Except?: V4Net[];
}

const toInt = (b: Uint8Array) => ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
const maskOf = (prefix: number) => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
const v4Net = (c: CIDR): V4Net => ({ net: (toInt(c.ip) & maskOf(c.prefix)) >>> 0, mask: maskOf(c.prefix) });

export function compileIPBlock(b: { cidr?: string; except?: string[] }): CompiledIPBlock {
  const cidr = b.cidr ? parseCIDRSloppy(b.cidr) : null;
  const except = (b.except ?? []).map((e) => parseCIDRSloppy(e)).filter((c): c is CIDR => !!c);
  const out: CompiledIPBlock = { key: `${b.cidr ?? ''} except ${(b.except ?? []).join(',')}`, cidr, except };
  if (cidr && cidr.family === 4 && cidr.ip.length === 4) {
    out.v4 = v4Net(cidr);
    out.v4Except = except.filter((e) => e.family === 4 && e.ip.length === 4).map(v4Net);
  }
  return out;
}

function prefixContains(c: CIDR, ip: IPAddress): boolean {
  if (c.family !== ip.family || c.ip.length !== ip.bytes.length) return false;
  const full = c.prefix >>> 3;
  for (let i = 0; i < full; i++) if (c.ip[i] !== ip.bytes[i]) return false;
  const rest = c.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (c.ip[full] & mask) === (ip.bytes[full] & mask);
}

/** The IPv4 addresses among `ips` as integers (for ipBlockContainsAny). */
export function ipv4Ints(ips: readonly IPAddress[]): number[] {
  const out: number[] = [];
  for (const ip of ips) if (ip.family === 4 && ip.bytes.length === 4) out.push(toInt(ip.bytes));
  return out;
}

/** Any of the addresses lies in cidr and in none of the excepts. `v4` (ipv4Ints(ips)) saves recomputing per block. */
export function ipBlockContainsAny(b: CompiledIPBlock, ips: readonly IPAddress[], v4 = ipv4Ints(ips)): boolean {
  const cidr = b.cidr;
  if (!cidr) return false;
  if (b.v4) {
    const { net, mask } = b.v4;
    for (const x of v4) if ((x & mask) >>> 0 === net && !b.v4Except!.some((e) => (x & e.mask) >>> 0 === e.net)) return true;
    return false;
  }
  for (const ip of ips) if (prefixContains(cidr, ip) && !b.except.some((e) => prefixContains(e, ip))) return true;
  return false;
}
