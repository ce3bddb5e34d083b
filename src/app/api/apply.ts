// Server-side apply from the app: a PATCH with an apply configuration under
// the app's own field manager, and the fields a 409 says it would take over
// from other managers (for the user to confirm before forcing).
import type { KindDefinition, KubeObject } from '../../kinds/kind.ts';
import { KubeError, kindPath, kubeFetch, type Connection } from './client.ts';

/** The field manager the app's applies are recorded under. */
export const FIELD_MANAGER = 'kube-workbench';
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export interface ApplyOptions {
  dryRun?: boolean;
  /** Take the fields other managers own instead of answering 409. */
  force?: boolean;
}

/** Applies `config` (which names the object); creates the object when it does not exist. */
export function serverSideApply(conn: Connection, kind: KindDefinition, config: KubeObject, { dryRun = false, force = false }: ApplyOptions = {}): Promise<KubeObject> {
  const query = new URLSearchParams({ fieldManager: FIELD_MANAGER });
  if (dryRun) query.set('dryRun', 'All');
  if (force) query.set('force', 'true');
  // JSON is YAML: the body needs no YAML serialiser.
  return kubeFetch<KubeObject>(conn, `${kindPath(kind, config.metadata.namespace, config.metadata.name)}?${query}`, {
    method: 'PATCH',
    headers: { 'Content-Type': APPLY_PATCH_TYPE },
    body: JSON.stringify(config),
  });
}

/** Fields another manager owns that an apply would take over. */
export interface Takeover {
  manager: string;
  /** How the server qualifies the manager: ` using apps/v1` for an updater, a subresource. */
  detail: string;
  fields: string[];
}

/**
 * The fields per manager of an apply conflict (a 409 whose causes are
 * FieldManagerConflict, `conflict with "kubectl" using v1`), or undefined for
 * any other error.
 */
export function takeoversOf(e: unknown): Takeover[] | undefined {
  if (!(e instanceof KubeError) || e.code !== 409) return undefined;
  const causes = (e.status?.details?.causes ?? []).filter((c) => c.reason === 'FieldManagerConflict');
  if (!causes.length) return undefined;
  const byManager = new Map<string, Takeover>();
  for (const c of causes) {
    const m = /^conflict with ("(?:[^"\\]|\\.)*")(.*)$/.exec(c.message ?? '');
    const manager = m ? (JSON.parse(m[1]) as string) : (c.message ?? '');
    const detail = m ? m[2].trim() : '';
    const key = `${manager}\u0000${detail}`;
    const t = byManager.get(key) ?? { manager, detail, fields: [] };
    if (c.field) t.fields.push(c.field);
    byManager.set(key, t);
  }
  return [...byManager.values()];
}
