// When a row in the app shows an object's write: the app marks each row with
// the object's resourceVersion (data-rv), so a bench waits in the page for
// the row to reach `rv` and takes the page's clock then. The lists mark rows
// by object (data-name), the DaemonSet page by node (data-node).
import type { Page } from '@playwright/test';

/** Date.now() in the page when the row matching `row` (`[data-name="x"]`) shows resourceVersion `rv` or later; -1 after 10 s. */
export function rowShownAt(page: Page, row: string, rv: number): Promise<number> {
  return page.evaluate(
    ({ row, rv }) =>
      new Promise<number>((resolve) => {
        const shown = () => Number(document.querySelector(`[role=row]${row}`)?.getAttribute('data-rv') ?? 0) >= rv;
        if (shown()) return resolve(Date.now());
        const obs = new MutationObserver(() => shown() && (obs.disconnect(), resolve(Date.now())));
        obs.observe(document.body, { subtree: true, attributes: true, childList: true });
        setTimeout(() => (obs.disconnect(), resolve(-1)), 10_000);
      }),
    { row, rv },
  );
}
