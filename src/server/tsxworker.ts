import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread on one of the server's TypeScript modules: the server runs
 * from source, so the thread registers tsx's loader first, then loads the entry.
 * `from` is the caller's `import.meta.url` and `entry` a path relative to it.
 *
 * The path is joined by hand: Vite rewrites `new URL('./x', import.meta.url)`
 * into a web asset's http: URL when the server runs under a browser-like test
 * environment (the app's tests start a real server), and the thread's loader
 * takes file: URLs only.
 */
export function startTsxWorker(from: string, entry: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const entryUrl = pathToFileURL(join(dirname(fileURLToPath(from)), entry)).href;
  // tsx is found from this file, not from the directory the server started in;
  // require.resolve gives its CommonJS build, and the loader API is the ES module beside it.
  const tsx = pathToFileURL(createRequire(from).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entryUrl)}); })`, { ...options, eval: true });
}
