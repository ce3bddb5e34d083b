// YAML parsed with a bound on how deeply its collections nest, checked on the
// parser's tree (built without recursion) before the composer touches it. The
// yaml library's composer recurses once per level and, when the stack runs
// out, catches the RangeError and goes on composing at the stack's edge; a
// regular expression compiled there (its first use, or V8 tiering it up on the
// second) aborts the whole process with "FATAL ERROR: RegExpCompiler Allocation
// failed", which no `catch` sees. On Node's default stack that edge is ~790
// levels of flow collections: `[[[…]]]` sent twice was enough.
import { Composer, LineCounter, parseDocument, Parser, type CST, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/**
 * How deeply an object may nest, in a request body or in the app's editors. Not
 * Go's 10,000: our steps recurse per level on Node's ~1 MB stack (the yaml
 * composer runs out at ~790 levels, YAML output and patches at ~900-1,900), and
 * at the stack's edge V8 can abort the process. No Kubernetes object comes near it.
 */
export const MAX_DEPTH = 200;

/** Text nesting deeper than the bound: refused before it is composed. */
export class YamlTooDeepError extends Error {
  constructor(readonly max: number) {
    super('exceeded max depth');
  }
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * What `parseDocument(text, options)` gives, after checking that no collection
 * nests deeper than `max` (YamlTooDeepError). One parse: the composer is
 * handed the checked tree.
 */
export function parseDocumentWithin(text: string, max: number, options: Options = {}): Document.Parsed {
  const tokens = [...new Parser(options.lineCounter?.addNewLine).parse(text)];
  if (tokens.some((t) => cstDeeperThan(t, max))) throw new YamlTooDeepError(max);
  const docs = [...new Composer(options).compose(tokens, true, text.length)];
  // parseDocument words errors with their line and column, and refuses a second document:
  // in those cases it parses again (the depth is known to be safe), with a line counter of its own.
  if (docs.length !== 1 || docs[0].errors.length) return parseDocument(text, { ...options, lineCounter: new LineCounter() });
  return docs[0];
}

/** Whether a parsed (CST) token nests collections deeper than `max`, walked with a stack of its own. */
function cstDeeperThan(root: CST.Token, max: number): boolean {
  const stack: [CST.Token | null | undefined, number][] = [[root, 0]];
  while (stack.length) {
    const [token, depth] = stack.pop()!;
    if (!token) continue;
    if (token.type === 'document') {
      stack.push([token.value, depth]);
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > max) return true;
      for (const item of token.items) {
        if ('key' in item) stack.push([item.key, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
  return false;
}
