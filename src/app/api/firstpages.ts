// Requests that only decorate a page (the sidebar's access answers, who the
// user is, discovery) wait while a list's first page is being read. A browser
// opens six connections to one server: the dozen small reviews a page asks for
// as it mounts, sent first, held the page's rows back behind them (at 5000
// nodes on a loaded machine the first page waited ~200 ms for a connection).

export class FirstPages {
  private reading = 0;
  private waiters: (() => void)[] = [];

  /** A first page is being read; call the returned function once it has arrived (or failed). */
  start(): () => void {
    this.reading++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.reading === 0) this.waiters.splice(0).forEach((w) => w());
    };
  }

  /**
   * Resolves once no first page is being read, at the latest after `maxMs`
   * (a slow list must not hold the rest of the page forever). It first lets
   * the current task end, so that lists mounted in the same commit as the
   * caller have started.
   */
  async idle(maxMs = 2000): Promise<void> {
    await new Promise((r) => setTimeout(r, 0));
    if (this.reading === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.waiters.push(() => (clearTimeout(timer), resolve()));
    });
  }
}

/** The app's one gate. */
export const firstPages = new FirstPages();
