// When a list row in the app shows an object's write: the app marks each row
// with the object's resourceVersion (data-rv), so a bench waits in the page
// for the row of `name` to reach `rv` and takes the page's clock then.
import type { Page } from '@playwright/test';

/** Date.now() in the page when the row of `name` shows resourceVersion `rv` or later; -1 after 10 s. */
export function rowShownAt(page: Page, name: string, rv: number): Promise<number> {
  return page.evaluate(
    ({ name, rv }) =>
      new Promise<number>((resolve) => {
        const shown = () => Number(document.querySelector(`[role=row][data-name="${name}"]`)?.getAttribute('data-rv') ?? 0) >= rv;
        if (shown()) return resolve(Date.now());
        const obs = new MutationObserver(() => shown() && (obs.disconnect(), resolve(Date.now())));
        obs.observe(document.querySelector('[role=table]')!, { subtree: true, attributes: true, childList: true });
        setTimeout(() => (obs.disconnect(), resolve(-1)), 10_000);
      }),
    { name, rv },
  );
}
