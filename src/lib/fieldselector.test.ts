import { describe, it, expect } from 'vitest';
import {
  escapeValue,
  FieldSelectorParseError,
  formatFieldRequirements,
  fieldMatcher,
  parseFieldSelector,
  unescapeValue,
} from './fieldselector.ts';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (e) {
    expect(e).toBeInstanceOf(FieldSelectorParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('parseFieldSelector', () => {
  it('parses nothing from empty text', () => {
    expect(parseFieldSelector('')).toEqual([]);
    expect(parseFieldSelector(',')).toEqual([]);
  });
  it('parses =, == and !=', () => {
    expect(parseFieldSelector('metadata.name=a')).toEqual([{ field: 'metadata.name', operator: '=', value: 'a' }]);
    expect(parseFieldSelector('metadata.name==a')).toEqual([{ field: 'metadata.name', operator: '=', value: 'a' }]);
    expect(parseFieldSelector('status.phase!=Failed')).toEqual([{ field: 'status.phase', operator: '!=', value: 'Failed' }]);
    expect(parseFieldSelector('a=')).toEqual([{ field: 'a', operator: '=', value: '' }]);
  });
  it('ANDs comma separated terms, sorted by term text', () => {
    expect(parseFieldSelector('spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed')).toEqual([
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
      { field: 'status.phase', operator: '!=', value: 'Succeeded' },
    ]);
  });
  it('unescapes values', () => {
    expect(parseFieldSelector('a=x\\,y,b=p\\=q\\\\')).toEqual([
      { field: 'a', operator: '=', value: 'x,y' },
      { field: 'b', operator: '=', value: 'p=q\\' },
    ]);
  });
  it('does not trim whitespace', () => {
    expect(parseFieldSelector(' a = b ')).toEqual([{ field: ' a ', operator: '=', value: ' b ' }]);
  });
  it('splits at the first operator', () => {
    expect(parseFieldSelector('a==b')).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
    // `a!==b` splits as `a` `!=` `=b`, and the unescaped `=` is then rejected.
    expect(parseError('a!==b')).toBe('invalid field selector: unescaped character in value: 61');
  });
  it('rejects terms without an operator', () => {
    expect(parseError('metadata.name')).toBe("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(parseError('a=b,c')).toBe("invalid selector: 'a=b,c'; can't understand 'c'");
    expect(parseError('a in (b)')).toBe("invalid selector: 'a in (b)'; can't understand 'a in (b)'");
  });
  it('rejects bad escapes and unescaped specials in values', () => {
    expect(parseError('a=b=c')).toBe('invalid field selector: unescaped character in value: 61');
    expect(parseError('a=\\x')).toBe('invalid field selector: invalid escape sequence: \\x');
    expect(parseError('a=b\\')).toBe('invalid field selector: invalid escape sequence: \\');
  });
});

describe('escaping', () => {
  it('round-trips', () => {
    for (const v of ['', 'plain', 'a,b', 'a=b', 'a\\b', ',=\\']) expect(unescapeValue(escapeValue(v))).toBe(v);
    const reqs = parseFieldSelector('a=x\\,y,b!=z');
    expect(parseFieldSelector(formatFieldRequirements(reqs))).toEqual(reqs);
  });
});

describe('fieldMatcher', () => {
  const object: Record<string, string> = { 'metadata.name': 'n1', 'spec.unschedulable': 'false' };
  type O = typeof object;
  // Each field read from the object; a field with no reader (metadata.namespace here) reads as empty.
  const readerOf = (f: string) => (f in object ? (o: O) => o[f] : undefined);
  const matches = (selector: string) => fieldMatcher(parseFieldSelector(selector), readerOf)(object);
  it('matches', () => {
    expect(matches('metadata.name=n1')).toBe(true);
    expect(matches('metadata.name!=n1')).toBe(false);
    expect(matches('metadata.name=n1,spec.unschedulable=true')).toBe(false);
    expect(matches('metadata.name=n1,spec.unschedulable!=true,spec.unschedulable!=yes')).toBe(true);
    expect(matches('')).toBe(true);
  });
  it('treats a missing field as the empty string', () => {
    expect(matches('metadata.namespace=')).toBe(true);
    expect(matches('metadata.namespace=x')).toBe(false);
    expect(matches('metadata.namespace!=x')).toBe(true);
  });
});
