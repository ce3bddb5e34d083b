// Snapshots against the real server: taken while it serves (in process, by the
// command, on a schedule), restored into a new data dir that serves the same
// objects at the same resourceVersions, and watchers coming back with a
// resourceVersion from before the restore told to relist (410).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startTestServer, readWatch, testStorage, type TestServer } from '../testing.ts';
import { SqliteStorage } from './sqlite.ts';
import { listSnapshots, restoreSnapshot, RESTORE_REVISION_BUMP, snapshotDir, takeSnapshot } from './snapshot.ts';

const execFileAsync = promisify(execFile);
/** `npm run snapshot -- <args>`, without npm's start-up. */
const snapshotCommand = (...args: string[]) => execFileAsync(process.execPath, ['--import', 'tsx', 'src/server/storage/snapshot-cli.ts', ...args]);
const cm = (name: string, i = 0) => ({ metadata: { name }, data: { i: String(i) } });
const CMS = '/api/v1/namespaces/default/configmaps';

async function names(s: TestServer): Promise<Map<string, string>> {
  const list = await s.api(CMS);
  return new Map(list.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
}

// Snapshots copy the SQLite file; an etcd cluster has its own (etcdctl snapshot save).
describe.skipIf(testStorage() === 'etcd')('snapshots', () => {
  it('restore the objects and resourceVersions of the moment they were taken, online, and send watchers from before to relist', async () => {
    // A data dir of the test's own: stop() keeps it, and the snapshot in it.
    const s = await startTestServer({ dataDir: mkdtempSync(join(tmpdir(), 'kw-snap-')) });
    let snapshot: string;
    let before: Map<string, string>;
    let lastSeen: string;
    try {
      for (let i = 0; i < 20; i++) expect((await s.api(CMS, { method: 'POST', body: cm(`before-${i}`, i) })).status).toBe(201);
      // Taken while writers keep writing: the snapshot is one consistent moment.
      const writing = Promise.all([0, 1, 2].map(async (w) => {
        for (let i = 0; i < 10; i++) await s.api(CMS, { method: 'POST', body: cm(`during-${w}-${i}`) });
      }));
      snapshot = await takeSnapshot(s.storage as SqliteStorage, snapshotDir(s.dataDir));
      await writing;
      const db = new Database(snapshot, { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const snapRev = (db.prepare(`SELECT MAX(id) AS rev FROM kine`).get() as { rev: number }).rev;
      db.close();
      before = new Map([...(await names(s))].filter(([, rv]) => Number(rv) <= snapRev));
      expect([...before.keys()].filter((n) => n.startsWith('before-'))).toHaveLength(20);
      // Writes after the snapshot, which the restore does not have.
      expect((await s.api(CMS, { method: 'POST', body: cm('after') })).status).toBe(201);
      lastSeen = String(s.cache.revision);
    } finally {
      await s.stop();
    }

    const restoredDir = mkdtempSync(join(tmpdir(), 'kw-restored-'));
    const revision = restoreSnapshot(snapshot, restoredDir);
    expect(() => restoreSnapshot(snapshot, restoredDir)).toThrow('exists');
    const r = await startTestServer({ dataDir: restoredDir });
    try {
      const now = await names(r);
      expect(now.has('after')).toBe(false);
      // Every object of the snapshot, at its resourceVersion.
      for (const [name, rv] of before) expect(now.get(name), name).toBe(rv);
      expect(now.size).toBe(before.size);
      // The list's revision and the next write are past anything the old server handed out.
      const list = await r.api(CMS);
      expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(revision);
      const created = await r.api(CMS, { method: 'POST', body: cm('restored-write') });
      expect(Number(created.body.metadata.resourceVersion)).toBeGreaterThan(Number(lastSeen));
      // A watch resuming from before the restore (from the snapshot's time or later) must relist.
      for (const rv of [[...before.values()][0], lastSeen]) {
        const events = await readWatch(`${r.url}${CMS}?watch=1&resourceVersion=${rv}`, (e) => e.length >= 1, { timeoutMs: 5000 });
        expect(events[0], rv).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
      }
      const listAt = await r.api(`${CMS}?resourceVersion=${[...before.values()][0]}&resourceVersionMatch=Exact`);
      expect(listAt.status).toBe(410);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it('are taken by the command while the server runs, and restored by it', async () => {
    const s = await startTestServer({ dataDir: mkdtempSync(join(tmpdir(), 'kw-snap-')) });
    let file: string;
    try {
      expect((await s.api(CMS, { method: 'POST', body: cm('by-command') })).status).toBe(201);
      const out = await snapshotCommand('save', '--data-dir', s.dataDir, '--name', 'manual');
      file = out.stdout.trim();
      expect(file).toMatch(/snapshot-.*-manual\.db$/);
      expect((await snapshotCommand('ls', '--data-dir', s.dataDir)).stdout).toContain(file);
      // The server served on meanwhile.
      expect((await s.api(CMS, { method: 'POST', body: cm('after-command') })).status).toBe(201);
    } finally {
      await s.stop();
    }
    const dir = mkdtempSync(join(tmpdir(), 'kw-restored-'));
    const restored = await snapshotCommand('restore', file, '--data-dir', dir);
    expect(restored.stdout).toContain(`revision`);
    const r = await startTestServer({ dataDir: dir });
    try {
      const now = await names(r);
      expect(now.has('by-command')).toBe(true);
      expect(now.has('after-command')).toBe(false);
      expect(r.cache.revision).toBeGreaterThanOrEqual(RESTORE_REVISION_BUMP);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it('are taken on a schedule, keeping the newest --snapshot-retention', async () => {
    const s = await startTestServer({ snapshots: { intervalMs: 100, retention: 2 } });
    try {
      const dir = snapshotDir(s.dataDir);
      const counts: number[] = [];
      for (let i = 0; i < 100 && counts.filter((c) => c === 2).length < 5; i++) {
        await new Promise((r) => setTimeout(r, 50));
        counts.push(listSnapshots(dir).length);
      }
      expect(counts).toContain(2);
      expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    } finally {
      await s.stop();
    }
  }, 30_000);
});
