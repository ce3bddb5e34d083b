// Label selectors matched once per distinct label set: pods and namespaces
// are interned to label-set ids and each (selector, label set) answer is
// remembered, so the cost follows distinct selectors x distinct label sets.
import { labelSelectorAsRequirements, matchesRequirements, type LabelSelector, type Requirement } from '../labels.ts';

/** The selector id of an absent or invalid selector: it selects nothing. */
export const SELECTS_NOTHING = -1;

/** A label set's identity: its pairs in key order, one a line. */
export function labelSetKey(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.map((k) => `${k}=${labels![k]}`).join('\n');
}

export class SelectorMatcher {
  private readonly labelSetIds = new Map<string, number>();
  private readonly labelSets: Record<string, string>[] = [];
  private readonly selectorIds = new Map<string, number>();
  private readonly selectors: Requirement[][] = [];
  /** Per selector: 0 unknown, 1 match, 2 no match, indexed by label-set id. */
  private readonly memo: Uint8Array[] = [];

  labelSet(labels: Record<string, string> | undefined): number {
    const key = labelSetKey(labels);
    let id = this.labelSetIds.get(key);
    if (id === undefined) {
      id = this.labelSets.length;
      this.labelSets.push(labels ?? {});
      this.labelSetIds.set(key, id);
    }
    return id;
  }

  selector(sel: LabelSelector | null | undefined): number {
    if (sel === null || sel === undefined) return SELECTS_NOTHING;
    let reqs: Requirement[];
    try {
      reqs = labelSelectorAsRequirements(sel);
    } catch {
      return SELECTS_NOTHING;
    }
    const key = JSON.stringify(reqs);
    let id = this.selectorIds.get(key);
    if (id === undefined) {
      id = this.selectors.length;
      this.selectors.push(reqs);
      this.memo.push(new Uint8Array(0));
      this.selectorIds.set(key, id);
    }
    return id;
  }

  /** Every label key some selector reads: other labels cannot change any answer. */
  keys(): Set<string> {
    return new Set(this.selectors.flatMap((reqs) => reqs.map((r) => r.key)));
  }

  matches(selector: number, labelSet: number): boolean {
    if (selector === SELECTS_NOTHING) return false;
    let m = this.memo[selector];
    if (m.length <= labelSet) {
      const grown = new Uint8Array(Math.max(2 * m.length, this.labelSets.length, labelSet + 1, 64));
      grown.set(m);
      this.memo[selector] = m = grown;
    }
    if (m[labelSet] === 0) m[labelSet] = matchesRequirements(this.selectors[selector], this.labelSets[labelSet]) ? 1 : 2;
    return m[labelSet] === 1;
  }
}
