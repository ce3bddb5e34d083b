// Authentication: who is asking. Bearer tokens from a kube-apiserver style
// token file (`token,user,uid,"group1,group2"`); without a token file every
// request acts as the cluster admin, as a local development server does.
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

export const ADMIN: UserInfo = { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

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
      groups: [...(groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : []), 'system:authenticated'],
    });
  }
  return users;
}

export function tokenAuthenticator(tokenFile?: string): Authenticator {
  if (!tokenFile) return { authenticate: () => ADMIN };
  const users = parseTokenFile(readFileSync(tokenFile, 'utf8'));
  return {
    authenticate(req) {
      const h = req.headers.authorization;
      const m = h?.match(/^Bearer\s+(\S+)\s*$/i);
      return m ? users.get(m[1]) : undefined;
    },
  };
}
