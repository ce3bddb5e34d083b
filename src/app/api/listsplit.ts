// A list response cut into parts without parsing it, as its bytes arrive: its
// items array in runs of `per` items (each a JSON array text of its own) and
// the rest of the list (kind, metadata) with an empty items array. The wire
// worker (wireserve.ts) cuts each page of 2,000 pods this way while it is still
// being received, so the main thread parses it a run at a time with frames in
// between (instead of one 30-90 ms JSON.parse), and starts on the first runs
// (and asks for the next page, whose continue token is in the list's metadata,
// which servers write before the items) before the last byte is in. Handing the
// parsed objects over instead costs the main thread ~3x a JSON.parse in
// structured-clone deserialisation (measured in Chromium, 2,000 pods).

export interface SplitList {
  /** The list with `"items":[]`: its metadata (continue, resourceVersion) for a JSON.parse. */
  head: string;
  /** The items, `per` at a time, each an array's text. */
  runs: string[];
}

// Local, not imported (see unmanaged.ts).
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const ITEMS = 'items';

/**
 * Cuts a list's text given in pieces (any split, even inside a string or an
 * escape). Text without a top-level `items` array (a Status) comes back whole
 * as the head, with no runs. Each piece is scanned once and each run's text
 * joined once from the pieces it spans: keeping the text not yet given out as
 * one string made every piece copy the run so far again (a page of 2,000 pods
 * in 16 KB pieces took 0.5 s to cut, three times its JSON.parse).
 */
export class ListSplitter {
  /** The text since the mark, in pieces: since the current run's start; the whole text before the items; from the items' `]` after them. */
  private parts: string[] = [];
  private depth = 0;
  private inString = false;
  /** Backslashes just before the scan, inside a string: an odd count escapes the next character. */
  private backslashes = 0;
  /** The current string's text so far, while it is one of the list object's own and may still be its `"items"` key. */
  private key: string | undefined;
  private itemsKey = false;
  private inItems = false;
  private inRun = 0;
  /** The list's text up to and including the items array's `[`, once it has come. */
  private before: string | undefined;
  /** The items array closed: `parts` hold the list's text after it (from its `]`). */
  private after = false;

  constructor(private readonly per: number) {}

  /** The list so far closed as one with no items (its metadata, when the server wrote it before the items); undefined until the items array opens. */
  get head(): string | undefined {
    return this.before === undefined ? undefined : this.after ? this.before + this.parts.join('') : `${this.before}]}`;
  }

  /** Takes the next piece of text; the runs it completes. */
  push(piece: string): string[] {
    const runs: string[] = [];
    const n = piece.length;
    /** Where the text since the mark starts in this piece (`parts` hold what came before). */
    let mark = 0;
    const sinceMark = (to: number) => {
      const text = this.parts.length ? this.parts.join('') + piece.slice(mark, to) : piece.slice(mark, to);
      this.parts = [];
      return text;
    };
    for (let i = 0; i < n; i++) {
      if (this.inString) {
        const q = piece.indexOf('"', i);
        const to = q < 0 ? n : q;
        // Backslashes before `to`: from the previous piece too when every character since `i` is one.
        let b = to - 1;
        while (b >= i && piece.charCodeAt(b) === BACKSLASH) b--;
        const backslashes = to - 1 - b + (b < i ? this.backslashes : 0);
        if (this.key !== undefined) this.key = this.key.length + to - i <= ITEMS.length ? this.key + piece.slice(i, to) : undefined;
        i = to;
        if (q < 0) {
          this.backslashes = backslashes;
          break;
        }
        this.backslashes = 0;
        if (backslashes % 2 === 1) {
          this.key = undefined;
          continue;
        }
        this.inString = false;
        // A key of the list object itself (the only strings `key` follows): "items" is the one to cut.
        if (this.key === ITEMS) this.itemsKey = true;
        this.key = undefined;
        continue;
      }
      const c = piece.charCodeAt(i);
      if (c === QUOTE) {
        this.inString = true;
        this.backslashes = 0;
        this.key = this.depth === 1 && !this.inItems && !this.after ? '' : undefined;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.depth === 1 && this.itemsKey && c === OPEN_BRACKET) {
          this.before = sinceMark(i + 1);
          mark = i + 1;
          this.inItems = true;
          this.itemsKey = false;
        }
        this.depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 1 && this.inItems) {
          const last = sinceMark(i);
          if (last.trim()) runs.push(`[${last}]`);
          mark = i;
          this.inItems = false;
          this.after = true;
        }
      } else if (c === COMMA && this.inItems && this.depth === 2 && ++this.inRun === this.per) {
        runs.push(`[${sinceMark(i)}]`);
        mark = i + 1;
        this.inRun = 0;
      } else if (c === COMMA && this.depth === 1) {
        this.itemsKey = false;
      }
    }
    if (mark < n) this.parts.push(mark ? piece.slice(mark) : piece);
    return runs;
  }

  /** The end of the text: the list's head (the whole text when it had no items array). */
  end(): SplitList {
    return { head: this.head ?? this.parts.join(''), runs: [] };
  }
}

/** Splits the whole text of a valid JSON list object (see ListSplitter). */
export function splitList(text: string, per: number): SplitList {
  const s = new ListSplitter(per);
  const runs = s.push(text);
  return { head: s.end().head, runs };
}
