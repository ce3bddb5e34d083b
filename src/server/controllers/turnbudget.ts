// The controllers' share of one turn of the event loop. Work comes in bulk:
// hundreds of a rollout wave's kubelet timers run out in one timers phase, and
// one group commit delivers hundreds of events. Started all at once, every
// sync and its write would run in that one turn, and the writes' answers, the
// watch flushes and HTTP requests would wait out the whole of it (turns of
// 400-800 ms at 5000 nodes). So a work queue starts syncs only while the turn
// has spent less than TURN_BUDGET_MS since the controllers' first work in it,
// and leaves the rest for the next turn, after the event loop has polled for
// I/O. A turn ends, for this count, at the check phase (setImmediate).

const TURN_BUDGET_MS = 10;
/** A count older than this lost its end (the check phase never came: a test's fake timers): it starts again. */
const STALE_MS = 2000;

/** When the controllers' first work in this turn began (-1: none yet). */
let turnStart = -1;
let scheduled = false;
/** Work left for the next turn, in the order it was left. */
const waiting = new Set<() => void>();

function schedule() {
  if (scheduled) return;
  scheduled = true;
  setImmediate(nextTurn);
}

function nextTurn() {
  scheduled = false;
  turnStart = -1;
  const work = [...waiting];
  waiting.clear();
  for (const w of work) w();
}

/** Whether this turn still has room for more of the controllers' work (the first ask in a turn starts its clock). */
export function turnHasRoom(): boolean {
  const now = performance.now();
  if (turnStart < 0 || now - turnStart > STALE_MS) {
    if (turnStart >= 0) scheduled = false;
    turnStart = now;
    schedule(); // ends the turn's count
  }
  return now - turnStart < TURN_BUDGET_MS;
}

/** Runs `work` in the next turn (once, however often it is left before then). */
export function inNextTurn(work: () => void) {
  waiting.add(work);
  schedule();
}
