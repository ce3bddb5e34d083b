// The real kubectl for tests: a private kubeconfig (and HOME, so kubectl's
// discovery cache belongs to one test run) pointing at a server, and a runner
// that returns what kubectl printed and its exit code instead of throwing.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KubectlUser {
  name: string;
  token?: string;
}

/** A server as kubectl needs it: its TLS address, the CA to trust and the admin token (a TestServer or ApiServer is one). */
export interface KubectlTarget {
  httpsUrl: string;
  ca: string;
  adminToken: string;
}

export interface Kubectl {
  /** Runs `kubectl <args>` with the default timeout and environment. */
  (...args: string[]): Promise<KubectlResult>;
  /** Runs it with extra environment (EDITOR, say) or another timeout. */
  run(args: string[], opts?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<KubectlResult>;
  /** Writes a manifest into the private directory and returns its path. */
  manifest(name: string, text: string): string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * kubectl against `server`: a URL, or a server's TLS address trusting its CA
 * with its admin token as user `admin` (the default user). With several
 * `users`, each gets a context of its own name (the first is current);
 * `insecure` skips TLS verification.
 */
export function kubectlFor(server: string | KubectlTarget, opts: { users?: KubectlUser[]; namespace?: string; insecure?: boolean; timeoutMs?: number } = {}): Kubectl {
  const dir = mkdtempSync(join(tmpdir(), 'kw-kubectl-'));
  const target = typeof server === 'string' ? undefined : server;
  const users = opts.users ?? [{ name: 'admin', token: target?.adminToken }];
  const ns = opts.namespace ?? 'default';
  const kubeconfig = join(dir, 'config');
  const trust = opts.insecure ? ', insecure-skip-tls-verify: true' : target ? `, certificate-authority-data: ${Buffer.from(target.ca).toString('base64')}` : '';
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: local, cluster: {server: "${target?.httpsUrl ?? server}"${trust}}}]`,
      'users:',
      ...users.map((u) => `- {name: ${u.name}, user: {${u.token ? `token: ${u.token}` : ''}}}`),
      'contexts:',
      ...users.map((u) => `- {name: ${u.name}, context: {cluster: local, user: ${u.name}, namespace: ${ns}}}`),
      `current-context: ${users[0].name}`,
      '',
    ].join('\n'),
  );
  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
  const runWith: Kubectl['run'] = async (args, o = {}) => {
    try {
      const { stdout, stderr } = await run('kubectl', args, { env: { ...env, ...o.env }, timeout: o.timeoutMs ?? opts.timeoutMs ?? 30_000 });
      return { stdout, stderr, code: 0 };
    } catch (e: any) {
      return { stdout: e.stdout ?? '', stderr: e.stderr ?? String(e), code: typeof e.code === 'number' ? e.code : 1 };
    }
  };
  const kubectl = ((...args: string[]) => runWith(args)) as Kubectl;
  kubectl.run = runWith;
  kubectl.manifest = (name, text) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  kubectl.dir = dir;
  kubectl.env = env;
  return kubectl;
}
