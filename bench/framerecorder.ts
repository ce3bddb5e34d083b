// What a page's main thread let through while a bench acts on it: the gaps
// between its animation frames, and its long tasks (over 50 ms) with their
// start, from startRecorder until stopRecorder.
import type { Page } from '@playwright/test';

/** In the page: frame gaps and long tasks from now until stopRecorder. */
export const startRecorder = (page: Page) =>
  page.evaluate(() => {
    const w = window as any;
    w.__rec = { gaps: [] as number[], long: [] as number[], longAt: [] as number[], t0: performance.now(), on: true };
    let last = performance.now();
    const tick = (t: number) => {
      w.__rec.gaps.push(t - last);
      last = t;
      if (w.__rec.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const take = (entries: PerformanceEntryList) => entries.forEach((e) => (w.__rec.long.push(e.duration), w.__rec.longAt.push(e.startTime - w.__rec.t0)));
    w.__rec.take = take;
    w.__rec.obs = new PerformanceObserver((l) => take(l.getEntries()));
    w.__rec.obs.observe({ entryTypes: ['longtask'] });
  });

/** Stops recording: the frame gaps, and each long task's duration and start (ms from startRecorder). */
export const stopRecorder = (page: Page) =>
  page.evaluate(() => {
    const w = window as any;
    w.__rec.on = false;
    // Long tasks are reported after they end: those not yet delivered are taken before it stops.
    w.__rec.take(w.__rec.obs.takeRecords());
    w.__rec.obs.disconnect();
    return { gaps: w.__rec.gaps as number[], long: w.__rec.long as number[], longAt: w.__rec.longAt as number[] };
  });
