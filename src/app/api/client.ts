// The one client every request from the app goes through: base URL and bearer
// token from the connection settings, Kubernetes Status errors as exceptions.
export interface Connection {
  baseUrl: string;
  token?: string;
}

export interface KubeStatus {
  kind: 'Status';
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: { field?: string; message?: string; reason?: string }[] };
}

export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly status: KubeStatus | undefined,
  ) {
    super(status?.message ?? `HTTP ${code}`);
  }
}

export function defaultConnection(): Connection {
  return { baseUrl: window.location.origin };
}

export async function kubeFetch<T>(conn: Connection, path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('Accept', headers.get('Accept') ?? 'application/json');
  if (conn.token) headers.set('Authorization', `Bearer ${conn.token}`);
  const res = await fetch(conn.baseUrl.replace(/\/$/, '') + path, { ...init, headers });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new KubeError(res.status, body?.kind === 'Status' ? body : undefined);
  return body as T;
}
