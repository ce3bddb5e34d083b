import { describe, it, expect } from 'vitest';
import { applyJsonPatch, JsonPatchError, JsonPatchFormatError, parsePointer } from './jsonpatch.ts';

const doc = () => ({ metadata: { name: 'n', labels: { a: '1', 'app.kubernetes.io/name': 'x', 'x~y': 'z' } }, list: [1, 2, 3] });

describe('applyJsonPatch', () => {
  it('adds members and array elements', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a', value: 3 }])).toEqual({ a: 3 });
    expect(applyJsonPatch({ l: [1, 2] }, [{ op: 'add', path: '/l/0', value: 0 }])).toEqual({ l: [0, 1, 2] });
    expect(applyJsonPatch({ l: [1, 2] }, [{ op: 'add', path: '/l/2', value: 3 }])).toEqual({ l: [1, 2, 3] });
    expect(applyJsonPatch({ l: [1, 2] }, [{ op: 'add', path: '/l/-', value: 3 }])).toEqual({ l: [1, 2, 3] });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }])).toEqual([1]);
    expect(applyJsonPatch({}, [{ op: 'add', path: '/', value: 1 }])).toEqual({ '': 1 });
    expect(applyJsonPatch({}, [{ op: 'add', path: '/x', value: null }])).toEqual({ x: null });
  });

  it('decodes ~0 and ~1', () => {
    const out = applyJsonPatch(doc(), [
      { op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'y' },
      { op: 'remove', path: '/metadata/labels/x~0y' },
    ]) as ReturnType<typeof doc>;
    expect(out.metadata.labels).toEqual({ a: '1', 'app.kubernetes.io/name': 'y' });
    expect(parsePointer('/a~1b/c~0d/~01')).toEqual(['a/b', 'c~d', '~1']);
  });

  it('removes, replaces, moves, copies and tests', () => {
    expect(applyJsonPatch(doc(), [{ op: 'remove', path: '/list/1' }])).toMatchObject({ list: [1, 3] });
    expect(applyJsonPatch(doc(), [{ op: 'replace', path: '/list/0', value: 9 }])).toMatchObject({ list: [9, 2, 3] });
    expect(applyJsonPatch({ a: { b: 1 }, c: {} }, [{ op: 'move', from: '/a/b', path: '/c/d' }])).toEqual({ a: {}, c: { d: 1 } });
    expect(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/-' }])).toEqual({ l: [2, 3, 1] });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/a', path: '/a' }])).toEqual({ a: 1 });
    expect(applyJsonPatch({ a: { b: [1] } }, [{ op: 'copy', from: '/a', path: '/c' }])).toEqual({ a: { b: [1] }, c: { b: [1] } });
    expect(applyJsonPatch({ a: { b: [1] } }, [{ op: 'test', path: '/a', value: { b: [1] } }])).toEqual({ a: { b: [1] } });
    // null is met by an absent key (as the library kube-apiserver uses), so a write can be conditional on a field being unset.
    expect(applyJsonPatch({ a: { b: null } }, [{ op: 'test', path: '/a/c', value: null }, { op: 'test', path: '/a/b', value: null }])).toEqual({ a: { b: null } });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { z: 1 } }])).toEqual({ z: 1 });
  });

  it('copies are independent of their source', () => {
    const out = applyJsonPatch({ a: { b: 1 } }, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'replace', path: '/c/b', value: 2 },
    ]);
    expect(out).toEqual({ a: { b: 1 }, c: { b: 2 } });
  });

  it('never mutates its inputs', () => {
    const input = doc();
    const snapshot = JSON.parse(JSON.stringify(input));
    const value = { deep: [1] };
    const out = applyJsonPatch(input, [{ op: 'add', path: '/v', value }, { op: 'remove', path: '/list' }]) as Record<string, unknown>;
    expect(input).toEqual(snapshot);
    (out.v as { deep: number[] }).deep.push(2);
    expect(value.deep).toEqual([1]);
  });

  it('fails operations that cannot apply (JsonPatchError) and leaves nothing half-applied', () => {
    const input = { a: 1, l: [1] };
    const fail = (ops: unknown) => expect(() => applyJsonPatch(input, ops)).toThrow(JsonPatchError);
    fail([{ op: 'remove', path: '/missing' }]);
    fail([{ op: 'replace', path: '/missing', value: 1 }]);
    fail([{ op: 'add', path: '/missing/child', value: 1 }]);
    fail([{ op: 'add', path: '/a/child', value: 1 }]);
    fail([{ op: 'add', path: '/l/2', value: 1 }]);
    fail([{ op: 'add', path: '/l/01', value: 1 }]);
    fail([{ op: 'add', path: '/l/-1', value: 1 }]);
    fail([{ op: 'remove', path: '/l/1' }]);
    fail([{ op: 'remove', path: '/l/-' }]);
    fail([{ op: 'replace', path: '/l/x', value: 1 }]);
    fail([{ op: 'test', path: '/a', value: 2 }]);
    fail([{ op: 'test', path: '/missing', value: 1 }]);
    fail([{ op: 'test', path: '/missing/deeper', value: null }]);
    fail([{ op: 'test', path: '/l/5', value: null }]);
    fail([{ op: 'move', from: '/missing', path: '/b' }]);
    fail([{ op: 'move', from: '/l', path: '/l/0' }]);
    fail([{ op: 'copy', from: '/nope', path: '/b' }]);
    fail([{ op: 'add', path: 'a', value: 1 }]);
    fail([{ op: 'add', path: '/a~2', value: 1 }]);
    fail([{ op: 'remove', path: '' }]);
    fail([{ op: 'remove', path: '/constructor' }]);
    expect(() => applyJsonPatch(input, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 9 }])).toThrow(JsonPatchError);
    expect(input).toEqual({ a: 1, l: [1] });
  });

  it('rejects malformed patch documents (JsonPatchFormatError)', () => {
    const bad = (ops: unknown) => expect(() => applyJsonPatch({}, ops)).toThrow(JsonPatchFormatError);
    bad({ op: 'add', path: '/a', value: 1 });
    bad(null);
    bad('[]');
    bad([1]);
    bad([null]);
    bad([{ path: '/a' }]);
    bad([{ op: 'frobnicate', path: '/a' }]);
    bad([{ op: 'remove' }]);
    bad([{ op: 'remove', path: 5 }]);
    bad([{ op: 'add', path: '/a' }]);
    bad([{ op: 'move', path: '/a' }]);
    bad([{ op: 'copy', path: '/a', from: 1 }]);
  });

  it('accepts an empty patch', () => {
    expect(applyJsonPatch({ a: 1 }, [])).toEqual({ a: 1 });
  });

  it('keeps __proto__ as a plain member', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('copy size', () => {
  it('bounds what copy operations may add, so a small patch cannot grow a document without end', () => {
    const doc = { a: 'x'.repeat(1000) };
    const ops = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/a', path: `/c${i}` }));
    expect(() => applyJsonPatch(doc, ops, { accumulatedCopySizeLimit: 10_000 })).toThrow(/accumulated size increase of copy is \d+, exceeding the limit 10000/);
    expect(Object.keys(applyJsonPatch(doc, ops.slice(0, 5), { accumulatedCopySizeLimit: 10_000 }) as object)).toHaveLength(6);
  });
});
