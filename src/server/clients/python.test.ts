// The official Python client (Debian's python3-kubernetes, installed by
// .ci/run) against the real server, signed in by the kubeconfig the server
// writes (TLS with its CA, the admin token). The script
// (python/suite.py) reports one line per section; each is a test here.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';

const run = promisify(execFile);
// Debian's interpreter: the one python3-kubernetes installs into (a python3 earlier on PATH may be another).
const PYTHON = '/usr/bin/python3';
const SUITE = join(import.meta.dirname, 'python', 'suite.py');
const SECTIONS = ['crud', 'patch', 'status', 'paging', 'watch', 'watch-bookmarks', 'delete'];

/** The client's version, or a failure saying how to install it: CI installs it, so its absence is a failure, not a skip. */
function pythonClientVersion(): string {
  try {
    return execFileSync(PYTHON, ['-c', 'import kubernetes; print(kubernetes.__version__)'], { encoding: 'utf8' }).trim();
  } catch (e) {
    throw new Error(`${PYTHON} with the kubernetes module is required (apt-get install -y python3-kubernetes; .ci/run does it): ${(e as Error).message}`);
  }
}

let s: TestServer;
const results = new Map<string, { ok: boolean; error?: string }>();

beforeAll(async () => {
  pythonClientVersion();
  // No controllers: the suite's replaces and status writes race no one's (a DaemonSet controller would update its status).
  s = await startTestServer({ controllers: false });
  const { stdout, stderr } = await run(PYTHON, [SUITE, s.kubeconfig, ...SECTIONS], { timeout: 240_000, maxBuffer: 16 << 20 }).catch((e) => {
    throw new Error(`suite.py failed to run: ${e.stderr || e.message}`);
  });
  for (const line of stdout.split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    results.set(r.section, r);
  }
  if (!results.size) throw new Error(`suite.py printed no results: ${stderr}`);
}, 300_000);

afterAll(async () => {
  await s?.stop();
});

describe(`python3-kubernetes against the server`, () => {
  it('is Debian\'s client', () => {
    expect(pythonClientVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  for (const section of SECTIONS) {
    it(section, () => {
      const r = results.get(section);
      expect(r, `section ${section} did not report`).toBeDefined();
      expect(r!.ok, r!.error).toBe(true);
    });
  }
});
