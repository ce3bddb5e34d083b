// The audit log file, rotated by size as kube-apiserver's (lumberjack) is:
// when a line would take the file past the size limit, the file is renamed
// to `<name>-<UTC time>.<ext>` and a new one begun; the oldest backups beyond
// the count kept are removed. `-` writes to standard output.
import { closeSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface LogFileOptions {
  /** Rotate before the file would exceed this many bytes; 0: 100 MiB, as lumberjack. */
  maxSizeBytes?: number;
  /** Rotated files kept; 0 keeps all. */
  maxBackups?: number;
}

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** lumberjack's backup time stamp: 2006-01-02T15-04-05.000. */
const stamp = (d: Date) => d.toISOString().replace(/Z$/, '').replace(/:/g, '-');

export class LogFile {
  private fd: number | undefined;
  private size = 0;
  private readonly maxBytes: number;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(
    readonly path: string,
    private readonly opts: LogFileOptions = {},
  ) {
    this.maxBytes = opts.maxSizeBytes || DEFAULT_MAX_BYTES;
    this.ext = extname(path);
    this.prefix = basename(path, this.ext) + '-';
    if (path !== '-') this.open();
  }

  private open() {
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = statSync(this.path).size;
  }

  /** Appends one line (a newline is added). Synchronous: a crash loses no line already answered for. */
  write(line: string) {
    const data = Buffer.from(line + '\n');
    if (this.path === '-') {
      process.stdout.write(data);
      return;
    }
    if (this.size > 0 && this.size + data.length > this.maxBytes) this.rotate();
    writeSync(this.fd!, data);
    this.size += data.length;
  }

  /** The rotated files, oldest first. */
  backups(): string[] {
    const dir = dirname(this.path);
    return readdirSync(dir)
      .filter((f) => f.startsWith(this.prefix) && f.endsWith(this.ext) && f !== basename(this.path))
      .sort()
      .map((f) => join(dir, f));
  }

  private rotate() {
    closeSync(this.fd!);
    renameSync(this.path, join(dirname(this.path), `${this.prefix}${stamp(new Date())}${this.ext}`));
    this.open();
    const keep = this.opts.maxBackups ?? 0;
    if (keep > 0) for (const old of this.backups().slice(0, -keep)) unlinkSync(old);
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
