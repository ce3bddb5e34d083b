import { describe, expect, it } from 'vitest';
import { jsonBatches, jsonLines } from './ndjson.ts';

const streamOf = (...chunks: (string | Uint8Array)[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
      c.close();
    },
  });

async function all(body: ReadableStream<Uint8Array>) {
  const out: unknown[] = [];
  for await (const v of jsonLines(body)) out.push(v);
  return out;
}

describe('jsonLines', () => {
  it('yields each line of a chunk, and lines split across chunks once whole', async () => {
    expect(await all(streamOf('{"a":1}\n{"a":2}\n{"a"', ':3}\n', '\n  \n{"a":4}\n'))).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }]);
  });

  it('decodes a character whose UTF-8 bytes are split between chunks', async () => {
    const bytes = new TextEncoder().encode('{"name":"ünïcødé"}\n');
    expect(await all(streamOf(bytes.subarray(0, 10), bytes.subarray(10)))).toEqual([{ name: 'ünïcødé' }]);
  });

  it('drops a last line cut off before its newline', async () => {
    expect(await all(streamOf('{"a":1}\n{"a":2'))).toEqual([{ a: 1 }]);
  });

  it('stops at the first line that is not JSON, with its error', async () => {
    await expect(all(streamOf('{"a":1}\nnot json\n'))).rejects.toThrow(SyntaxError);
  });
});

const event = (i: number) => ({ type: i % 3 ? 'MODIFIED' : 'ADDED', object: { metadata: { name: `node-${i}`, resourceVersion: String(100 + i), labels: { note: 'ünïcode\n"quoted"' } } } });

async function batches(chunks: string[]) {
  const out: any[][] = [];
  for await (const b of jsonBatches(streamOf(...chunks))) out.push(b);
  return out;
}

describe('jsonBatches: each read\'s complete lines as one batch (a watch response, parsed a read at a time)', () => {
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
    for await (const b of jsonBatches(stream)) out.push(b);
    expect(out).toEqual([[event(0), event(1)], [event(2), event(3)], [event(4), event(5), event(6)]]);
  });

  it('drops a last line cut off by the end of the stream', async () => {
    expect(await batches([lines[0] + lines[1].slice(0, 20)])).toEqual([[event(0)]]);
  });
});
