import { describe, it, expect } from 'vitest';
import { applyMergePatch, createMergePatch } from './mergepatch.ts';

describe('applyMergePatch', () => {
  // RFC 7386 appendix A
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j', (doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it('does not mutate its inputs', () => {
    const doc = { metadata: { labels: { a: '1' } }, spec: { list: [1] } };
    const patch = { metadata: { labels: { b: '2', a: null } }, spec: { list: [2] } };
    const docCopy = JSON.parse(JSON.stringify(doc));
    const patchCopy = JSON.parse(JSON.stringify(patch));
    const out = applyMergePatch(doc, patch) as typeof doc;
    expect(out).toEqual({ metadata: { labels: { b: '2' } }, spec: { list: [2] } });
    expect(doc).toEqual(docCopy);
    expect(patch).toEqual(patchCopy);
    out.spec.list.push(3);
    expect(patch.spec.list).toEqual([2]);
  });

  it('keeps __proto__ as a plain member', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('createMergePatch', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, {}],
    [{ a: 1 }, { a: 2 }, { a: 2 }],
    [{ a: 1 }, {}, { a: null }],
    [{}, { a: { b: 1 } }, { a: { b: 1 } }],
    [{ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } }, { a: { c: 3 } }],
    [{ a: { b: 1 } }, { a: {} }, { a: { b: null } }],
    [{ a: [1, 2] }, { a: [1] }, { a: [1] }],
    [{ a: { b: 1 } }, { a: 'x' }, { a: 'x' }],
    [{ a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
    [[1], [2], [2]],
    [{ a: 1 }, [1], [1]],
    [1, { a: 1 }, { a: 1 }],
  ])('%j -> %j', (from, to, patch) => {
    expect(createMergePatch(from, to)).toEqual(patch);
  });

  it('produces patches that turn from into to', () => {
    const from = { metadata: { name: 'n', labels: { a: '1', b: '2' } }, spec: { x: [1, 2], y: { z: true } } };
    const to = { metadata: { name: 'n', labels: { a: '1', c: '3' } }, spec: { x: [2], y: {} }, status: { ok: 1 } };
    const patch = createMergePatch(from, to);
    expect(patch).toEqual({ metadata: { labels: { b: null, c: '3' } }, spec: { x: [2], y: { z: null } }, status: { ok: 1 } });
    expect(applyMergePatch(from, patch)).toEqual(to);
  });
});
