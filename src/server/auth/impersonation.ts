// Impersonation (K/staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go):
// `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` and
// `Impersonate-Extra-<key>` headers make the request act as another user,
// after the authenticated user is authorized for verb `impersonate` on each
// (users, groups, serviceaccounts in the core group; uids and
// userextras/<key> in authentication.k8s.io). `kubectl --as` sends them.
import type { IncomingMessage } from 'node:http';
import { ApiError, errors } from '../http/status.ts';
import { ANONYMOUS, SYSTEM_AUTHENTICATED, type Authenticator, type UserInfo } from './authn.ts';
import { forbiddenMessage, type Attributes, type Authorizer } from './authz.ts';

const SA_PREFIX = 'system:serviceaccount:';

/** Who authenticated, for a user that is an impersonation (the audit log records both). */
export const impersonatorOf = new WeakMap<UserInfo, UserInfo>();

const headerValues = (req: IncomingMessage, name: string): string[] => {
  const v = req.headers[name];
  return v === undefined ? [] : Array.isArray(v) ? v : v.split(',').map((s) => s.trim()).filter(Boolean);
};

/** The base authenticator, then impersonation when the request asks for it. */
export function impersonatingAuthenticator(base: Authenticator, authorizer: Authorizer): Authenticator {
  return {
    authenticate(req) {
      const user = base.authenticate(req);
      if (!user) return undefined;
      const name = req.headers['impersonate-user'] as string | undefined;
      const groups = headerValues(req, 'impersonate-group');
      const uid = req.headers['impersonate-uid'] as string | undefined;
      const extra: Record<string, string[]> = {};
      for (const h of Object.keys(req.headers)) {
        if (h.startsWith('impersonate-extra-')) extra[decodeURIComponent(h.slice('impersonate-extra-'.length))] = headerValues(req, h);
      }
      if (name === undefined) {
        if (groups.length || uid !== undefined || Object.keys(extra).length) {
          throw errors.badRequest('requested impersonation of groups, uid or extra without impersonating a user');
        }
        return user;
      }
      const checks: Attributes[] = [];
      if (name.startsWith(SA_PREFIX)) {
        const [ns, sa] = name.slice(SA_PREFIX.length).split(':');
        checks.push({ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: ns, name: sa });
      } else checks.push({ verb: 'impersonate', group: '', resource: 'users', name });
      for (const g of groups) checks.push({ verb: 'impersonate', group: '', resource: 'groups', name: g });
      if (uid !== undefined) checks.push({ verb: 'impersonate', group: 'authentication.k8s.io', resource: 'uids', name: uid });
      for (const [key, values] of Object.entries(extra)) {
        for (const v of values) checks.push({ verb: 'impersonate', group: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
      }
      for (const a of checks) {
        const d = authorizer.decide(user, a);
        if (!d.allowed) {
          const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
          const what = a.group ? `${resource}.${a.group}` : resource;
          throw new ApiError(403, 'Forbidden', `${what} "${a.name}" is forbidden: ${forbiddenMessage(user, a, d.reason)}`, { name: a.name, group: a.group, kind: a.resource });
        }
      }
      const asGroups = [...groups];
      if (name.startsWith(SA_PREFIX) && !groups.length) {
        const ns = name.slice(SA_PREFIX.length).split(':')[0];
        asGroups.push('system:serviceaccounts', `system:serviceaccounts:${ns}`);
      }
      if (name === ANONYMOUS.name) {
        if (!asGroups.includes('system:unauthenticated')) asGroups.push('system:unauthenticated');
      } else if (!asGroups.includes(SYSTEM_AUTHENTICATED)) asGroups.push(SYSTEM_AUTHENTICATED);
      const as: UserInfo = { name, groups: asGroups };
      if (uid) as.uid = uid;
      if (Object.keys(extra).length) as.extra = extra;
      impersonatorOf.set(as, user);
      return as;
    },
  };
}
