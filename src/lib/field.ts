// Kubernetes field errors: the causes of a 422 Invalid, rendered exactly as
// kube-apiserver renders them (apimachinery's field.Error), so that kubectl
// users see familiar text and the SPA can map each cause back to a form field.

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** Kubernetes path: `spec.ingress[0].ports[1].endPort`. */
  field: string;
  /** The offending value, when the message shows one. */
  badValue?: unknown;
  /** Free text after the value. */
  detail?: string;
  /** Set when the message should not show a value (Required, Forbidden, TooLong). */
  omitValue?: boolean;
}

export type PathSegment = string | number;

/** ['spec', 'ingress', 0, 'from'] -> `spec.ingress[0].from`; map keys are shown as `[key]`. */
export function joinPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

/** A path builder, in the style of apimachinery's field.Path. */
export class Path {
  constructor(readonly segments: readonly PathSegment[] = []) {}
  child(...names: string[]): Path {
    return new Path([...this.segments, ...names]);
  }
  index(i: number): Path {
    return new Path([...this.segments, i]);
  }
  /** A map key, rendered `field[key]`. */
  key(k: string): Path {
    return new Path([...this.segments.slice(0, -1), `${String(this.segments.at(-1) ?? '')}[${k}]`]);
  }
  toString(): string {
    return joinPath(this.segments);
  }
}

const at = (p: Path | string) => (typeof p === 'string' ? p : p.toString());

export const fieldErrors = {
  required: (p: Path | string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: at(p), detail, omitValue: true }),
  invalid: (p: Path | string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: at(p), badValue: value, detail }),
  notSupported: (p: Path | string, value: unknown, supported: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: at(p),
    badValue: value,
    detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
  }),
  forbidden: (p: Path | string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: at(p), detail, omitValue: true }),
  duplicate: (p: Path | string, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueDuplicate', field: at(p), badValue: value, detail }),
  tooLong: (p: Path | string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: at(p),
    detail: `may not be more than ${max} bytes`,
    omitValue: true,
  }),
  tooMany: (p: Path | string, count: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: at(p),
    badValue: count,
    detail: `must have at most ${max} items`,
  }),
  notFound: (p: Path | string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: at(p), badValue: value }),
  internal: (p: Path | string, detail: string): FieldError => ({ type: 'InternalError', field: at(p), detail, omitValue: true }),
};

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};

/** Go's rendering of a bad value: strings quoted, numbers and booleans bare, the rest as JSON. */
export function formatBadValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

/** The message body without the field: `Invalid value: 0: must be between 1 and 65535, inclusive`. */
export function errorBody(e: FieldError): string {
  let s = typeText[e.type];
  if (!e.omitValue && e.type !== 'InternalError') s += `: ${formatBadValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** The whole line: `spec.x: Invalid value: …`. */
export function renderFieldError(e: FieldError): string {
  return e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e);
}

/** The aggregate text of an Invalid Status: one line, or `[a, b]` of unique lines. */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const lines = [...new Set(errors.map(renderFieldError))];
  return lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
}
