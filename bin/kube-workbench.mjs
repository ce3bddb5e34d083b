#!/usr/bin/env node
// The `kube-workbench` command: runs src/cli/main.ts under tsx (a dependency),
// so the TypeScript sources are the program, as for the server.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
