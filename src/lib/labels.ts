// Label selectors, following apimachinery's pkg/labels (selector.go) and
// metav1's LabelSelectorAsSelector / FormatLabelSelector. The parser is a
// small lexer + recursive descent parser so that error texts match upstream's
// byte for byte: kubectl users see them in 400 responses.

import { isQualifiedName, isValidLabelValue } from './names.ts';

export type Operator = 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

// ---------------------------------------------------------------------------
// Go-compatible rendering of field errors (the parser reports NewRequirement's
// aggregated field.ErrorList, whose paths and %q quoting show up in messages).

/** Go's strconv.Quote for the strings that can reach an error message. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** `%v` of a Go []string: `[a b]`. */
function goStringSlice(v: readonly string[]): string {
  return `[${v.join(' ')}]`;
}

interface ReqError {
  path: string;
  body: string;
}
const invalid = (path: string, value: string, detail: string): ReqError => ({ path, body: `Invalid value: ${value}: ${detail}` });

/** utilerrors.NewAggregate(...).Error(): one message, or `[a, b]` of unique messages. */
function aggregate(errs: ReqError[]): string {
  const msgs = [...new Set(errs.map((e) => `${e.path}: ${e.body}`))];
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64); undefined when it would fail. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

const VALID_OPERATORS: readonly string[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/**
 * labels.NewRequirement: validates and returns the requirement, or throws the
 * aggregated message. Upstream passes a nil field path, whose children render
 * as `key`, `values[0]`, `values[0][key]`.
 */
export function newRequirement(key: string, operator: Operator, values: string[]): Requirement {
  const errs: ReqError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalid('key', goQuote(key), keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid('values', goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid('values', goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalid('values', goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid('values', goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`values[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push({
        path: 'operator',
        body: `Unsupported value: ${goQuote(operator)}: supported values: ${VALID_OPERATORS.map((o) => JSON.stringify(o)).join(', ')}`,
      });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalid(`values[${i}][${key}]`, goQuote(v), msgs.join('; ')));
  });
  if (errs.length) throw new SelectorParseError(aggregate(errs));
  return { key, operator, values };
}

// ---------------------------------------------------------------------------
// Lexer

const enum Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};
const tokenOf = (s: string): Tok | undefined => (Object.hasOwn(literalTokens, s) ? literalTokens[s] : undefined);

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c);

interface Item {
  tok: Tok;
  lit: string;
}

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // Longest run of special symbols that still forms a known operator ("!=", "==").
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        const t = tokenOf(buf);
        if (t !== undefined) last = { tok: t, lit: buf };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` });
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) buf += s[pos++];
      items.push({ tok: tokenOf(buf) ?? Tok.Identifier, lit: buf });
    }
  }
}

// ---------------------------------------------------------------------------
// Parser

/** In value position the keywords `in`/`notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  private peek(ctx: Context): Item {
    const it = this.items[this.pos];
    return ctx === 'values' && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }
  private next(ctx: Context): Item {
    const it = this.peek(ctx);
    this.pos++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek('values');
      if (tok === Tok.End) return reqs;
      if (tok !== Tok.Identifier && tok !== Tok.DoesNotExist) {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const after = this.next('values');
      if (after.tok === Tok.End) return reqs;
      if (after.tok !== Tok.Comma) throw new SelectorParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek('values');
      if (following.tok !== Tok.Identifier && following.tok !== Tok.DoesNotExist) {
        throw new SelectorParseError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    let negated = false;
    let { tok, lit } = this.next('values');
    if (tok === Tok.DoesNotExist) {
      negated = true;
      ({ tok, lit } = this.next('values'));
    }
    if (tok !== Tok.Identifier) throw new SelectorParseError(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    // The parser validates the key against a nil field path, which Go prints as `<nil>`.
    if (keyErrs.length) throw new SelectorParseError(`<nil>: Invalid value: ${goQuote(lit)}: ${keyErrs.join('; ')}`);
    const key = lit;
    // `!key` is complete by itself; whatever follows is the caller's problem (as upstream).
    if (negated) return newRequirement(key, '!', []);
    const ahead = this.peek('values').tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return newRequirement(key, 'exists', []);
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.setValues() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort(compareStrings));
  }

  private operator(): Operator {
    const { tok, lit } = this.next('keyAndOperator');
    switch (tok) {
      case Tok.In: return 'in';
      case Tok.Equals: return '=';
      case Tok.DoubleEquals: return '==';
      case Tok.GreaterThan: return 'gt';
      case Tok.LessThan: return 'lt';
      case Tok.NotIn: return 'notin';
      case Tok.NotEquals: return '!=';
      default:
        throw new SelectorParseError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private setValues(): string[] {
    const open = this.next('values');
    if (open.tok !== Tok.OpenPar) throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.peek('values');
    if (tok === Tok.ClosedPar) {
      this.next('values');
      return [''];
    }
    if (tok !== Tok.Identifier && tok !== Tok.Comma) throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
    const values = this.identifierList();
    // Upstream reports the literal seen *before* the list here, not the offending token.
    if (this.next('values').tok !== Tok.ClosedPar) throw new SelectorParseError(`found '${lit}', expected: ')'`);
    return values;
  }

  /** A possibly empty, comma separated list of possibly empty identifiers. */
  private identifierList(): string[] {
    const out: string[] = [];
    for (;;) {
      const { tok, lit } = this.next('values');
      if (tok === Tok.Identifier) {
        out.push(lit);
        const after = this.peek('values');
        if (after.tok === Tok.Comma) continue;
        if (after.tok === Tok.ClosedPar) return out;
        throw new SelectorParseError(`found '${after.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (out.length === 0) out.push(''); // "(,"
        const after = this.peek('values');
        if (after.tok === Tok.ClosedPar) {
          out.push(''); // ",)"
          return out;
        }
        if (after.tok === Tok.Comma) {
          this.next('values');
          out.push(''); // ",,"
        }
        continue;
      }
      throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private exactValue(): string[] {
    const ahead = this.peek('values').tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return [''];
    const { tok, lit } = this.next('values');
    if (tok === Tok.Identifier) return [lit];
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/** Go compares strings bytewise; UTF-16 order agrees for everything but astral vs U+E000–U+FFFF. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortByKey(reqs: Requirement[]): Requirement[] {
  return [...reqs].sort((a, b) => compareStrings(a.key, b.key));
}

/** labels.Parse: the `labelSelector=` query syntax. Empty text selects everything. */
export function parseSelector(text: string): Requirement[] {
  return sortByKey(new Parser(lex(text)).parse());
}

// ---------------------------------------------------------------------------
// Matching and formatting

export function matchesRequirement(r: Requirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels![r.key] : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

export function matchesRequirements(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  return reqs.every((r) => matchesRequirement(r, labels));
}

const selectorOperators: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** metav1.LabelSelectorAsSelector for a non-nil selector (`{}` gives no requirements = everything). */
export function labelSelectorAsRequirements(sel: LabelSelector): Requirement[] {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v]));
  for (const expr of sel.matchExpressions ?? []) {
    const op = Object.hasOwn(selectorOperators, expr.operator) ? selectorOperators[expr.operator] : undefined;
    if (!op) throw new SelectorParseError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return sortByKey(reqs);
}

/** null/undefined selects nothing, `{}` everything; an invalid selector selects nothing. */
export function matchesLabelSelector(sel: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  if (sel === null || sel === undefined) return false;
  let reqs: Requirement[];
  try {
    reqs = labelSelectorAsRequirements(sel);
  } catch (e) {
    if (e instanceof SelectorParseError) return false;
    throw e;
  }
  return matchesRequirements(reqs, labels);
}

/** Requirement.String(): values of set operators are shown sorted. */
export function formatRequirement(r: Requirement): string {
  switch (r.operator) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case 'in':
    case 'notin': {
      const vals = r.values.length === 1 ? r.values : [...r.values].sort(compareStrings);
      return `${r.key} ${r.operator} (${vals.join(',')})`;
    }
    case 'gt': return `${r.key}>${r.values.join(',')}`;
    case 'lt': return `${r.key}<${r.values.join(',')}`;
    default: {
      const vals = r.values.length === 1 ? r.values : [...r.values].sort(compareStrings);
      return `${r.key}${r.operator}${vals.join(',')}`;
    }
  }
}

/** Selector text that parseSelector reads back to the same requirements. */
export function formatRequirements(reqs: Requirement[]): string {
  return reqs.map(formatRequirement).join(',');
}

/** kubectl/metav1 FormatLabelSelector: `<none>` for nil or empty, `<error>` for an invalid selector. */
export function formatLabelSelector(sel: LabelSelector | null | undefined): string {
  if (sel === null || sel === undefined) return '<none>';
  let reqs: Requirement[];
  try {
    reqs = labelSelectorAsRequirements(sel);
  } catch (e) {
    if (e instanceof SelectorParseError) return '<error>';
    throw e;
  }
  return formatRequirements(reqs) || '<none>';
}

/** A selector as a list's `labelSelector` parameter: undefined when it selects everything (or cannot be written), so the list is the whole one. */
export function selectorParam(sel: LabelSelector | null | undefined): string | undefined {
  const s = formatLabelSelector(sel);
  return s === '<none>' || s === '<error>' ? undefined : s;
}

/** labels.FormatLabels: `k=v` sorted by key, `<none>` when empty. */
export function formatLabels(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort(compareStrings);
  return keys.map((k) => `${k}=${m![k]}`).join(',') || '<none>';
}
