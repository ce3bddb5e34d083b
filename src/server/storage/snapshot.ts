// Snapshots of the embedded store, as k3s offers for its own (`etcd-snapshot
// save`, scheduled snapshots with a retention, restore into a fresh data dir).
//
// A snapshot is a consistent copy of the SQLite file made online (SQLite's
// backup API) while the server keeps serving. Restoring copies it into a new
// data dir and then does what `etcdutl snapshot restore --bump-revision
// --mark-compacted` does: the next revision is moved far past any the old
// server may have handed out after the snapshot, and everything before it is
// marked compacted. Objects keep their resourceVersions; a client that comes
// back with a resourceVersion from before the restore is answered 410 Expired
// and relists, so no resourceVersion is ever given to two different states.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SqliteStorage } from './sqlite.ts';

/** How far a restore moves the revision (etcd's documentation suggests 1,000,000,000). */
export const RESTORE_REVISION_BUMP = 1_000_000_000;

export const STATE_FILE = 'state.db';
export const snapshotDir = (dataDir: string) => join(dataDir, 'snapshots');

const NAME = /^snapshot-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)(?:-.+)?\.db$/;

/** `snapshot-<UTC time>[-<label>].db`, sorting by time. */
const snapshotName = (label?: string) => `snapshot-${new Date().toISOString().replace(/[:.]/g, '-')}${label ? `-${label.replace(/[^A-Za-z0-9_.-]/g, '_')}` : ''}.db`;

/** The snapshots in `dir`, oldest first. */
export function listSnapshots(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => NAME.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Copies `source` (an open store, or a store file other processes may be writing) to `file` consistently. */
async function backupTo(source: SqliteStorage | string, file: string) {
  const tmp = `${file}.partial`;
  if (typeof source === 'string') {
    // Another process's store: a read-only connection of our own, copied in one step so writers cannot restart it.
    const db = new Database(source, { readonly: true, fileMustExist: true });
    try {
      await db.backup(tmp, { progress: () => 1_000_000 });
    } finally {
      db.close();
    }
  } else await source.backup(tmp);
  renameSync(tmp, file);
}

/**
 * Takes a snapshot into `dir` and removes the oldest beyond `retention`
 * (0 keeps all). Returns the snapshot's path.
 */
export async function takeSnapshot(source: SqliteStorage | string, dir: string, opts: { retention?: number; label?: string } = {}): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, snapshotName(opts.label));
  await backupTo(source, file);
  if (opts.retention && opts.retention > 0) for (const old of listSnapshots(dir).slice(0, -opts.retention)) unlinkSync(old);
  return file;
}

/** Takes snapshots every `intervalMs`; returns the stop. A failed snapshot is reported and the next one tried. */
export function scheduleSnapshots(storage: SqliteStorage, dir: string, intervalMs: number, retention: number, report: (line: string) => void = console.error): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    takeSnapshot(storage, dir, { retention })
      .catch((e) => report(`snapshot failed: ${(e as Error).message}`))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Restores `snapshot` as the store of `dataDir`, which must not have one.
 * Returns the revision the restored store continues from.
 */
export function restoreSnapshot(snapshot: string, dataDir: string, bump = RESTORE_REVISION_BUMP): number {
  const target = join(dataDir, STATE_FILE);
  if (existsSync(target)) throw new Error(`${target} exists: restore into a new data dir`);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.restoring`;
  copyFileSync(snapshot, tmp);
  const db = new Database(tmp);
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`${snapshot} is damaged: ${String(check)}`);
    const revision = db.transaction(() => {
      const current = (db.prepare(`SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0) AS rev`).get() as { rev: number }).rev;
      const next = current + bump;
      // The next write gets a revision past any the old server handed out; all before it is history no one may resume from.
      if (current === 0) db.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES ('kine', ?)`).run(next);
      else db.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'kine'`).run(next);
      db.prepare(`UPDATE kine_meta SET value = ? WHERE name = 'compact_revision'`).run(next);
      return next;
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    renameSync(tmp, target);
    return revision;
  } catch (e) {
    if (db.open) db.close();
    unlinkSync(tmp);
    throw e;
  }
}
