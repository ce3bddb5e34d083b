// YAML text that keeps what a person wrote: an edited object is merged into
// the existing document node by node, so comments and key order survive a
// round trip through the form.
import { Document, isMap, isScalar, isSeq, LineCounter, YAMLMap, YAMLSeq, type Node } from 'yaml';
import { MAX_DEPTH, parseDocumentWithin, YamlTooDeepError } from './yamldepth.ts';

export function toYaml(value: unknown): string {
  return new Document(value).toString({ lineWidth: 0 });
}

export interface ParsedYaml {
  value?: unknown;
  /** The first parse error, with its line (1-based). */
  error?: { message: string; line?: number };
}

/**
 * Text pasted into an editor is bounded as a request body is: nesting past
 * MAX_DEPTH is an error, not a composer recursing to the stack's edge (which
 * can take the whole tab down, see yamldepth.ts).
 */
export function parseYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  let doc;
  try {
    doc = parseDocumentWithin(text, MAX_DEPTH, { prettyErrors: false, lineCounter });
  } catch (e) {
    if (e instanceof YamlTooDeepError) return { error: { message: `nested more than ${MAX_DEPTH} levels deep` } };
    throw e;
  }
  if (doc.errors.length) {
    const e = doc.errors[0];
    return { error: { message: e.message.split('\n')[0], line: lineCounter.linePos(e.pos[0]).line } };
  }
  return { value: doc.toJS() };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function mergeNode(doc: Document, node: Node | null | undefined, value: unknown): Node {
  if (isObject(value) && isMap(node)) {
    const map = node as YAMLMap;
    for (const item of [...map.items]) {
      const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
      if (!(key in value)) map.delete(item.key);
    }
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const existing = map.get(k, true) as Node | undefined;
      map.set(k, mergeNode(doc, existing, v));
    }
    return map;
  }
  if (Array.isArray(value) && isSeq(node)) {
    const seq = node as YAMLSeq;
    while (seq.items.length > value.length) seq.items.pop();
    value.forEach((v, i) => {
      seq.items[i] = mergeNode(doc, seq.items[i] as Node | undefined, v);
    });
    return seq;
  }
  if (isScalar(node) && !isObject(value) && !Array.isArray(value)) {
    if (node.value !== value) node.value = value;
    return node;
  }
  return doc.createNode(value) as Node;
}

/**
 * The text of `value`, reusing `previousText`'s document where the structure
 * still matches (comments, key order and styles are kept).
 */
export function mergeYaml(previousText: string, value: unknown): string {
  let doc;
  try {
    doc = parseDocumentWithin(previousText, MAX_DEPTH);
  } catch (e) {
    if (e instanceof YamlTooDeepError) return toYaml(value);
    throw e;
  }
  if (doc.errors.length || !isMap(doc.contents)) return toYaml(value);
  doc.contents = mergeNode(doc, doc.contents as Node, value) as typeof doc.contents;
  return doc.toString({ lineWidth: 0 });
}
