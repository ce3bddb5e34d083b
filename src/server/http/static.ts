// Serves the built SPA: files from dist/, and index.html for any other path
// so that the app's own routes survive a reload.
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

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

const PLACEHOLDER = `<!doctype html><html><head><meta charset="utf-8"><title>API server</title></head>
<body style="font-family:system-ui;margin:3rem"><h1>The API server is up</h1>
<p>The web app has not been built. Run <code>npm start</code> to build and serve it.</p></body></html>`;

export function staticFiles(root: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'Content-Type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    const index = join(root, 'index.html');
    if (!existsSync(index)) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PLACEHOLDER);
      return;
    }
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://local').pathname);
    const file = normalize(join(root, pathname));
    const inside = file.startsWith(root.endsWith(sep) ? root : root + sep);
    const target = inside && existsSync(file) && statSync(file).isFile() ? file : index;
    if (target === index) {
      // The build's asset URLs are relative (so the app also runs under a
      // prefix); served from the root for any deep link, they resolve from /.
      const html = readFileSync(index, 'utf8').replace(/<head>/i, '<head><base href="/">');
      res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    const immutable = target !== index && pathname.startsWith('/assets/');
    res.writeHead(200, {
      'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream',
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(target).pipe(res);
  };
}
