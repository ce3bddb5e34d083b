import { describe, it, expect } from 'vitest';
import { isPercent, percentErrors, scaledValueFromIntOrPercent } from './intorstring.ts';

describe('scaledValueFromIntOrPercent', () => {
  it('returns numbers as they are and undefined as 0', () => {
    expect(scaledValueFromIntOrPercent(3, 10, true)).toBe(3);
    expect(scaledValueFromIntOrPercent(0, 10, false)).toBe(0);
    expect(scaledValueFromIntOrPercent(undefined, 10, true)).toBe(0);
  });
  it('scales percents rounding up or down', () => {
    expect(scaledValueFromIntOrPercent('25%', 10, true)).toBe(3);
    expect(scaledValueFromIntOrPercent('25%', 10, false)).toBe(2);
    expect(scaledValueFromIntOrPercent('100%', 7, false)).toBe(7);
    expect(scaledValueFromIntOrPercent('0%', 7, true)).toBe(0);
    expect(scaledValueFromIntOrPercent('10%', 0, true)).toBe(0);
    expect(scaledValueFromIntOrPercent('33%', 3, true)).toBe(1);
    expect(scaledValueFromIntOrPercent('150%', 2, false)).toBe(3);
    expect(scaledValueFromIntOrPercent('+5%', 100, false)).toBe(5);
    expect(scaledValueFromIntOrPercent('-10%', 5, true)).toBe(0);
  });
  it('throws upstream messages for bad strings', () => {
    expect(() => scaledValueFromIntOrPercent('x', 10, true)).toThrow('invalid value for IntOrString: invalid type: string is not a percentage');
    expect(() => scaledValueFromIntOrPercent('10', 10, true)).toThrow('invalid value for IntOrString: invalid type: string is not a percentage');
    expect(() => scaledValueFromIntOrPercent('x%', 10, true)).toThrow(
      'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    );
    expect(() => scaledValueFromIntOrPercent('%', 10, true)).toThrow('invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax');
    expect(() => scaledValueFromIntOrPercent('99999999999999999999%', 10, true)).toThrow('value out of range');
  });
});

describe('percents', () => {
  it('recognises percent strings', () => {
    expect(isPercent('10%')).toBe(true);
    expect(isPercent('10')).toBe(false);
    expect(isPercent(10)).toBe(false);
  });
  it('validates with the upstream message', () => {
    expect(percentErrors('10%')).toEqual([]);
    expect(percentErrors('0%')).toEqual([]);
    for (const bad of ['10', '%', '-1%', '1.5%', ' 1%', 'a%']) {
      expect(percentErrors(bad)).toEqual([
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ]);
    }
  });
});
