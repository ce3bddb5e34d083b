import { describe, it, expect } from 'vitest';
import {
  byteLength,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  pathSegmentNameErrors,
  pathSegmentPrefixErrors,
  regexError,
} from './names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('regexError', () => {
  it('renders examples the upstream way (double space before "or")', () => {
    expect(regexError('m', 'x')).toBe("m (regex used for validation is 'x')");
    expect(regexError('m', 'x', 'a', 'b')).toBe("m (e.g. 'a',  or 'b', regex used for validation is 'x')");
  });
});

describe('isDNS1123Subdomain', () => {
  it.each(['a', 'node-1', 'example.com', 'a.b.c', '0', '1-2.3-4', 'a'.repeat(253)])('accepts %s', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });
  it.each(['', 'A', 'a_b', '-a', 'a-', '.a', 'a.', 'a..b', 'a b', 'é'])('rejects %j with the upstream text', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([SUBDOMAIN_MSG]);
  });
  it('reports length and pattern separately', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(isDNS1123Subdomain('A'.repeat(254))).toEqual(['must be no more than 253 characters', SUBDOMAIN_MSG]);
  });
});

describe('isDNS1123Label', () => {
  it.each(['a', 'my-name', '123-abc', 'a'.repeat(63)])('accepts %s', (v) => expect(isDNS1123Label(v)).toEqual([]));
  it.each(['', 'A', '-a', 'a-', 'a_b'])('rejects %j', (v) => expect(isDNS1123Label(v)).toEqual([LABEL_MSG]));
  it('says dots are the problem for a valid subdomain', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
  });
  it('checks the length', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isQualifiedName', () => {
  it.each(['app', 'App_1.x', 'example.com/app', 'kubernetes.io/hostname', 'node-role.kubernetes.io/control-plane', 'a'.repeat(63), `${'a'.repeat(253)}/b`])(
    'accepts %s',
    (v) => expect(isQualifiedName(v)).toEqual([]),
  );
  it('rejects a bad name part', () => {
    expect(isQualifiedName('-app')).toEqual([NAME_PART_MSG]);
    expect(isQualifiedName('app:monolith')).toEqual([NAME_PART_MSG]);
  });
  it('rejects an empty name with two messages, as upstream', () => {
    expect(isQualifiedName('')).toEqual(['name part must be non-empty', NAME_PART_MSG]);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', NAME_PART_MSG]);
  });
  it('checks the prefix', () => {
    expect(isQualifiedName('/app')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/app')).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName('app.kubernetes_io/name')).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName(`${'a'.repeat(254)}/b`)).toEqual(['prefix part must be no more than 253 characters']);
  });
  it('limits the name part to 63 characters', () => {
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
  });
  it('rejects more than one slash with a single message', () => {
    expect(isQualifiedName('a/b/c')).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('isValidLabelValue', () => {
  it.each(['', 'a', 'MyValue', 'my_value', '12345', 'a.b-c_d', 'a'.repeat(63)])('accepts %j', (v) => expect(isValidLabelValue(v)).toEqual([]));
  it.each(['-a', 'a-', '_', 'a b', 'a/b', 'ä'])('rejects %j', (v) => expect(isValidLabelValue(v)).toEqual([LABEL_VALUE_MSG]));
  it('limits to 63 characters (bytes)', () => {
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isValidPortName', () => {
  it.each(['http', 'h2c', 'a', 'web-8080', 'abcdefghijklmno'])('accepts %s', (v) => expect(isValidPortName(v)).toEqual([]));
  it('lists every broken rule', () => {
    expect(isValidPortName('abcdefghijklmnop')).toEqual(['must be no more than 15 characters']);
    expect(isValidPortName('HTTP')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
    expect(isValidPortName('8080')).toEqual(['must contain at least one letter (a-z)']);
    expect(isValidPortName('a--b')).toEqual(['must not contain consecutive hyphens']);
    expect(isValidPortName('-a')).toEqual(['must not begin or end with a hyphen']);
    expect(isValidPortName('a-')).toEqual(['must not begin or end with a hyphen']);
    expect(isValidPortName('')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
  });
});

describe('object names', () => {
  it('allows a trailing dash only for generateName prefixes', () => {
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([SUBDOMAIN_MSG]);
    expect(nameIsDNSLabel('web-', true)).toEqual([]);
    expect(nameIsDNSLabel('web-', false)).toEqual([LABEL_MSG]);
  });
  it('keeps upstream masking quirks', () => {
    // "-" alone is not masked; "a.-" masks to "aa" (the last two characters become "a").
    expect(nameIsDNSSubdomain('-', true)).toEqual([SUBDOMAIN_MSG]);
    expect(nameIsDNSSubdomain('a.-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('Web-', true)).toEqual([SUBDOMAIN_MSG]);
  });
  it('rejects path-unsafe names', () => {
    expect(pathSegmentNameErrors('.')).toEqual(["may not be '.'"]);
    expect(pathSegmentNameErrors('..')).toEqual(["may not be '..'"]);
    expect(pathSegmentNameErrors('a/b')).toEqual(["may not contain '/'"]);
    expect(pathSegmentNameErrors('a%b')).toEqual(["may not contain '%'"]);
    expect(pathSegmentNameErrors('a/%')).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(pathSegmentNameErrors('ok')).toEqual([]);
    expect(pathSegmentPrefixErrors('..')).toEqual([]);
  });
});

describe('byteLength counts UTF-8 bytes as an encoder writes them', () => {
  const pieces = ['a', 'é', '€', '😀', '\ud800', '\udc00', '\u07ff', '\u0800', '\uffff', '\u0080', '\u007f', '\udbff\udfff'];
  it('for every mix of one- to four-byte characters and lone surrogates', () => {
    const encoded = (s: string) => new TextEncoder().encode(s).length;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
    for (let n = 0; n < 500; n++) {
      const s = Array.from({ length: Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      expect(byteLength(s), JSON.stringify(s)).toBe(encoded(s));
    }
    expect(byteLength('')).toBe(0);
    expect(byteLength('\ud800')).toBe(3);
    expect(byteLength('😀')).toBe(4);
  });
});
