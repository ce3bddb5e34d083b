// When a row in the app shows an object's write: the app marks each row with
// the object's resourceVersion (data-rv). A bench arms a probe on the row
// before the write (armRow), so a row that shows it before the bench asks is
// timed when it did, not when the bench asked (under load the write's answer
// can come after the row showed it); rowShownSince then answers that moment,
// on the page's clock (Date.now()). The lists mark rows by object
// (data-name), the DaemonSet page by node (data-node).
//
// The reference watcher splits a write -> row time in two: a separate, idle
// process watching what the page watches notes when each write's event
// arrives; write -> reference is the server's and the transport's part, and
// reference -> row the page's own share.
import type { Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** From now on, each moment the row matching `row` (`[data-name="x"]`) shows another resourceVersion, with Date.now(). */
export const armRow = (page: Page, row: string) =>
  page.evaluate((row) => {
    const w = window as any;
    w.__probe?.obs.disconnect();
    const rvNow = () => Number(document.querySelector(`[role=row]${row}`)?.getAttribute('data-rv') ?? 0);
    const probe = { log: [] as [number, number][], last: rvNow(), waiters: [] as (() => void)[], obs: undefined as unknown as MutationObserver };
    probe.obs = new MutationObserver(() => {
      const rv = rvNow();
      if (rv === probe.last) return;
      probe.last = rv;
      probe.log.push([rv, Date.now()]);
      probe.waiters.forEach((f) => f());
    });
    probe.obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-rv'] });
    w.__probe = probe;
  }, row);

/** The first moment since armRow that the row showed `rv` or later (Date.now() in the page), waiting up to 10 s; -1 after. */
export const rowShownSince = (page: Page, rv: number) =>
  page.evaluate(
    (rv) =>
      new Promise<number>((resolve) => {
        const probe = (window as any).__probe;
        const look = () => probe.log.find(([v]: [number, number]) => v >= rv)?.[1];
        const at = look();
        if (at !== undefined) return resolve(at);
        const timer = setTimeout(() => resolve(-1), 10_000);
        probe.waiters.push(() => {
          const at = look();
          if (at !== undefined) (clearTimeout(timer), resolve(at));
        });
      }),
    rv,
  );

/**
 * The reference watcher: a process of its own (so neither the bench's
 * Playwright traffic nor the page's main thread delays it) that watches `url`
 * (ws://…?watch=1…) over a WebSocket and notes when each probe's event (its
 * object labelled bench-row=<i>) first arrives: Date.now(), the page's clock.
 */
export function referenceWatcher(url: string, auth: string) {
  const script = `
    const WebSocket = require('ws');
    const seen = new Set();
    const ws = new WebSocket(process.argv[1], { headers: { Authorization: process.argv[2] } });
    ws.on('open', () => console.log('open'));
    ws.on('message', (data) => {
      const text = data.toString();
      const at = text.indexOf('"bench-row":"');
      const re = at >= 0 && /^"bench-row":"(\\d+)"/.exec(text.slice(at, at + 40));
      if (re && !seen.has(re[1])) (seen.add(re[1]), console.log('arrived ' + re[1] + ' ' + Date.now()));
    });
    ws.on('close', () => process.exit(0));
    ws.on('error', (e) => (console.error('reference watcher: ' + e.message), process.exit(1)));`;
  const child = spawn(process.execPath, ['-e', script, url, auth], { stdio: ['ignore', 'pipe', 'inherit'] });
  const arrived = new Map<string, number>();
  let onOpen: () => void;
  const opened = new Promise<void>((r) => (onOpen = r));
  createInterface({ input: child.stdout! }).on('line', (l) => {
    if (l === 'open') onOpen();
    const [word, i, at] = l.split(' ');
    if (word === 'arrived') arrived.set(i, Number(at));
  });
  return {
    opened,
    /** When probe `i`'s event arrived; waits up to 2 s for its line, which may still be in the pipe (the DOM can be first). */
    async arrival(i: number): Promise<number | undefined> {
      for (let k = 0; !arrived.has(String(i)) && k < 40; k++) await new Promise((r) => setTimeout(r, 50));
      return arrived.get(String(i));
    },
    arrived,
    stop: () => child.kill(),
  };
}
