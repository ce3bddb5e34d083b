// Serves the built SPA: files from dist/, index.html for the app's own routes
// (so a deep link survives a reload), nothing for any other path (the caller
// answers those with a 404 Status). Text assets go out compressed (brotli or
// gzip, as Accept-Encoding allows); each file is compressed once, off the
// main thread, and kept, never per request.
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { promisify } from 'node:util';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};
/** Types worth compressing (images and woff2 are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.map', '.txt', '.ttf']);
/** Below this size the headers cost more than compression saves. */
const MIN_COMPRESS_BYTES = 1024;

const PLACEHOLDER = `<!doctype html><html><head><meta charset="utf-8"><title>API server</title></head>
<body style="font-family:system-ui;margin:3rem"><h1>The API server is up</h1>
<p>The web app has not been built. Run <code>npm start</code> to build and serve it.</p></body></html>`;

/**
 * What the app's pages may do. No script but the build's own files (none
 * inline, no eval); workers (Monaco's editor and YAML workers, reachability)
 * only from the build too. Styles may be inline because Monaco writes its
 * themes into <style> elements at run time. The app connects to the API of
 * any connection the user saved, so fetches and WebSockets may go anywhere
 * over http(s)/ws(s). No page may frame the app (clickjacking).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self' http: https: ws: wss:",
  "manifest-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Headers on every answer of the app's files. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // For browsers that predate frame-ancestors.
  'X-Frame-Options': 'DENY',
};

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export type Coding = 'br' | 'gzip' | 'identity';

/**
 * The coding to send, from an Accept-Encoding header (RFC 9110 §12.5.3):
 * brotli before gzip, anything with q=0 refused, `*` standing for the rest.
 */
export function chooseEncoding(header: string | undefined): Coding {
  if (!header) return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  const accepts = (c: string) => (q.get(c) ?? q.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip') || accepts('x-gzip')) return 'gzip';
  return 'identity';
}

interface Body {
  identity: Buffer;
  /** Filled in once compression finished; until then the identity body is sent. */
  br?: Buffer;
  gzip?: Buffer;
}

/** Bodies by file path and modification time: each compressed at most once. */
class Bodies {
  private readonly cache = new Map<string, { mtimeMs: number; body: Body }>();
  /** One compression at a time: the machine's cores belong to requests first. */
  private queue: Promise<void> = Promise.resolve();

  get(file: string, transform?: (b: Buffer) => Buffer): Body {
    const mtimeMs = statSync(file).mtimeMs;
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.body;
    const raw = readFileSync(file);
    const body: Body = { identity: transform ? transform(raw) : raw };
    this.cache.set(file, { mtimeMs, body });
    if (COMPRESSIBLE.has(extname(file)) && body.identity.length >= MIN_COMPRESS_BYTES) this.compress(body);
    return body;
  }

  private compress(body: Body) {
    const size = body.identity.length;
    this.queue = this.queue
      .then(async () => {
        body.gzip = await gzipAsync(body.identity, { level: 9 });
        body.br = await brotliAsync(body.identity, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: size, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
        });
      })
      .catch((e) => console.error('compressing a static file failed:', e));
  }

  /** Resolves when every compression started so far has finished. */
  settled(): Promise<void> {
    return this.queue;
  }
}

export interface StaticSite {
  /**
   * Serves `pathname` (decoded): a file of the build, or index.html when
   * `appRoute`. Returns false, having written nothing, for anything else.
   */
  (req: IncomingMessage, res: ServerResponse, pathname: string, appRoute: boolean): boolean;
  /** Resolves when the files asked for so far are compressed (tests, benches). */
  compressed(): Promise<void>;
}

export function staticFiles(root: string): StaticSite {
  const bodies = new Bodies();
  const inRoot = root.endsWith(sep) ? root : root + sep;
  const send = (req: IncomingMessage, res: ServerResponse, body: Body, headers: Record<string, string>) => {
    const compressible = body.gzip !== undefined || body.br !== undefined || body.identity.length >= MIN_COMPRESS_BYTES;
    const coding = chooseEncoding(req.headers['accept-encoding']);
    const chosen = coding !== 'identity' && body[coding] ? coding : 'identity';
    const data = chosen === 'identity' ? body.identity : body[chosen]!;
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      ...headers,
      'Content-Length': String(data.length),
      ...(chosen !== 'identity' ? { 'Content-Encoding': chosen } : {}),
      ...(compressible ? { Vary: 'Accept-Encoding' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : data);
  };
  const site = (req: IncomingMessage, res: ServerResponse, pathname: string, appRoute: boolean): boolean => {
    const index = join(root, 'index.html');
    const file = normalize(join(root, pathname));
    const isFile = file.startsWith(inRoot) && existsSync(file) && statSync(file).isFile();
    if (!isFile && !appRoute) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain', Allow: 'GET, HEAD' }).end('method not allowed\n');
      return true;
    }
    if (!existsSync(index)) {
      if (isFile) return false;
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).end(PLACEHOLDER);
      return true;
    }
    if (!isFile || file === index) {
      // The build's asset URLs are relative (so the app also runs under a
      // prefix); served from the root for any deep link, they resolve from /.
      const body = bodies.get(index, (b) => Buffer.from(b.toString('utf8').replace(/<head>/i, '<head><base href="/">')));
      send(req, res, body, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache' });
      return true;
    }
    const immutable = pathname.startsWith('/assets/');
    send(req, res, bodies.get(file), {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    return true;
  };
  return Object.assign(site, { compressed: () => bodies.settled() });
}
