// The list of a kind: kubectl's columns (from the kind's printer columns),
// sorting, windowed rows (WindowedRows) so thousands stay smooth, and a brief highlight
// on rows whose shown cells a watch event just changed (a node's heartbeat
// changes its object every few seconds but nothing the row shows).
import { memo, useCallback, useMemo, useRef, useState, type CSSProperties } from 'react';
import type { KindDefinition, KubeObject, PrinterColumn } from '../../kinds/kind.ts';
import { icons } from './icons.tsx';
import { useNow } from './common.tsx';
import { useSortedRows, type SortedRows } from './sortedRows.ts';
import { uidOf, type ListChange } from '../api/watch.ts';
import { WindowedRows } from './WindowedRows.tsx';
import { STATE_COLUMNS } from './StatusFilter.tsx';
import './table.css';

export interface Column {
  name: string;
  /** Narrowest width in pixels, and share of the spare width. */
  min: number;
  grow: number;
  cell: (o: KubeObject, now: Date) => string | number | boolean;
  sortValue: (o: KubeObject) => string | number;
}

/** Every row's height in px (table.css gives .trow the same). */
const ROW_HEIGHT = 37;

function toColumn(c: PrinterColumn): Column {
  if (c.name === 'Age') {
    return { name: c.name, min: 80, grow: 0.4, cell: c.cell, sortValue: (o) => -Date.parse(o.metadata.creationTimestamp ?? '') || 0 };
  }
  const numeric = c.type === 'integer' || c.type === 'number';
  const [min, grow] = c.format === 'name' ? [200, 2] : numeric ? [90, 0.6] : c.name === 'Status' ? [230, 1] : c.priority === 1 ? [160, 1.2] : [120, 1];
  return {
    name: c.name,
    min,
    grow,
    cell: c.cell,
    sortValue: (o) => {
      const v = c.cell(o, new Date());
      return typeof v === 'number' ? v : String(v);
    },
  };
}

/** Columns for a kind: printer columns (wide ones on request), with NAMESPACE when listing across namespaces. */
export function columnsFor(kind: KindDefinition, wide: boolean, allNamespaces: boolean): Column[] {
  const cols = kind.printerColumns.filter((c) => wide || c.priority === 0).map(toColumn);
  if (kind.scope === 'Namespaced' && allNamespaces) {
    cols.unshift({ name: 'Namespace', min: 130, grow: 1, cell: (o) => o.metadata.namespace ?? '', sortValue: (o) => o.metadata.namespace ?? '' });
  }
  return cols;
}

/**
 * Each column's width in px for a table `width` px wide: its narrowest width
 * and its share (grow) of what is left; never narrower than that, so a narrow
 * table scrolls sideways.
 */
export function columnWidths(columns: Column[], width: number): number[] {
  const spare = Math.max(0, width - columns.reduce((sum, c) => sum + c.min, 0));
  const grow = columns.reduce((sum, c) => sum + c.grow, 0) || 1;
  return columns.map((c) => Math.floor(c.min + (spare * c.grow) / grow));
}

const BAD = /^(NotReady|Unknown|Failed|Error|CrashLoopBackOff|ImagePullBackOff|ErrImagePull|Terminating|false)/;
const GOOD = /^(Ready|Running|Active|Succeeded|Completed|true)$/;
/** The badge tone of a cell (Status and Attached columns): 'ok', 'bad', 'warn' or none. */
export function cellTone(col: string, v: string | number | boolean): string {
  if (!STATE_COLUMNS.includes(col)) return '';
  const s = String(v);
  return BAD.test(s) ? 'bad' : GOOD.test(s) ? 'ok' : s.includes('SchedulingDisabled') ? 'warn' : '';
}

/** The cells a row shows, as one string; ages are taken at a fixed instant, so the clock alone changes nothing. */
const FIXED = new Date(0);
const shownCells = (o: KubeObject, columns: Column[]) => columns.map((c) => String(c.cell(o, FIXED))).join('\u0000');

interface Cells {
  columns: Column[];
  now: number;
  text: string[];
  tones: string[];
}
const cellCache = new WeakMap<KubeObject, Cells>();

/**
 * A row's cells, taken once per object version and clock tick (kept by
 * object): a row scrolled back into view, or re-rendered for another reason,
 * derives nothing again; the cost is the objects scrolled to, once.
 */
function cellsOf(o: KubeObject, columns: Column[], now: number): Cells {
  let c = cellCache.get(o);
  if (!c || c.columns !== columns || c.now !== now) {
    const date = new Date(now);
    const text: string[] = [];
    const tones: string[] = [];
    for (const col of columns) {
      const v = col.cell(o, date);
      text.push(v === '' ? '' : String(v));
      tones.push(cellTone(col.name, v));
    }
    cellCache.set(o, (c = { columns, now, text, tones }));
  }
  return c;
}

/**
 * When each row's shown cells last changed, for the rows the last sort steps
 * replaced (an object of the same uid taken out and put in): work only for
 * the objects a watch flush changed, never a pass over the list. Only recent
 * changes are kept.
 */
function useFlashes(step: SortedRows, columns: Column[]): Map<string, number> {
  const seen = useRef<{ step?: SortedRows; columns: Column[]; at: Map<string, number> }>({ columns, at: new Map() });
  return useMemo(() => {
    const s = seen.current;
    // Other columns (wide output, another namespace scope) are a new view, not a change of the rows.
    if (s.columns !== columns) ((s.columns = columns), (s.at = new Map()));
    else if (s.step !== step && step.added.length && step.removed.length) {
      const now = Date.now();
      const before = new Map<string, KubeObject>();
      for (const o of step.removed) before.set(uidOf(o), o);
      for (const o of step.added) {
        const b = before.get(uidOf(o));
        if (b && shownCells(b, columns) !== shownCells(o, columns)) s.at.set(uidOf(o), now);
      }
      for (const [uid, t] of s.at) if (t < now - FLASH_MS) s.at.delete(uid);
    }
    s.step = step;
    return s.at;
  }, [step, columns]);
}

const FLASH_MS = 1600;

/**
 * Each column's left edge and width in px, from the same widths as the
 * header's template: a row's cells are blocks at fixed offsets, so a row
 * coming into view lays out no grid (a grid per row was most of the layout
 * of each scrolled frame).
 */
type Placement = readonly CSSProperties[];
export function placementOf(widths: readonly number[]): Placement {
  const placement: CSSProperties[] = [];
  let left = 0;
  for (const width of widths) {
    placement.push({ left, width });
    left += width;
  }
  return placement;
}

interface RowProps {
  object: KubeObject;
  cells: Cells;
  placement: Placement;
  top: number;
  /** When the shown cells last changed, while that is recent; 0 otherwise. */
  flash: number;
  onOpen(o: KubeObject): void;
}

const Row = memo(function Row({ object, cells, placement, top, flash, onOpen }: RowProps) {
  return (
    <div
      className="trow"
      style={{ transform: `translateY(${top}px)` }}
      role="row"
      data-name={object.metadata.name}
      data-namespace={object.metadata.namespace}
      data-rv={object.metadata.resourceVersion}
      tabIndex={0}
      onClick={() => onOpen(object)}
      onKeyDown={(e) => e.key === 'Enter' && onOpen(object)}
    >
      {/* Remounted per change, so each visible change replays the highlight. */}
      {flash > 0 && <span className="row-flash" key={flash} aria-hidden="true" />}
      {cells.text.map((v, i) => (
        <div className={i === 0 || cells.columns[i].name === 'Name' ? 'cell name' : 'cell'} role="cell" key={cells.columns[i].name} style={placement[i]}>
          {cells.tones[i] ? <span className={`badge ${cells.tones[i]}`}>{v}</span> : v}
        </div>
      ))}
    </div>
  );
});

export function ResourceTable(props: {
  items: readonly KubeObject[];
  /** How `items` differs from the items of the last render, when known (the list's or the filter's change). */
  change?: ListChange;
  columns: Column[];
  sort: string;
  onSort(sort: string): void;
  onOpen(o: KubeObject): void;
  empty: string;
  footer?: string;
}) {
  const { columns, sort } = props;
  const now = useNow();
  const desc = sort.startsWith('-');
  const sortCol = columns.find((c) => c.name === sort.replace(/^-/, '')) ?? columns.find((c) => c.name === 'Name') ?? columns[0];
  // Rows in sort order, kept incrementally across watch updates.
  const sorted = useSortedRows(props.items, props.change, sortCol.sortValue, desc);
  const rows = sorted.rows;
  const [width, setWidth] = useState(0);
  const widths = useMemo(() => columnWidths(columns, width), [columns, width]);
  const minWidth = widths.reduce((sum, w) => sum + w, 0);
  const placement = useMemo(() => placementOf(widths), [widths]);
  // One callback for the table's life: a new one from each render of the page (every page of a loading list) would render every row again.
  const onOpenNow = useRef(props.onOpen);
  onOpenNow.current = props.onOpen;
  const onOpen = useCallback((o: KubeObject) => onOpenNow.current(o), []);
  const cols = { '--cols': widths.map((w) => `${w}px`).join(' ') } as CSSProperties;
  const recent = now - FLASH_MS;
  const flashes = useFlashes(sorted, columns);

  return (
    <div className="table-wrap" role="table" aria-rowcount={rows.length} style={cols}>
      <WindowedRows
        className="table-scroll"
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        // Few rows beyond the view: a fast scroll replaces every row drawn each frame, so rows drawn out of view were a third more work.
        overscan={4}
        minWidth={minWidth}
        onWidth={setWidth}
        header={
          <div className="thead" role="row" style={{ minWidth }}>
            {columns.map((c) => {
              const active = c === sortCol;
              return (
                <div role="columnheader" key={c.name} aria-sort={active ? (desc ? 'descending' : 'ascending') : 'none'}>
                  <button onClick={() => props.onSort(active && !desc ? `-${c.name}` : c.name)}>
                    {c.name}
                    {active && (desc ? icons.sortDown : icons.sortUp)}
                  </button>
                </div>
              );
            })}
          </div>
        }
        empty={<div className="empty">{props.empty}</div>}
        // Keyed by slot, not by object: scrolling fills the rows already in the DOM with other objects.
        renderRow={(i, top, slot) => {
          const o = rows[i];
          const changed = flashes.get(uidOf(o)) ?? 0;
          return <Row key={slot} object={o} cells={cellsOf(o, columns, now)} placement={placement} top={top} flash={changed > recent ? changed : 0} onOpen={onOpen} />;
        }}
      />
      {props.footer && <div className="table-foot">{props.footer}</div>}
    </div>
  );
}
