import { describe, expect, it } from 'vitest';
import { eachConcurrently, eachInTurns } from './concurrently.ts';

describe('eachConcurrently', () => {
  it('calls for every item once, in order, with at most the number in flight and that many when there is work', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await eachConcurrently(
      Array.from({ length: 50 }, (_, i) => i),
      8,
      async (i) => {
        started.push(i);
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, i % 3));
        running--;
      },
    );
    expect(started).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(8);
  });

  it('takes items as calls end: a generator that stops ends the work', async () => {
    let stopped = false;
    const done: number[] = [];
    function* items() {
      for (let i = 0; !stopped; i++) yield i;
    }
    await eachConcurrently(items(), 4, async (i) => {
      await new Promise((r) => setTimeout(r, 1));
      done.push(i);
      if (i === 10) stopped = true;
    });
    // What had started when it stopped ends; nothing past it starts.
    expect(done.length).toBeGreaterThanOrEqual(11);
    expect(done.length).toBeLessThanOrEqual(14);
  });
});

describe('eachInTurns', () => {
  it('does a slice of items a turn, letting other work run between slices, and every item once in order', async () => {
    const seen: number[] = [];
    const otherWork: number[] = [];
    const ticker = setInterval(() => otherWork.push(seen.length), 0);
    let turns = 0;
    const done = await eachInTurns(Array.from({ length: 10 }, (_, i) => i), 3, (i) => seen.push(i), {
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
    const done = await eachInTurns(Array.from({ length: 10 }, (_, i) => i), 2, (i) => seen.push(i), { stopped: () => seen.length >= 4 });
    expect(done).toBe(false);
    expect(seen).toEqual([0, 1, 2, 3]);
  });
});
