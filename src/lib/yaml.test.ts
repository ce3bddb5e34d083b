import { describe, expect, it } from 'vitest';
import { mergeYaml, parseYaml, toYaml } from './yaml.ts';

describe('yaml', () => {
  it('keeps comments and order when an edited object is merged back', () => {
    const text = `# the web tier
apiVersion: v1
kind: Node
metadata:
  name: a # short name
  labels:
    zone: east
spec:
  unschedulable: false
`;
    const obj = parseYaml(text).value as any;
    obj.spec.unschedulable = true;
    obj.metadata.labels.tier = 'web';
    delete obj.metadata.labels.zone;
    const out = mergeYaml(text, obj);
    expect(out).toContain('# the web tier');
    expect(out).toContain('name: a # short name');
    expect(out).toContain('unschedulable: true');
    expect(out).toContain('tier: web');
    expect(out).not.toContain('zone');
    expect(parseYaml(out).value).toEqual(obj);
  });

  it('replaces nodes whose shape changed and shortens lists', () => {
    const out = mergeYaml('a: [1, 2, 3]\nb: x\n', { a: [1], b: { c: 1 } });
    expect(parseYaml(out).value).toEqual({ a: [1], b: { c: 1 } });
  });

  it('reports parse errors with their line', () => {
    const r = parseYaml('a: 1\nb: [\n');
    expect(r.error?.message).toBeTruthy();
    expect(r.value).toBeUndefined();
  });

  it('refuses text nested deeper than a request body may be, as an error and not a crash', () => {
    const deep = (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}\n`;
    expect(parseYaml(deep(150)).value).toBeDefined();
    const r = parseYaml(deep(300));
    expect(r.value).toBeUndefined();
    expect(r.error?.message).toContain('200 levels');
    // mergeYaml starts afresh from the value instead of composing the deep text
    expect(mergeYaml(deep(300), { a: 1 })).toBe('a: 1\n');
  });

  it('writes plain YAML', () => {
    expect(toYaml({ a: 1, b: ['x'] })).toBe('a: 1\nb:\n  - x\n');
  });
});
