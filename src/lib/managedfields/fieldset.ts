// Sets of field paths, as structured-merge-diff keeps them (fieldpath.Set):
// each level holds the path elements that are members of the set and the
// subsets below path elements. A path element is written as in FieldsV1:
//   f:<name>          a field of a struct or a key of a map
//   k:{"key":"value"} an item of a map-type list, by its keys (sorted)
//   v:<json>          an item of a set-type list, by its value
//   i:<n>             an item of an atomic list by index (only in paths, never owned)
// FieldsV1 is the same tree as JSON: `{}` for a member with nothing below,
// `".": {}` for a member that also has children.

export type PathElement = string;
/** A field set as managedFields write it: path elements, `.` for a member with more below it. */
export type FieldsV1 = { [pe: string]: FieldsV1 };
export type FieldPath = readonly PathElement[];

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPath): void {
    if (!path.length) return;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.child(path[i]);
    s.members.add(path[path.length - 1]);
  }

  /** The subset below `pe`, created when missing (for walks that fill a set level by level). */
  child(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) this.children.set(pe, (c = new FieldSet()));
    return c;
  }

  has(path: FieldPath): boolean {
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && s; i++) s = s.children.get(path[i]);
    return !!s && path.length > 0 && s.members.has(path[path.length - 1]);
  }

  empty(): boolean {
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  /** The subset below `pe`, or an empty set. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? new FieldSet();
  }

  /** Nothing at this level (sets built by operations hold no empty subsets). */
  private bare(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  // Operations may return one of their operands: sets are not changed once built.
  union(o: FieldSet): FieldSet {
    if (o.bare()) return this;
    if (this.bare()) return o;
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of o.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.union(o.children.get(pe) ?? EMPTY));
    for (const [pe, c] of o.children) if (!this.children.has(pe)) out.children.set(pe, c.union(EMPTY));
    return out.shallowPruned();
  }

  intersection(o: FieldSet): FieldSet {
    if (o.bare()) return o;
    if (this.bare()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (oc) out.children.set(pe, c.intersection(oc));
    }
    return out.shallowPruned();
  }

  /** Paths of this set not in `o` (children of a removed member stay). */
  difference(o: FieldSet): FieldSet {
    if (o.bare() || this.bare()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.difference(o.children.get(pe) ?? EMPTY));
    return out.shallowPruned();
  }

  /** Paths of this set not in `o` nor below a member of `o`. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.bare() || this.bare()) return this;
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (o.members.has(pe)) continue;
      out.children.set(pe, c.recursiveDifference(o.children.get(pe) ?? EMPTY));
    }
    return out.shallowPruned();
  }

  /**
   * Struct fields with something below them become members themselves
   * (EnsureNamedFieldsAreMembers): removing what an applier no longer sends
   * then removes the struct, not just its leaves. Only `f:` elements are
   * fields; list items are not.
   */
  ensureNamedFieldsAreMembers(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (c.empty()) continue;
      if (pe.startsWith('f:')) out.members.add(pe);
      out.children.set(pe, c.ensureNamedFieldsAreMembers());
    }
    return out;
  }

  /** Every member path, depth first in element order. */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = [];
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements);
    for (const pe of keys) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const c = this.children.get(pe);
      if (c) out.push(...c.paths([...prefix, pe]));
    }
    return out;
  }

  equals(o: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(o.toFieldsV1());
  }

  /** Drops empty subsets of this level (set operations build each level from pruned ones). */
  private shallowPruned(): FieldSet {
    for (const [pe, c] of this.children) if (c.members.size === 0 && c.children.size === 0) this.children.delete(pe);
    return this;
  }

  /** Drops empty subsets, at every level (after a walk that created them ahead of need). */
  pruned(): FieldSet {
    for (const [pe, c] of this.children) if (c.pruned().empty()) this.children.delete(pe);
    return this;
  }

  /** The FieldsV1 form, keys in structured-merge-diff's order. */
  toFieldsV1(): Record<string, unknown> {
    return this.toFieldsV1Into({});
  }

  private toFieldsV1Into(out: Record<string, unknown>): Record<string, unknown> {
    const keys = Array.from(this.members);
    for (const pe of this.children.keys()) if (!this.members.has(pe)) keys.push(pe);
    for (const pe of sortPathElements(keys)) {
      const c = this.children.get(pe);
      if (c && !c.bare()) {
        const below: Record<string, unknown> = this.members.has(pe) ? { '.': {} } : {};
        out[pe] = c.toFieldsV1Into(below);
      } else if (this.members.has(pe)) out[pe] = {};
    }
    return out;
  }

  /** Reads FieldsV1; throws FieldsV1Error for anything that is not one. */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    if (!isPlainObject(v)) throw new FieldsV1Error('FieldsV1 must be an object');
    // Written for large maps (a ConfigMap's tens of thousands of keys): no array per entry.
    for (const pe in v) {
      if (pe === '.' || !Object.hasOwn(v, pe)) continue;
      if (pe.charCodeAt(1) !== 58 /* ':' */ || !'fkvi'.includes(pe[0])) throw new FieldsV1Error(`unexpected path element ${JSON.stringify(pe)}`);
      const sub = v[pe];
      if (!isPlainObject(sub)) throw new FieldsV1Error(`expected an object below ${JSON.stringify(pe)}`);
      let dot = false;
      let below = false;
      for (const k in sub) {
        if (!Object.hasOwn(sub, k)) continue;
        if (k === '.') dot = true;
        else below = true;
        if (dot && below) break;
      }
      if (dot || !below) s.members.add(pe);
      if (below) s.children.set(pe, FieldSet.fromFieldsV1(sub));
    }
    return s;
  }
}

const EMPTY = new FieldSet();

export class FieldsV1Error extends Error {}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };
/** Fields before keyed items before values before indexes; within a kind, by text. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const d = (ORDER[a[0]] ?? 9) - (ORDER[b[0]] ?? 9);
  if (d) return d;
  if (a[0] === 'i' && b[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sorts path elements as comparePathElements does, fast for the common case
 * of a large map (every element a field): the engine's own string order then.
 */
export function sortPathElements(keys: PathElement[]): PathElement[] {
  if (keys.every((pe) => pe.startsWith('f:'))) return keys.sort();
  return keys.sort(comparePathElements);
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

export const fieldPE = (name: string): PathElement => `f:${name}`;
