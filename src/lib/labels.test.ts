import { describe, it, expect } from 'vitest';
import {
  formatLabels,
  formatLabelSelector,
  formatRequirements,
  goQuote,
  labelSelectorAsRequirements,
  matchesLabelSelector,
  matchesRequirements,
  parseSelector,
  SelectorParseError,
  type Requirement,
} from './labels.ts';

const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const req = (key: string, operator: Requirement['operator'], values: string[] = []): Requirement => ({ key, operator, values });

function parseError(text: string): string {
  try {
    parseSelector(text);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('parseSelector', () => {
  it('treats empty or blank text as everything', () => {
    expect(parseSelector('')).toEqual([]);
    expect(parseSelector('   ')).toEqual([]);
  });

  it('parses every term kind', () => {
    expect(parseSelector('a=b')).toEqual([req('a', '=', ['b'])]);
    expect(parseSelector('a==b')).toEqual([req('a', '==', ['b'])]);
    expect(parseSelector('a!=b')).toEqual([req('a', '!=', ['b'])]);
    expect(parseSelector('a in (x,y)')).toEqual([req('a', 'in', ['x', 'y'])]);
    expect(parseSelector('a notin (x)')).toEqual([req('a', 'notin', ['x'])]);
    expect(parseSelector('a')).toEqual([req('a', 'exists')]);
    expect(parseSelector('!a')).toEqual([req('a', '!')]);
    expect(parseSelector('a>1')).toEqual([req('a', 'gt', ['1'])]);
    expect(parseSelector('a<10')).toEqual([req('a', 'lt', ['10'])]);
  });

  it('sorts requirements by key and set values, de-duplicating them', () => {
    expect(parseSelector('z=1,a in (c,b,c),m')).toEqual([req('a', 'in', ['b', 'c']), req('m', 'exists'), req('z', '=', ['1'])]);
  });

  it('is whitespace tolerant', () => {
    expect(parseSelector('  a  =  b ,\tc in ( x , y )\n')).toEqual([req('a', '=', ['b']), req('c', 'in', ['x', 'y'])]);
  });

  it('handles the upstream example with empty values', () => {
    expect(parseSelector('x in (foo,,baz),y,z notin ()')).toEqual([
      req('x', 'in', ['', 'baz', 'foo']),
      req('y', 'exists'),
      req('z', 'notin', ['']),
    ]);
    expect(parseSelector('a in (,)')).toEqual([req('a', 'in', [''])]);
    expect(parseSelector('a=')).toEqual([req('a', '=', [''])]);
    expect(parseSelector('a=,b')).toEqual([req('a', '=', ['']), req('b', 'exists')]);
  });

  it('reads keywords as identifiers where a value or key is expected', () => {
    expect(parseSelector('in in (in,notin)')).toEqual([req('in', 'in', ['in', 'notin'])]);
    expect(parseSelector('notin')).toEqual([req('notin', 'exists')]);
  });

  it('accepts prefixed keys', () => {
    expect(parseSelector('app.kubernetes.io/name=web')).toEqual([req('app.kubernetes.io/name', '=', ['web'])]);
  });

  it('reports structural errors with upstream texts', () => {
    expect(parseError(',a')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('a,')).toBe("found '', expected: identifier after ','");
    expect(parseError('a=b)')).toBe("found ')', expected: ',' or 'end of string'");
    expect(parseError('!a=b')).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('a=b=c')).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('()')).toBe("found '(', expected: !, identifier, or 'end of string'");
    expect(parseError('a b')).toBe('unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt');
    expect(parseError('a!b')).toBe("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('a in b')).toBe("unable to parse requirement: found 'b' expected: '('");
    expect(parseError('a in (b')).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError('a in (b c)')).toBe("unable to parse requirement: found 'c', expected: ',' or ')'");
    expect(parseError('a in (=)')).toBe("unable to parse requirement: found '=', expected: ',', ')' or identifier");
    expect(parseError('a in (b,=)')).toBe("unable to parse requirement: found '=', expected: ',', or identifier");
    expect(parseError('a==(')).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(parseError('!')).toBe("unable to parse requirement: found '', expected: identifier");
    // The lexer takes the longest known operator: "!!!" lexes as "!", "!", "!".
    expect(parseError('a=!!!b')).toBe("unable to parse requirement: found '!', expected: identifier");
    expect(parseError('a=!=b')).toBe("unable to parse requirement: found '!=', expected: identifier");
  });

  it('validates keys against a nil path, as kube-apiserver prints it', () => {
    expect(parseError('app:monolith')).toBe(`unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART_MSG}`);
    expect(parseError('a/b/c ?=? def')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist/);
    expect(parseError('app.kubernetes_io/name=x')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io\/name": prefix part a lowercase RFC 1123 subdomain/);
  });

  it('validates values and integer bounds', () => {
    expect(parseError('a=-b')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "-b": ${LABEL_VALUE_MSG}`);
    expect(parseError('a in (ok,-b)')).toBe(`unable to parse requirement: values[0][a]: Invalid value: "-b": ${LABEL_VALUE_MSG}`);
    expect(parseError('a<b')).toBe(`unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`);
    expect(parseError('a>')).toBe(`unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`);
    expect(parseError('a>99999999999999999999')).toMatch(/the value must be an integer$/);
  });

  it('aggregates several requirement errors in brackets', () => {
    expect(parseError('a in (-x,-y)')).toBe(
      `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${LABEL_VALUE_MSG}, values[1][a]: Invalid value: "-y": ${LABEL_VALUE_MSG}]`,
    );
  });
});

describe('matchesRequirements', () => {
  const labels = { app: 'web', tier: 'front', n: '5' };
  const m = (sel: string, ...l: [Record<string, string> | undefined] | []) => matchesRequirements(parseSelector(sel), l.length ? l[0] : labels);
  it('matches equality and sets', () => {
    expect(m('app=web')).toBe(true);
    expect(m('app==web')).toBe(true);
    expect(m('app=db')).toBe(false);
    expect(m('app in (db,web)')).toBe(true);
    expect(m('app notin (db,web)')).toBe(false);
    expect(m('app!=db')).toBe(true);
  });
  it('lets != and notin match objects without the key', () => {
    expect(m('missing!=x')).toBe(true);
    expect(m('missing notin (x)')).toBe(true);
    expect(m('missing in (x)')).toBe(false);
    expect(m('missing=x')).toBe(false);
    expect(m('app!=x', undefined)).toBe(true);
  });
  it('matches existence', () => {
    expect(m('app')).toBe(true);
    expect(m('!app')).toBe(false);
    expect(m('!missing')).toBe(true);
    expect(m('app', undefined)).toBe(false);
    expect(m('!app', {})).toBe(true);
  });
  it('compares integers for gt/lt', () => {
    expect(m('n>4')).toBe(true);
    expect(m('n>5')).toBe(false);
    expect(m('n<6')).toBe(true);
    expect(m('app>1')).toBe(false);
    expect(m('missing<1')).toBe(false);
  });
  it('ANDs the terms; empty matches everything', () => {
    expect(m('app=web,tier=front')).toBe(true);
    expect(m('app=web,tier=back')).toBe(false);
    expect(m('')).toBe(true);
    expect(m('', undefined)).toBe(true);
  });
  it('does not read inherited properties as labels', () => {
    expect(m('constructor', {})).toBe(false);
    expect(m('!toString', {})).toBe(true);
  });
});

describe('label selector objects', () => {
  it('converts matchLabels and matchExpressions, sorted by key', () => {
    expect(
      labelSelectorAsRequirements({
        matchLabels: { tier: 'a', app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['b', 'a'] },
          { key: 'x', operator: 'DoesNotExist' },
          { key: 'b', operator: 'Exists' },
          { key: 'c', operator: 'NotIn', values: ['z'] },
        ],
      }),
    ).toEqual([req('app', '=', ['web']), req('b', 'exists'), req('c', 'notin', ['z']), req('env', 'in', ['b', 'a']), req('tier', '=', ['a']), req('x', '!')]);
  });
  it('rejects unknown operators and invalid requirements', () => {
    expect(() => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow(
      new SelectorParseError('"Gt" is not a valid label selector operator'),
    );
    expect(() => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toThrow(
      'values: Invalid value: [x]: values set must be empty for exists and does not exist',
    );
    expect(() => labelSelectorAsRequirements({ matchLabels: { '-a': 'b' } })).toThrow(`key: Invalid value: "-a": ${NAME_PART_MSG}`);
  });
  it('selects nothing for null, everything for {}', () => {
    expect(matchesLabelSelector(null, { a: 'b' })).toBe(false);
    expect(matchesLabelSelector(undefined, { a: 'b' })).toBe(false);
    expect(matchesLabelSelector({}, { a: 'b' })).toBe(true);
    expect(matchesLabelSelector({}, undefined)).toBe(true);
    expect(matchesLabelSelector({ matchLabels: {}, matchExpressions: [] }, {})).toBe(true);
  });
  it('matches', () => {
    const sel = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] };
    expect(matchesLabelSelector(sel, { app: 'web' })).toBe(true);
    expect(matchesLabelSelector(sel, { app: 'web', tier: 'db' })).toBe(false);
    expect(matchesLabelSelector(sel, { app: 'api' })).toBe(false);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, { a: 'x' })).toBe(false);
  });
});

describe('formatting', () => {
  it('formats label selectors like kubectl', () => {
    expect(formatLabelSelector(null)).toBe('<none>');
    expect(formatLabelSelector(undefined)).toBe('<none>');
    expect(formatLabelSelector({})).toBe('<none>');
    expect(
      formatLabelSelector({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a'] },
          { key: 'x', operator: 'DoesNotExist' },
          { key: 'y', operator: 'Exists' },
          { key: 'z', operator: 'NotIn', values: ['q'] },
        ],
      }),
    ).toBe('app=web,tier in (a,b),!x,y,z notin (q)');
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Nope' }] })).toBe('<error>');
  });
  it('formats label maps', () => {
    expect(formatLabels(undefined)).toBe('<none>');
    expect(formatLabels({})).toBe('<none>');
    expect(formatLabels({ b: '2', a: '1', c: '' })).toBe('a=1,b=2,c=');
  });
  it('round-trips requirements through text', () => {
    for (const text of ['a=b', 'a==b', 'a!=b', 'a in (x,y)', 'a notin ()', 'a', '!a', 'a>1', 'a<2', 'a=', 'x in (,baz,foo),y,z notin ()', 'k.io/a in (in,notin)']) {
      const reqs = parseSelector(text);
      expect(formatRequirements(reqs)).toBe(text);
      expect(parseSelector(formatRequirements(reqs))).toEqual(reqs);
    }
  });
  it('quotes like Go', () => {
    expect(goQuote('a"b\\c\n\x01\x7f')).toBe('"a\\"b\\\\c\\n\\x01\\x7f"');
    expect(goQuote('é')).toBe('"é"');
  });
});
