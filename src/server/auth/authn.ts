// Authentication: who is asking. Bearer tokens: the server's own admin token
// (`<data-dir>/admin-token`) and those of a kube-apiserver style token file
// (`token,user,uid,"group1,group2"`). A request without a valid token is
// answered 401, unless anonymous requests are enabled (`--anonymous-auth`):
// then it is system:anonymous, and RBAC judges it like anyone else.
import { errors } from '../http/status.ts';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const SYSTEM_AUTHENTICATED = 'system:authenticated';

/** The user of the admin token and of the in-process bootstrap client. */
export const ADMIN: UserInfo = { name: 'system:admin', groups: ['system:masters', SYSTEM_AUTHENTICATED] };
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export interface Authenticator {
  /** The user, or undefined for a request that must be answered 401. */
  authenticate(req: IncomingMessage): UserInfo | undefined;
}

/** Parses the CSV token file format (quoted fields may hold commas). */
export function parseTokenFile(text: string): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.startsWith('#')) continue;
    const fields = [...line.matchAll(/"([^"]*)"|([^,]+)|(?<=,)(?=,|$)/g)].map((m) => (m[1] ?? m[2] ?? '').trim());
    const [token, name, uid, groups] = fields;
    if (!token || !name) continue;
    users.set(token, {
      name,
      uid: uid || undefined,
      groups: [...(groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : []), SYSTEM_AUTHENTICATED],
    });
  }
  return users;
}

export interface TokenAuthOptions {
  /** The server's own admin token (a user in system:masters). */
  adminToken?: string;
  tokenFile?: string;
  /** Requests without a token are system:anonymous instead of 401. */
  anonymous?: boolean;
}

/** The bearer token of a request, if it carries one. */
export const bearerToken = (req: IncomingMessage) => req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

export function tokenAuthenticator(opts: TokenAuthOptions): Authenticator {
  const users = opts.tokenFile ? parseTokenFile(readFileSync(opts.tokenFile, 'utf8')) : new Map<string, UserInfo>();
  if (opts.adminToken) users.set(opts.adminToken, ADMIN);
  return {
    authenticate(req) {
      // A request that presents credentials is judged by them: a wrong token is a 401 even when anonymous is allowed.
      if (req.headers.authorization === undefined) return opts.anonymous ? ANONYMOUS : undefined;
      const token = bearerToken(req);
      return token ? users.get(token) : undefined;
    },
  };
}

/**
 * Client certificates (--client-ca-file), as kube-apiserver's x509
 * authenticator: a certificate the TLS handshake verified against the client
 * CA names the user in its CN and the groups in its O values. A request
 * without one is left to the next authenticator (the handshake accepts any,
 * so that tokens still work); one with a certificate the CA did not sign is
 * refused, even where anonymous requests are allowed (upstream's union fails
 * on the verification error before the anonymous authenticator).
 */
export const x509Authenticator: Authenticator = {
  authenticate(req) {
    // Over HTTP/2 this is node's proxy of the TLS socket, which forwards these.
    const socket = req.socket as TLSSocket | undefined;
    if (typeof socket?.getPeerCertificate !== 'function') return undefined;
    if (socket.authorized !== true) {
      if (Object.keys(socket.getPeerCertificate() ?? {}).length) throw errors.unauthorized();
      return undefined;
    }
    const subject = socket.getPeerCertificate()?.subject;
    const name = subject?.CN;
    if (!name || Array.isArray(name)) return undefined;
    const orgs = subject.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
    return { name, groups: [...orgs, SYSTEM_AUTHENTICATED] };
  },
};

/** The first authenticator that knows the request, as upstream's union (certificates before tokens). */
export function unionAuthenticator(...all: Authenticator[]): Authenticator {
  return {
    authenticate(req) {
      for (const a of all) {
        const user = a.authenticate(req);
        if (user) return user;
      }
      return undefined;
    },
  };
}
