// WindowedRows: the one way the app draws a long list. A scroll container
// that puts in the DOM only the rows in view and `overscan` rows beyond each
// edge; every row has the same height, so nothing is measured or kept per row
// (a virtualizer's per-row measurements were 50,000 objects made again
// whenever the count changed, as pods come and go in a rollout).
//
//   <WindowedRows
//     count={rows.length}            // rows in the list
//     rowHeight={37}                 // px, every row
//     overscan={12}                  // rows drawn beyond each edge (default 12)
//     header={<div className="thead" />}  // optional, inside the scroller (make it
//                                    // position: sticky): scrolls sideways with the rows
//     empty={<p>No rows.</p>}        // optional, shown when count is 0
//     className="table-scroll" style={{ height: 440 }}  // the scroller: give it a height
//     minWidth={900}                 // optional: rows' width below which it scrolls sideways
//     onWidth={setWidth}             // optional: told the scroller's inner width when it changes
//     ref={handle}                   // optional: handle.current.scrollToIndex(i)
//     renderRow={(index, top, slot) => <Row key={slot} style={{ transform: `translateY(${top}px)` }} />}
//   />
//
// renderRow returns one element per row, with a key, positioned absolutely at
// `top` px (a translateY is cheapest) in a relatively positioned box of the
// list's full height. The key is the caller's choice:
//   - `slot` (unique over any window, stable while a row stays in it):
//     scrolling refills the rows already in the DOM with other items instead of
//     unmounting and mounting a screenful every frame; for tables of text;
//   - the item's own id: a row keeps its state (focus, memo) as it moves.
// Rows are drawn in the scroll event itself (flushSync), so a frame never
// shows the rows of the last position.
import { useImperativeHandle, useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode, type Ref } from 'react';
import { flushSync } from 'react-dom';

export interface WindowedRowsHandle {
  /** Scrolls so that row `index` is in view (the least scroll that shows it). */
  scrollToIndex(index: number): void;
}

export interface WindowedRowsProps {
  count: number;
  rowHeight: number;
  overscan?: number;
  renderRow(index: number, top: number, slot: number): ReactNode;
  header?: ReactNode;
  empty?: ReactNode;
  className?: string;
  style?: CSSProperties;
  minWidth?: number;
  /** The scroller's inner width in px, when it changes (for columns sized in pixels). */
  onWidth?(width: number): void;
  ref?: Ref<WindowedRowsHandle>;
}

/** Rows [first, last) to draw for a scroll position and view height. */
export function rowRange(top: number, height: number, rowHeight: number, overscan: number, count: number): [number, number] {
  const first = Math.max(0, Math.min(count, Math.floor(top / rowHeight) - overscan));
  const last = Math.min(count, Math.ceil((top + height) / rowHeight) + overscan);
  return [first, Math.max(first, last)];
}

export function WindowedRows({ count, rowHeight, overscan = 12, renderRow, header, empty, className, style, minWidth, onWidth, ref }: WindowedRowsProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 1000 });
  const shownView = useRef(view);
  const widthCallback = useRef(onWidth);
  widthCallback.current = onWidth;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let width = -1;
    const update = (sync: boolean) => {
      // Every size read before drawing: a read after it would lay out the new rows there and then (a forced layout per frame).
      const next = { top: el.scrollTop, height: el.clientHeight };
      const nextWidth = el.clientWidth;
      // Only a move to other rows draws anything (checked here: a setState of the same state may still render).
      const v = shownView.current;
      if (Math.floor(v.top / rowHeight) !== Math.floor(next.top / rowHeight) || v.height !== next.height) {
        shownView.current = next;
        if (sync) flushSync(() => setView(next));
        else setView(next);
      }
      if (nextWidth !== width) widthCallback.current?.((width = nextWidth));
    };
    const onScroll = () => update(true);
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => update(false));
    ro?.observe(el);
    update(false);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro?.disconnect();
    };
  }, [rowHeight]);
  useImperativeHandle(
    ref,
    () => ({
      scrollToIndex(index) {
        const el = scroller.current;
        if (!el) return;
        const rows = el.lastElementChild;
        if (!rows) return;
        // Row `index` within the scroller's content; a sticky header above the rows covers as much of the view's top.
        const offset = rows.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
        const top = index * rowHeight;
        if (top < el.scrollTop) el.scrollTop = top;
        else if (offset + top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = offset + top + rowHeight - el.clientHeight;
      },
    }),
    [rowHeight],
  );

  const [first, last] = rowRange(view.top, view.height, rowHeight, overscan, count);
  // Slots: index modulo the most rows ever drawn at once, unique over any contiguous window.
  const slots = useRef(1);
  slots.current = Math.max(slots.current, last - first);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i, i * rowHeight, i % slots.current));
  return (
    <div ref={scroller} className={className} style={{ overflow: 'auto', ...style }}>
      {header}
      {/* Contained: rows filled while scrolling lay out and paint nothing outside this box. */}
      {count === 0 ? empty : <div style={{ height: count * rowHeight, position: 'relative', minWidth, contain: 'strict' }}>{rows}</div>}
    </div>
  );
}
