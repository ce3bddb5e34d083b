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
  // And a change after it ended starts the next one at once.
  q.add('a');
  expect(started).toEqual(['a', 'a', 'a']);
  q.stop();
});

it('starts no sync before the promise given to startAfter settles, then syncs every key added meanwhile once', async () => {
  const started: string[] = [];
  const q = new WorkQueue(async (key) => void started.push(key));
  let synced!: (v: boolean) => void;
  q.startAfter(new Promise<boolean>((resolve) => (synced = resolve)));
  q.add('a');
  q.add('b');
  q.add('a');
  q.after('c', 10);
  await vi.advanceTimersByTimeAsync(50);
  expect(started).toEqual([]);
  synced(true);
  await vi.advanceTimersByTimeAsync(0);
  expect(started).toEqual(['a', 'b', 'c']);
  q.stop();
});
