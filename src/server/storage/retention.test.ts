import { describe, expect, it } from 'vitest';
import { HistoryRetention } from './retention.ts';

describe('HistoryRetention', () => {
  it('compacts to the newest revision seen at least keepMs ago, keeping at least minRevisions', () => {
    let now = 0;
    const r = new HistoryRetention(5 * 60_000, 100, () => now);
    // A busy store: 30,000 revisions a minute, looked at every minute.
    const at = (minute: number) => minute * 30_000;
    const compacted: number[] = [];
    for (let minute = 0; minute <= 8; minute++) {
      now = minute * 60_000;
      compacted.push(r.compactTo(at(minute)));
    }
    // Nothing for the first five minutes; then what was written up to five minutes ago.
    expect(compacted).toEqual([0, 0, 0, 0, 0, at(0), at(1), at(2), at(3)]);
  });

  it('keeps at least minRevisions of a quiet store however old they are', () => {
    let now = 0;
    const r = new HistoryRetention(60_000, 100, () => now);
    const got: number[] = [];
    for (let minute = 0; minute <= 5; minute++) {
      now = minute * 60_000;
      got.push(r.compactTo(50 + minute * 30));
    }
    // Revisions 50, 80, 110, 140, 170, 200: a minute back is 30 revisions, fewer than the 100 kept.
    expect(got).toEqual([0, 0, 10, 40, 70, 100]);
  });

  it('takes irregular looks by their times', () => {
    let now = 0;
    const r = new HistoryRetention(60_000, 0, () => now);
    expect(r.compactTo(10)).toBe(0);
    now = 30_000;
    expect(r.compactTo(20)).toBe(0);
    now = 59_999;
    expect(r.compactTo(30)).toBe(0);
    now = 60_000;
    expect(r.compactTo(40)).toBe(10);
    now = 200_000;
    // 20 and 30 were both seen a minute ago or more: the newer of them.
    expect(r.compactTo(50)).toBe(40);
  });
});
