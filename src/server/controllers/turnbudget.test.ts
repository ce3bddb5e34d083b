// The controllers' share of a turn (turnbudget.ts): a burst of keys whose syncs
// take longer together than the turn's budget starts over several turns, and
// what waits for the event loop (here a timer) runs between them.
import { expect, it } from 'vitest';
import { WorkQueue } from './workqueue.ts';

/** A sync that keeps the thread for `ms` before its first await, as a status computation and its write's preparation do. */
const busy = (ms: number) => {
  const t = performance.now();
  while (performance.now() - t < ms);
};

/** A queue whose syncs each keep the thread 4 ms, and the keys started so far. */
function busyQueue() {
  const started: string[] = [];
  const q = new WorkQueue(async (key) => {
    started.push(key);
    busy(4);
  }, 100);
  return { q, started };
}

it('starts a burst of syncs over several turns, letting a timer run between them, and starts every one', async () => {
  const { q, started } = busyQueue();
  let atTimer = -1;
  setTimeout(() => (atTimer = started.length), 0);
  for (let i = 0; i < 20; i++) q.add(`k${i}`);
  const inFirstTurn = started.length;
  expect(inFirstTurn).toBeGreaterThan(0);
  expect(inFirstTurn).toBeLessThan(20);
  while (started.length < 20) await new Promise((r) => setImmediate(r));
  expect(atTimer).toBeGreaterThanOrEqual(inFirstTurn);
  expect(atTimer).toBeLessThan(20);
  expect(started).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`));
  q.stop();
});

it('starts nothing left for a later turn once stopped', async () => {
  const { q, started } = busyQueue();
  for (let i = 0; i < 20; i++) q.add(`k${i}`);
  const inFirstTurn = started.length;
  q.stop();
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(started.length).toBe(inFirstTurn);
});
