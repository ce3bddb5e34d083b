// Managed fields' FieldsV1 values shared between cached objects. The pods of a DaemonSet, and the
// events of one component, carry the same FieldsV1 for each manager: the same tree of field names,
// parsed into objects of their own for each object. Half of a cached pod's heap (8.5 of 4.4 KB of
// JSON) and of an event's was those trees; one object per distinct value, shared, is 4.1 KB a pod.
// Cached objects are never changed (cache.ts), so sharing a part of them is safe.
import type { KubeObject } from '../../kinds/kind.ts';

/** Distinct values kept for sharing at most; past it the table starts over (what is shared stays shared). */
const MAX_DISTINCT = 20_000;

export class SharedFields {
  private readonly byText = new Map<string, object>();
  /** The values handed out: an object's entry holding one of them is shared already. */
  private readonly shared = new WeakSet<object>();

  /**
   * Points each managed fields entry of `o` at the shared object of its FieldsV1 value. `o` must
   * not be frozen. The entries of `previous` (the object's version before) are tried first, by
   * comparing the trees: a Lease renewal or a status write mostly keeps its manager's fields, and
   * comparing costs less than the value's text.
   */
  share(o: KubeObject, previous?: KubeObject): void {
    const entries = o.metadata?.managedFields as { fieldsV1?: unknown }[] | undefined;
    if (!Array.isArray(entries)) return;
    const before = previous?.metadata?.managedFields as { fieldsV1?: unknown }[] | undefined;
    for (const e of entries) {
      const f = e?.fieldsV1;
      if (f === null || typeof f !== 'object' || this.shared.has(f) || Object.isFrozen(e)) continue;
      const same = before?.find((p) => this.shared.has(p?.fieldsV1 as object) && sameTree(p.fieldsV1, f))?.fieldsV1 as object | undefined;
      if (same) {
        e.fieldsV1 = same;
        continue;
      }
      const text = JSON.stringify(f);
      let c = this.byText.get(text);
      if (c === undefined) {
        if (this.byText.size >= MAX_DISTINCT) this.byText.clear();
        this.byText.set(text, (c = f));
        this.shared.add(f);
      }
      e.fieldsV1 = c;
    }
  }
}

/** Whether two JSON values are equal, their objects' keys in the same order (as their texts would be). */
function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !sameTree((a as Record<string, unknown>)[ka[i]], (b as Record<string, unknown>)[kb[i]])) return false;
  return true;
}
