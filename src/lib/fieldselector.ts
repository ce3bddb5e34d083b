// Field selectors, following apimachinery's pkg/fields/selector.go: terms are
// `field=value`, `field==value` or `field!=value` joined by `,`; values may
// escape `\`, `,` and `=` with a backslash. There is no whitespace trimming.

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export class FieldSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorParseError';
  }
}

/** Splits on unescaped commas; escapes stay in the terms for unescapeValue. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// `==` is tried before `=` so that `a==b` does not leave `=b` as the value.
const termOperators = ['!=', '==', '='] as const;

/** The first operator occurrence splits the term: field names cannot escape anything. */
function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** fields.UnescapeValue, with upstream's error texts (an unescaped rune is printed as its code point, Go's `%v` of a rune). */
export function unescapeValue(s: string): string {
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === ',' || c === '=') throw new FieldSelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (escaped) throw new FieldSelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue: the inverse of unescapeValue, for building selector text. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.ParseSelector. Terms come back sorted by their text, as upstream sorts them before parsing. */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const terms = splitTerms(text).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reqs: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new FieldSelectorParseError(`invalid selector: '${text}'; can't understand '${term}'`);
    reqs.push({ field: parts.lhs, operator: parts.op === '!=' ? '!=' : '=', value: unescapeValue(parts.rhs) });
  }
  return reqs;
}

/**
 * The test of the requirements on an object, each field's reader looked up once (a list tests
 * every object of a kind: 400,000 events); a field without one, or missing, reads as the empty
 * string, as fields.Set.Get does.
 */
export function fieldMatcher<T>(reqs: FieldRequirement[], readerOf: (field: string) => ((o: T) => string | undefined) | undefined): (o: T) => boolean {
  const tests = reqs.map((r) => ({ read: readerOf(r.field) ?? (() => undefined), equal: r.operator === '=', value: r.value }));
  return (o) => {
    for (const t of tests) if (((t.read(o) ?? '') === t.value) !== t.equal) return false;
    return true;
  };
}

/** Selector text for requirements (values escaped), e.g. for building list URLs. */
export function formatFieldRequirements(reqs: FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
}
