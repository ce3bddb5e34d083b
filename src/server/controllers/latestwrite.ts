// One object's status written from many syncs: at most one write in flight,
// and the newest value asked for is always the last one written. A sync hands
// its status over and goes on (the next sync need not wait out a write); values
// asked for while a write is in flight are coalesced into one write of the
// newest after it.

export class LatestWrite<T> {
  private pending: { value: T } | undefined;
  private running = false;

  /** `write` writes one value; `failed` hears a write's failure (the value is not retried: the next `set` brings a newer one). */
  constructor(
    private readonly write: (value: T) => Promise<void>,
    private readonly failed: (e: unknown) => void,
  ) {}

  /** Asks for `value` to be written, after any write in flight, replacing any value still waiting. */
  set(value: T) {
    this.pending = { value };
    if (!this.running) void this.run();
  }

  private async run() {
    this.running = true;
    try {
      while (this.pending) {
        const { value } = this.pending;
        this.pending = undefined;
        try {
          await this.write(value);
        } catch (e) {
          this.failed(e);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
