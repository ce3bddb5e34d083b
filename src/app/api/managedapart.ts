// managedFields kept apart while a list's pages are read. An object's
// managedFields are ~40% of its JSON and most of its small objects (a pod's
// fieldsV1 is a tree of "f:..." keys), yet only the editor's ownership badges
// read them, for one object. The wire worker takes each item's managedFields
// out of a run as text, and the main thread parses the rest and gives each
// metadata an accessor that parses the text when first read (then the
// property is plain data). Every reader sees the same keys and values as
// before (JSON.stringify, spreads and structured clone alike; managedFields
// come last in metadata); the main thread parses 200 pods in ~1.2 ms instead
// of ~2.0 ms. The accessor is added as a new property, with one getter and
// setter for all: put in place of an existing one, V8 turns every metadata
// object into a slow dictionary (the Pods list's heap went from 132 to 188 MB).
import type { KubeObject } from '../../kinds/kind.ts';

const KEY = 'managedFields';

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** Where the string that opens at `at` (a quote) closes. */
function stringEnd(text: string, at: number): number {
  let q = at;
  for (;;) {
    q = text.indexOf('"', q + 1);
    if (q < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
  }
}

/** Where the JSON value that begins at `at` ends (the index after it). */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at) + 1;
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    let i = at;
    while (i < text.length && !isSpace(text.charCodeAt(i)) && text.charCodeAt(i) !== COMMA && text.charCodeAt(i) !== CLOSE_BRACE && text.charCodeAt(i) !== CLOSE_BRACKET) i++;
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) i = stringEnd(text, i);
    else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
    if (i < 0) break;
  }
  return -1;
}

/**
 * A run's items' text (a JSON array of objects) without each item's
 * `metadata.managedFields`, and those values' texts (null:
 * the item had none). Cut from the text in one scan, without parsing it (the
 * wire worker shares two cores with the browser and the server). For the wire worker.
 */
export function managedApart(run: string): { run: string; managed: (string | null)[] } {
  const managed: (string | null)[] = [];
  let out = '';
  /** Where the text not yet copied to `out` begins. */
  let from = 0;
  let depth = 0;
  let item = -1;
  let metadataKey = false;
  let inMetadata = false;
  const n = run.length;
  for (let i = 0; i < n; i++) {
    const c = run.charCodeAt(i);
    if (c === QUOTE) {
      const q = stringEnd(run, i);
      if (q < 0 || depth < 2) return parsedApart(run);
      if (depth === 2 || (depth === 3 && inMetadata)) {
        let k = q + 1;
        while (isSpace(run.charCodeAt(k))) k++;
        if (run.charCodeAt(k) === COLON) {
          // A key of an item (metadata is the one to look into), or of an item's metadata.
          if (depth === 2) metadataKey = q - i === 9 && run.startsWith('"metadata"', i);
          else if (q - i === 14 && run.startsWith('"managedFields"', i)) {
            let v = k + 1;
            while (isSpace(run.charCodeAt(v))) v++;
            let end = valueEnd(run, v);
            if (end < 0) return parsedApart(run);
            managed[item] = run.slice(v, end);
            // The key and its value go, with the comma before them (or, first in the object, the one after).
            let cut = i - 1;
            while (isSpace(run.charCodeAt(cut))) cut--;
            if (run.charCodeAt(cut) !== COMMA) {
              cut = i;
              let after = end;
              while (isSpace(run.charCodeAt(after))) after++;
              if (run.charCodeAt(after) === COMMA) end = after + 1;
            }
            out += run.slice(from, cut);
            from = end;
            i = end - 1;
            continue;
          }
        }
      }
      i = q;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2) {
        // Only arrays of objects are cut here.
        if (c !== OPEN_BRACE) return parsedApart(run);
        managed[++item] = null;
      } else if (depth === 3) inMetadata = c === OPEN_BRACE && metadataKey;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth < 3) inMetadata = false;
    } else if (depth === 1 && c !== COMMA && !isSpace(c)) return parsedApart(run);
    else if (depth === 0 && !isSpace(c)) return parsedApart(run);
  }
  return { run: out + run.slice(from), managed };
}

/** managedApart by parsing the run (any JSON): for what the scan does not take. */
function parsedApart(run: string): { run: string; managed: (string | null)[] } {
  const items: unknown = JSON.parse(run);
  if (!Array.isArray(items)) return { run, managed: [] };
  const managed = items.map((o: { metadata?: Record<string, unknown> } | null) => {
    const m = o?.metadata;
    if (!m || typeof m !== 'object' || m[KEY] === undefined) return null;
    const text = JSON.stringify(m[KEY]);
    delete m[KEY];
    return text;
  });
  return { run: JSON.stringify(items), managed };
}

/** Each metadata's managedFields text, until read. */
const texts = new WeakMap<object, string>();

function settle(m: object, value: unknown) {
  texts.delete(m);
  Object.defineProperty(m, KEY, { value, writable: true, enumerable: true, configurable: true });
}

// One getter and setter for every object, so that objects given them share their shape.
const accessor: PropertyDescriptor = {
  get(this: object) {
    const text = texts.get(this);
    if (text === undefined) return undefined;
    const value: unknown = JSON.parse(text);
    // (A frozen object keeps its accessor and parses on each read.)
    if (Object.isExtensible(this)) settle(this, value);
    return value;
  },
  set(this: object, value: unknown) {
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

/** The items of a run made apart by `managedApart`, each with its managedFields read from its text when first asked for. */
export function takeRun(run: string, managed: readonly (string | null)[]): KubeObject[] {
  const items = JSON.parse(run) as KubeObject[];
  for (let i = 0; i < managed.length; i++) {
    const text = managed[i];
    if (text === null) continue;
    const m = items[i].metadata;
    texts.set(m, text);
    Object.defineProperty(m, KEY, accessor);
  }
  return items;
}
