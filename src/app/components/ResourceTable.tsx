// The list of a kind: kubectl's columns (from the kind's printer columns),
// sorting, virtualised rows so thousands stay smooth, and a brief highlight
// on rows whose shown cells a watch event just changed (a node's heartbeat
// changes its object every few seconds but nothing the row shows).
import { memo, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { KindDefinition, KubeObject, PrinterColumn } from '../../kinds/kind.ts';
import { icons } from './icons.tsx';
import { useNow } from './common.tsx';
import { sortRows, type SortedRows } from './sortedRows.ts';

export interface Column {
  name: string;
  /** Narrowest width in pixels, and share of the spare width. */
  min: number;
  grow: number;
  cell: (o: KubeObject, now: Date) => string | number | boolean;
  sortValue: (o: KubeObject) => string | number;
}

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

const BAD = /^(NotReady|Unknown|Failed|Error|CrashLoopBackOff|ImagePullBackOff|ErrImagePull|Terminating|false)/;
const GOOD = /^(Ready|Running|Active|Succeeded|Completed|true)$/;
function tone(col: string, v: string | number | boolean): string {
  if (col !== 'Status' && col !== 'Attached') return '';
  const s = String(v);
  return BAD.test(s) ? 'bad' : GOOD.test(s) ? 'ok' : s.includes('SchedulingDisabled') ? 'warn' : '';
}

/** The cells a row shows, as one string; ages are taken at a fixed instant, so the clock alone changes nothing. */
const FIXED = new Date(0);
const shownCells = (o: KubeObject, columns: Column[]) => columns.map((c) => String(c.cell(o, FIXED))).join('\u0000');

interface Shown {
  object: KubeObject;
  /** The shown cells, once the object has been replaced (taken lazily). */
  cells?: string;
  /** When the shown cells last changed (0: not since the list was first drawn). */
  changedAt: number;
}

/**
 * Per row, when what it shows last changed; work only for objects the watch
 * replaced (a row's cells are first taken when its object is first replaced,
 * so drawing a 50,000-row list computes none). The index is updated in place:
 * a new Map of every row on each watch flush cost more than all the rest.
 */
function useShownChanges(items: KubeObject[], columns: Column[]): Map<string, Shown> {
  const seen = useRef<{ columns: Column[]; rows: Map<string, Shown> }>({ columns, rows: new Map() });
  return useMemo(() => {
    // Other columns (wide output, another namespace scope) are a new view, not a change of the rows.
    let rows = seen.current.columns === columns ? seen.current.rows : new Map<string, Shown>();
    const now = Date.now();
    for (const o of items) {
      const uid = o.metadata.uid ?? o.metadata.name ?? '';
      const p = rows.get(uid);
      if (!p) rows.set(uid, { object: o, changedAt: 0 });
      else if (p.object !== o) {
        const before = p.cells ?? shownCells(p.object, columns);
        const cells = shownCells(o, columns);
        if (before !== cells) p.changedAt = now;
        p.object = o;
        p.cells = cells;
      }
    }
    // Rows deleted (or filtered out) stay known a while; past twice the list, the index starts over from the rows shown.
    if (rows.size > 2 * items.length + 1000) {
      const kept = new Map<string, Shown>();
      for (const o of items) {
        const uid = o.metadata.uid ?? o.metadata.name ?? '';
        kept.set(uid, rows.get(uid)!);
      }
      rows = kept;
    }
    seen.current = { columns, rows };
    return rows;
  }, [items, columns]);
}

/** Rows in sort order, kept incrementally across watch updates (sortedRows.ts). */
function useSortedRows(items: KubeObject[], sortCol: Column, desc: boolean): KubeObject[] {
  const state = useRef<SortedRows | undefined>(undefined);
  return useMemo(() => {
    state.current = sortRows(state.current, items, sortCol.sortValue, desc);
    return state.current.rows;
  }, [items, sortCol, desc]);
}

interface RowProps {
  object: KubeObject;
  columns: Column[];
  template: string;
  top: number;
  /** When the shown cells last changed, while that is recent; 0 otherwise. */
  flash: number;
  now: number;
  onOpen(o: KubeObject): void;
}

const Row = memo(function Row({ object, columns, template, top, flash, now, onOpen }: RowProps) {
  const date = new Date(now);
  return (
    <div
      className="trow"
      // Contained (not paint, which would clip the focus ring): rows filled while scrolling lay out nothing else.
      style={{ gridTemplateColumns: template, transform: `translateY(${top}px)`, height: ROW_HEIGHT, contain: 'size layout style' }}
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
      {columns.map((c, i) => {
        const v = c.cell(object, date);
        const t = tone(c.name, v);
        return (
          <div className={`cell${i === 0 || c.name === 'Name' ? ' name' : ''}`} role="cell" key={c.name}>
            {t ? <span className={`badge ${t}`}>{String(v)}</span> : typeof v === 'boolean' ? String(v) : v === '' ? '' : String(v)}
          </div>
        );
      })}
    </div>
  );
});

export function ResourceTable(props: {
  items: KubeObject[];
  columns: Column[];
  sort: string;
  onSort(sort: string): void;
  onOpen(o: KubeObject): void;
  empty: string;
  footer?: string;
}) {
  const { columns, sort } = props;
  const now = useNow();
  const scrollRef = useRef<HTMLDivElement>(null);
  const desc = sort.startsWith('-');
  const sortCol = columns.find((c) => c.name === sort.replace(/^-/, '')) ?? columns.find((c) => c.name === 'Name') ?? columns[0];
  const rows = useSortedRows(props.items, sortCol, desc);
  const template = columns.map((c) => `minmax(${c.min}px, ${c.grow}fr)`).join(' ');
  const minWidth = columns.reduce((sum, c) => sum + c.min, 0);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  // Rows are keyed by their slot in the window (index modulo the most rows ever drawn, unique over any
  // contiguous window), not by object: scrolling then fills the rows already in the DOM with other
  // objects instead of unmounting and mounting a screenful of rows every frame.
  const windowed = virtualizer.getVirtualItems();
  const slots = useRef(1);
  slots.current = Math.max(slots.current, windowed.length);
  const recent = now - 1600;
  const shown = useShownChanges(props.items, columns);

  return (
    <div className="table-wrap" role="table" aria-rowcount={rows.length}>
      <div className="table-scroll" ref={scrollRef}>
        <div className="thead" role="row" style={{ gridTemplateColumns: template, minWidth }}>
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
        {rows.length === 0 ? (
          <div className="empty">{props.empty}</div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth }}>
            {windowed.map((v) => {
              const o = rows[v.index];
              const changed = shown.get(o.metadata.uid ?? o.metadata.name ?? '')?.changedAt ?? 0;
              return (
                <Row key={v.index % slots.current} object={o} columns={columns} template={template} top={v.start} flash={changed > recent ? changed : 0} now={now} onOpen={props.onOpen} />
              );
            })}
          </div>
        )}
      </div>
      {props.footer && <div className="table-foot">{props.footer}</div>}
    </div>
  );
}
