// Which resource a URL names (kube-apiserver's RequestInfo), and the request
// target it is read from.
import { errors } from './status.ts';

export interface RequestTarget {
  /** The path without trailing slashes (`/` for the root), still percent-encoded. */
  path: string;
  query: URLSearchParams;
}

/**
 * Splits the raw request target (origin-form `/p?q`, absolute-form
 * `http://host/p?q`, as HTTP/1.1 allows) into path and query without a URL
 * parser that could reject the authority: only the path matters here, and a
 * target that is neither form, or a path whose percent-encoding does not
 * decode, is a 400 like Go's net/http answers.
 */
/** `host[:port]` as RFC 3986 has it (userinfo refused, as Go's request parsing does). */
function validAuthority(authority: string): boolean {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]*)(?::(\d*))?$/.exec(authority);
  return !!m && (m[2] === undefined || m[2] === '' || Number(m[2]) <= 65535);
}

export function requestTarget(raw: string | undefined): RequestTarget {
  let target = raw ?? '/';
  // `//host/path` names an authority, as Go's ParseRequestURI reads it.
  if (target.startsWith('//') && !target.startsWith('///')) target = 'http:' + target;
  if (!target.startsWith('/')) {
    const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(target);
    if (!absolute || !validAuthority(absolute[1])) throw errors.badRequest(`malformed request target ${JSON.stringify(target.slice(0, 100))}`);
    target = target.slice(absolute[0].length);
    if (!target.startsWith('/')) target = '/' + target;
  }
  const q = target.indexOf('?');
  const rawPath = (q < 0 ? target : target.slice(0, q)).split('#')[0];
  if (rawPath.includes('%')) {
    try {
      decodeURIComponent(rawPath);
    } catch {
      throw errors.badRequest(`invalid URL escape in path ${JSON.stringify(rawPath.slice(0, 100))}`);
    }
  }
  // Trailing slashes dropped by a scan: /\/+$/ retries at every slash, quadratic in a path of 16 KB of them.
  let end = rawPath.length;
  while (end > 0 && rawPath.charCodeAt(end - 1) === 0x2f) end--;
  return { path: rawPath.slice(0, end) || '/', query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}
export interface RequestInfo {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The deprecated /watch/ path prefix was used. */
  legacyWatch: boolean;
}

/** Namespace subresources, which end a path that would otherwise be read as a namespaced resource. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** `undefined` for paths that name no resource (discovery documents are handled before). */
export function resolveRequest(pathname: string): RequestInfo | undefined {
  const segments = pathname.split('/').filter(Boolean);
  const parts = pathname.includes('%') ? segments.map(decodeURIComponent) : segments;
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (!rest.length || rest.length > 3) return undefined;
  return { group, version, namespace, resource: rest[0], name: rest[1], subresource: rest[2], legacyWatch };
}
