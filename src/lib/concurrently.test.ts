import { describe, expect, it } from 'vitest';
import { eachConcurrently } from './concurrently.ts';

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
