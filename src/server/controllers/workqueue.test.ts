// The controllers' work queue: client-go's semantics (a key queued once, a key
// that changes during its sync synced once more right after, no pause between
// syncs), with fake timers so that nothing depends on the machine's speed.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { WorkQueue } from './workqueue.ts';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

it('syncs a key changed during its sync once more as soon as the sync ends, however long it took', async () => {
  const started: string[] = [];
  let finish: (() => void) | undefined;
  const q = new WorkQueue((key) => {
    started.push(key);
    return new Promise<void>((resolve) => (finish = resolve));
  });
  q.add('a');
  await vi.advanceTimersByTimeAsync(0);
  expect(started).toEqual(['a']);
  // Three changes while it syncs: one more sync.
  q.add('a');
  q.add('a');
  q.add('a');
  await vi.advanceTimersByTimeAsync(2000); // a long sync
  expect(started).toEqual(['a']);
  finish!();
  await vi.advanceTimersByTimeAsync(0);
  expect(started).toEqual(['a', 'a']);
  finish!();
  await vi.advanceTimersByTimeAsync(0);
  // And a change after it ended starts the next one at once (on the next turn).
  q.add('a');
  await vi.advanceTimersByTimeAsync(0);
  expect(started).toEqual(['a', 'a', 'a']);
  q.stop();
});

it('starts syncs on turns of their own, not inside add(), and stops starting them for the turn once a slice is spent', async () => {
  vi.useRealTimers();
  const started: string[] = [];
  // Each sync runs 6 ms before its first await: more than one turn's slice of starts.
  const q = new WorkQueue((key) => {
    started.push(key);
    const until = performance.now() + 6;
    while (performance.now() < until);
    return Promise.resolve();
  }, 10);
  for (const key of ['a', 'b', 'c']) q.add(key);
  // add() is called inside other work (the watch cache's delivery to every informer): it must not run syncs there.
  expect(started).toEqual([]);
  await new Promise((r) => setImmediate(r));
  // The turn that started the first sync spent its slice: what else waits (I/O, a watch flush) goes before the next.
  expect(started).toEqual(['a']);
  await new Promise((r) => setTimeout(r, 50));
  expect(started).toEqual(['a', 'b', 'c']);
  q.stop();
});
