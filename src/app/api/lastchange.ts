// "Last changed by": who last changed an object, as our server's audit log
// recorded it (GET /debug/audit/last-change, served only with --audit-log-path
// and a policy). Any other answer (a server without the log, a real cluster,
// no permission for the path) means there is nothing to show.
import { useQuery } from '@tanstack/react-query';
import type { KindDefinition } from '../../kinds/kind.ts';
import { send } from './client.ts';
import { connectionKey } from './connection.ts';
import type { Connection } from './client.ts';

export interface LastChange {
  verb: string;
  user: { username: string };
  impersonatedUser?: { username: string };
  userAgent?: string;
  time: string;
}

/**
 * Servers without the path (no audit log, or not ours: a bare "404 page not found", where a
 * log without the object answers a Status): not asked again for the page's life. The question
 * comes again with every change of the object.
 */
const withoutLog = new Set<string>();

/** Asked without the refusal listeners kubeFetch tells: a 403 here is no sign-in matter. */
async function fetchLastChange(conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string): Promise<LastChange | null> {
  if (withoutLog.has(connectionKey(conn))) return null;
  const q = new URLSearchParams({ group: kind.group, resource: kind.plural, name });
  if (namespace) q.set('namespace', namespace);
  const res = await send(conn, `/debug/audit/last-change?${q}`).catch(() => undefined);
  if (res?.status === 404 && !res.headers.get('content-type')?.includes('json')) withoutLog.add(connectionKey(conn));
  if (!res?.ok) return null;
  const body = (await res.json().catch(() => undefined)) as (LastChange & { kind?: string }) | undefined;
  return body?.kind === 'LastChange' ? body : null;
}

/**
 * The last change of an object (not of its status: the server does not count
 * those), asked again whenever `version` changes; null when the server cannot
 * say. The version is what a user edits of the object (writeasseen.ts's
 * userFields), not its resourceVersion, which every status write moves.
 */
export function useLastChange(conn: Connection, kind: KindDefinition, namespace: string | undefined, name: string, version: string) {
  return useQuery({
    queryKey: ['last-change', connectionKey(conn), kind.group, kind.plural, namespace ?? '', name, version],
    queryFn: () => fetchLastChange(conn, kind, namespace, name),
    staleTime: Infinity,
    retry: false,
  });
}
