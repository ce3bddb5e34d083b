// ipBlock peers compiled once and tested against addresses without
// allocating (the library's cidrContainsIP masks copies; this runs pods x
// distinct ipBlocks times).
import { parseCIDRSloppy, type CIDR, type IPAddress } from '../cidr.ts';

export interface CompiledIPBlock {
  key: string;
  cidr: CIDR | null;
  except: CIDR[];
}

export function compileIPBlock(b: { cidr?: string; except?: string[] }): CompiledIPBlock {
  return {
    key: `${b.cidr ?? ''} except ${(b.except ?? []).join(',')}`,
    cidr: b.cidr ? parseCIDRSloppy(b.cidr) : null,
    except: (b.except ?? []).map((e) => parseCIDRSloppy(e)).filter((c): c is CIDR => !!c),
  };
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

/** Any of the addresses lies in cidr and in none of the excepts. */
export function ipBlockContainsAny(b: CompiledIPBlock, ips: readonly IPAddress[]): boolean {
  const cidr = b.cidr;
  if (!cidr) return false;
  for (const ip of ips) if (prefixContains(cidr, ip) && !b.except.some((e) => prefixContains(e, ip))) return true;
  return false;
}
