// A list's Status filter: the values its state column shows (Status; a
// VolumeAttachment's Attached), each with how many of the list's objects show
// it, counted from the list's changes (tally.ts) so that a rollout's watch
// flushes count only what they replaced. Choosing one shows the objects that
// show it, or those that do not ("not Running" finds the dozen pods of 50,000
// that are not, as `kubectl get pods -A --field-selector=status.phase!=Running`
// does, but by the column as it reads: CrashLoopBackOff is Running to the phase).
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { count } from '../../lib/words.ts';
import type { Tally } from './tally.ts';

/** Cells are taken at a fixed instant: no Status cell tells time, and one read at another would count an object twice. */
const FIXED = new Date(0);

/** The printer columns that tell an object's state: the table tones their cells (ResourceTable's cellTone), and a list filters by them. */
export const STATE_COLUMNS: readonly string[] = ['Status', 'Attached'];

/** A kind's state column, as the Status filter reads it. */
export interface StateColumn {
  /** The column's name: the filter's label. */
  name: string;
  /** A true/false column: "not true" is "false", so the filter offers no "not". */
  yesNo: boolean;
  /**
   * The parts of an object's cell. A node's cell joins its state and its cordon
   * ("Ready,SchedulingDisabled", as kubectl prints it): each part is a value of its own, so
   * "SchedulingDisabled" finds every cordoned node. Read once per object (an object is replaced, never changed).
   */
  parts(o: KubeObject): readonly string[];
}

/** The kind's state column, or undefined for a kind without one. */
export function stateColumnOf(kind: KindDefinition): StateColumn | undefined {
  const column = kind.printerColumns.find((c) => STATE_COLUMNS.includes(c.name));
  if (!column) return undefined;
  const read = new WeakMap<KubeObject, readonly string[]>();
  return {
    name: column.name,
    yesNo: column.type === 'boolean',
    parts: (o) => {
      let parts = read.get(o);
      if (!parts) read.set(o, (parts = String(column.cell(o, FIXED)).split(',').filter(Boolean)));
      return parts;
    },
  };
}

/** Whether an object whose Status parts are `parts` passes `filter`: a value it shows ("Running"), or one it does not ("!Running"). */
export function statusPasses(parts: readonly string[], filter: string): boolean {
  return filter.startsWith('!') ? !parts.includes(filter.slice(1)) : parts.includes(filter);
}

/** The Status filter's menu: each value the list's objects show, then each they may not, with how many. */
export function StatusFilter({ column, statuses, total, value, onChange }: { column: StateColumn; statuses: Tally; total: number; value: string; onChange(value: string): void }) {
  const chosen = value.replace(/^!/, '');
  // A value from the URL that no object shows now is still offered, with its count of none.
  const values = chosen && !statuses.counts.has(chosen) ? [...statuses.values, chosen].sort() : statuses.values;
  const n = (v: string) => statuses.counts.get(v) ?? 0;
  return (
    <select className="input" style={{ width: 180 }} aria-label={column.name} value={value} onChange={(e) => onChange(e.target.value)} title={`Show the objects whose ${column.name} column shows a value${column.yesNo ? '' : ', or does not'}`}>
      <option value="">{column.name === 'Status' ? 'Any status' : `${column.name}: any`}</option>
      <optgroup label={`${column.name} is`}>
        {values.map((v) => (
          <option key={v} value={v}>
            {v} ({count(n(v))})
          </option>
        ))}
      </optgroup>
      {!column.yesNo && (
        <optgroup label={`${column.name} is not`}>
          {values.map((v) => (
            <option key={v} value={`!${v}`}>
              not {v} ({count(total - n(v))})
            </option>
          ))}
        </optgroup>
      )}
    </select>
  );
}
