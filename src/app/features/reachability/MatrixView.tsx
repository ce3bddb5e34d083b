// Sources (rows) by destinations (columns), pods of one namespace with the
// same labels folded into one row and one column. Each cell says allowed
// (✓ on a plain fill), denied (✕ on a hatch) or some pairs (◐ on stripes), so
// the answer never rests on colour alone. Up to DOM_LIMIT groups the matrix
// is a table of buttons (keyboard and screen readers); beyond, a canvas that
// draws only the visible cells, headers frozen.
import { Fragment, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ClusterSummary, MatrixView as MatrixAnswer, PodGroup, PolicyInfo } from './compute.ts';

const DOM_LIMIT = 60;

export type CellState = 'allowed' | 'denied' | 'partial';
export interface Cell {
  from: number;
  to: number;
}

export const SYMBOL: Record<CellState, string> = { allowed: '✓', denied: '✕', partial: '◐' };
export const STATE_TEXT: Record<CellState, string> = { allowed: 'allowed', denied: 'denied', partial: 'allowed for some pod pairs' };

export function cellState(summary: ClusterSummary, m: MatrixAnswer, from: number, to: number): { state: CellState; count: number; total: number } {
  const G = summary.groups.length;
  const count = m.counts[from * G + to];
  const total = summary.groups[from].podCount * summary.groups[to].podCount;
  return { state: count === 0 ? 'denied' : count === total ? 'allowed' : 'partial', count, total };
}

/** A stable handle for tests and links: ns/pod for a lone pod, ns/labels for a group. */
export const groupId = (g: PodGroup) => (g.podCount === 1 ? `${g.namespace}/${g.podNames[0]}` : `${g.namespace}/${Object.entries(g.labels).map(([k, v]) => `${k}=${v}`).join(',')}`);

/** The group's first pods' names, with how many there are in all when not every one is named. */
export const groupNames = (g: PodGroup) => g.podNames.join(', ') + (g.podCount > g.podNames.length ? `, … (${g.podCount} pods)` : '');

export function groupTitle(g: PodGroup): string {
  const labels = Object.entries(g.labels).map(([k, v]) => `${k}=${v}`).join(', ') || 'no labels';
  return `${g.namespace}: ${groupNames(g)}\nlabels: ${labels}${g.hostNetwork ? '\nhost network' : ''}`;
}

interface Props {
  summary: ClusterSummary;
  matrix: MatrixAnswer;
  policy?: PolicyInfo;
  selected?: Cell;
  onSelect(cell: Cell): void;
}

function highlightOf(policy: PolicyInfo | undefined, G: number) {
  const rows = new Uint8Array(G);
  const cols = new Uint8Array(G);
  if (policy) {
    // Rows: sources. A policy's selected pods are sources of its egress and destinations of its ingress.
    for (const g of policy.selects) {
      rows[g] |= 1;
      cols[g] |= 1;
    }
    for (const g of policy.admitsFrom) rows[g] |= 2;
    for (const g of policy.admitsTo) cols[g] |= 2;
    if (policy.admitsFromAll) rows.forEach((_, i) => (rows[i] |= 2));
    if (policy.admitsToAll) cols.forEach((_, i) => (cols[i] |= 2));
  }
  return { rows, cols };
}
const hlClass = (h: number) => (h & 1 ? ' hl-sel' : h & 2 ? ' hl-adm' : '');

export function MatrixView(props: Props) {
  return props.summary.groups.length > DOM_LIMIT ? <CanvasMatrix {...props} /> : <TableMatrix {...props} />;
}

function namespaceRuns(groups: PodGroup[]) {
  const runs: { ns: string; start: number; count: number }[] = [];
  groups.forEach((g, i) => {
    const last = runs.at(-1);
    if (last && last.ns === g.namespace) last.count++;
    else runs.push({ ns: g.namespace, start: i, count: 1 });
  });
  return runs;
}

/** Narrowest column, and the widths of a character in the namespace (12px monospace) and column (12px) heads. */
const COL_W = 30;
const MONO_CHAR = 7.3;
const HEAD_CHAR = 7;

function TableMatrix({ summary, matrix, policy, selected, onSelect }: Props) {
  const groups = summary.groups;
  const G = groups.length;
  const runs = useMemo(() => namespaceRuns(groups), [groups]);
  const nsStart = useMemo(() => new Set(runs.map((r) => r.start)), [runs]);
  const hl = useMemo(() => highlightOf(policy, G), [policy, G]);
  // Each group's handle and title once, not once per cell (G x G).
  const ids = useMemo(() => groups.map(groupId), [groups]);
  const titles = useMemo(() => groups.map(groupTitle), [groups]);
  const ref = useRef<HTMLTableElement>(null);
  // Headers are never cut: a namespace's columns widen until its name fits
  // above them, and the column heads are as tall as the longest group name.
  const { colWidth, headHeight } = useMemo(() => {
    const width = new Array<number>(G).fill(COL_W);
    for (const r of runs) {
      const w = Math.max(COL_W, Math.ceil((r.ns.length * MONO_CHAR + 14) / r.count));
      for (let j = r.start; j < r.start + r.count; j++) width[j] = w;
    }
    const longest = Math.max(0, ...groups.map((g) => g.name.length));
    return { colWidth: width, headHeight: Math.min(320, Math.max(80, Math.ceil(longest * HEAD_CHAR) + 14)) };
  }, [runs, groups, G]);

  // Arrow keys move between cells.
  const onKey = (e: KeyboardEvent<HTMLTableElement>) => {
    const t = e.target as HTMLElement;
    const from = Number(t.dataset.row);
    const to = Number(t.dataset.col);
    if (Number.isNaN(from) || Number.isNaN(to)) return;
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (!d) return;
    e.preventDefault();
    const r = Math.min(G - 1, Math.max(0, from + d[0]));
    const c = Math.min(G - 1, Math.max(0, to + d[1]));
    ref.current?.querySelector<HTMLButtonElement>(`button[data-row="${r}"][data-col="${c}"]`)?.focus();
  };

  if (!G) return <div className="empty">No pods yet. Pods appear here as soon as they are created.</div>;
  return (
    <div className="rx-matrix-scroll">
      <table className="rx-matrix" ref={ref} onKeyDown={onKey} aria-label={`Reachability on ${matrix.protocol} ${matrix.port}: sources in rows, destinations in columns`}>
        <thead>
          <tr>
            <th className="rx-corner" rowSpan={2} scope="col">
              <span>from ↓</span>
              <span>to →</span>
            </th>
            {runs.map((r) => (
              <th key={r.ns} colSpan={r.count} className="rx-ns-col" scope="colgroup" title={`namespace ${r.ns}`}>
                <div>{r.ns}</div>
              </th>
            ))}
          </tr>
          <tr>
            {groups.map((g, j) => (
              <th key={g.key} scope="col" className={`rx-col${nsStart.has(j) ? ' ns-start' : ''}${hlClass(hl.cols[j])}`} title={titles[j]} style={{ width: colWidth[j], minWidth: colWidth[j], height: headHeight }}>
                <span>{g.name}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.map((g, i) => {
            const run = runs.find((r) => r.start === i);
            return (
              <Fragment key={g.key}>
                {run && (
                  <tr className="rx-ns-band">
                    <th scope="rowgroup" className="rx-ns-row">
                      namespace {run.ns}
                    </th>
                    <td colSpan={G} />
                  </tr>
                )}
                <tr>
                  <th scope="row" className={`rx-row${hlClass(hl.rows[i])}`} title={titles[i]}>
                    {g.name}
                  </th>
                  {groups.map((h, j) => {
                    const { state, count, total } = cellState(summary, matrix, i, j);
                    const isSel = selected?.from === i && selected?.to === j;
                    const label = `${ids[i]} to ${ids[j]}: ${STATE_TEXT[state]}${state === 'partial' ? ` (${count} of ${total})` : ''}`;
                    return (
                      <td key={h.key} className={nsStart.has(j) ? 'ns-start' : undefined}>
                        <button
                          type="button"
                          className={`rx-cell ${state}${isSel ? ' selected' : ''}`}
                          data-state={state}
                          data-from={ids[i]}
                          data-to={ids[j]}
                          data-row={i}
                          data-col={j}
                          aria-label={label}
                          aria-pressed={isSel}
                          title={label}
                          tabIndex={isSel || (!selected && i === 0 && j === 0) ? 0 : -1}
                          onClick={() => onSelect({ from: i, to: j })}
                        >
                          {SYMBOL[state]}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// ---- canvas, for big clusters -------------------------------------------------

const CELL = 16;
const ROW_HEAD = 230;
const COL_HEAD = 150;

function cssVar(el: Element, name: string) {
  return getComputedStyle(el).getPropertyValue(name).trim() || '#888';
}

function CanvasMatrix({ summary, matrix, policy, selected, onSelect }: Props) {
  const groups = summary.groups;
  const G = groups.length;
  const scroller = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [view, setView] = useState({ x: 0, y: 0, w: 800, h: 600 });
  const [hover, setHover] = useState<string>();
  const hl = useMemo(() => highlightOf(policy, G), [policy, G]);
  const runs = useMemo(() => namespaceRuns(groups), [groups]);

  useLayoutEffect(() => {
    const s = scroller.current!;
    const update = () => setView({ x: s.scrollLeft, y: s.scrollTop, w: s.clientWidth, h: s.clientHeight });
    update();
    const ro = new ResizeObserver(update);
    ro.observe(s);
    s.addEventListener('scroll', update, { passive: true });
    return () => {
      ro.disconnect();
      s.removeEventListener('scroll', update);
    };
  }, []);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.floor(view.w * dpr);
    c.height = Math.floor(view.h * dpr);
    c.style.width = `${view.w}px`;
    c.style.height = `${view.h}px`;
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const col = {
      panel: cssVar(c, '--panel'),
      panel2: cssVar(c, '--panel-2'),
      border: cssVar(c, '--border'),
      text: cssVar(c, '--text'),
      muted: cssVar(c, '--muted'),
      ok: cssVar(c, '--ok'),
      okSoft: cssVar(c, '--ok-soft'),
      bad: cssVar(c, '--bad'),
      badSoft: cssVar(c, '--bad-soft'),
      warn: cssVar(c, '--warn'),
      warnSoft: cssVar(c, '--warn-soft'),
      accent: cssVar(c, '--accent'),
      accentSoft: cssVar(c, '--accent-soft'),
    };
    ctx.clearRect(0, 0, view.w, view.h);
    ctx.fillStyle = col.panel;
    ctx.fillRect(0, 0, view.w, view.h);
    const first = { i: Math.max(0, Math.floor(view.y / CELL)), j: Math.max(0, Math.floor(view.x / CELL)) };
    const last = { i: Math.min(G - 1, Math.ceil((view.y + view.h - COL_HEAD) / CELL)), j: Math.min(G - 1, Math.ceil((view.x + view.w - ROW_HEAD) / CELL)) };
    const px = (j: number) => ROW_HEAD + j * CELL - view.x;
    const py = (i: number) => COL_HEAD + i * CELL - view.y;
    ctx.font = `${CELL - 5}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let i = first.i; i <= last.i; i++) {
      for (let j = first.j; j <= last.j; j++) {
        const x = px(j);
        const y = py(i);
        const { state } = cellState(summary, matrix, i, j);
        if (state === 'allowed') {
          ctx.fillStyle = col.okSoft;
          ctx.fillRect(x, y, CELL - 1, CELL - 1);
          ctx.fillStyle = col.ok;
          ctx.fillText('✓', x + CELL / 2, y + CELL / 2);
        } else if (state === 'denied') {
          ctx.fillStyle = col.badSoft;
          ctx.fillRect(x, y, CELL - 1, CELL - 1);
          ctx.strokeStyle = col.bad;
          ctx.lineWidth = 1;
          ctx.beginPath();
          ctx.moveTo(x + 4, y + 4);
          ctx.lineTo(x + CELL - 5, y + CELL - 5);
          ctx.moveTo(x + CELL - 5, y + 4);
          ctx.lineTo(x + 4, y + CELL - 5);
          ctx.stroke();
        } else {
          ctx.fillStyle = col.warnSoft;
          ctx.fillRect(x, y, CELL - 1, CELL - 1);
          ctx.fillStyle = col.warn;
          ctx.beginPath();
          ctx.moveTo(x + CELL / 2, y + 3);
          ctx.arc(x + CELL / 2, y + CELL / 2, CELL / 2 - 3, -Math.PI / 2, Math.PI / 2);
          ctx.fill();
        }
      }
    }
    if (selected) {
      ctx.strokeStyle = col.text;
      ctx.lineWidth = 2;
      ctx.strokeRect(px(selected.to) - 1, py(selected.from) - 1, CELL + 1, CELL + 1);
    }
    // Namespace boundaries.
    ctx.strokeStyle = col.muted;
    ctx.lineWidth = 1.5;
    for (const r of runs) {
      if (r.start === 0) continue;
      ctx.beginPath();
      ctx.moveTo(px(r.start) - 0.5, COL_HEAD);
      ctx.lineTo(px(r.start) - 0.5, view.h);
      ctx.moveTo(ROW_HEAD, py(r.start) - 0.5);
      ctx.lineTo(view.w, py(r.start) - 0.5);
      ctx.stroke();
    }
    // Frozen headers.
    ctx.fillStyle = col.panel2;
    ctx.fillRect(0, 0, view.w, COL_HEAD);
    ctx.fillRect(0, 0, ROW_HEAD, view.h);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let i = first.i; i <= last.i; i++) {
      const y = py(i) + CELL / 2;
      if (y < COL_HEAD) continue;
      if (hl.rows[i]) headerMark(ctx, hl.rows[i], ROW_HEAD - 5, py(i) + 2, 3, CELL - 4, col);
      ctx.fillStyle = hl.rows[i] & 1 ? col.accent : col.text;
      ctx.textAlign = 'right';
      ctx.fillText(ellipsis(ctx, groups[i].name, ROW_HEAD - 100), ROW_HEAD - 9, y);
      if (runs.some((r) => r.start === i) || i === first.i) {
        ctx.fillStyle = col.muted;
        ctx.textAlign = 'left';
        ctx.fillText(ellipsis(ctx, groups[i].namespace, 86), 6, y);
      }
    }
    for (let j = first.j; j <= last.j; j++) {
      const x = px(j) + CELL / 2;
      if (x < ROW_HEAD) continue;
      if (hl.cols[j]) headerMark(ctx, hl.cols[j], px(j) + 2, COL_HEAD - 5, CELL - 4, 3, col);
      ctx.save();
      ctx.translate(x, COL_HEAD - 9);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'left';
      ctx.fillStyle = hl.cols[j] & 1 ? col.accent : col.text;
      ctx.fillText(ellipsis(ctx, groups[j].name, COL_HEAD - 30), 0, 0);
      ctx.restore();
      if (runs.some((r) => r.start === j) || j === first.j) {
        ctx.fillStyle = col.muted;
        ctx.textAlign = 'left';
        ctx.fillText(ellipsis(ctx, groups[j].namespace, 120), Math.max(px(j), ROW_HEAD) + 2, 10);
      }
    }
    ctx.fillStyle = col.panel2;
    ctx.fillRect(0, 0, ROW_HEAD, COL_HEAD);
    ctx.fillStyle = col.muted;
    ctx.textAlign = 'left';
    ctx.fillText('from ↓   to →', 8, COL_HEAD - 12);
    ctx.strokeStyle = col.border;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, COL_HEAD - 0.5);
    ctx.lineTo(view.w, COL_HEAD - 0.5);
    ctx.moveTo(ROW_HEAD - 0.5, 0);
    ctx.lineTo(ROW_HEAD - 0.5, view.h);
    ctx.stroke();
  }, [view, summary, matrix, hl, selected, runs, policy, G, groups]);

  const cellAt = (clientX: number, clientY: number): Cell | undefined => {
    const r = scroller.current!.getBoundingClientRect();
    const x = clientX - r.left;
    const y = clientY - r.top;
    if (x < ROW_HEAD || y < COL_HEAD) return undefined;
    const to = Math.floor((x - ROW_HEAD + view.x) / CELL);
    const from = Math.floor((y - COL_HEAD + view.y) / CELL);
    return from >= 0 && from < G && to >= 0 && to < G ? { from, to } : undefined;
  };

  return (
    <div className="rx-canvas-wrap">
      <canvas ref={canvas} className="rx-canvas" aria-hidden="true" />
      <div
        ref={scroller}
        className="rx-canvas-scroll"
        role="application"
        aria-label={`Reachability on ${matrix.protocol} ${matrix.port} for ${G} pod groups, drawn: click a cell or use the arrow keys for its explanation`}
        title={hover}
        onMouseMove={(e) => {
          const c = cellAt(e.clientX, e.clientY);
          if (!c) return setHover(undefined);
          const { state, count, total } = cellState(summary, matrix, c.from, c.to);
          setHover(`${groupId(groups[c.from])} → ${groupId(groups[c.to])}: ${STATE_TEXT[state]}${state === 'partial' ? ` (${count} of ${total})` : ''}`);
        }}
        onClick={(e) => {
          const c = cellAt(e.clientX, e.clientY);
          if (c) onSelect(c);
        }}
        tabIndex={0}
        onKeyDown={(e) => {
          // Arrow keys move the selected cell (and its explanation), scrolling it into view.
          const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
          if (!d) return;
          e.preventDefault();
          const cur = selected ?? { from: 0, to: 0 };
          const next = selected ? { from: Math.min(G - 1, Math.max(0, cur.from + d[0])), to: Math.min(G - 1, Math.max(0, cur.to + d[1])) } : cur;
          onSelect(next);
          const s = scroller.current!;
          const x = next.to * CELL;
          const y = next.from * CELL;
          if (x < s.scrollLeft) s.scrollLeft = x;
          else if (x + CELL > s.scrollLeft + s.clientWidth - ROW_HEAD) s.scrollLeft = x + CELL - (s.clientWidth - ROW_HEAD);
          if (y < s.scrollTop) s.scrollTop = y;
          else if (y + CELL > s.scrollTop + s.clientHeight - COL_HEAD) s.scrollTop = y + CELL - (s.clientHeight - COL_HEAD);
        }}
      >
        <div style={{ width: ROW_HEAD + G * CELL, height: COL_HEAD + G * CELL }} />
      </div>
    </div>
  );
}

/** A bar beside a header: solid accent for pods the policy selects, dashed green for peers it admits. */
function headerMark(ctx: CanvasRenderingContext2D, h: number, x: number, y: number, w: number, hgt: number, col: { accent: string; ok: string }) {
  if (h & 1) {
    ctx.fillStyle = col.accent;
    ctx.fillRect(x, y, w, hgt);
    return;
  }
  ctx.fillStyle = col.ok;
  const along = w > hgt;
  for (let k = 0; k < (along ? w : hgt); k += 4) ctx.fillRect(along ? x + k : x, along ? y : y + k, along ? Math.min(2, w - k) : w, along ? hgt : Math.min(2, hgt - k));
}

function ellipsis(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '…';
}

export function Legend() {
  return (
    <div className="rx-legend" aria-label="Legend">
      <span>
        <span className="rx-cell allowed static" aria-hidden="true">
          {SYMBOL.allowed}
        </span>{' '}
        allowed
      </span>
      <span>
        <span className="rx-cell denied static" aria-hidden="true">
          {SYMBOL.denied}
        </span>{' '}
        denied
      </span>
      <span>
        <span className="rx-cell partial static" aria-hidden="true">
          {SYMBOL.partial}
        </span>{' '}
        some pod pairs allowed
      </span>
      <span>
        <span className="rx-swatch sel" aria-hidden="true" /> selected by the policy
      </span>
      <span>
        <span className="rx-swatch adm" aria-hidden="true" /> admitted by its rules
      </span>
    </div>
  );
}
