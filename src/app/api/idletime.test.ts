// Work in idle time: a step runs only while the browser's idle period has
// room for what steps have been taking, else it waits for the next idle
// period; a period given because the wait timed out allows one step.
import { describe, expect, it } from 'vitest';
import { idleTime } from './idletime.ts';

/** A requestIdleCallback the test drives: `idle(ms)` starts an idle period with `ms` left. */
function fakeIdle() {
  const waiting: ((d: { timeRemaining(): number; didTimeout: boolean }) => void)[] = [];
  const timeouts: (number | undefined)[] = [];
  let left = 0;
  return {
    request: (cb: (d: { timeRemaining(): number; didTimeout: boolean }) => void, opts?: { timeout?: number }) => {
      waiting.push(cb);
      timeouts.push(opts?.timeout);
    },
    waiting: () => waiting.length,
    timeouts,
    /** Starts an idle period with `ms` left (didTimeout: the wait's timeout ran out instead). */
    idle(ms: number, didTimeout = false) {
      left = ms;
      for (const cb of waiting.splice(0)) cb({ timeRemaining: () => left, didTimeout });
    },
    /** Time passes within the idle period. */
    spend(ms: number) {
      left = Math.max(0, left - ms);
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

/** Takes steps of `ms` for as long as the test runs, each spending its time in the idle period; counts them. */
function stepForever(idle: ReturnType<typeof idleTime>, f: ReturnType<typeof fakeIdle>, ms: number) {
  const stepper = { steps: 0 };
  void (async () => {
    for (;;) {
      await idle.room();
      stepper.steps++;
      f.spend(ms);
      idle.took(ms);
    }
  })();
  return stepper;
}

describe('idleTime', () => {
  it('runs steps while the idle period has room for one, then waits for the next period', async () => {
    const f = fakeIdle();
    const idle = idleTime(f.request);
    let steps = 0;
    const run = (async () => {
      for (let i = 0; i < 5; i++) {
        await idle.room();
        steps++;
        f.spend(3);
        idle.took(3);
      }
    })();
    await settle();
    // Nothing before the first idle period, and the wait has a timeout (work still ends on a page never idle).
    expect(steps).toBe(0);
    expect(f.waiting()).toBe(1);
    expect(f.timeouts[0]).toBeGreaterThan(0);
    // 10 ms of idle time: room for three steps of 3 ms (10, 7, 4 left), not a fourth (1 left).
    f.idle(10);
    await settle();
    expect(steps).toBe(3);
    expect(f.waiting()).toBe(1);
    // A period too short for a step (2 ms against 3) is passed over.
    f.idle(2);
    await settle();
    expect(steps).toBe(3);
    f.idle(6);
    await run;
    expect(steps).toBe(5);
  });

  it('takes one step, not more, in a period given because the wait timed out', async () => {
    const f = fakeIdle();
    const stepper = stepForever(idleTime(f.request), f, 3);
    await settle();
    f.idle(0, true);
    await settle();
    expect(stepper.steps).toBe(1);
    expect(f.waiting()).toBe(1);
    f.idle(0, true);
    await settle();
    expect(stepper.steps).toBe(2);
  });

  it('expects what steps have been taking: slower steps need longer periods', async () => {
    const f = fakeIdle();
    const stepper = stepForever(idleTime(f.request), f, 12);
    await settle();
    f.idle(50);
    await settle();
    const first = stepper.steps;
    expect(first).toBeGreaterThan(1);
    // After steps of 12 ms, a period of 4 ms has no room for one (it had, for the first guess).
    f.idle(4);
    await settle();
    expect(stepper.steps).toBe(first);
  });

  it('tells whether the idle period has room for other work', async () => {
    const f = fakeIdle();
    const idle = idleTime(f.request);
    expect(idle.has(1)).toBe(false);
    const step = idle.room();
    f.idle(10);
    await step;
    expect(idle.has(8)).toBe(true);
    expect(idle.has(12)).toBe(false);
    f.spend(10);
    const next = idle.room();
    await settle();
    f.idle(20, true);
    await next;
    // A timed-out period has no room beyond its one step.
    expect(idle.has(1)).toBe(false);
  });

  it('in a hidden tab, runs steps without waiting for idle periods', async () => {
    const f = fakeIdle();
    let hidden = true;
    const idle = idleTime(f.request, () => hidden);
    for (let i = 0; i < 5; i++) {
      await idle.room();
      idle.took(5);
    }
    expect(f.waiting()).toBe(0);
    // Shown again: the next step waits for idle time.
    hidden = false;
    let stepped = false;
    void idle.room().then(() => (stepped = true));
    await settle();
    expect(stepped).toBe(false);
    expect(f.waiting()).toBe(1);
  });

  it('without idle callbacks, runs steps and lets frames in between', async () => {
    const idle = idleTime(null);
    for (let i = 0; i < 10; i++) {
      await idle.room();
      idle.took(5);
    }
    expect(idle.has(1000)).toBe(true);
  });
});
