import { describe, expect, it } from 'vitest';
import { originMatches, parseCorsAllowedOrigins } from './cors.ts';

describe('--cors-allowed-origins', () => {
  it('accepts patterns that pin the start and end of the host, as kube-apiserver does', () => {
    for (const p of ['^http://foo.com$', '^http://foo.com', '://foo.com$', '//foo.com$', '^http://foo.com(:|$)', '//foo.com(:|$)', '(^foo.com$)']) {
      expect(() => parseCorsAllowedOrigins(p), p).not.toThrow();
    }
    expect(parseCorsAllowedOrigins('^https://a\\.io$,,//b\\.io(:|$)')).toHaveLength(2);
  });

  it('refuses patterns a look-alike host could satisfy, and broken ones', () => {
    for (const p of ['^foo.com', '//foo.com', 'foo.com$', 'foo.com(:|$)', '^http://ok.com$,evil']) {
      expect(() => parseCorsAllowedOrigins(p), p).toThrow(/does not pin the start and end of the host/);
    }
    expect(() => parseCorsAllowedOrigins('^(http://x$')).toThrow(/invalid regular expression/);
  });

  it('matches anywhere in the Origin, so pinning is what keeps look-alikes out', () => {
    const [pinned] = parseCorsAllowedOrigins('//app\\.example\\.com(:|$)');
    expect(originMatches('https://app.example.com', [pinned])).toBe(true);
    expect(originMatches('https://app.example.com:8443', [pinned])).toBe(true);
    expect(originMatches('https://app.example.com.evil.io', [pinned])).toBe(false);
    expect(originMatches('https://app.example.com.evil.io', [/app\.example\.com/])).toBe(true);
  });
});
