// Reading a kubeconfig pasted or dropped into the app: its contexts, each
// with the cluster's address and what its user authenticates with. Only a
// bearer token can travel from a web page; every other credential is
// explained rather than silently ignored.
import { parse } from 'yaml';

export type Credential =
  | { kind: 'token'; token: string }
  /** The user has no credentials at all: requests are anonymous. */
  | { kind: 'none' }
  | { kind: 'unusable'; why: string };

export interface KubeconfigContext {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
  /** The API server's address, when the cluster entry exists. */
  server?: string;
  current: boolean;
  credential: Credential;
  /** What the browser will do about the server's certificate, when the kubeconfig trusts a CA of its own. */
  tlsNote?: string;
  /** What is wrong with the context itself (a missing cluster or user entry). */
  problem?: string;
}

export class KubeconfigError extends Error {}

type Named<T> = { name?: unknown } & T;
type Entry = Record<string, unknown>;

const asArray = (x: unknown): Named<Entry>[] => (Array.isArray(x) ? x.filter((e): e is Named<Entry> => !!e && typeof e === 'object') : []);
const str = (x: unknown) => (typeof x === 'string' && x ? x : undefined);

/** What a user entry authenticates with, and why a browser cannot use it if it cannot. */
export function credentialOf(user: Entry | undefined): Credential {
  const u = user ?? {};
  const token = str(u.token);
  if (token) return { kind: 'token', token };
  if (u['client-certificate-data'] || u['client-certificate'] || u['client-key-data'] || u['client-key']) {
    return {
      kind: 'unusable',
      why:
        'This user signs in with a client certificate (TLS client authentication). A web page cannot use it: the browser, not the page, makes the TLS connection, ' +
        'and it offers only certificates installed in its own or the system certificate store, never a key from a file. Use a user with a token instead ' +
        '(for a service account: kubectl create token NAME), or install the certificate and key in the browser and connect without a token.',
    };
  }
  const exec = u.exec as Entry | undefined;
  if (exec) {
    const cmd = str(exec.command) ?? 'a program';
    return {
      kind: 'unusable',
      why: `This user gets its credentials by running ${cmd} (an exec plugin), and a web page cannot run programs. Run it yourself and paste the token it prints (status.token), or use a user with a token.`,
    };
  }
  if (u['auth-provider']) {
    const name = str((u['auth-provider'] as Entry).name) ?? 'an auth provider';
    return { kind: 'unusable', why: `This user signs in through the ${name} auth provider, which needs kubectl's own plugin. Paste a token from it instead.` };
  }
  const file = str(u.tokenFile);
  if (file) return { kind: 'unusable', why: `This user reads its token from the file ${file}, which a web page cannot open. Paste the token itself.` };
  if (u.username || u.password) return { kind: 'unusable', why: 'This user signs in with a username and password (basic authentication), which Kubernetes no longer accepts (removed in 1.19).' };
  return { kind: 'none' };
}

function tlsNoteOf(cluster: Entry | undefined, server: string | undefined): string | undefined {
  if (!cluster || !server?.startsWith('https:')) return undefined;
  if (cluster['insecure-skip-tls-verify'])
    return `This kubeconfig skips verifying ${server}'s certificate; a browser does not: it must trust the certificate, or the connection fails.`;
  if (cluster['certificate-authority-data'] || cluster['certificate-authority'])
    return `This kubeconfig trusts its own certificate authority for ${server}; a browser checks the certificate against its own trust store. If the server's certificate is self-signed, open ${server}/version once and accept it, or trust that CA.`;
  return undefined;
}

/** The contexts of a kubeconfig (YAML or JSON), current context first. */
export function parseKubeconfig(text: string): KubeconfigContext[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new KubeconfigError(`This is not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new KubeconfigError('This is not a kubeconfig: expected a mapping with clusters, users and contexts.');
  const cfg = doc as Entry;
  if (cfg.kind !== undefined && cfg.kind !== 'Config') throw new KubeconfigError(`This is a ${String(cfg.kind)}, not a kubeconfig (kind: Config).`);
  const byName = (list: unknown, field: string) => new Map(asArray(list).map((e) => [String(e.name ?? ''), e[field] as Entry | undefined]));
  const clusters = byName(cfg.clusters, 'cluster');
  const users = byName(cfg.users, 'user');
  const currentName = str(cfg['current-context']);
  const contexts = asArray(cfg.contexts).map((c): KubeconfigContext => {
    const ctx = (c.context as Entry | undefined) ?? {};
    const name = String(c.name ?? '');
    const clusterName = String(ctx.cluster ?? '');
    const userName = String(ctx.user ?? '');
    const cluster = clusters.get(clusterName);
    const server = str(cluster?.server)?.replace(/\/+$/, '');
    const problems: string[] = [];
    if (!clusters.has(clusterName)) problems.push(`its cluster "${clusterName}" is not in this kubeconfig`);
    else if (!server) problems.push(`its cluster "${clusterName}" has no server address`);
    if (userName && !users.has(userName)) problems.push(`its user "${userName}" is not in this kubeconfig`);
    return {
      name,
      cluster: clusterName,
      user: userName,
      namespace: str(ctx.namespace),
      server,
      current: name === currentName,
      credential: credentialOf(users.get(userName)),
      tlsNote: tlsNoteOf(cluster, server),
      problem: problems.length ? `This context cannot be used: ${problems.join('; ')}.` : undefined,
    };
  });
  if (!contexts.length) throw new KubeconfigError('This kubeconfig has no contexts.');
  return contexts.sort((a, b) => Number(b.current) - Number(a.current));
}
