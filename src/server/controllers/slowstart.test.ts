// The DaemonSet controller's slow-start creates (slowstart.ts): a window of
// creates in flight that starts at one and grows by one per success (one, two,
// four, … as the creates in flight come back); a node handed over while the
// window has room starts at once; the first failure stops the run and drops
// the rest. Creates are promises the test settles by hand, so nothing depends
// on time.
import { expect, it } from 'vitest';
import { SlowStartCreates } from './slowstart.ts';

function harness(resumeMs = 0) {
  let clock = 0;
  const asked: string[][] = [[]];
  const open = new Map<string, { resolve: (rv: number) => void; reject: (e: unknown) => void }>();
  const failures: [unknown, boolean][] = [];
  let rv = 100;
  const creates = new SlowStartCreates(
    (node) =>
      new Promise<number>((resolve, reject) => {
        asked.at(-1)!.push(node);
        open.set(node, { resolve, reject });
      }),
    { maxRound: 4, resumeMs, now: () => clock, failed: (e, awaited) => failures.push([e, awaited]) },
  );
  /** Settles every create in flight (failing the nodes named) and lets those the window then has room for start. */
  const finishRound = async (fail: string[] = []) => {
    asked.push([]);
    for (const [node, o] of [...open]) {
      open.delete(node);
      if (fail.includes(node)) o.reject(new Error(`no room for ${node}`));
      else o.resolve(++rv);
    }
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return { creates, asked, failures, finishRound, tick: (ms: number) => (clock += ms) };
}

it('creates 1, then 2, then 4 at a time (capped) as the creates in flight come back, nodes handed over meanwhile waiting for room', async () => {
  const { creates, asked, finishRound } = harness();
  const first = creates.add(['a', 'b', 'c']);
  expect(asked).toEqual([['a']]);
  // Handed over again while waiting: not created twice.
  creates.add(['b', 'd', 'e', 'f', 'g', 'h']);
  expect(creates.has('b') && creates.has('h')).toBe(true);
  await finishRound();
  expect(asked.at(-1)).toEqual(['b', 'c']);
  await finishRound();
  expect(asked.at(-1)).toEqual(['d', 'e', 'f', 'g']);
  expect(await first).toEqual({ revision: 103 });
  creates.add(['i']);
  await finishRound();
  expect(asked.at(-1)).toEqual(['h', 'i']); // the round never grows past maxRound (4)
  await finishRound();
  expect(asked.at(-1)).toEqual([]);
  expect(creates.size).toBe(0);
  // A new run starts again from one create.
  creates.add(['j', 'k']);
  expect(asked.at(-1)).toEqual(['j']);
});

it('stops at the first failure: the rest of the round settles, the nodes still waiting are dropped, and the next run starts from one', async () => {
  const { creates, asked, failures, finishRound } = harness();
  const handed = creates.add(['a', 'b', 'c', 'd', 'e']);
  await finishRound();
  expect(asked.at(-1)).toEqual(['b', 'c']);
  await finishRound(['b']);
  expect(asked.at(-1)).toEqual([]); // d and e were not asked for
  await expect(handed).rejects.toThrow('no room for b');
  expect(failures).toEqual([[expect.any(Error), true]]);
  expect(creates.failing).toBe(true);
  expect(creates.has('d')).toBe(false);
  // Handed over without waiting: only `failed` hears the failure (the controller retries the key then).
  expect(await creates.add(['d', 'e'], false)).toEqual({ revision: 0 });
  expect(asked.at(-1)).toEqual(['d']);
  await finishRound(['d']);
  expect(failures[1]).toEqual([expect.any(Error), false]);
  creates.add(['e'], false);
  await finishRound();
  expect(creates.failing).toBe(false);
});

it('drops the nodes still waiting when cleared (a new template), letting the round in flight finish', async () => {
  const { creates, asked, finishRound } = harness();
  const handed = creates.add(['a', 'b', 'c']);
  creates.clear();
  expect(creates.has('a')).toBe(true);
  expect(creates.has('b')).toBe(false);
  await finishRound();
  expect(await handed).toEqual({ revision: 101 });
  expect(asked.at(-1)).toEqual([]);
});

it('goes on at its size when nodes come soon after a run ran dry, and from one after a pause or a failure', async () => {
  const { creates, asked, finishRound, tick } = harness(1000);
  creates.add(['a', 'b', 'c']);
  await finishRound();
  await finishRound();
  expect(asked.at(-1)).toEqual([]);
  tick(999);
  creates.add(['d', 'e', 'f', 'g', 'h']);
  expect(asked.at(-1)).toEqual(['d', 'e', 'f', 'g']); // a round of 4 would have come next
  await finishRound();
  await finishRound();
  tick(1001);
  creates.add(['i', 'j'], false);
  expect(asked.at(-1)).toEqual(['i']);
  await finishRound(['i']);
  creates.add(['k', 'l'], false);
  expect(asked.at(-1)).toEqual(['k']);
});

it('starts a node handed over while creates are in flight at once when the window has room, not after them', async () => {
  const { creates, asked, failures, finishRound } = harness();
  creates.add(['a', 'b']);
  await finishRound();
  expect(asked.at(-1)).toEqual(['b']);
  // The window is two now: c, handed over while b is in flight, starts at once.
  creates.add(['c'], false);
  expect(asked.at(-1)).toEqual(['b', 'c']);
  // No room: d waits for one of them.
  creates.add(['d'], false);
  expect(asked.at(-1)).toEqual(['b', 'c']);
  expect(creates.has('d')).toBe(true);
  await finishRound();
  expect(asked.at(-1)).toEqual(['d']);
  await finishRound();
  expect(creates.size).toBe(0);
  expect(failures).toEqual([]);
});
