// A watch response's lines are parsed a read at a time: each read's complete
// lines come as one batch, every event in order and whole, whatever the
// chunks' boundaries (mid-line, mid-character, blank keep-alive lines).
import { describe, expect, it } from 'vitest';
import { eventBatches } from './watchlines.ts';

const event = (i: number) => ({ type: i % 3 ? 'MODIFIED' : 'ADDED', object: { metadata: { name: `node-${i}`, resourceVersion: String(100 + i), labels: { note: 'ünïcode\n"quoted"' } } } });

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const bytes = chunks.map((c) => new TextEncoder().encode(c));
  return new ReadableStream({
    pull(controller) {
      const next = bytes.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

async function batches(chunks: string[]) {
  const out: any[][] = [];
  for await (const b of eventBatches(streamOf(chunks))) out.push(b);
  return out;
}

describe('eventBatches', () => {
  const lines = Array.from({ length: 7 }, (_, i) => JSON.stringify(event(i)) + '\n');

  it("gives each read's complete lines as one batch, in order", async () => {
    const out = await batches([lines[0] + lines[1] + lines[2], lines[3], lines[4] + lines[5] + lines[6]]);
    expect(out).toEqual([[event(0), event(1), event(2)], [event(3)], [event(4), event(5), event(6)]]);
  });

  it('keeps a line cut between reads (even inside a character) for the next batch, and skips blank lines', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    // A keep-alive (blank lines) after the second line.
    const bytes = enc(lines[0] + lines[1] + '\n \n' + lines.slice(2).join(''));
    // Cut inside the two-byte ü of the third line, and inside the fifth line.
    const cut1 = enc(lines[0] + lines[1] + '\n \n').length + enc(lines[2]).indexOf(0xc3) + 1;
    const cut2 = enc(lines[0] + lines[1] + '\n \n' + lines.slice(2, 4).join('')).length + 10;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut1));
        c.enqueue(bytes.slice(cut1, cut2));
        c.enqueue(bytes.slice(cut2));
        c.close();
      },
    });
    const out: any[][] = [];
    for await (const b of eventBatches(stream)) out.push(b);
    expect(out).toEqual([[event(0), event(1)], [event(2), event(3)], [event(4), event(5), event(6)]]);
  });

  it('drops a last line cut off by the end of the stream', async () => {
    expect(await batches([lines[0] + lines[1].slice(0, 20)])).toEqual([[event(0)]]);
  });
});
