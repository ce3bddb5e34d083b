// A list response cut into parts without parsing it: its items array in runs
// of `per` items (each a JSON array text of its own) and the rest of the list
// (kind, metadata) with an empty items array. The wire worker (wire.worker.ts)
// cuts a page of 2,000 pods this way, so the main thread parses it a run at a
// time with frames in between, instead of in one 30-90 ms JSON.parse; handing
// the parsed objects over instead costs the main thread ~3x a JSON.parse in
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

/** The end (index of the closing quote) of the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  for (let q = text.indexOf('"', at + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    // Escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
  }
  return text.length;
}

/**
 * Splits the text of a valid JSON list object. Text without a top-level
 * `items` array (a Status) comes back whole as the head, with no runs.
 */
export function splitList(text: string, per: number): SplitList {
  let depth = 0;
  let itemsKey = false;
  let open = -1;
  let runStart = -1;
  let inRun = 0;
  const runs: string[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // A key of the list object itself: "items" is the one to cut.
      if (depth === 1 && open < 0 && end - i === 6 && text.startsWith('"items"', i)) itemsKey = true;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 1 && itemsKey && c === OPEN_BRACKET) {
        open = i;
        runStart = i + 1;
        itemsKey = false;
      }
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 1 && open >= 0 && runStart >= 0) {
        const last = text.slice(runStart, i);
        if (last.trim()) runs.push(`[${last}]`);
        return { head: text.slice(0, open + 1) + text.slice(i), runs };
      }
    } else if (c === COMMA && depth === 2 && runStart >= 0 && ++inRun === per) {
      runs.push(`[${text.slice(runStart, i)}]`);
      runStart = i + 1;
      inRun = 0;
    } else if (c === COMMA && depth === 1) {
      itemsKey = false;
    }
  }
  return { head: text, runs: [] };
}
