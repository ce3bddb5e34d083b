// Newline-delimited JSON as a watch response carries it: one event a line,
// read as the bytes arrive. Lines are cut from the decoded text by index (one
// slice per line, the unfinished tail kept), so a chunk carrying thousands of
// events is not re-copied once per event.

/**
 * The JSON values of a stream's non-blank lines, one at a time as they arrive.
 * A last line without its newline is a stream cut mid-event, and is dropped.
 */
export async function* jsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<any> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = rest + decoder.decode(value, { stream: true });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const line = text.slice(start, nl);
        start = nl + 1;
        if (line.trim()) yield JSON.parse(line);
      }
      rest = text.slice(start);
    }
  } finally {
    reader.releaseLock();
  }
}
