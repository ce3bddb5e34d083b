// The controllers' share of a turn (turnbudget.ts): a burst of keys whose syncs
// take longer together than the turn's budget starts over several turns, and
// what waits for the event loop (here a timer) runs between them; so does
// work handed over without being awaited (a DaemonSet's deletes), and the
// creates of a slow-start window that a group commit's answers open at once.
import { expect, it } from 'vitest';
import { WorkQueue } from './workqueue.ts';
import { SlowStartCreates } from './slowstart.ts';
import { whenTurnHasRoom } from './turnbudget.ts';

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

/**
 * Starts a burst of `n` with `start`: some start in this turn, the rest in
 * later turns, with a timer set before the burst running between them.
 */
async function expectSpreadOverTurns(started: unknown[], n: number, start: () => void) {
  let atTimer = -1;
  setTimeout(() => (atTimer = started.length), 0);
  start();
  const inFirstTurn = started.length;
  expect(inFirstTurn).toBeGreaterThan(0);
  expect(inFirstTurn).toBeLessThan(n);
  while (started.length < n) await new Promise((r) => setImmediate(r));
  expect(atTimer).toBeGreaterThanOrEqual(inFirstTurn);
  expect(atTimer).toBeLessThan(n);
}

it('starts a burst of syncs over several turns, letting a timer run between them, and starts every one', async () => {
  const { q, started } = busyQueue();
  await expectSpreadOverTurns(started, 20, () => {
    for (let i = 0; i < 20; i++) q.add(`k${i}`);
  });
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

it('starts work handed over in a burst as turns have room, in the order given, letting a timer run between', async () => {
  const started: number[] = [];
  await expectSpreadOverTurns(started, 20, () => {
    for (let i = 0; i < 20; i++)
      whenTurnHasRoom(() => {
        started.push(i);
        busy(4);
      });
  });
  expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
});

it('starts the creates a slow-start window has room for over several turns when they keep the thread', async () => {
  const started: string[] = [];
  const creates = new SlowStartCreates(
    async (node) => {
      started.push(node);
      busy(4);
      return 1;
    },
    { maxRound: 100, failed: () => {} },
  );
  const nodes = Array.from({ length: 30 }, (_, i) => `n${i}`);
  await expectSpreadOverTurns(started, 30, () => void creates.add(nodes));
  expect(started).toEqual(nodes);
});
