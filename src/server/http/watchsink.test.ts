// The watch sink's flush: each watcher's events are taken when a flush begins,
// so watchers of one feed share one frame even when more events arrive while
// the flush is written over several turns (those go out in the next flush).
import { describe, expect, it } from 'vitest';
import { resetWatchFlushStats, watchFlushTimes, WatchSink, type Framing, type WatchWire } from './watchsink.ts';

/** A wire that records its writes and takes about a millisecond for each, so a flush of many spans turns. */
function slowWire(framing: Framing, onWrite: () => void) {
  const writes: Buffer[] = [];
  const wire: WatchWire = {
    framing,
    writable: () => true,
    write(bytes) {
      writes.push(bytes);
      const until = performance.now() + 1;
      while (performance.now() < until);
      onWrite();
    },
    writableLength: () => 0,
    drained: async () => undefined,
    destroy() {},
    end() {},
    onGone() {},
  };
  return { wire, writes };
}

describe('WatchSink', () => {
  it('writes each watcher what it held when the flush began, framed once for all of them', async () => {
    let frames = 0;
    const framing: Framing = { frame: (events) => (frames++, Buffer.concat(events)) };
    const a = Buffer.from('{"type":"ADDED"}\n');
    const b = Buffer.from('{"type":"MODIFIED"}\n');
    let sentB = false;
    const sinks: WatchSink[] = [];
    const wires = Array.from({ length: 40 }, () =>
      slowWire(framing, () => {
        // After the first watcher's write, and before the flush's next turn, the next event arrives for all.
        if (sentB) return;
        sentB = true;
        setImmediate(() => sinks.forEach((s) => s.send(b)));
      }),
    );
    for (const { wire } of wires) sinks.push(new WatchSink(wire, 1 << 20));
    sinks.forEach((s) => s.send(a));
    await new Promise((r) => setTimeout(r, 500));
    for (const { writes } of wires) expect(writes.map(String)).toEqual([String(a), String(b)]);
    expect(frames).toBe(2);
  });

  it('records when each flush took its events and when its last write went out (the benches time events with it)', async () => {
    resetWatchFlushStats();
    const framing: Framing = { frame: (events) => Buffer.concat(events) };
    const a = Buffer.from('{"n":1}\n');
    const b = Buffer.from('{"n":2}\n');
    let sentB = 0;
    const writeTimes: number[] = [];
    const sinks: WatchSink[] = [];
    const wires = Array.from({ length: 40 }, () =>
      slowWire(framing, () => {
        writeTimes.push(performance.now());
        if (sentB) return;
        // While the first flush writes, the next event arrives: the flush under way does not carry it.
        sentB = performance.now();
        setImmediate(() => sinks.forEach((s) => s.send(b)));
      }),
    );
    for (const { wire } of wires) sinks.push(new WatchSink(wire, 1 << 20));
    sinks.forEach((s) => s.send(a));
    await new Promise((r) => setTimeout(r, 500));
    const times = watchFlushTimes();
    expect(times).toHaveLength(2);
    const [[took1, end1], [took2, end2]] = times;
    expect(took1).toBeLessThan(sentB);
    expect(took2).toBeGreaterThan(sentB);
    // Each flush ends at its last write: the first's 40 writes, then the second's.
    expect(writeTimes).toHaveLength(80);
    expect(end1).toBeGreaterThanOrEqual(writeTimes[39]);
    expect(end1).toBeLessThanOrEqual(took2);
    expect(end2).toBeGreaterThanOrEqual(writeTimes[79]);
    resetWatchFlushStats();
    expect(watchFlushTimes()).toHaveLength(0);
  });

  it('writes what a flush under way took before what came since when drained', async () => {
    const framing: Framing = { frame: (events) => Buffer.concat(events) };
    const events = ['1', '2', '3'].map((n) => Buffer.from(`{"n":${n}}\n`));
    let last: WatchSink | undefined;
    const wires = Array.from({ length: 20 }, () =>
      slowWire(framing, () => {
        // While the flush is under way, the last watcher gets another event and is drained at once.
        if (!last || last.buffered() === 0) return;
        const sink = last;
        last = undefined;
        sink.send(events[2]);
        void sink.drained();
      }),
    );
    const sinks = wires.map(({ wire }) => new WatchSink(wire, 1 << 20));
    last = sinks[sinks.length - 1];
    sinks.forEach((s) => (s.send(events[0]), s.send(events[1])));
    await new Promise((r) => setTimeout(r, 300));
    expect(wires[wires.length - 1].writes.map(String).join('')).toBe(events.map(String).join(''));
  });

  it('writes a flush in one turn when its writes took wall time but little CPU (the thread waited, as for a core)', async () => {
    const framing: Framing = { frame: (events) => Buffer.concat(events) };
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let turnsSeen = 0;
    let firstWrite = true;
    const written: number[] = [];
    const wires = Array.from({ length: 40 }, () => {
      const wire: WatchWire = {
        framing,
        writable: () => true,
        write() {
          // The turn the flush began in ends when this immediate runs: each write notes which turn it was in.
          if (firstWrite) (firstWrite = false), setImmediate(() => turnsSeen++);
          written.push(turnsSeen);
          Atomics.wait(pause, 0, 0, 1); // 1 ms asleep: wall time without CPU
        },
        writableLength: () => 0,
        drained: async () => undefined,
        destroy() {},
        end() {},
        onGone() {},
      };
      return wire;
    });
    const sinks = wires.map((wire) => new WatchSink(wire, 1 << 20));
    sinks.forEach((s) => s.send(Buffer.from('{"type":"ADDED"}\n')));
    await new Promise((r) => setTimeout(r, 200));
    expect(written).toEqual(new Array(40).fill(0));
  });

  it('frames each distinct run of events once, and watchers whose events differ get their own', async () => {
    const framed: string[] = [];
    const framing: Framing = { frame: (events) => (framed.push(events.map(String).join('')), Buffer.concat(events)) };
    const [a, b, c] = ['a', 'b', 'c'].map((n) => Buffer.from(`{"n":"${n}"}\n`));
    const wires = Array.from({ length: 6 }, () => slowWire(framing, () => {}));
    const sinks = wires.map(({ wire }) => new WatchSink(wire, 1 << 20));
    // Two selectors' watchers: [a, b] and [a, c] share their first event; one watcher got a and b as equal bytes in other Buffers.
    sinks.forEach((s, i) => (s.send(a), s.send(i % 2 ? c : b)));
    const copies = [Buffer.from(a), Buffer.from(b)];
    const other = new WatchSink(slowWire(framing, () => {}).wire, 1 << 20);
    copies.forEach((e) => other.send(e));
    await new Promise((r) => setTimeout(r, 100));
    wires.forEach(({ writes }, i) => expect(writes.map(String)).toEqual([String(a) + String(i % 2 ? c : b)]));
    expect(framed.sort()).toEqual([a + '' + b, a + '' + b, a + '' + c].sort());
  });
});
