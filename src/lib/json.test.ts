import { describe, it, expect } from 'vitest';
import { clone, deepEqual, freezeAsJSON, goJSON, sameJSONText, jsonDuplicateKeys, jsonTextShape, memberCount, settleAsJSON, memberSpan } from './json.ts';

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

describe('sameJSONText', () => {
  it('is true exactly when the two would be written as the same text', () => {
    const cases: [unknown, unknown][] = [
      [{ a: { b: {} }, c: [1, 'x'] }, { a: { b: {} }, c: [1, 'x'] }],
      [{ a: 1, b: 2 }, { b: 2, a: 1 }],
      [{ a: [1, 2] }, { a: [2, 1] }],
      [{ a: {} }, { a: [] }],
      [{ a: null }, { a: {} }],
      [{ a: 1 }, { a: 1, b: 2 }],
    ];
    for (const [a, b] of cases) expect(sameJSONText(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
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
  it('gives what a JSON round trip gives, key order included', () => {
    const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v));
    const values: unknown[] = [
      { b: 1, a: { '2': 'x', '1': 'y', z: [1, undefined, () => 0, Symbol('s'), NaN, -0, Infinity] }, gone: undefined, f: () => 0 },
      { when: new Date(0), m: new Map([[1, 2]]), own: { toJSON: () => 'mine' }, nested: [[[]], {}] },
      JSON.parse('{"__proto__":{"polluted":true},"k":"v"}'),
      Object.assign(Object.create(null), { n: 1 }),
      [null, true, 'é\u2028', 1e21, -1.5],
      'text',
      0,
    ];
    for (const v of values) {
      const c = clone(v);
      expect(JSON.stringify(c)).toBe(JSON.stringify(roundTrip(v)));
      expect(c).toStrictEqual(roundTrip(v));
    }
    const proto = clone(JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(() => clone({ big: 1n })).toThrow(TypeError);
  });
});

describe('jsonDuplicateKeys', () => {
  it('finds keys repeated within one object, each once, in the order met', () => {
    expect(jsonDuplicateKeys('{"a":1,"b":{"c":1,"c":2},"a":3,"d":[{"e":1,"e":2},{"e":3}],"a":4}')).toEqual(['c', 'a', 'e']);
  });
  it('does not count the same key in sibling objects or array items, nor strings that are values', () => {
    expect(jsonDuplicateKeys('{"x":{"a":1},"y":{"a":2},"z":["a","a"],"w":"a","a":"w"}')).toEqual([]);
  });
  it('reads escaped keys as the keys they decode to, and keys with braces inside strings as text', () => {
    expect(jsonDuplicateKeys('{"\\u0061":1,"a":2,"{":"}","[":3}')).toEqual(['a']);
    expect(jsonDuplicateKeys('{"q\\"":1, "q\\"" :2}')).toEqual(['q"']);
  });
  it('stops at the limit', () => {
    const body = `{${Array.from({ length: 300 }, (_, i) => `"k${i}":1,"k${i}":2`).join(',')}}`;
    expect(jsonDuplicateKeys(body)).toHaveLength(100);
  });
});

describe('jsonTextShape and memberCount', () => {
  const cases = [
    '{}',
    '[]',
    '"a:b"',
    '{"a":1,"b":{"c":[1,{"d":":"}],"e":{}},"f":[[],[{}]]}',
    '{"q\\":":"x\\"y:", "k" : {"\\u003a":[{"z":null}]}}',
    '{"__proto__":{"a":1},"b":2}',
  ];
  it.each(cases)('counts the members of %s as JSON.parse keeps them', (text) => {
    const shape = jsonTextShape(text, 10);
    expect(shape.deeper).toBe(false);
    expect(memberCount(JSON.parse(text))).toBe(shape.members);
  });
  it('counts one member more in the text for each repeat JSON.parse drops', () => {
    const text = '{"a":1,"b":{"c":1,"c":2},"a":3,"d":[{"e":1,"e":2}]}';
    expect(jsonTextShape(text, 10).members - memberCount(JSON.parse(text))).toBe(3);
  });
  it('says when the text nests deeper than allowed, as jsonTextDeeperThan', () => {
    expect(jsonTextShape('[[[1]]]', 2).deeper).toBe(true);
    expect(jsonTextShape('[[[1]]]', 3).deeper).toBe(false);
    expect(jsonTextShape('{"a":"[[[[["}', 1).deeper).toBe(false);
  });
});

describe('freezeAsJSON', () => {
  it('leaves what parsing the JSON would give, frozen all the way down', () => {
    const v: any = { a: { b: [1, { c: 'x' }, undefined] }, gone: undefined };
    expect(freezeAsJSON(v)).toBe(v);
    expect(v).toStrictEqual(JSON.parse(JSON.stringify(v)));
    expect(Object.keys(v)).toEqual(['a']);
    expect(Object.isFrozen(v.a.b[1])).toBe(true);
    expect(() => (v.a.b[1].c = 'y')).toThrow(TypeError);
  });

  it('stops at a value frozen already', () => {
    const shared = Object.freeze({ inner: { n: 1 } });
    freezeAsJSON({ shared });
    expect(Object.isFrozen(shared.inner)).toBe(false);
  });
});

describe('settleAsJSON', () => {
  it('without freezing, leaves what parsing the JSON would give, changeable', () => {
    const v: any = { a: { b: [1, { c: 'x', d: undefined }, undefined] }, gone: undefined };
    settleAsJSON(v, undefined, false);
    expect(v).toStrictEqual({ a: { b: [1, { c: 'x' }, null] } });
    expect(Object.isFrozen(v.a)).toBe(false);
  });

  it("skips the parts that are the previous object's own at the same place (settled before), and only those", () => {
    const shared: any = { kept: 1, trap: undefined }; // were it walked, `trap` would go
    const previous = { spec: shared, list: [shared] };
    const next: any = { spec: shared, list: [shared, { x: undefined }], status: { y: undefined } };
    settleAsJSON(next, previous, false);
    expect(Object.keys(shared)).toEqual(['kept', 'trap']);
    expect(next.list[1]).toStrictEqual({});
    expect(next.status).toStrictEqual({});
    // Elsewhere it is walked like anything new.
    const moved: any = { other: shared };
    settleAsJSON(moved, previous, false);
    expect(Object.keys(shared)).toEqual(['kept']);
  });
});

describe('deepEqual asJSON', () => {
  it('compares a value as its JSON would be parsed, undefined members left out', () => {
    const a = { x: 1, gone: undefined, list: [{ y: 'z', no: undefined }, undefined] };
    expect(deepEqual(a, { list: [{ y: 'z' }, null], x: 1 }, true)).toBe(true);
    expect(deepEqual(a, JSON.parse(JSON.stringify(a)), true)).toBe(true);
    expect(deepEqual(a, { x: 1, list: [{ y: 'z' }, null], more: 2 }, true)).toBe(false);
    expect(deepEqual(a, { x: 2, list: [{ y: 'z' }, null] }, true)).toBe(false);
    expect(deepEqual({ x: undefined }, {}, true)).toBe(true);
    expect(deepEqual({}, { x: null }, true)).toBe(false);
    // Without asJSON an undefined member is a member, as ever.
    expect(deepEqual(a, { list: [{ y: 'z' }, null], x: 1 })).toBe(false);
    expect(deepEqual({ x: undefined }, {})).toBe(false);
    expect(deepEqual([undefined], [null])).toBe(false);
  });
});

describe.each(['bytes', 'text'])('memberSpan in JSON as %s', (as) => {
  const spanText = (v: unknown, key: string, space?: number) => {
    const text = JSON.stringify(v, null, space);
    if (as === 'text') {
      const s = memberSpan(text, key);
      return s && text.slice(s[0], s[1]);
    }
    const bytes = Buffer.from(text);
    const s = memberSpan(bytes, key);
    return s && bytes.subarray(s[0], s[1]).toString();
  };
  it('finds a top-level member\'s value, skipping nested members of the same name and braces in strings', () => {
    const o = { kind: 'Pod', spec: { template: { metadata: { name: 'inner' } } }, note: 'a "}{"metadata":1', metadata: { name: 'x"}{', list: [1, { metadata: [] }], ü: 'é😀' }, status: {} };
    expect(spanText(o, 'metadata')).toBe(JSON.stringify(o.metadata));
    expect(JSON.parse(spanText(o, 'metadata', 2)!)).toEqual(o.metadata);
  });
  it('reads scalars of every kind, and says when there is no such member', () => {
    for (const v of ['s', -1.5e3, true, null, [], {}]) expect(spanText({ a: 1, metadata: v, z: 2 }, 'metadata')).toBe(JSON.stringify(v));
    expect(spanText({ meta: 1, metadataX: 2, 'meta\\data': 3 }, 'metadata')).toBeUndefined();
    expect(spanText([{ metadata: 1 }], 'metadata')).toBeUndefined();
    expect(spanText({}, 'metadata')).toBeUndefined();
  });
});

describe('goJSON', () => {
  it('writes strings as Go does, byte for byte, and reads back as the same value', () => {
    const value = { command: ['sh', '-c', 'a && b > /dev/null <in'], odd: '\b\f\u2028\u2029\n\t"', literal: 'C:\\b\\f\\\\x' };
    const text = goJSON(value);
    // What Go's json.Marshal (1.22 on) writes for the same value.
    expect(text).toBe(String.raw`{"command":["sh","-c","a \u0026\u0026 b \u003e /dev/null \u003cin"],"odd":"\b\f\u2028\u2029\n\t\"","literal":"C:\\b\\f\\\\x"}`);
    expect(JSON.parse(text)).toEqual(value);
  });
});
