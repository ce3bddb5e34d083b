// `npm run snapshot -- <command>`: snapshots of a data dir's store, as k3s's
// `etcd-snapshot` subcommands. The server need not stop: `save` copies the
// store file consistently while it runs.
//
//   save    [--data-dir DIR] [--name LABEL] [--retention N]   take one now into DIR/snapshots
//   ls      [--data-dir DIR]                                  list them, oldest first
//   restore FILE --data-dir NEW-DIR                           make NEW-DIR's store from FILE
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listSnapshots, restoreSnapshot, snapshotDir, STATE_FILE, takeSnapshot } from './snapshot.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'data-dir': { type: 'string', default: './data' },
    name: { type: 'string' },
    retention: { type: 'string', default: '0' },
  },
});
const [command, file] = positionals;
const dataDir = resolve(values['data-dir']!);

try {
  if (command === 'save') {
    const store = join(dataDir, STATE_FILE);
    if (!existsSync(store)) throw new Error(`${store} does not exist`);
    console.log(await takeSnapshot(store, snapshotDir(dataDir), { label: values.name, retention: Number(values.retention) }));
  } else if (command === 'ls') {
    for (const f of listSnapshots(snapshotDir(dataDir))) console.log(`${f}\t${statSync(f).size}`);
  } else if (command === 'restore' && file) {
    const revision = restoreSnapshot(resolve(file), dataDir);
    console.log(`restored ${file} into ${dataDir}; writes continue from revision ${revision + 1} (earlier resourceVersions answer 410 Expired)`);
  } else {
    console.error('usage: npm run snapshot -- save [--data-dir DIR] [--name LABEL] [--retention N] | ls [--data-dir DIR] | restore FILE --data-dir NEW-DIR');
    process.exit(2);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
