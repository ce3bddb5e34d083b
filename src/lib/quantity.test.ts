import { describe, it, expect } from 'vitest';
import {
  canonicalQuantity,
  compareQuantities,
  ERR_FORMAT_WRONG,
  ERR_SUFFIX,
  formatMilliQuantity,
  isWholeNumber,
  parseQuantity,
  QuantityParseError,
  quantityToNumber,
} from './quantity.ts';

describe('canonicalQuantity', () => {
  it.each([
    // examples from API-SEMANTICS §15.1
    ['1000m', '1'],
    ['0.5', '500m'],
    ['2048Mi', '2Gi'],
    ['1.5Gi', '1536Mi'],
    ['1e3', '1e3'],
    ['100M', '100M'],
    ['0', '0'],
    ['-1', '-1'],
    // decimal SI
    ['1', '1'],
    ['4', '4'],
    ['1.5', '1500m'],
    ['100m', '100m'],
    ['1500m', '1500m'],
    ['2000m', '2'],
    ['1000k', '1M'],
    ['1k', '1k'],
    ['3G', '3G'],
    ['0.001', '1m'],
    ['1000000', '1M'],
    ['1234567', '1234567'],
    ['12345678901234567890', '12345678901234567890'],
    ['1000E', '1e21'],
    ['-0', '0'],
    ['0.0', '0'],
    ['-1.5', '-1500m'],
    // finer than milli rounds up (away from zero) to milli
    ['1n', '1m'],
    ['1u', '1m'],
    ['1000000n', '1m'],
    ['0.0001', '1m'],
    ['1.0001', '1001m'],
    ['-0.0001', '-1m'],
    // binary SI
    ['1Ki', '1Ki'],
    ['1024Ki', '1Mi'],
    ['1025Mi', '1025Mi'],
    ['1023Ki', '1023Ki'],
    ['8Ki', '8Ki'],
    ['16Gi', '16Gi'],
    ['0.5Ki', '512'],
    ['0.1Ki', '102400m'],
    ['1.0001Ki', '1024103m'],
    ['8Ei', '9223372036854775807'],
    ['4Ei', '4Ei'],
    ['0Mi', '0'],
    ['-1Ki', '-1Ki'],
    // decimal exponent
    ['1e6', '1e6'],
    ['10e3', '10e3'],
    ['1.5e3', '1500'],
    ['1e-3', '1e-3'],
    ['1e-9', '1e-3'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it('echoes input upstream already considers canonical', () => {
    // ParseQuantity caches the original string on its fast path and serializes it verbatim.
    expect(canonicalQuantity('+1')).toBe('+1');
    expect(canonicalQuantity('01')).toBe('01');
    expect(canonicalQuantity('1E3')).toBe('1E3');
    expect(canonicalQuantity('1.')).toBe('1.');
    expect(canonicalQuantity('1e0')).toBe('1e0');
  });

  it('accepts JSON numbers', () => {
    expect(canonicalQuantity(4)).toBe('4');
    expect(canonicalQuantity(0.5)).toBe('500m');
    expect(canonicalQuantity(1e21)).toBe('1e21');
  });

  it('trims surrounding whitespace like Quantity.UnmarshalJSON', () => {
    expect(canonicalQuantity(' 1Gi ')).toBe('1Gi');
  });
});

describe('parseQuantity', () => {
  it('returns milli units and the format', () => {
    expect(parseQuantity('1')).toEqual({ milli: 1000n, format: 'DecimalSI' });
    expect(parseQuantity('250m')).toEqual({ milli: 250n, format: 'DecimalSI' });
    expect(parseQuantity('1Ki')).toEqual({ milli: 1024000n, format: 'BinarySI' });
    expect(parseQuantity('1e3')).toEqual({ milli: 1000000n, format: 'DecimalExponent' });
    expect(parseQuantity('1n')).toEqual({ milli: 1n, format: 'DecimalSI' });
    expect(parseQuantity('-1n')).toEqual({ milli: -1n, format: 'DecimalSI' });
    expect(parseQuantity('0.0001Ki')).toEqual({ milli: 103n, format: 'DecimalSI' });
    expect(parseQuantity('1e-100000')).toEqual({ milli: 1n, format: 'DecimalExponent' });
  });

  it('reads a missing number as zero, as the upstream scanner does', () => {
    expect(parseQuantity('Gi')).toEqual({ milli: 0n, format: 'BinarySI' });
    expect(parseQuantity('-')).toEqual({ milli: 0n, format: 'DecimalSI' });
    expect(canonicalQuantity('.')).toBe('0');
  });

  it.each(['', 'abc', '1x', '1KiB', '1.2.3', ' ', '1 Gi', 'x1'])('rejects %j with the regex message', (s) => {
    expect(() => parseQuantity(s)).toThrow(new QuantityParseError(ERR_FORMAT_WRONG));
  });

  it.each(['1k5', '1e', '1e-', '1i', '1Mi5', '--1', '1eE'])('rejects %j as a bad suffix', (s) => {
    expect(() => parseQuantity(s)).toThrow(new QuantityParseError(ERR_SUFFIX));
  });

  it('uses the upstream regex text', () => {
    expect(ERR_FORMAT_WRONG).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  it('refuses absurd exponents instead of allocating huge numbers', () => {
    expect(() => parseQuantity('1e99999999')).toThrow(QuantityParseError);
  });
});

describe('numeric helpers', () => {
  it('converts to base units', () => {
    expect(quantityToNumber('500m')).toBe(0.5);
    expect(quantityToNumber('1Gi')).toBe(1073741824);
    expect(quantityToNumber('4')).toBe(4);
    expect(quantityToNumber('-1.5')).toBe(-1.5);
    expect(quantityToNumber('100M')).toBe(1e8);
  });
  it('compares', () => {
    expect(compareQuantities('1', '1000m')).toBe(0);
    expect(compareQuantities('1Gi', '1G')).toBe(1);
    expect(compareQuantities('0.5', '501m')).toBe(-1);
    expect(compareQuantities(2, '2')).toBe(0);
  });
  it('detects whole numbers', () => {
    expect(isWholeNumber('110')).toBe(true);
    expect(isWholeNumber('1k')).toBe(true);
    expect(isWholeNumber('1500m')).toBe(false);
    expect(isWholeNumber('0.5Ki')).toBe(true);
    expect(isWholeNumber('1n')).toBe(false);
  });
  it('formats milli values per family', () => {
    expect(formatMilliQuantity(1536n * 1024n * 1024n * 1000n, 'BinarySI')).toBe('1536Mi');
    expect(formatMilliQuantity(1000n, 'DecimalExponent')).toBe('1');
    expect(formatMilliQuantity(10n ** 24n, 'DecimalExponent')).toBe('1e21');
    expect(formatMilliQuantity(-2000n, 'DecimalSI')).toBe('-2');
  });
});
