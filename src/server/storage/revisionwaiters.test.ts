import { describe, expect, it } from 'vitest';
import { RevisionWaiters } from './revisionwaiters.ts';

describe('RevisionWaiters', () => {
  it('settles each waiter once its revision is reached, whatever order they came in', async () => {
    const w = new RevisionWaiters();
    const settled: number[] = [];
    const waits = [7, 3, 5, 3, 9].map((r) => w.wait(r, 10_000).then((ok) => (settled.push(r), ok)));
    w.reached(2);
    await Promise.resolve();
    expect(settled).toEqual([]);
    w.reached(5);
    await new Promise((r) => setTimeout(r, 0));
    expect(settled).toEqual([3, 3, 5]);
    expect(w.size).toBe(2);
    w.reached(100);
    expect(await Promise.all(waits)).toEqual([true, true, true, true, true]);
    expect(settled).toEqual([3, 3, 5, 7, 9]);
    expect(w.size).toBe(0);
  });

  it('answers false after the timeout, and a later reach does not change that', async () => {
    const w = new RevisionWaiters();
    const late = w.wait(10, 5);
    expect(await late).toBe(false);
    w.reached(10);
    expect(w.size).toBe(0);
  });
});
