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

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * Cuts a list's text given in pieces (any split, even inside a string or an
 * escape). Text without a top-level `items` array (a Status) comes back whole
 * as the head, with no runs.
 */
export class ListSplitter {
  /** The text not yet given out: from the current run's start, or the whole text before the items (and after them). */
  private text = '';
  /** Where scanning goes on in `text`. */
  private at = 0;
  private depth = 0;
  /** Inside a string that began at `stringAt` (in `text`). */
  private inString = false;
  private stringAt = 0;
  private itemsKey = false;
  private inItems = false;
  private inRun = 0;
  /** The list's text up to and including the items array's `[`, once it has come. */
  private before: string | undefined;
  /** The items array closed: `text` is the list's text after it (from its `]`). */
  private after = false;

  constructor(private readonly per: number) {}

  /** The list so far closed as one with no items (its metadata, when the server wrote it before the items); undefined until the items array opens. */
  get head(): string | undefined {
    return this.before === undefined ? undefined : this.after ? this.before + this.text : `${this.before}]}`;
  }

  /** Takes the next piece of text; the runs it completes. */
  push(piece: string): string[] {
    const runs: string[] = [];
    if (!piece) return runs;
    this.text += piece;
    const text = this.text;
    const n = text.length;
    let i = this.at;
    let runStart = 0;
    for (; i < n; i++) {
      if (this.inString) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          i = n;
          break;
        }
        // Escaped when an odd number of backslashes precede it.
        let b = q - 1;
        while (b >= 0 && text.charCodeAt(b) === BACKSLASH) b--;
        i = q;
        if ((q - 1 - b) % 2 === 1) continue;
        this.inString = false;
        // A key of the list object itself: "items" is the one to cut.
        if (this.depth === 1 && !this.inItems && !this.after && q - this.stringAt === 6 && text.startsWith('"items"', this.stringAt)) this.itemsKey = true;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.inString = true;
        this.stringAt = i;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.depth === 1 && this.itemsKey && c === OPEN_BRACKET) {
          this.before = text.slice(0, i + 1);
          this.inItems = true;
          this.itemsKey = false;
          runStart = i + 1;
        }
        this.depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 1 && this.inItems) {
          const last = text.slice(runStart, i);
          if (last.trim()) runs.push(`[${last}]`);
          this.inItems = false;
          this.after = true;
          runStart = i;
        }
      } else if (c === COMMA && this.inItems && this.depth === 2 && ++this.inRun === this.per) {
        runs.push(`[${text.slice(runStart, i)}]`);
        runStart = i + 1;
        this.inRun = 0;
      } else if (c === COMMA && this.depth === 1) {
        this.itemsKey = false;
      }
    }
    // Keep only what is not given out yet (everything, before the items).
    if (runStart > 0) {
      this.text = text.slice(runStart);
      this.stringAt -= runStart;
      i -= runStart;
    }
    this.at = i;
    return runs;
  }

  /** The end of the text: the list's head (the whole text when it had no items array). */
  end(): SplitList {
    return { head: this.head ?? this.text, runs: [] };
  }
}

/** Splits the whole text of a valid JSON list object (see ListSplitter). */
export function splitList(text: string, per: number): SplitList {
  const s = new ListSplitter(per);
  const runs = s.push(text);
  return { head: s.end().head, runs };
}
