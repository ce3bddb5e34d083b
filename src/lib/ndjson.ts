// Newline-delimited JSON as a watch response carries it: one event a line,
// read as the bytes arrive. The complete lines of one read of the body are
// parsed together (one JSON.parse of them as an array): a chunk of a busy
// stream carries dozens of events, and a reader may take them as one batch.

/**
 * The JSON values of a stream's non-blank lines, a batch per read of the body,
 * in order. A last line without its newline is a stream cut mid-event, and is dropped.
 */
export async function* jsonBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<any[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = rest + decoder.decode(value, { stream: true });
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      // Complete lines only; blank ones (keep-alives) left out.
      const lines = text.slice(0, end).split('\n').filter((l) => l.trim());
      rest = text.slice(end + 1);
      if (lines.length) yield JSON.parse(`[${lines.join(',')}]`);
    }
  } finally {
    reader.releaseLock();
  }
}

/** The same values one at a time. */
export async function* jsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<any> {
  for await (const batch of jsonBatches(body)) yield* batch;
}
