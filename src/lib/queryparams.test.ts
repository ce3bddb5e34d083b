import { describe, expect, it } from 'vitest';
import { IntParseError, parseGoBool, parseInt64, queryBool, queryOptionalBool } from './queryparams.ts';

describe('query parameters as kube-apiserver converts them', () => {
  it('booleans: only 0 and false (any case) are false; every other value, even empty, is true', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True', '', 'yes']) expect(queryBool(v), v).toBe(true);
    for (const v of ['0', 'false', 'False', 'FALSE', 'fAlSe']) expect(queryBool(v), v).toBe(false);
    expect(queryBool(null)).toBe(false);
    expect(queryOptionalBool(null)).toBeUndefined();
  });

  it('strconv.ParseBool for pretty', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseGoBool(v)).toBe(true);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseGoBool(v)).toBe(false);
    for (const v of ['yes', 'tRUE', '']) expect(parseGoBool(v)).toBeUndefined();
  });

  it('integers as strconv.ParseInt, with its error text', () => {
    expect(parseInt64('42')).toBe(42);
    expect(parseInt64('+7')).toBe(7);
    expect(parseInt64('-3')).toBe(-3);
    expect(() => parseInt64('1.5')).toThrow(new IntParseError('strconv.ParseInt: parsing "1.5": invalid syntax'));
    expect(() => parseInt64('')).toThrow('strconv.ParseInt: parsing "": invalid syntax');
    expect(() => parseInt64('ten')).toThrow('strconv.ParseInt: parsing "ten": invalid syntax');
    expect(() => parseInt64('9223372036854775808')).toThrow('strconv.ParseInt: parsing "9223372036854775808": value out of range');
  });
});
