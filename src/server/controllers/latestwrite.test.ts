// The DaemonSet status's writer (latestwrite.ts): one write in flight at a
// time, values asked for meanwhile coalesced, and the newest always written
// last, however the syncs that ask overlap the writes.
import { expect, it } from 'vitest';
import { LatestWrite } from './latestwrite.ts';

it('writes one value at a time, skips values a newer one replaced while a write was in flight, and writes the newest last', async () => {
  const written: number[] = [];
  const finish: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const w = new LatestWrite<number>(
    (v) =>
      new Promise<void>((resolve) => {
        written.push(v);
        most = Math.max(most, ++inFlight);
        finish.push(() => (inFlight--, resolve()));
      }),
    () => {},
  );
  const settle = async () => {
    finish.shift()!();
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  w.set(1);
  w.set(2);
  w.set(3);
  expect(written).toEqual([1]);
  await settle();
  expect(written).toEqual([1, 3]);
  w.set(4);
  await settle();
  expect(written).toEqual([1, 3, 4]);
  await settle();
  expect(finish).toEqual([]);
  // Idle again: the next value goes out at once.
  w.set(5);
  expect(written).toEqual([1, 3, 4, 5]);
  await settle();
  expect(most).toBe(1);
});

it('reports a failed write and goes on with the newer value', async () => {
  const failures: unknown[] = [];
  const written: string[] = [];
  let reject: ((e: unknown) => void) | undefined;
  const w = new LatestWrite<string>(
    (v) => {
      written.push(v);
      return v === 'a' ? new Promise<void>((_, r) => (reject = r)) : Promise.resolve();
    },
    (e) => failures.push(e),
  );
  w.set('a');
  w.set('b');
  reject!(new Error('conflict'));
  for (let i = 0; i < 20; i++) await Promise.resolve();
  expect(failures).toEqual([new Error('conflict')]);
  expect(written).toEqual(['a', 'b']);
});
