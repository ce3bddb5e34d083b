// @vitest-environment jsdom
// WindowedRows draws the rows in view and `overscan` beyond, follows the
// scroll position, keeps a row's slot (its DOM element) while the row stays
// in the window, and scrolls a row into view on request. jsdom lays nothing
// out, so the scroller's height is given here as the browser would report it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { act, cleanup, render } from '@testing-library/react';
import { createRef } from 'react';
import { rowRange, WindowedRows, type WindowedRowsHandle } from './WindowedRows.tsx';

const VIEW = 200;
const ROW = 20;
let restore: PropertyDescriptor | undefined;
beforeAll(() => {
  restore = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => VIEW });
});
afterAll(() => restore && Object.defineProperty(HTMLElement.prototype, 'clientHeight', restore));
afterEach(cleanup);

function list(count: number, ref?: React.Ref<WindowedRowsHandle>) {
  const slots = new Map<number, number>();
  const r = render(
    <WindowedRows
      ref={ref}
      count={count}
      rowHeight={ROW}
      overscan={3}
      className="scroller"
      header={<div className="head">head</div>}
      empty={<p className="none">No rows.</p>}
      renderRow={(i, top, slot) => {
        slots.set(i, slot);
        return (
          <div key={slot} data-i={i} data-top={top}>
            row {i}
          </div>
        );
      }}
    />,
  );
  const scroller = r.container.querySelector<HTMLDivElement>('.scroller')!;
  const shown = () => [...r.container.querySelectorAll('[data-i]')].map((e) => Number(e.getAttribute('data-i')));
  const scrollTo = (top: number) =>
    act(() => {
      scroller.scrollTop = top;
      scroller.dispatchEvent(new Event('scroll'));
    });
  return { ...r, scroller, shown, scrollTo, slots };
}

describe('WindowedRows', () => {
  it('draws the rows in view and the overscan below, at their offsets, under the header', () => {
    const l = list(1000);
    // 200 px of 20 px rows: rows 0..9 in view, 3 more below.
    expect(l.shown()).toEqual([...Array(13).keys()]);
    expect(l.container.querySelector('[data-i="4"]')!.getAttribute('data-top')).toBe('80');
    expect(l.scroller.firstElementChild!.className).toBe('head');
    expect((l.scroller.lastElementChild as HTMLElement).style.height).toBe(`${1000 * ROW}px`);
  });

  it('follows the scroll position, and a row that stays in the window keeps its element', () => {
    const l = list(1000);
    l.scrollTo(100 * ROW);
    expect(l.shown()).toEqual([...Array(16).keys()].map((i) => 97 + i));
    const el = l.container.querySelector('[data-i="105"]');
    const slot = l.slots.get(105);
    l.scrollTo(100 * ROW + 5 * ROW);
    expect(l.shown()[0]).toBe(102);
    expect(l.container.querySelector('[data-i="105"]')).toBe(el);
    expect(l.slots.get(105)).toBe(slot);
    // Slots are unique within the window.
    const slots = l.shown().map((i) => l.slots.get(i));
    expect(new Set(slots).size).toBe(slots.length);
  });

  it('does not draw again for a scroll within the same row', () => {
    const l = list(1000);
    l.scrollTo(100 * ROW);
    l.slots.clear();
    l.scrollTo(100 * ROW + ROW / 2);
    expect(l.slots.size).toBe(0);
  });

  it('shows `empty` for no rows, and clamps the window to the count', () => {
    expect(list(0).container.querySelector('.none')).not.toBeNull();
    cleanup();
    expect(list(5).shown()).toEqual([0, 1, 2, 3, 4]);
  });

  it('scrollToIndex scrolls the least that shows the row, and not at all when it is in view', () => {
    const ref = createRef<WindowedRowsHandle>();
    const l = list(1000, ref);
    act(() => ref.current!.scrollToIndex(5));
    expect(l.scroller.scrollTop).toBe(0);
    act(() => ref.current!.scrollToIndex(50));
    // jsdom puts the rows at the scroller's top (no layout): the row's bottom at the view's bottom.
    expect(l.scroller.scrollTop).toBe(51 * ROW - VIEW);
    act(() => ref.current!.scrollToIndex(20));
    expect(l.scroller.scrollTop).toBe(20 * ROW);
  });

  it('rowRange clamps to the list', () => {
    expect(rowRange(0, 100, 10, 2, 5)).toEqual([0, 5]);
    expect(rowRange(500, 100, 10, 2, 1000)).toEqual([48, 62]);
    expect(rowRange(5000, 100, 10, 2, 10)).toEqual([10, 10]);
  });
});
