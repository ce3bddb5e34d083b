import { describe, expect, it } from 'vitest';
import { jsonLines } from './ndjson.ts';

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
