// A histogram of times in fixed buckets, for the figures the benches ask the
// server for (watch flushes, group commits): constant memory however long a
// bench runs, percentiles to the bucket's width.

export class Histogram {
  private readonly counts: Uint32Array;
  private n = 0;
  private max = 0;
  private sum = 0;
  /** `buckets` of `stepMs` each; a value past the last counts in the last. */
  constructor(
    private readonly buckets: number,
    private readonly stepMs: number,
  ) {
    this.counts = new Uint32Array(buckets + 1);
  }
  add(ms: number, times = 1) {
    this.counts[Math.min(this.buckets, Math.max(0, Math.round(ms / this.stepMs)))] += times;
    this.n += times;
    this.sum += ms * times;
    if (ms > this.max) this.max = ms;
  }
  summary() {
    const pct = (p: number) => {
      if (this.n === 0) return 0;
      for (let i = 0, seen = 0; i <= this.buckets; i++) if ((seen += this.counts[i]) > this.n * p) return i * this.stepMs;
      return this.buckets * this.stepMs;
    };
    const r = (x: number) => Math.round(x * 10) / 10;
    return { n: this.n, mean: r(this.n ? this.sum / this.n : 0), p50: r(pct(0.5)), p90: r(pct(0.9)), p99: r(pct(0.99)), max: r(this.max) };
  }
}
