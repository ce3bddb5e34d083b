// The list cut into runs of items must give back exactly the list: every item
// in order, whole, and the list's metadata, whatever the items' text holds.
import { describe, expect, it } from 'vitest';
import { ListSplitter, splitList } from './listsplit.ts';

const rejoin = (text: string, per: number) => {
  const { head, runs } = splitList(text, per);
  return { head: JSON.parse(head), items: runs.flatMap((r) => JSON.parse(r)), sizes: runs.map((r) => JSON.parse(r).length) };
};

describe('splitList', () => {
  const items = Array.from({ length: 7 }, (_, i) => ({
    metadata: { name: `pod-${i}`, labels: { a: '[{,}]', 'b"': 'quote " and \\ backslash \\' } },
    spec: { containers: [{ name: 'c', args: ['"items":[1,2]', '\\"'] }] },
  }));
  const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok"en,' }, items };

  it('gives back every item in order, in runs of the size asked, and the metadata', () => {
    for (const per of [1, 2, 3, 7, 10]) {
      const out = rejoin(JSON.stringify(list), per);
      expect(out.items).toEqual(items);
      expect(out.sizes).toEqual(Array.from({ length: Math.ceil(7 / per) }, (_, i) => Math.min(per, 7 - i * per)));
      expect(out.head).toEqual({ ...list, items: [] });
    }
  });

  it('reads items wherever they stand among the keys, with whitespace', () => {
    const text = `{ "items" : [ ${items.map((o) => JSON.stringify(o, null, 2)).join(' ,\n ')} ] , "kind": "items", "metadata": {"continue": ""} }`;
    const out = rejoin(text, 3);
    expect(out.items).toEqual(items);
    expect(out.head).toEqual({ kind: 'items', metadata: { continue: '' }, items: [] });
  });

  it('an empty list has no runs; a Status has no items', () => {
    expect(splitList('{"kind":"PodList","metadata":{},"items":[]}', 5)).toEqual({ head: '{"kind":"PodList","metadata":{},"items":[]}', runs: [] });
    const status = '{"kind":"Status","code":410,"reason":"Expired","details":{"items":[1]}}';
    expect(splitList(status, 5)).toEqual({ head: status, runs: [] });
  });

  it('cuts the same runs from the text given in pieces, split anywhere (inside strings and escapes too)', () => {
    const text = JSON.stringify(list);
    const whole = splitList(text, 2);
    for (let cut = 0; cut <= text.length; cut++) {
      for (const second of [cut, Math.min(text.length, cut + 1), Math.min(text.length, cut + 37)]) {
        const s = new ListSplitter(2);
        const runs = [...s.push(text.slice(0, cut)), ...s.push(text.slice(cut, second)), ...s.push(text.slice(second))];
        expect(runs).toEqual(whole.runs);
        expect(s.end().head).toBe(whole.head);
      }
    }
  });

  it('cuts the same runs from the text given a character at a time, backslash runs and the items key spanning pieces', () => {
    const odd = { kind: 'PodList', metadata: list.metadata, itemz: ['[', ','], items: [...items, { metadata: { name: 'x', annotations: { '\\\\': '\\\\\\"]},{', items: '"items":[' } } }] };
    const text = JSON.stringify(odd);
    expect(text).toContain('\\\\\\\\\\\\\\"');
    for (const per of [1, 3]) {
      const whole = splitList(text, per);
      const s = new ListSplitter(per);
      const runs = [...text].flatMap((ch) => s.push(ch));
      expect(runs).toEqual(whole.runs);
      expect(s.end().head).toBe(whole.head);
      expect(runs.flatMap((r) => JSON.parse(r))).toEqual(odd.items);
    }
  });

  it('has the head (metadata written before the items) as soon as the items begin, and each run once it is whole', () => {
    const text = JSON.stringify(list);
    const s = new ListSplitter(3);
    const itemsAt = text.indexOf('"items":[') + '"items":['.length;
    expect(s.push(text.slice(0, itemsAt - 1))).toEqual([]);
    expect(s.head).toBeUndefined();
    expect(s.push(text.slice(itemsAt - 1, itemsAt))).toEqual([]);
    expect(JSON.parse(s.head!)).toEqual({ ...list, items: [] });
    // Three items and the comma after them make a run.
    const third = itemsAt + items.slice(0, 3).map((o) => JSON.stringify(o)).join(',').length;
    expect(s.push(text.slice(itemsAt, third))).toEqual([]);
    expect(s.push(text.slice(third, third + 1)).map((r) => JSON.parse(r))).toEqual([items.slice(0, 3)]);
    expect(s.push(text.slice(third + 1)).map((r) => JSON.parse(r))).toEqual([items.slice(3, 6), items.slice(6)]);
    expect(JSON.parse(s.end().head)).toEqual({ ...list, items: [] });
  });
});
