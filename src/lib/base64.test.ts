import { describe, expect, it } from 'vitest';
import { base64ErrorOffset } from './base64.ts';

describe('base64ErrorOffset (Go StdEncoding)', () => {
  it('accepts what decodes, newlines included', () => {
    for (const ok of ['', 'YQ==', 'YWI=', 'YWJj', 'YWJj\nZGVm', 'YW\r\nI=', 'YQ=\n=', Buffer.from('any bytes \u00ff').toString('base64')]) expect(base64ErrorOffset(ok), ok).toBe(-1);
  });

  it('names the byte where decoding fails', () => {
    expect(base64ErrorOffset('===x')).toBe(0);
    expect(base64ErrorOffset('YWJ')).toBe(0); // a quantum cut short, no padding
    expect(base64ErrorOffset('YWJjZ')).toBe(4);
    expect(base64ErrorOffset('YW!j')).toBe(2);
    expect(base64ErrorOffset('YQ=x')).toBe(2); // "=" not followed by "="
    expect(base64ErrorOffset('YQ=')).toBe(3);
    expect(base64ErrorOffset('YWI=YQ==')).toBe(4); // data after the padding
    expect(base64ErrorOffset('Y===')).toBe(1);
  });
});
