// @vitest-environment jsdom
// The table's columns have pixel widths taken from the table's width: each
// column its narrowest width and its share of the rest, the header laid out on
// that template (--cols) and every row's cells placed at the same offsets as
// blocks (no grid per row), and a narrow table keeps the narrowest widths (it
// scrolls sideways). Clicking a header sorts by it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/react';
import type { KubeObject } from '../../kinds/kind.ts';
import { nodeKind } from '../../kinds/node.ts';
import { columnsFor, columnWidths, placementOf, ResourceTable } from './ResourceTable.tsx';

let width = 1000;
const saved: Record<string, PropertyDescriptor | undefined> = {};
beforeAll(() => {
  for (const [prop, get] of [
    ['clientWidth', () => width],
    ['clientHeight', () => 400],
  ] as const) {
    saved[prop] = Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop);
    Object.defineProperty(HTMLElement.prototype, prop, { configurable: true, get });
  }
});
afterAll(() => {
  for (const [prop, d] of Object.entries(saved)) if (d) Object.defineProperty(HTMLElement.prototype, prop, d);
});
afterEach(cleanup);

const node = (i: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: `node-${String(i).padStart(3, '0')}`, uid: `u${i}`, resourceVersion: '1', creationTimestamp: new Date(Date.now() - i * 60_000).toISOString() },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

describe('columnWidths', () => {
  const cols = [
    { name: 'A', min: 100, grow: 1 },
    { name: 'B', min: 200, grow: 3 },
  ].map((c) => ({ ...c, cell: () => '', sortValue: () => '' }));
  it('gives each column its narrowest width and its share of the spare width', () => {
    expect(columnWidths(cols, 700)).toEqual([200, 500]);
  });
  it('keeps the narrowest widths when the table is narrower than them', () => {
    expect(columnWidths(cols, 150)).toEqual([100, 200]);
  });
});

describe('ResourceTable', () => {
  function table(sort = 'Name', onSort = (_: string) => {}) {
    const columns = columnsFor(nodeKind, false, false);
    const r = render(<ResourceTable items={Array.from({ length: 50 }, (_, i) => node(i))} columns={columns} sort={sort} onSort={onSort} onOpen={() => {}} empty="none" />);
    const wrap = r.container.querySelector<HTMLElement>('.table-wrap')!;
    return { ...r, wrap, columns };
  }

  it('lays out the header and the rows on one template of pixel widths that fills the table', () => {
    width = 1000;
    const t = table();
    const cols = t.wrap.style.getPropertyValue('--cols');
    expect(cols).toBe(columnWidths(t.columns, 1000).map((w) => `${w}px`).join(' '));
    const total = cols.split(' ').reduce((s, w) => s + parseInt(w), 0);
    expect(total).toBeGreaterThan(1000 - t.columns.length);
    expect(total).toBeLessThanOrEqual(1000);
    // No row or header sets a template of its own: the header takes the table's.
    for (const row of t.container.querySelectorAll<HTMLElement>('[role=row]')) expect(row.style.gridTemplateColumns).toBe('');
    const rows = [...t.container.querySelectorAll<HTMLElement>('[role=row][data-name]')];
    expect(rows.length).toBeGreaterThan(5);
    // Every row's cells sit at the header's column edges, each as wide as its column.
    const widths = columnWidths(t.columns, 1000);
    const edges = widths.map((_, i) => widths.slice(0, i).reduce((s, w) => s + w, 0));
    for (const row of rows) {
      const cells = [...row.querySelectorAll<HTMLElement>('[role=cell]')];
      expect(cells.map((c) => [parseInt(c.style.left), parseInt(c.style.width)])).toEqual(widths.map((w, i) => [edges[i], w]));
    }
  });

  it('places columns edge to edge from the left', () => {
    expect(placementOf([100, 250, 80])).toEqual([
      { left: 0, width: 100 },
      { left: 100, width: 250 },
      { left: 350, width: 80 },
    ]);
  });

  it('keeps the narrowest widths in a narrow table, and its rows as wide as their columns', () => {
    width = 300;
    const t = table();
    const widths = columnWidths(t.columns, 300);
    expect(widths).toEqual(t.columns.map((c) => c.min));
    const min = `${widths.reduce((s, w) => s + w, 0)}px`;
    expect(t.container.querySelector<HTMLElement>('.thead')!.style.minWidth).toBe(min);
    expect((t.container.querySelector('.table-scroll')!.lastElementChild as HTMLElement).style.minWidth).toBe(min);
  });

  it("opens a row with the page's latest onOpen", () => {
    width = 1000;
    const opened: string[] = [];
    const items = Array.from({ length: 50 }, (_, i) => node(i));
    const columns = columnsFor(nodeKind, false, false);
    const t = render(<ResourceTable items={items} columns={columns} sort="Name" onSort={() => {}} onOpen={(o) => opened.push(`first ${o.metadata.name}`)} empty="none" />);
    t.rerender(<ResourceTable items={items} columns={columns} sort="Name" onSort={() => {}} onOpen={(o) => opened.push(`second ${o.metadata.name}`)} empty="none" />);
    fireEvent.click(t.container.querySelector('[role=row][data-name="node-001"]')!);
    expect(opened).toEqual(['second node-001']);
  });

  it('sorts by a header: ascending first, then descending', () => {
    width = 1000;
    const sorts: string[] = [];
    let t = table('Name', (s) => sorts.push(s));
    expect(t.container.querySelector('[role=row][data-name]')!.getAttribute('data-name')).toBe('node-000');
    fireEvent.click(t.getByRole('button', { name: 'Name' }));
    expect(sorts).toEqual(['-Name']);
    cleanup();
    t = table('-Name');
    expect(t.container.querySelector('[role=row][data-name]')!.getAttribute('data-name')).toBe('node-049');
    expect(t.getByRole('columnheader', { name: /Name/ }).getAttribute('aria-sort')).toBe('descending');
  });
});
