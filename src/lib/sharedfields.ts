// Managed fields' FieldsV1 values shared between objects. The pods of a DaemonSet, and the events
// of one component, carry the same FieldsV1 for each manager: the same tree of field names, parsed
// into objects of their own for each object. Half of a pod's heap (8.5 KB for 4.4 KB of JSON) and
// of an event's was those trees; one object per distinct value, shared, is 4.1 KB a pod. The server's
// watch cache shares them. The app's lists did too, tried and dropped: at 60,000 pods the tab's heap
// was 256 MB against 333, but comparing the trees doubled the long tasks while the list loaded. The
// app's lists now hold no managedFields at all (app/api/unmanaged.ts): 166 MB.

import { sameJSONText } from './json.ts';

interface WithManagedFields {
  metadata?: { managedFields?: unknown };
}
interface Entry {
  manager?: unknown;
  operation?: unknown;
  subresource?: unknown;
  fieldsV1?: unknown;
}

/** Distinct values (and managers) kept for sharing at most; past it the table starts over (what is shared stays shared). */
const MAX_DISTINCT = 20_000;

export class SharedFields {
  private readonly byText = new Map<string, object>();
  /** The values handed out: an entry holding one of them is shared already. */
  private readonly shared = new WeakSet<object>();
  /** The value last handed out for each manager (name, operation, subresource): the next object of a list mostly has the same. */
  private readonly recent = new Map<string, object>();

  /**
   * Points each managed fields entry of `o` at the shared object of its FieldsV1 value; `o` must
   * not be frozen. A value is looked for first as its manager's last value (the objects of a list
   * mostly repeat it), then among the entries of `previous` (the object's version before: a Lease
   * renewal or a status write keeps its manager's fields), by comparing the trees, which costs
   * less than making the value's text.
   */
  share(o: WithManagedFields, previous?: WithManagedFields): void {
    const entries = o.metadata?.managedFields as Entry[] | undefined;
    if (!Array.isArray(entries)) return;
    const before = previous?.metadata?.managedFields as Entry[] | undefined;
    for (const e of entries) {
      const f = e?.fieldsV1;
      if (f === null || typeof f !== 'object' || this.shared.has(f) || Object.isFrozen(e)) continue;
      const manager = `${e.manager}\u0000${e.operation}\u0000${e.subresource ?? ''}`;
      const last = this.recent.get(manager);
      let c = last !== undefined && sameJSONText(last, f) ? last : (before?.find((p) => this.shared.has(p?.fieldsV1 as object) && sameJSONText(p.fieldsV1, f))?.fieldsV1 as object | undefined);
      if (c === undefined) {
        const text = JSON.stringify(f);
        c = this.byText.get(text);
        if (c === undefined) {
          if (this.byText.size >= MAX_DISTINCT) this.byText.clear();
          this.byText.set(text, (c = f));
          this.shared.add(f);
        }
      }
      if (c !== last) {
        if (last === undefined && this.recent.size >= MAX_DISTINCT) this.recent.clear();
        this.recent.set(manager, c);
      }
      e.fieldsV1 = c;
    }
  }
}
