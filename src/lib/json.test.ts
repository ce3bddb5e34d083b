import { describe, it, expect } from 'vitest';
import { clone, deepEqual } from './json.ts';

describe('deepEqual', () => {
  it('compares JSON values structurally', () => {
    expect(deepEqual(1, 1)).toBe(true);
    expect(deepEqual('a', 'a')).toBe(true);
    expect(deepEqual(null, null)).toBe(true);
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual(1, '1')).toBe(false);
    expect(deepEqual({}, {})).toBe(true);
  });
});

describe('clone', () => {
  it('deep copies', () => {
    const v = { a: [1, { b: 2 }] };
    const c = clone(v);
    expect(c).toEqual(v);
    (c.a[1] as { b: number }).b = 3;
    expect((v.a[1] as { b: number }).b).toBe(2);
  });
  it('handles primitives and undefined', () => {
    expect(clone(5)).toBe(5);
    expect(clone(null)).toBe(null);
    expect(clone(undefined)).toBe(undefined);
  });
});
