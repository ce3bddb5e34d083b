// Objects without their managedFields, cut from their JSON text before it is
// parsed. A list view, a watch and the derived views read no object's
// managedFields, and they were half of a listed pod's heap (sharedfields.ts):
// at 60,000 pods the tab's heap peaked above 400 MB, and every run of a page
// was copied to the main thread and parsed with them. kubectl hides them too
// (--show-managed-fields=false). The editor, which shows who owns each field,
// reads its object with them (useObject's `managedFields`).

// Local, not imported from one module with listsplit.ts's: under Node (tsx) the imported codes made
// this scan four times slower (29 against 120 ms for a page of 2,000 pods).
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** The index of the first character from `at` that is not white space. */
function skipSpace(text: string, at: number): number {
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** The index of the quote closing the string opened at `open`. */
function stringEnd(text: string, open: number): number {
  let q = open;
  for (;;) {
    q = text.indexOf('"', q + 1);
    if (q < 0) return text.length;
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
  }
}

/** The index after the array or object value opened at `open`. */
function valueEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return text.length;
}

const METADATA = 'metadata';
const MANAGED_FIELDS = 'managedFields';

/**
 * The JSON `text` with the `metadata.managedFields` array of every object at its second level cut
 * out: the items of a JSON array of objects (a run of a list's items), or the `object` of a watch
 * event. Everything else is kept byte for byte; text that has none comes back as it is.
 */
export function withoutManagedFields(text: string): string {
  let kept: string[] | undefined;
  let from = 0;
  let depth = 0;
  /** The last string at the second level was the key `metadata` (its value opens next). */
  let metadataKey = false;
  let inMetadata = false;
  /** The comma before the current member of the metadata, or -1 at its first. */
  let comma = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const length = end - i - 1;
      const colon = skipSpace(text, end + 1);
      const isKey = text.charCodeAt(colon) === COLON;
      if (depth === 2) metadataKey = isKey && length === METADATA.length && text.startsWith(METADATA, i + 1);
      else if (depth === 3 && inMetadata && isKey && length === MANAGED_FIELDS.length && text.startsWith(MANAGED_FIELDS, i + 1)) {
        const v = skipSpace(text, colon + 1);
        if (text.charCodeAt(v) === OPEN_BRACKET) {
          // The member and one comma beside it: the one before, or after when it is the first.
          let cutEnd = valueEnd(text, v);
          const cutStart = comma >= 0 ? comma : i;
          if (comma < 0) {
            const after = skipSpace(text, cutEnd);
            if (text.charCodeAt(after) === COMMA) cutEnd = after + 1;
          }
          (kept ??= []).push(text.slice(from, cutStart));
          from = cutEnd;
          i = cutEnd - 1;
          continue;
        }
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 2 && metadataKey && c === OPEN_BRACE) {
        inMetadata = true;
        comma = -1;
      }
      if (depth === 2) metadataKey = false;
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 2) inMetadata = false;
    } else if (c === COMMA && depth === 3 && inMetadata) comma = i;
  }
  if (!kept) return text;
  kept.push(text.slice(from));
  return kept.join('');
}

/** The object without its metadata.managedFields (the object itself when it has none): for what was parsed whole, such as a list's first page. */
export function dropManagedFields<T extends { metadata?: { managedFields?: unknown } }>(o: T): T {
  if (o?.metadata?.managedFields === undefined) return o;
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}
