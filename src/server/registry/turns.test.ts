import { describe, expect, it } from 'vitest';
import { scan, walk } from './turns.ts';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

it('visits every item in order from where it starts, and stops where the visit says', async () => {
  const items = Array.from({ length: 1000 }, (_, i) => i);
  const seen: number[] = [];
  expect(await scan(items, 10, (i) => (seen.push(i), true))).toBe(1000);
  expect(seen).toEqual(items.slice(10));
  expect(await scan(items, 0, (i) => i < 700)).toBe(700);
  expect(await scan([], 0, () => true)).toBe(0);
});

it('lets the event loop go on while a long walk runs', async () => {
  // 1024 items of 0.05 ms: over 50 ms in all, so the walk lets others in at least once.
  const order: string[] = [];
  setImmediate(() => order.push('other work'));
  const walked = scan(Array.from({ length: 1024 }, (_, i) => i), 0, () => (busy(0.05), true)).then(() => order.push('walk done'));
  await walked;
  expect(order).toEqual(['other work', 'walk done']);
});

describe('walk', () => {
  it('does a slice of items a turn, letting other work run between slices, and every item once in order', async () => {
    const seen: number[] = [];
    const otherWork: number[] = [];
    const ticker = setInterval(() => otherWork.push(seen.length), 0);
    let turns = 0;
    const done = await walk(Array.from({ length: 10 }, (_, i) => i), (i) => seen.push(i), {
      most: 3,
      between: async () => {
        turns++;
        await new Promise((r) => setTimeout(r, 2));
      },
    });
    clearInterval(ticker);
    expect(done).toBe(true);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(turns).toBe(3);
    // Timers ran while the walk was part way through, not only before or after it.
    expect(otherWork.some((n) => n > 0 && n < 10)).toBe(true);
  });

  it('ends early, saying so, once stopped', async () => {
    const seen: number[] = [];
    const done = await walk(Array.from({ length: 10 }, (_, i) => i), (i) => seen.push(i), { most: 2, stopped: () => seen.length >= 4 });
    expect(done).toBe(false);
    expect(seen).toEqual([0, 1, 2, 3]);
  });
});
