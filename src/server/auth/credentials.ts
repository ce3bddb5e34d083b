// A server that is secure from its first start, as k3s is: on a data dir
// without them it writes an admin bearer token, a self-signed CA with a
// serving certificate for the names it answers to, and a kubeconfig that
// trusts that CA and carries that token. Secrets are mode 0600 and written
// atomically (a crash never leaves half a key); they are kept across
// restarts, and the serving certificate is issued again from the same CA
// only when it no longer covers the names served.
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';

/** Writes `text` to `path` through a temporary file and a rename, with the given mode. */
export function writeFileAtomic(path: string, text: string, mode = 0o600) {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

/** The admin token of `<data-dir>/admin-token`, created on first use. */
export function ensureAdminToken(dataDir: string): string {
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return token;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileAtomic(file, `${token}\n`);
  return token;
}

export interface ServingCredentials {
  /** PEM of the serving certificate (and chain). */
  cert: string;
  key: string;
  /** PEM of the CA clients should trust (certificate-authority-data). */
  ca: string;
}

/** Names and addresses the serving certificate must cover. */
export function servingNames(host: string | undefined): string[] {
  const names = ['localhost', '127.0.0.1', '::1', hostname()];
  if (host && host !== '0.0.0.0' && host !== '::' && !names.includes(host)) names.push(host);
  return names;
}

const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

function serial(): string {
  // Positive and non-zero: the high bit of the first byte is cleared.
  const b = randomBytes(16);
  b[0] &= 0x7f;
  b[0] |= 0x01;
  return b.toString('hex');
}

function issue(opts: { subject: string; organizations?: string[]; publicKey: string; signerKey: string; issuer?: forge.pki.Certificate; ca: boolean; client?: boolean; alsoClient?: boolean; names?: string[]; years: number }): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(opts.publicKey);
  cert.serialNumber = serial();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000); // tolerate clock skew
  cert.validity.notAfter = new Date(now + opts.years * 365 * 24 * 60 * 60 * 1000);
  const subject = [...(opts.organizations ?? []).map((value) => ({ name: 'organizationName', value })), { name: 'commonName', value: opts.subject }];
  cert.setSubject(subject);
  cert.setIssuer(opts.issuer ? opts.issuer.subject.attributes : subject);
  const extensions: any[] = [{ name: 'basicConstraints', cA: opts.ca, critical: true }, { name: 'subjectKeyIdentifier' }];
  if (opts.ca) extensions.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true });
  else if (opts.client) extensions.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', clientAuth: true });
  else {
    extensions.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', serverAuth: true, clientAuth: !!opts.alsoClient });
    extensions.push({ name: 'subjectAltName', altNames: (opts.names ?? []).map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) });
  }
  if (opts.issuer) extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: opts.issuer.generateSubjectKeyIdentifier().getBytes() });
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(opts.signerKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

/** Whether a certificate names every one of `names` (DNS or IP SANs). */
function covers(certPem: string, names: string[]): boolean {
  const cert = new X509Certificate(certPem);
  if (new Date(cert.validTo).getTime() < Date.now() + 24 * 60 * 60 * 1000) return false;
  const sans = (cert.subjectAltName ?? '').split(',').map((s) => s.trim());
  return names.every((n) => (isIP(n) ? sans.some((s) => s.startsWith('IP Address:') && expandV6(s.slice(11)) === expandV6(n)) : sans.includes(`DNS:${n}`)));
}

/** A canonical spelling of an IP address (X509Certificate prints IPv6 in full). */
function expandV6(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const parts = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return parts.map((p) => parseInt(p || '0', 16).toString(16)).join(':');
}

/**
 * The CA and serving certificate under `<data-dir>/pki/`: made on first
 * start, the serving certificate made again when it does not cover `names`
 * (a new --host) or is about to expire.
 */
export function ensureServingCertificate(dataDir: string, names: string[]): ServingCredentials {
  const dir = join(dataDir, 'pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caCrt = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  const crt = join(dir, 'apiserver.crt');
  const key = join(dir, 'apiserver.key');
  if (!existsSync(caCrt) || !existsSync(caKey)) {
    const k = rsaKey();
    const pem = issue({ subject: `kube-workbench-ca-${Math.floor(Date.now() / 1000)}`, publicKey: k.publicKey, signerKey: k.privateKey, ca: true, years: 10 });
    writeFileAtomic(caKey, k.privateKey);
    writeFileAtomic(caCrt, pem, 0o644);
  }
  const ca = readFileSync(caCrt, 'utf8');
  if (!existsSync(crt) || !existsSync(key) || !covers(readFileSync(crt, 'utf8'), names)) {
    const issued = issueServingCertificate({ cert: ca, key: readFileSync(caKey, 'utf8') }, names);
    writeFileAtomic(key, issued.key);
    writeFileAtomic(crt, issued.cert, 0o644);
  }
  return { cert: readFileSync(crt, 'utf8'), key: readFileSync(key, 'utf8'), ca };
}

export interface KeyPair {
  /** PEM certificate. */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/** A new self-signed CA (for client certificates of one's own, and tests). */
export function createCertificateAuthority(subject: string): KeyPair {
  const k = rsaKey();
  return { cert: issue({ subject, publicKey: k.publicKey, signerKey: k.privateKey, ca: true, years: 10 }), key: k.privateKey };
}

/**
 * A client certificate signed by `ca` for user `name` in `groups`: the
 * subject's CN and O values, as kube-apiserver's x509 authenticator reads them.
 */
export function issueClientCertificate(ca: KeyPair, name: string, groups: string[] = []): KeyPair {
  const k = rsaKey();
  const cert = issue({ subject: name, organizations: groups, publicKey: k.publicKey, signerKey: ca.key, issuer: forge.pki.certificateFromPem(ca.cert), ca: false, client: true, years: 1 });
  return { cert, key: k.privateKey };
}

/**
 * A serving certificate signed by `ca` for `names` (tests of certificate
 * rotation, a TLS etcd). `alsoClient`: usable as a client certificate too
 * (etcd's own gateway and peers present their serving pair).
 */
export function issueServingCertificate(ca: KeyPair, names: string[], opts: { alsoClient?: boolean; subject?: string } = {}): KeyPair {
  const k = rsaKey();
  const issuer = forge.pki.certificateFromPem(ca.cert);
  return { cert: issue({ subject: opts.subject ?? 'kube-apiserver', publicKey: k.publicKey, signerKey: ca.key, issuer, ca: false, names, alsoClient: opts.alsoClient, years: 1 }), key: k.privateKey };
}

/** A kubeconfig for `server` trusting `ca` and presenting `token`. */
export function kubeconfigText(server: string, ca: string, token: string, name = 'kube-workbench'): string {
  const caData = Buffer.from(ca).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${caData}`,
    'users:',
    '- name: admin',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    '    user: admin',
    '    namespace: default',
    `current-context: ${name}`,
    '',
  ].join('\n');
}

/** Writes `<data-dir>/kubeconfig` when its content would change (a new port); returns its path. */
export function writeKubeconfig(dataDir: string, text: string): string {
  const file = join(dataDir, 'kubeconfig');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileAtomic(file, text);
  return file;
}

/**
 * Calls `onChange` when any of `files` changes (certificate rotation without
 * a restart). Polled by modification time and size, so a file replaced by a
 * rename (as writeFileAtomic and cert-manager do) is seen too; returns the stop.
 */
export function watchFiles(files: string[], onChange: () => void, intervalMs = 1000): () => void {
  const listener = (cur: { mtimeMs: number; size: number }, prev: { mtimeMs: number; size: number }) => {
    if (cur.mtimeMs !== prev.mtimeMs || cur.size !== prev.size) onChange();
  };
  for (const f of files) watchFile(f, { interval: intervalMs, persistent: false }, listener);
  return () => {
    for (const f of files) unwatchFile(f, listener);
  };
}
