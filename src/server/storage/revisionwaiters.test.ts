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

it('settles thousands of waiters a revision at a time, in order, with waits added between the steps', async () => {
  const w = new RevisionWaiters();
  const settled: number[] = [];
  const all: Promise<void>[] = [];
  const wait = (r: number) => all.push(w.wait(r, 60_000).then((ok) => void (ok && settled.push(r))));
  for (let r = 1; r <= 3000; r++) wait(r);
  for (let r = 1; r <= 3000; r++) {
    w.reached(r);
    // A wait for a revision already passed among those still waiting, and one for a later one.
    if (r % 500 === 0) wait(r + 2000);
  }
  w.reached(6000);
  await Promise.all(all);
  // In revision order: each step settles what it reached, the waits added for later ones included.
  const expected = [...Array.from({ length: 3000 }, (_, i) => i + 1), ...[500, 1000, 1500, 2000, 2500, 3000].map((r) => r + 2000)].sort((a, b) => a - b);
  expect(settled).toEqual(expected);
  expect(w.size).toBe(0);
});
