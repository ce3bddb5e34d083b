import { describe, it, expect } from 'vitest';
import {
  cidrCanonicalErrors,
  cidrContainsCIDR,
  cidrContainsIP,
  cidrErrors,
  cidrWarnings,
  formatCIDR,
  formatIP,
  INVALID_CIDR_MESSAGE,
  ipErrors,
  isStrictSubset,
  networkOf,
  parseCIDR,
  parseCIDRSloppy,
  parseIP,
  parseIPSloppy,
} from './cidr.ts';

const ip = (s: string) => {
  const p = parseIP(s);
  if (!p) throw new Error(`bad ip ${s}`);
  return p;
};
const cidr = (s: string) => {
  const c = parseCIDRSloppy(s);
  if (!c) throw new Error(`bad cidr ${s}`);
  return c;
};

describe('parseIP / formatIP', () => {
  it.each([
    ['1.2.3.4', 4, '1.2.3.4'],
    ['0.0.0.0', 4, '0.0.0.0'],
    ['255.255.255.255', 4, '255.255.255.255'],
    ['::ffff:1.2.3.4', 4, '1.2.3.4'],
    ['::FFFF:102:304', 4, '1.2.3.4'],
    ['::', 6, '::'],
    ['::1', 6, '::1'],
    ['1::', 6, '1::'],
    ['1:0:0:0:0:0:0:1', 6, '1::1'],
    ['1:0:0:1:0:0:0:1', 6, '1:0:0:1::1'],
    ['0:0:1:0:0:1:0:0', 6, '::1:0:0:1:0:0'],
    ['1:0:1:0:1:0:1:0', 6, '1:0:1:0:1:0:1:0'],
    ['2001:DB8::FFFF:0:1', 6, '2001:db8::ffff:0:1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', 6, '2001:db8::1'],
    ['::1.2.3.4', 6, '::102:304'],
    ['1:2:3:4:5:6:1.2.3.4', 6, '1:2:3:4:5:6:102:304'],
    ['1:2:3:4:5:6:7::', 6, '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', 6, '0:2:3:4:5:6:7:8'],
  ])('%s', (text, family, formatted) => {
    const p = ip(text);
    expect(p.family).toBe(family);
    expect(p.bytes.length).toBe(family === 4 ? 4 : 16);
    expect(formatIP(p)).toBe(formatted);
  });

  it.each([
    '', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.04', '1..2.3', '1.2.3.4 ', ' 1.2.3.4', 'a.b.c.d',
    ':', ':::', '1:::2', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::1', '00000::1', '::1%eth0',
    '1:2:3:4:5:6:7:1.2.3.4', '1.2.3.4::', 'g::1', '1:2:3:4:5:6:7:8::', '::1.2.3.04', '1::2:',
  ])('rejects %j', (text) => {
    expect(parseIP(text)).toBeNull();
  });

  it('sloppy parsing accepts leading zeros like Go 1.16 / ParseIPSloppy', () => {
    expect(formatIP(parseIPSloppy('010.001.002.003')!)).toBe('10.1.2.3');
    expect(formatIP(parseIPSloppy('00000001::1')!)).toBe('1::1');
    expect(parseIPSloppy('256.0.0.1')).toBeNull();
    expect(ipErrors('010.0.0.1')).toEqual([]);
    expect(ipErrors('x')).toEqual(['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  });
});

describe('parseCIDR', () => {
  it('keeps the address as written and the prefix', () => {
    const c = parseCIDR('10.1.2.3/8')!;
    expect(c.family).toBe(4);
    expect(Array.from(c.ip)).toEqual([10, 1, 2, 3]);
    expect(c.prefix).toBe(8);
    expect(formatCIDR(c)).toBe('10.1.2.3/8');
    expect(formatCIDR(networkOf(c))).toBe('10.0.0.0/8');
  });
  it.each([
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.129/25', '192.168.1.128/25'],
    ['255.255.255.255/32', '255.255.255.255/32'],
    ['2001:DB8::1/64', '2001:db8::/64'],
    ['::/0', '::/0'],
    ['1:2:3:4:5:6:7:8/127', '1:2:3:4:5:6:7:8/127'],
    ['1:2:3:4:5:6:7:9/127', '1:2:3:4:5:6:7:8/127'],
    ['::ffff:10.1.0.0/104', '10.0.0.0/8'],
    ['::ffff:10.1.0.0/96', '0.0.0.0/0'],
    ['::ffff:10.1.0.0/64', '::/64'],
    ['10.0.0.0/08', '10.0.0.0/8'],
  ])('%s has network %s', (text, network) => {
    expect(formatCIDR(networkOf(parseCIDR(text)!))).toBe(network);
  });
  it('treats IPv4-mapped with an IPv6 prefix >= 96 as IPv4', () => {
    const c = parseCIDR('::ffff:10.1.0.0/104')!;
    expect(c.family).toBe(4);
    expect(c.prefix).toBe(8);
    const v6 = parseCIDR('::ffff:10.1.0.0/64')!;
    expect(v6.family).toBe(6);
    expect(formatCIDR(v6)).toBe('::ffff:10.1.0.0/64');
  });
  it.each(['', '10.0.0.0', '10.0.0.0/', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/+8', '10.0.0.0/8/8', '::/129', '010.0.0.0/8', 'fe80::1%eth0/64', 'x/8', '10.0.0.0/ 8'])(
    'rejects %j',
    (text) => expect(parseCIDR(text)).toBeNull(),
  );
  it('sloppy parsing accepts leading zeros', () => {
    expect(formatCIDR(networkOf(parseCIDRSloppy('010.000.000.000/8')!))).toBe('10.0.0.0/8');
  });
});

describe('containment', () => {
  it('checks addresses', () => {
    expect(cidrContainsIP(cidr('10.0.0.0/8'), ip('10.255.0.1'))).toBe(true);
    expect(cidrContainsIP(cidr('10.0.0.0/8'), ip('11.0.0.1'))).toBe(false);
    expect(cidrContainsIP(cidr('10.1.2.3/8'), ip('10.9.9.9'))).toBe(true);
    expect(cidrContainsIP(cidr('0.0.0.0/0'), ip('1.2.3.4'))).toBe(true);
    expect(cidrContainsIP(cidr('::/0'), ip('1.2.3.4'))).toBe(false);
    expect(cidrContainsIP(cidr('2001:db8::/32'), ip('2001:db8:1::1'))).toBe(true);
    expect(cidrContainsIP(cidr('10.0.0.0/8'), ip('::ffff:10.0.0.1'))).toBe(true);
  });
  it('checks networks and strict subsets (NetworkPolicy except)', () => {
    expect(cidrContainsCIDR(cidr('10.0.0.0/8'), cidr('10.1.0.0/16'))).toBe(true);
    expect(cidrContainsCIDR(cidr('10.0.0.0/8'), cidr('10.0.0.0/8'))).toBe(true);
    expect(cidrContainsCIDR(cidr('10.0.0.0/16'), cidr('10.0.0.0/8'))).toBe(false);
    expect(cidrContainsCIDR(cidr('10.0.0.0/8'), cidr('2001:db8::/64'))).toBe(false);
    expect(isStrictSubset(cidr('10.1.0.0/16'), cidr('10.0.0.0/8'))).toBe(true);
    expect(isStrictSubset(cidr('10.0.0.0/8'), cidr('10.0.0.0/8'))).toBe(false);
    expect(isStrictSubset(cidr('11.0.0.0/16'), cidr('10.0.0.0/8'))).toBe(false);
    expect(isStrictSubset(cidr('10.1.2.3/16'), cidr('10.9.9.9/8'))).toBe(true);
    expect(isStrictSubset(cidr('2001:db8:1::/48'), cidr('2001:db8::/32'))).toBe(true);
  });
});

describe('validation texts', () => {
  it('legacy validation accepts what ParseCIDRSloppy accepts', () => {
    for (const ok of ['10.0.0.0/8', '10.0.0.1/8', '010.0.0.0/8', '10.0.0.0/08', '::ffff:10.0.0.0/104', '2001:DB8::/64']) expect(cidrErrors(ok)).toEqual([]);
    for (const bad of ['', 'x', '10.0.0.0', '10.0.0.0/33', '1.2.3.4/8 ']) expect(cidrErrors(bad)).toEqual([INVALID_CIDR_MESSAGE]);
    expect(INVALID_CIDR_MESSAGE).toBe('must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)');
  });
  it('strict validation', () => {
    expect(cidrErrors('010.0.0.0/8', true)).toEqual(['must not have leading 0s in IP or prefix length']);
    expect(cidrErrors('10.0.0.0/08', true)).toEqual(['must not have leading 0s in IP or prefix length']);
    expect(cidrErrors('::ffff:10.0.0.0/104', true)).toEqual(['must not have an IPv4-mapped IPv6 address']);
    expect(cidrErrors('10.0.0.1/8', true)).toEqual(['must not have bits set beyond the prefix length']);
    expect(cidrErrors('2001:db8::1/64', true)).toEqual(['must not have bits set beyond the prefix length']);
    expect(cidrErrors('2001:DB8::/64', true)).toEqual([]);
    expect(cidrErrors('x', true)).toEqual([INVALID_CIDR_MESSAGE]);
  });
  it('canonical validation', () => {
    expect(cidrCanonicalErrors('10.0.0.0/8')).toEqual([]);
    expect(cidrCanonicalErrors('2001:db8::/64')).toEqual([]);
    expect(cidrCanonicalErrors('2001:DB8::/64')).toEqual(['must be in canonical form ("2001:db8::/64")']);
    expect(cidrCanonicalErrors('2001:db8:0:0::/64')).toEqual(['must be in canonical form ("2001:db8::/64")']);
    expect(cidrCanonicalErrors('10.0.0.1/8')).toEqual(['must not have bits set beyond the prefix length']);
  });
  it('warns about ambiguous and non-standard values', () => {
    expect(cidrWarnings('10.0.0.0/8')).toEqual([]);
    expect(cidrWarnings('2001:db8::/64')).toEqual([]);
    expect(cidrWarnings('x')).toEqual([]);
    expect(cidrWarnings('10.0.0.1/8')).toEqual(['CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)']);
    expect(cidrWarnings('010.0.0.0/8')).toEqual([
      'non-standard CIDR value "010.0.0.0/8" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    expect(cidrWarnings('::ffff:10.0.0.0/104')).toEqual([
      'non-standard CIDR value "::ffff:10.0.0.0/104" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    expect(cidrWarnings('::ffff:10.0.0.1/104')).toEqual([
      'CIDR value "::ffff:10.0.0.1/104" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/128"?)',
      'non-standard CIDR value "::ffff:10.0.0.1/104" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    expect(cidrWarnings('010.0.0.1/8')).toEqual([
      'CIDR value "010.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
      'non-standard CIDR value "010.0.0.1/8" will be considered invalid in a future Kubernetes release: use "10.0.0.0/8"',
    ]);
    expect(cidrWarnings('2001:DB8::/64')).toEqual(['IPv6 CIDR value "2001:DB8::/64" should be in RFC 5952 canonical format ("2001:db8::/64")']);
    expect(cidrWarnings('2001:db8::1/64')).toEqual([
      'CIDR value "2001:db8::1/64" is ambiguous in this context (should be "2001:db8::/64" or "2001:db8::1/128"?)',
    ]);
  });
});
