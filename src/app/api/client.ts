// The one client every request from the app goes through: the base URL and
// bearer token of the connection settings, Kubernetes paths built from the
// kind definitions, and Kubernetes Status errors as exceptions.
import { apiVersionOf, type KindDefinition, type KubeObject } from '../../kinds/kind.ts';
import { goJSON } from '../../lib/json.ts';

export interface Connection {
  baseUrl: string;
  token?: string;
}

export interface StatusCause {
  field?: string;
  message?: string;
  reason?: string;
}

export interface KubeStatus {
  kind: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
}

export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly status: KubeStatus | undefined,
    fallback?: string,
  ) {
    super(status?.message ?? fallback ?? `HTTP ${code}`);
  }
  get reason() {
    return this.status?.reason;
  }
  /** The seconds a 429 or 5xx asks the client to wait before it asks again (a server loading its store says 1). */
  get retryAfterSeconds(): number | undefined {
    const s = this.status?.details?.retryAfterSeconds;
    return (this.code === 429 || this.code >= 500) && typeof s === 'number' && s > 0 ? s : undefined;
  }
}

/** An error as the app says it: a Kubernetes Status by its reason and message ("NotFound: nodes "x" not found"). */
export const errorText = (error: unknown) => `${error instanceof KubeError && error.reason ? `${error.reason}: ` : ''}${(error as Error)?.message ?? String(error)}`;

/** An answer the same request would get again: 401, 403; 404, the kind is not served. */
export const isRefusal = (e: unknown) => [401, 403, 404].includes((e as { code?: number } | null)?.code ?? 0);

/** A 403: the user may not do it (a list they may not read is said so, not shown as empty). */
export const isForbidden = (e: unknown) => (e as { code?: number } | null)?.code === 403;

export interface KubeList<T = KubeObject> {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export const json = (method: string, body: unknown, contentType = 'application/json'): RequestInit => ({
  method,
  headers: { 'Content-Type': contentType },
  body: JSON.stringify(body),
});

export const apiBase = (conn: Connection) => conn.baseUrl.replace(/\/+$/, '');

/** `/apis/apps/v1/namespaces/ns/daemonsets/name/status` from a kind and its coordinates. */
export function kindPath(kind: KindDefinition, namespace?: string, name?: string, subresource?: string): string {
  let p = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  if (kind.scope === 'Namespaced' && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${kind.plural}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

function authHeaders(conn: Connection): Record<string, string> {
  return conn.token ? { Authorization: `Bearer ${conn.token}` } : {};
}

/** Told of every 401 and 403 (sign-in prompt, access answers refreshed). */
type RefusalListener = (code: 401 | 403, conn: Connection, path: string) => void;
const refusalListeners = new Set<RefusalListener>();
export function onRefusal(l: RefusalListener) {
  refusalListeners.add(l);
  return () => void refusalListeners.delete(l);
}

export function requestHeaders(conn: Connection, init: RequestInit = {}): Headers {
  const headers = new Headers(init.headers);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  for (const [k, v] of Object.entries(authHeaders(conn))) headers.set(k, v);
  return headers;
}

export async function kubeFetch<T>(conn: Connection, path: string, init: RequestInit = {}): Promise<T> {
  return kubeAnswer<T>(conn, path, send(conn, path, init));
}

/** The request on the wire, with the connection's Accept and credentials. */
export const send = (conn: Connection, path: string, init: RequestInit = {}) => fetch(apiBase(conn) + path, { ...init, headers: requestHeaders(conn, init) });

/** A response's body, or its Kubernetes Status as a KubeError (401 and 403 also told to the refusal listeners). */
export async function kubeAnswer<T>(conn: Connection, path: string, response: Promise<Response>): Promise<T> {
  let res: Response;
  try {
    res = await response;
  } catch (e) {
    throw unreachable(conn, e);
  }
  return answerOf<T>(conn, path, res.status, res.statusText, await res.text());
}

/** An answer's parsed body, or its Status thrown as a KubeError (401 and 403 also told to the refusal listeners). */
export function answerOf<T>(conn: Connection, path: string, status: number, statusText: string, text: string): T {
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (status === 401 || status === 403) refusalListeners.forEach((l) => l(status as 401 | 403, conn, path));
  if (status < 200 || status > 299) throw new KubeError(status, body?.kind === 'Status' ? body : undefined, text.trim() || statusText);
  return body as T;
}

/** The error of a request that got no answer. */
export const unreachable = (conn: Connection, e: unknown) => new KubeError(0, undefined, `cannot reach ${apiBase(conn)}: ${(e as Error).message ?? e}`);

/**
 * A list's address, with `pretty=false`: kube-apiserver (and ours, as it) indents what it answers
 * a browser (by its User-Agent), and an indented list is a third larger, and ours makes it item by
 * item where a compact one is its cached bytes as they are.
 */
export const listPath = (kind: KindDefinition, namespace: string | undefined, query: Record<string, string>) =>
  `${kindPath(kind, namespace)}?${new URLSearchParams({ ...query, pretty: 'false' })}`;

/** Which of a kind's objects a list holds: those its selectors select (all, when neither is set). */
export interface Selection {
  labelSelector?: string;
  fieldSelector?: string;
  /** The objects keep their metadata.managedFields, which lists drop otherwise (unmanaged.ts): the editor's, which shows who owns each field. */
  managedFields?: boolean;
}

/** A selection's query parameters (those set). */
export function selecting(s: Selection | undefined): Record<string, string> {
  const q: Record<string, string> = {};
  if (s?.labelSelector) q.labelSelector = s.labelSelector;
  if (s?.fieldSelector) q.fieldSelector = s.fieldSelector;
  return q;
}

/** Typed verbs over kubeFetch for one kind. */
export const api = {
  list: (conn: Connection, kind: KindDefinition, namespace?: string, query: Record<string, string> = {}) => kubeFetch<KubeList>(conn, listPath(kind, namespace, query)),
  get: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string) =>
    kubeFetch<KubeObject>(conn, kindPath(kind, namespace, name)),
  create: (conn: Connection, kind: KindDefinition, obj: KubeObject, dryRun = false) =>
    kubeFetch<KubeObject>(conn, kindPath(kind, obj.metadata.namespace) + (dryRun ? '?dryRun=All' : ''), json('POST', { apiVersion: apiVersionOf(kind), kind: kind.kind, ...obj })),
  replace: (conn: Connection, kind: KindDefinition, obj: KubeObject, subresource?: string, dryRun = false) =>
    kubeFetch<KubeObject>(conn, kindPath(kind, obj.metadata.namespace, obj.metadata.name, subresource) + (dryRun ? '?dryRun=All' : ''), json('PUT', obj)),
  mergePatch: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string, patch: unknown, subresource?: string) =>
    kubeFetch<KubeObject>(conn, kindPath(kind, namespace, name, subresource), json('PATCH', patch, 'application/merge-patch+json')),
  /** Written as Go writes JSON (goJSON), so that a `test` of a string holding `&` or `<` meets kube-apiserver's byte-wise comparison. */
  jsonPatch: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string, ops: unknown[], dryRun = false) =>
    kubeFetch<KubeObject>(conn, kindPath(kind, namespace, name) + (dryRun ? '?dryRun=All' : ''), { method: 'PATCH', headers: { 'Content-Type': 'application/json-patch+json' }, body: goJSON(ops) }),
  delete: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string, options: Record<string, unknown> = {}) =>
    kubeFetch<unknown>(conn, kindPath(kind, namespace, name), json('DELETE', { kind: 'DeleteOptions', apiVersion: 'v1', ...options })),
  /** POST to an action subresource such as `eviction`. */
  action: (conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string, subresource: string, body: unknown) =>
    kubeFetch<unknown>(conn, kindPath(kind, namespace, name, subresource), json('POST', body)),
};
