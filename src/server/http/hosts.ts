// The Host names this server answers to. A browser page on another origin can
// point a name it controls at 127.0.0.1 (DNS rebinding) and then talk to the
// server as "same origin"; its requests still carry that name in `Host`. So a
// request is served only when its Host is a name the server was told it
// serves: any IP literal (a browser that reached us by address is on our
// origin), `localhost` and `*.localhost` (always loopback), the name the
// server is bound to, and whatever `--accept-hosts` adds. This holds in every
// auth mode: tokens alone do not stop a page from using a browser's ambient
// credentials (client certificates, a proxy's session).
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './status.ts';

/** The host part of a Host header value (`name:port`, `[v6]:port`), lower-cased; undefined when malformed. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0 || (end + 1 < h.length && !/^:\d*$/.test(h.slice(end + 1)))) return undefined;
    return h.slice(1, end);
  }
  const m = /^([^:]*)(:\d*)?$/.exec(h);
  return m ? m[1].replace(/\.$/, '') : undefined;
}

/**
 * A predicate over Host header values. `accepted` entries are names
 * (`kube.example.com`), wildcards of one or more labels (`*.example.com`) or
 * `*` (any name: the check is off).
 */
export function hostChecker(boundHost: string | undefined, accepted: readonly string[] = []): (header: string | undefined) => boolean {
  const names = new Set<string>(['localhost']);
  const suffixes: string[] = ['.localhost'];
  let any = false;
  for (const raw of [boundHost ?? '', ...accepted]) {
    const name = hostName(raw);
    if (!name) continue;
    if (name === '*') any = true;
    else if (name.startsWith('*.')) suffixes.push(name.slice(1));
    else names.add(name);
  }
  return (header) => {
    // HTTP/1.0 clients may send none; browsers always do.
    if (header === undefined) return true;
    if (any) return true;
    const name = hostName(header);
    if (name === undefined) return false;
    return isIP(name) !== 0 || names.has(name) || suffixes.some((s) => name.endsWith(s));
  };
}

export function hostRefused(req: IncomingMessage): ApiError {
  const name = hostName(req.headers.host ?? '') ?? req.headers.host ?? '';
  return new ApiError(
    403,
    'Forbidden',
    `host ${JSON.stringify(name)} is not a name this server serves; start it with --accept-hosts=${name || '<name>'} to serve it under that name`,
  );
}
