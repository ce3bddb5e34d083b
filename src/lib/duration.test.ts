import { describe, it, expect } from 'vitest';
import { age, humanDuration, rfc3339 } from './duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

describe('humanDuration', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-1999, '0s'],
    [-1 * s, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [999, '0s'],
    [1 * s, '1s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 5 * s, '3m5s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 30 * m, '3h30m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [2 * d + 5 * h, '2d5h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [2 * y, '2y'],
    [2 * y + 10 * d, '2y10d'],
    [7 * y + 364 * d, '7y364d'],
    [8 * y, '8y'],
    [20 * y + 100 * d, '20y'],
  ])('%d ms -> %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('age', () => {
  const now = new Date('2026-01-02T03:04:05Z');
  it('measures from the timestamp', () => {
    expect(age('2026-01-02T03:04:00Z', now)).toBe('5s');
    expect(age('2025-12-31T03:04:05Z', now)).toBe('2d');
    expect(age('2026-01-02T03:04:10Z', now)).toBe('<invalid>');
  });
  it('is unknown without a usable timestamp', () => {
    expect(age(undefined, now)).toBe('<unknown>');
    expect(age('', now)).toBe('<unknown>');
    expect(age('not a date', now)).toBe('<unknown>');
  });
});

describe('rfc3339', () => {
  it('uses UTC and whole seconds', () => {
    expect(rfc3339(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05Z');
    expect(rfc3339(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('2026-01-02T03:04:05Z');
  });
});
