import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument, stringify } from 'yaml';
import { parseDocumentWithin, YamlTooDeepError } from './yamldepth.ts';

/** Whether parseDocumentWithin refuses the text as nesting deeper than `max`. */
function yamlTextDeeperThan(text: string, max: number): boolean {
  try {
    parseDocumentWithin(text, max);
    return false;
  } catch (e) {
    if (e instanceof YamlTooDeepError) return true;
    throw e;
  }
}

/** Collections on the deepest path of a value: what the composer recurses through. */
const depthOf = (v: unknown): number =>
  v !== null && typeof v === 'object' ? 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depthOf)) : 0;

describe('parseDocumentWithin', () => {
  it('counts flow collections to the level', () => {
    expect(yamlTextDeeperThan('['.repeat(200) + ']'.repeat(200), 200)).toBe(false);
    expect(yamlTextDeeperThan('['.repeat(201) + ']'.repeat(201), 200)).toBe(true);
    expect(yamlTextDeeperThan('{"a":'.repeat(201) + '1' + '}'.repeat(201), 200)).toBe(true);
    expect(yamlTextDeeperThan('a: ' + '{"a":'.repeat(199) + '1' + '}'.repeat(199), 200)).toBe(false);
  });

  it('counts block collections to the level, compact sequences and one-space indentation included', () => {
    const maps = (n: number) => Array.from({ length: n }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1\n';
    expect(yamlTextDeeperThan(maps(200), 200)).toBe(false);
    expect(yamlTextDeeperThan(maps(201), 200)).toBe(true);
    expect(yamlTextDeeperThan('- '.repeat(200) + 'x', 200)).toBe(false);
    expect(yamlTextDeeperThan('- '.repeat(201) + 'x', 200)).toBe(true);
    // A sequence under a key may share the key's column.
    // A sequence under a key may share the key's column: `a:` then n lines `- a:`, each two levels deeper.
    const mixed = (n: number) => 'a:\n' + Array.from({ length: n }, (_, i) => `${'  '.repeat(i)}- a:`).join('\n') + ' x\n';
    expect(depthOf(parse(mixed(99)))).toBe(199);
    expect(yamlTextDeeperThan(mixed(99), 199)).toBe(false);
    expect(yamlTextDeeperThan(mixed(99), 198)).toBe(true);
  });

  it('does not count brackets in quoted text, comments or block scalars, nor indentation inside a block scalar', () => {
    const text = [
      `a: "${'['.repeat(500)}"`,
      `b: '${'{'.repeat(500)}'`,
      `# ${'['.repeat(500)}`,
      'c: |',
      `  ${'['.repeat(500)}`,
      `  ${' '.repeat(500)}x`,
      `d: [${Array.from({ length: 500 }, (_, i) => `{k: ${i}}`).join(', ')}]`,
    ].join('\n');
    expect(yamlTextDeeperThan(text, 200)).toBe(false);
  });

  it('agrees with the depth of the value the text holds, block and flow style', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.boolean(), (v, flow) => {
        const text = stringify(v, flow ? { collectionStyle: 'flow' } : {});
        const d = depthOf(v);
        expect(yamlTextDeeperThan(text, d)).toBe(false);
        if (d > 0) expect(yamlTextDeeperThan(text, d - 1)).toBe(true);
      }),
      { seed: 20261124, numRuns: 300 },
    );
  });
});

describe('parseDocumentWithin gives what parseDocument gives', () => {
  it('the same value, and the same worded errors with line and column', () => {
    const ok = 'a: 1\nb: [x, {y: z}]\n';
    expect(parseDocumentWithin(ok, 10).toJS()).toEqual(parse(ok));
    const bad = 'a: 1\nb: [x\n';
    const ours = parseDocumentWithin(bad, 10);
    expect(ours.errors.map((e) => e.message)).toEqual(parseDocument(bad).errors.map((e) => e.message));
    expect(ours.errors[0].message).toContain('at line');
    expect(parseDocumentWithin('a: 1\n---\nb: 2\n', 10).errors.map((e) => e.code)).toEqual(['MULTIPLE_DOCS']);
  });

  it('survives text its composer cannot: the same deep flow sequence twice', () => {
    // Without the bound, the second parse aborts the process (V8 RegExpCompiler fatal error).
    const text = '['.repeat(9_999) + ']'.repeat(9_999);
    expect(() => parseDocumentWithin(text, 200)).toThrow(YamlTooDeepError);
    expect(() => parseDocumentWithin(text, 200)).toThrow(YamlTooDeepError);
  });
});
