// Work the user does not wait for (parsing the later pages of a list), done
// in the main thread's idle time, so that it never makes a frame late: input
// and drawing go first, as the browser's own idle tasks and React's scheduler
// do. A step runs only while the browser's idle period (requestIdleCallback's
// deadline: until the next frame is due, at most 50 ms) has room for what a
// step has been taking; otherwise it waits for the next idle period. While
// the user scrolls, a frame's idle time is what its drawing leaves (~8 ms of
// 16.7); when nothing is drawn, idle periods are long and steps follow one
// another almost without a gap. A page that is never idle still gets a step
// at least every MAX_WAIT_MS (the idle callback's timeout), so work ends.
// Without requestIdleCallback (jsdom, older Safari), and in a hidden tab, steps
// run for SLICE_MS at a time and then let a frame in.

/** What one step is taken to cost before any has been measured, ms (a run of 100 pods: ~1.5 ms of JSON.parse on a quiet core). */
const FIRST_GUESS_MS = 2;
/** Without idle periods, a step is still taken after this long. */
const MAX_WAIT_MS = 200;
/** Where steps are sliced (no requestIdleCallback, a hidden tab): they run this long before a frame is let in. */
const SLICE_MS = 8;

interface Deadline {
  timeRemaining(): number;
  readonly didTimeout: boolean;
}

type RequestIdle = (cb: (d: Deadline) => void, opts?: { timeout?: number }) => unknown;

export interface IdleTime {
  /** Resolves when the next step may run: at once while the idle period has room for one. */
  room(): Promise<void>;
  /** Tells how long the step just run took, ms. */
  took(ms: number): void;
  /** Whether the idle period has room now for other work of `ms` (always, where steps are sliced or the tab is hidden). */
  has(ms: number): boolean;
}

/** Lets the browser draw a frame (and handle input) before the caller goes on. */
const yieldToFrame = (): Promise<void> => {
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  return s?.yield ? s.yield() : new Promise((r) => setTimeout(r, 0));
};

const tabHidden = () => typeof document !== 'undefined' && document.visibilityState === 'hidden';
const browserIdle = (): RequestIdle | null => (globalThis as { requestIdleCallback?: RequestIdle }).requestIdleCallback?.bind(globalThis) ?? null;

/** Steps in idle time; `requestIdle` is the browser's requestIdleCallback unless given (tests; null: none). */
export function idleTime(requestIdle: RequestIdle | null = browserIdle(), hidden: () => boolean = tabHidden): IdleTime {
  const slices = sliced();
  if (!requestIdle) return slices;
  /** A step's expected cost: a moving average, a slow step (a collection in it) counted as at most twice the cost. */
  let cost = FIRST_GUESS_MS;
  let deadline: Deadline | undefined;
  /** Steps taken on the current deadline (a timed-out one allows one). */
  let steps = 0;
  const fits = () => deadline !== undefined && (deadline.didTimeout ? steps === 0 : deadline.timeRemaining() >= cost);
  return {
    async room() {
      // A hidden tab draws no frames, and its idle callbacks may be held back: steps go in slices.
      if (hidden()) return slices.room();
      while (!fits()) {
        deadline = await new Promise<Deadline>((r) => requestIdle(r, { timeout: MAX_WAIT_MS }));
        steps = 0;
      }
      steps++;
    },
    took(ms) {
      cost += 0.25 * (Math.min(ms, 2 * cost) - cost);
      slices.took(ms);
    },
    has: (ms) => hidden() || (deadline !== undefined && !deadline.didTimeout && deadline.timeRemaining() >= ms),
  };
}

/** Steps for SLICE_MS at a time, then a frame (no idle callbacks, or a hidden tab). */
function sliced(): IdleTime {
  let busy = 0;
  return {
    async room() {
      if (busy < SLICE_MS) return;
      busy = 0;
      await yieldToFrame();
    },
    took(ms) {
      busy += ms;
    },
    has: () => true,
  };
}
