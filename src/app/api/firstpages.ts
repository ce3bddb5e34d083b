// The first page of a list goes first. It is what a big cluster keeps the user
// waiting for, so this module does two things for it:
// - it is sent early: the list page's address is known as soon as the app's
//   code runs (routes/readahead.ts), so its first page is on the wire while
//   React and the pages are evaluated, and the list's query takes that answer;
// - it is not queued behind decoration: requests that only decorate a page
//   (the sidebar's access answers, who the user is, discovery) wait while a
//   first page is being read. A browser opens six connections to one server;
//   the dozen small reviews a page asks for as it mounts, sent first, held the
//   rows back (at 5000 nodes on a loaded machine, ~200 ms for a connection).
import { apiBase, kubeAnswer, send, type Connection } from './client.ts';

const earlyKey = (conn: Connection, path: string) => `${apiBase(conn)}|${conn.token ?? ''}|${path}`;

export class FirstPages {
  private reading = 0;
  private waiters: (() => void)[] = [];
  /** First pages sent before the app asked for them, by connection and path; each taken by the first read of it. */
  private early = new Map<string, Promise<Response>>();

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

  /** Sends the GET of a first page the app will read shortly; unclaimed, it is dropped after `keepMs`. */
  sendEarly(conn: Connection, path: string, keepMs = 10_000) {
    const key = earlyKey(conn, path);
    if (this.early.has(key)) return;
    const res = send(conn, path);
    res.catch(() => undefined); // the reader sees the failure
    this.early.set(key, res);
    setTimeout(() => {
      if (this.early.get(key) !== res) return;
      this.early.delete(key);
      res.then((r) => r.body?.cancel(), () => undefined);
    }, keepMs);
  }

  /** Reads a first page (taking the early answer of the same connection and path, once), holding decoration back meanwhile. */
  async read<T>(conn: Connection, path: string): Promise<T> {
    const end = this.start();
    try {
      const key = earlyKey(conn, path);
      const early = this.early.get(key);
      this.early.delete(key);
      return await kubeAnswer<T>(conn, path, early ?? send(conn, path));
    } finally {
      end();
    }
  }
}

/** The app's one gate. */
export const firstPages = new FirstPages();
