import { describe, expect, it } from 'vitest';
import { forEachNode } from './drain.ts';

const names = Array.from({ length: 50 }, (_, i) => `n-${i}`);
const tick = () => new Promise((r) => setTimeout(r, 1));

describe('cordoning many nodes', () => {
  it('patches every node, a few at a time, and a failure stops no other', async () => {
    let inFlight = 0;
    let most = 0;
    const outcomes = new Map<string, unknown>();
    await forEachNode(
      names,
      async (name) => {
        most = Math.max(most, ++inFlight);
        await tick();
        inFlight--;
        if (name === 'n-7') throw new Error('nodes "n-7" not found');
      },
      (name, error) => outcomes.set(name, error),
      undefined,
      4,
    );
    expect(most).toBe(4);
    expect([...outcomes.keys()].sort()).toEqual([...names].sort());
    expect([...outcomes].filter(([, e]) => e).map(([n, e]) => [n, (e as Error).message])).toEqual([['n-7', 'nodes "n-7" not found']]);
  });

  it('stops taking nodes when stopped; those in flight finish', async () => {
    const stop = new AbortController();
    const settled: string[] = [];
    await forEachNode(
      names,
      async () => {
        await tick();
        if (settled.length >= 10) stop.abort();
      },
      (name) => settled.push(name),
      stop.signal,
      3,
    );
    // The one that stopped it, and the two beside it in flight.
    expect(settled.length).toBeGreaterThanOrEqual(11);
    expect(settled.length).toBeLessThanOrEqual(13);
    // Taken in the list's order: the first ones, all of them settled.
    expect([...settled].sort()).toEqual(names.slice(0, settled.length).sort());
  });
});
