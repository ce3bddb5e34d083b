// Base64 as Go's encoding/json reads a []byte field (base64.StdEncoding):
// padding required, CR and LF ignored, anything else outside the alphabet an
// error at its byte offset, which the apiserver's decode error names.

const ALPHABET = /^[A-Za-z0-9+/]$/;
const isNewline = (c: string) => c === '\n' || c === '\r';

/** Where base64.StdEncoding.DecodeString fails on `s` (its CorruptInputError offset), or -1 when it decodes. */
export function base64ErrorOffset(s: string): number {
  const n = s.length;
  let si = 0;
  for (;;) {
    let j = 0;
    while (j < 4) {
      if (si === n) return j === 0 ? -1 : si - j;
      const c = s[si++];
      if (isNewline(c)) continue;
      if (c === '=') {
        if (j < 2) return si - 1;
        if (j === 2) {
          // "==" is due: the second one may come after newlines.
          while (si < n && isNewline(s[si])) si++;
          if (si === n) return n;
          if (s[si] !== '=') return si - 1;
          si++;
        }
        while (si < n && isNewline(s[si])) si++;
        return si < n ? si : -1;
      }
      if (!ALPHABET.test(c)) return si - 1;
      j++;
    }
  }
}
