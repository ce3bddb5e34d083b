// The `kube-workbench` command line: one subcommand per module, dispatched by
// its first argument. Subcommands take argv and an output pair and return the
// exit status, so tests call them in-process.
import { reach } from './reach.ts';
import { rolloutPlan } from './rolloutplan.ts';

export interface IO {
  out: (s: string) => void;
  err: (s: string) => void;
}

type Subcommand = { run: (argv: string[], io: IO) => number | Promise<number>; summary: string };

export const SUBCOMMANDS: Record<string, Subcommand> = {
  reach: { run: reach, summary: 'who may connect to whom under a set of manifests; check intents, diff against a base' },
  'rollout-plan': { run: rolloutPlan, summary: 'the waves and forecast of the rollout a DaemonSet manifest would start on a cluster' },
};

export const USAGE = `Usage: kube-workbench <command> [arguments]

Commands:
${Object.entries(SUBCOMMANDS)
  .map(([name, c]) => `  ${name.padEnd(14)}${c.summary}`)
  .join('\n')}

Run \`kube-workbench <command> --help\` for a command's options.
`;

export async function main(argv: string[], io: IO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    io.out(USAGE);
    return name ? 0 : 2;
  }
  const cmd = SUBCOMMANDS[name];
  if (!cmd) {
    io.err(`kube-workbench: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  return cmd.run(rest, io);
}

// Run as a program (the bin launcher imports this file with tsx's loader).
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void main(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }).then((code) => {
    process.exitCode = code;
  });
}

