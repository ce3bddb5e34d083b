// Who the user is and what the server lets them do, asked the way kubectl
// asks: SelfSubjectReview (`kubectl auth whoami`), SelfSubjectAccessReview
// (`kubectl auth can-i`) and SelfSubjectRulesReview (`kubectl auth can-i
// --list`). Answers are cached per (verb, group, resource, subresource,
// namespace, name) and asked again whenever any request is refused with 403,
// since a refusal means the app's picture of the user's rights was stale.
// A 401 marks the connection as needing credentials: the app then asks for
// them instead of showing pages that cannot load.
import { useEffect, useSyncExternalStore } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { groupResourceOf, type KindDefinition } from '../../kinds/kind.ts';
import { json, KubeError, kubeFetch, onRefusal, type Connection } from './client.ts';
import { connectionKey, getConnection, subscribeConnection, useConnection } from './connection.ts';
import { firstPages } from './firstpages.ts';

const AUTHORIZATION = '/apis/authorization.k8s.io/v1';
const AUTHENTICATION = '/apis/authentication.k8s.io/v1';

/** The coordinates of one action, as a SelfSubjectAccessReview names them. */
export interface Action {
  verb: string;
  kind: KindDefinition;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface Access {
  /** false only when the server said no; true when it said yes or cannot be asked. */
  allowed: boolean;
  /** The authorizer's own words, when it gave any. */
  reason?: string;
  /** Why a control is disabled, for its tooltip: who may not do what, where. */
  message: string;
}

export interface Identity {
  /** Undefined when the server cannot say (no SelfSubjectReview, as before Kubernetes 1.28). */
  username?: string;
  uid?: string;
  groups: string[];
  /** Why the identity is unknown, when it is. */
  unknownBecause?: string;
}

/** `delete daemonsets.apps "x" in namespace "y"`: the action in kubectl's words. */
export function describeAction(a: Action): string {
  const resource = `${groupResourceOf(a.kind)}${a.subresource ? `/${a.subresource}` : ''}`;
  const name = a.name ? ` "${a.name}"` : '';
  const where = a.kind.scope === 'Namespaced' ? (a.namespace ? ` in namespace "${a.namespace}"` : ' in all namespaces') : '';
  return `${a.verb} ${resource}${name}${where}`;
}

/** The tooltip of a refused action: `alice may not delete nodes "n1" (reason)`. */
export function deniedMessage(a: Action, username: string | undefined, reason?: string): string {
  return `${username ?? 'You'} may not ${describeAction(a)}${reason ? ` (${reason})` : ''}`;
}

// ---- requests ----------------------------------------------------------------

/** Asks whether the connection's user may do the action. A server without the review API leaves it to each request. */
export async function reviewAccess(conn: Connection, a: Action): Promise<{ allowed: boolean; reason?: string }> {
  const review = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: {
      resourceAttributes: { verb: a.verb, group: a.kind.group, version: a.kind.version, resource: a.kind.plural, subresource: a.subresource, namespace: a.namespace, name: a.name },
    },
  };
  try {
    const answer = await kubeFetch<{ status?: { allowed?: boolean; reason?: string; evaluationError?: string } }>(
      conn,
      `${AUTHORIZATION}/selfsubjectaccessreviews`,
      json('POST', review),
    );
    return { allowed: !!answer.status?.allowed, reason: answer.status?.reason || answer.status?.evaluationError || undefined };
  } catch (e) {
    if (e instanceof KubeError && (e.code === 404 || e.code === 403)) return { allowed: true };
    throw e;
  }
}

/** Who the connection's user is (SelfSubjectReview), or why that cannot be known. */
export async function reviewSelf(conn: Connection): Promise<Identity> {
  try {
    const answer = await kubeFetch<{ status?: { userInfo?: { username?: string; uid?: string; groups?: string[] } } }>(
      conn,
      `${AUTHENTICATION}/selfsubjectreviews`,
      json('POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    );
    const u = answer.status?.userInfo ?? {};
    return { username: u.username, uid: u.uid, groups: u.groups ?? [] };
  } catch (e) {
    if (e instanceof KubeError && e.code !== 401 && e.code !== 0) {
      const why = e.code === 404 ? 'this server does not offer SelfSubjectReview (Kubernetes 1.28 and later do)' : `SelfSubjectReview failed: ${e.message}`;
      return { groups: [], unknownBecause: why };
    }
    throw e;
  }
}

export interface RulesReview {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

/** What the connection's user may do in a namespace (SelfSubjectRulesReview; `kubectl auth can-i --list`). */
export async function reviewRules(conn: Connection, namespace: string): Promise<RulesReview> {
  const answer = await kubeFetch<{ status?: Partial<RulesReview> }>(
    conn,
    `${AUTHORIZATION}/selfsubjectrulesreviews`,
    json('POST', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } }),
  );
  const s = answer.status ?? {};
  return { resourceRules: s.resourceRules ?? [], nonResourceRules: s.nonResourceRules ?? [], incomplete: !!s.incomplete, evaluationError: s.evaluationError };
}

// ---- refusals: 401 asks for credentials, 403 refreshes the answers ----------

/** Connection keys that answered 401 since they were last changed. */
let unauthorized = new Set<string>();
const authListeners = new Set<() => void>();
const isReview = (path: string) => path.startsWith(AUTHORIZATION) || path.startsWith(AUTHENTICATION);

onRefusal((code, conn) => {
  if (code !== 401 || unauthorized.has(connectionKey(conn))) return;
  unauthorized = new Set(unauthorized).add(connectionKey(conn));
  authListeners.forEach((l) => l());
});
subscribeConnection(() => authListeners.forEach((l) => l()));

/** Whether the current connection was refused for want of credentials (401). */
export function useCredentialsNeeded(): boolean {
  return useSyncExternalStore(
    (l) => (authListeners.add(l), () => authListeners.delete(l)),
    () => unauthorized.has(connectionKey(getConnection())),
  );
}

/** Forgets a 401 (credentials changed, or the user wants to try again). */
export function clearCredentialsNeeded(conn: Connection) {
  if (!unauthorized.delete(connectionKey(conn))) return;
  unauthorized = new Set(unauthorized);
  authListeners.forEach((l) => l());
}

/** Mounted once: any 403 outside the reviews themselves makes every cached access answer stale. */
export function useAccessRefreshOnRefusal() {
  const qc = useQueryClient();
  useEffect(
    () =>
      onRefusal((code, _conn, path) => {
        if (code === 403 && !isReview(path)) void qc.invalidateQueries({ queryKey: ['can-i'] });
      }),
    [qc],
  );
}

// ---- hooks -------------------------------------------------------------------

export const accessKeys = {
  canI: (conn: Connection, a: Action) => ['can-i', connectionKey(conn), a.verb, a.kind.group, a.kind.plural, a.subresource ?? '', a.namespace ?? '', a.name ?? ''] as const,
  whoami: (conn: Connection) => ['whoami', connectionKey(conn)] as const,
  rules: (conn: Connection, namespace: string) => ['rules-review', connectionKey(conn), namespace] as const,
};

/** Who the current connection's user is. */
export function useWhoAmI() {
  const conn = useConnection();
  return useQuery({ queryKey: accessKeys.whoami(conn), queryFn: () => firstPages.idle().then(() => reviewSelf(conn)), staleTime: 5 * 60_000, retry: false });
}

/**
 * Whether the user may do `verb` on the kind (its subresource, one object
 * by name) in the namespace; undefined while the server is asked.
 */
export function useCanI(verb: string, kind: KindDefinition, namespace?: string, subresource?: string, name?: string): Access | undefined {
  const conn = useConnection();
  const action: Action = { verb, kind, namespace: kind.scope === 'Namespaced' ? namespace : undefined, subresource, name };
  const me = useWhoAmI().data;
  const answer = useQuery({
    queryKey: accessKeys.canI(conn, action),
    // The answers mark controls; the page's rows come first.
    queryFn: () => firstPages.idle().then(() => reviewAccess(conn, action)),
    staleTime: 60_000,
    retry: false,
  }).data;
  if (!answer) return undefined;
  return { ...answer, message: answer.allowed ? '' : deniedMessage(action, me?.username, answer.reason) };
}

/** The user's rules in a namespace, from SelfSubjectRulesReview. */
export function useRulesReview(namespace: string) {
  const conn = useConnection();
  return useQuery({ queryKey: accessKeys.rules(conn, namespace), queryFn: () => reviewRules(conn, namespace), staleTime: 60_000, retry: false });
}
