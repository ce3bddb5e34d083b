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

  /** Points each managed fields entry of `o` at the shared object of its FieldsV1 value. `o` must not be frozen. */
  share(o: KubeObject): void {
    const entries = o.metadata?.managedFields as { fieldsV1?: unknown }[] | undefined;
    if (!Array.isArray(entries)) return;
    for (const e of entries) {
      const f = e?.fieldsV1;
      if (f === null || typeof f !== 'object' || this.shared.has(f) || Object.isFrozen(e)) continue;
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
