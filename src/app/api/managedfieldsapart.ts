// A list item's metadata.managedFields kept apart from the object until
// something reads it. They are most of a pod's objects (the field sets are a
// tree of small objects, ~40 for a plain pod against ~25 for the rest of it),
// and no list view reads them; at 50,000 pods their young-generation
// collections were most of the long tasks while a list loaded and scrolled.
// So the wire worker (wireserve.ts) cuts each item's managedFields out of a
// run's text and hands them over as UTF-8 bytes in a transferred buffer; the
// main thread parses the run without them, and puts back on each item's
// metadata a `managedFields` property that parses its own text the first time
// it is read. Reading, spreading, JSON.stringify, structured clone and
// Object.keys see the same object as before, the keys in the same order.
//
// In a run's text, an item's metadata `{A,"managedFields":V,T}` becomes
// `{A,"\u0000managedFields":{T}}` (`:0` when nothing follows V): the keys that
// followed V are put back after the accessor, so the order stays the server's.

/** The key that stands where an item's managedFields were cut out, holding the keys that followed them. */
const MARK = '\u0000managedFields';
const MARK_TEXT = '"\\u0000managedFields":';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const COLON = 58;

/** A run's managedFields texts, in the order of the items that had them: `ends[i]` is where the i-th ends in `bytes`. */
export interface FieldsApart {
  bytes: Uint8Array;
  ends: Uint32Array;
}

/**
 * Cuts the managedFields out of the metadata of each item of a run (a JSON
 * array's text of list items); `fields` are their texts in order. An item
 * without them is left as it is.
 */
export function cutManagedFields(run: string): { run: string; fields: string[] } {
  const fields: string[] = [];
  let out = '';
  /** Text before this has been written to `out`. */
  let copied = 0;
  let depth = 0;
  /** At depth 2 (an item's keys) or 3 in its metadata, the next string is a key. */
  let keyNext = false;
  let itemKey = '';
  let inMeta = false;
  /** Where the last `{` or `,` of the metadata object is (the one before the managedFields key, once it has come). */
  let sep = -1;
  /** State of a managedFields key in the metadata: its value begins after `valueAt`; then its end, where the keys after it begin. */
  let valueAt = -1;
  let valueEnd = -1;
  const n = run.length;
  for (let i = 0; i < n; i++) {
    const c = run.charCodeAt(i);
    if (c === QUOTE) {
      let q = i;
      for (;;) {
        q = run.indexOf('"', q + 1);
        if (q < 0) return { run, fields: [] }; // not whole JSON: left as it is
        let b = q - 1;
        while (run.charCodeAt(b) === BACKSLASH) b--;
        if ((q - 1 - b) % 2 === 0) break;
      }
      if (keyNext) {
        keyNext = false;
        if (depth === 2) itemKey = run.slice(i + 1, q);
        else if (inMeta && depth === 3 && q - i === 14 && run.startsWith('"managedFields"', i)) {
          const colon = run.indexOf(':', q + 1);
          valueAt = colon + 1;
        }
      }
      i = q;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (c === OPEN_BRACE && depth === 3 && itemKey === 'metadata') {
        inMeta = true;
        sep = i;
        valueAt = valueEnd = -1;
      }
      keyNext = c === OPEN_BRACE && (depth === 2 || (inMeta && depth === 3));
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (inMeta && depth === 3) {
        if (valueAt >= 0 && valueEnd < 0) valueEnd = i;
        if (valueAt >= 0) {
          // The metadata ends: its managedFields are cut, the keys after them put under the mark.
          const after = valueEnd < i ? run.slice(valueEnd + 1, i) : '';
          fields.push(run.slice(valueAt, valueEnd).trim());
          out += run.slice(copied, sep + 1) + MARK_TEXT + (after.trim() ? `{${after}}` : '0') + '}';
          copied = i + 1;
        }
        inMeta = false;
        valueAt = valueEnd = -1;
      }
      depth--;
      keyNext = false;
    } else if (c === COMMA) {
      if (inMeta && depth === 3) {
        if (valueAt >= 0 && valueEnd < 0) valueEnd = i;
        else if (valueAt < 0) sep = i;
        keyNext = true;
      } else keyNext = depth === 2;
    } else if (c === COLON) {
      keyNext = false;
    }
  }
  if (!fields.length) return { run, fields };
  return { run: out + run.slice(copied), fields };
}

/** The texts as one UTF-8 buffer (to be transferred, not copied) and where each ends. */
export function packFields(fields: string[]): FieldsApart {
  let chars = 0;
  for (const f of fields) chars += f.length;
  const room = new Uint8Array(chars * 3);
  const ends = new Uint32Array(fields.length);
  const encoder = new TextEncoder();
  let at = 0;
  fields.forEach((f, i) => {
    at += encoder.encodeInto(f, room.subarray(at)).written;
    ends[i] = at;
  });
  return { bytes: room.slice(0, at), ends };
}

interface Lazy {
  apart: FieldsApart;
  index: number;
  value?: unknown;
}

const LAZY = Symbol('managedFields apart');
type Meta = Record<string | symbol, unknown>;
const decoder = new TextDecoder();

/** One getter and setter for every item: objects given the same accessor share their shape. */
const ACCESSOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: Meta) {
    const lazy = this[LAZY] as Lazy;
    if (!('value' in lazy)) {
      const { apart, index } = lazy;
      lazy.value = JSON.parse(decoder.decode(apart.bytes.subarray(index ? apart.ends[index - 1] : 0, apart.ends[index])));
    }
    return lazy.value;
  },
  set(this: Meta, value: unknown) {
    Object.defineProperty(this, 'managedFields', { value, writable: true, enumerable: true, configurable: true });
  },
};

/** Puts the managedFields cut out of a run (`cutManagedFields`) back on its parsed items, each read when first asked for. */
export function putManagedFieldsBack(items: readonly { metadata?: object }[], apart: FieldsApart | undefined): void {
  if (!apart) return;
  let index = 0;
  for (const o of items) {
    const m = o.metadata as Meta | undefined;
    if (!m || !(MARK in m)) continue;
    const after = m[MARK] as Record<string, unknown> | 0;
    // The mark is the last key: deleting it takes the object back to the shape it had before it.
    delete m[MARK];
    Object.defineProperty(m, LAZY, { value: { apart, index: index++ } satisfies Lazy });
    Object.defineProperty(m, 'managedFields', ACCESSOR);
    if (after) for (const k in after) m[k] = after[k];
  }
}

/** Whether the metadata has managedFields, without reading (and so parsing) them. */
export const hasManagedFields = (m: object) => 'managedFields' in m;

/** A copy of the metadata without its managedFields (and without parsing them). */
export function withoutManagedFields<M extends object>(m: M): Omit<M, 'managedFields'> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m)) if (k !== 'managedFields') out[k] = (m as Record<string, unknown>)[k];
  return out as Omit<M, 'managedFields'>;
}
