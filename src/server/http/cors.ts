// CORS as kube-apiserver answers it (AS/pkg/server/filters/cors.go, with the
// defaults kube-apiserver passes): a request whose Origin matches one of the
// `--cors-allowed-origins` patterns gets the Access-Control-* headers on every
// answer, errors included, and a preflight OPTIONS ends there with 204. Other
// origins get no CORS headers at all; the browser then refuses the answer.
// The WebSocket watch origin check asks the same question (`originMatches`).
import type { IncomingMessage } from 'node:http';

const ALLOW_METHODS = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
/** Content-Type covers every body and patch type (application/strategic-merge-patch+json etc.). */
const ALLOW_HEADERS = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';
const EXPOSE_HEADERS = 'Date';

/** Upstream matches each pattern anywhere in the Origin (Go's MatchString); anchoring is the pattern's job. */
export function originMatches(origin: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => {
    p.lastIndex = 0;
    return p.test(origin);
  });
}

/** The CORS headers for this request, or undefined when it has no Origin or an origin not allowed. */
export function corsHeaders(req: IncomingMessage, patterns: readonly RegExp[]): Record<string, string> | undefined {
  const origin = req.headers.origin;
  if (!origin || !originMatches(origin, patterns)) return undefined;
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': ALLOW_METHODS,
    'Access-Control-Allow-Headers': ALLOW_HEADERS,
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
    'Access-Control-Allow-Credentials': 'true',
  };
}

/**
 * `--cors-allowed-origins`: comma-separated regular expressions. As
 * kube-apiserver (since CVE-2022-1996) each must pin the start of the host
 * (`^` or `//`) and its end (`$` or `:`), so that `example.com` cannot be
 * satisfied by `https://example.com.attacker.io`.
 */
export function parseCorsAllowedOrigins(list: string): RegExp[] {
  return list
    .split(',')
    .filter(Boolean)
    .map((pattern) => {
      let re: RegExp;
      try {
        re = new RegExp(pattern);
      } catch (e) {
        throw new Error(`--cors-allowed-origins has an invalid regular expression: ${(e as Error).message}`);
      }
      const pinsStart = pattern.includes('^') || pattern.includes('//');
      const pinsEnd = pattern.includes('$') || pattern.includes(':');
      if (!pinsStart || !pinsEnd) {
        throw new Error(`--cors-allowed-origins has an invalid regular expression: ${JSON.stringify(pattern)} does not pin the start and end of the host in the Origin header (e.g. '^https://app\\.example\\.com(:[0-9]+)?$' or '//app\\.example\\.com(:|$)')`);
      }
      return re;
    });
}
