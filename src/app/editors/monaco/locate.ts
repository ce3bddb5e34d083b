// Where a Kubernetes field path (`spec.ingress[0].ports[0].endPort`, as the
// server's 422 causes name fields) sits in a YAML text, so an error from the
// server can be shown on the line the user wrote.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';

export interface TextRange {
  /** 1-based, as Monaco counts. */
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

/**
 * `spec.ingress[0].ports[0].endPort` -> ['spec', 'ingress', '0', 'ports', '0', 'endPort'].
 * A bracket holds an index or a map key (`metadata.labels[app.kubernetes.io/name]`);
 * which one is decided by the node it is applied to.
 */
export function pathSegments(path: string): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (let m; (m = re.exec(path)); ) out.push(m[1] ?? m[2]);
  return out;
}

/** The pair or item a segment names inside a collection, or undefined. */
function child(node: unknown, segment: string): { pair?: Pair; node: unknown } | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === segment);
    return pair && { pair, node: pair.value };
  }
  if (isSeq(node) && /^\d+$/.test(segment)) {
    const item = node.items[Number(segment)];
    return item === undefined ? undefined : { node: item };
  }
  return undefined;
}

/**
 * The range of the field at `path` in the YAML `text` (its first document), or
 * undefined if the text does not parse far enough or has no such field.
 * A field with a scalar value covers `key: value`; one holding a block (map or
 * list) covers only its key, so a marker does not paint the whole block.
 */
export function locatePath(text: string, path: string): TextRange | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: false });
  let node: unknown = doc.contents;
  let pair: Pair | undefined;
  for (const segment of pathSegments(path)) {
    const next = child(node, segment);
    if (!next) return undefined;
    ({ node, pair } = next);
  }
  const keyRange = pair && (pair.key as Node | null)?.range;
  const valueRange = (node as Node | null)?.range;
  let start: number, end: number;
  if (keyRange) {
    start = keyRange[0];
    end = isScalar(node) && valueRange ? valueRange[1] : keyRange[1];
  } else if (valueRange) {
    [start, end] = valueRange;
  } else return undefined;
  const from = lineCounter.linePos(start);
  const to = lineCounter.linePos(end);
  // A list item that is a block (`- podSelector: …`) is marked on its first line, where the item begins, not over the whole block.
  if (!keyRange && to.line > from.line) {
    const lineEnd = text.indexOf('\n', start);
    const last = lineCounter.linePos(lineEnd === -1 ? text.length : lineEnd);
    return { startLine: from.line, startColumn: from.col, endLine: from.line, endColumn: last.col };
  }
  return { startLine: from.line, startColumn: from.col, endLine: to.line, endColumn: to.col };
}

/** The range of `path`, or of its nearest ancestor present in the text (a missing required field is reported on its parent). */
export function locateNearest(text: string, path: string): TextRange | undefined {
  const segments = pathSegments(path);
  for (let n = segments.length; n > 0; n--) {
    const range = locatePath(text, segments.slice(0, n).map((s) => `[${s}]`).join(''));
    if (range) return range;
  }
  return undefined;
}

/**
 * The field under a position of the YAML `text` (1-based line and column, as
 * Monaco counts): the keys and list indexes that lead to the key or value
 * there, or undefined when the position holds neither.
 */
export function pathAt(text: string, line: number, column: number): (string | number)[] | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: false });
  const lineStart = lineCounter.lineStarts[line - 1];
  if (lineStart === undefined) return undefined;
  const offset = lineStart + column - 1;
  const within = (n: unknown) => {
    const r = (n as Node | null)?.range;
    return !!r && offset >= r[0] && offset <= r[1];
  };
  const walk = (node: unknown, path: (string | number)[]): (string | number)[] | undefined => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        if (within(pair.key)) return [...path, key];
        if (within(pair.value)) return walk(pair.value, [...path, key]) ?? [...path, key];
      }
      return undefined;
    }
    if (isSeq(node)) {
      for (let i = 0; i < node.items.length; i++) if (within(node.items[i])) return walk(node.items[i], [...path, i]) ?? [...path, i];
      return undefined;
    }
    return isScalar(node) && within(node) ? path : undefined;
  };
  return walk(doc.contents, []);
}
