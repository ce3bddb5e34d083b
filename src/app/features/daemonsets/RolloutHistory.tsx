// A DaemonSet's revisions: their numbers, images and pods, a diff of the pod
// templates of any two, rollback to one (its template written back, as
// `kubectl rollout undo` does) and restart (the restartedAt template
// annotation, as `kubectl rollout restart` does).
import { useState } from 'react';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { clone } from '../../../lib/json.ts';
import { toYaml } from '../../../lib/yaml.ts';
import { useConnection } from '../../api/connection.ts';
import { writeAsSeen } from '../../api/writeasseen.ts';
import { useCanI } from '../../api/access.ts';
import { Age, Badge, ConfirmDialog, ErrorAlert } from '../../components/common.tsx';
import { LazyDiffEditor } from '../../editors/monaco/index.ts';
import { currentHashOf, revisionsOf } from './rollout.ts';

export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** A template with its keys sorted at every level, so two revisions line up in the diff whoever wrote them. */
function sortedYaml(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return toYaml(sort(value ?? {}));
}

/** Time as kubectl writes restartedAt (RFC 3339, seconds). */
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

const images = (template: any) => ((template?.spec?.containers ?? []) as { image?: string }[]).map((c) => c.image).join(', ');

/** `podsPerHash`: the DaemonSet's pods per controller-revision-hash, as the rollout index counts them. */
export function RolloutHistory({ ds, revisions, podsPerHash }: { ds: KubeObject; revisions: KubeObject[]; podsPerHash: ReadonlyMap<string, number> }) {
  const conn = useConnection();
  const list = revisionsOf(ds, revisions);
  const current = currentHashOf(ds, list);
  const [from, setFrom] = useState<string>();
  const [to, setTo] = useState<string>();
  const [confirm, setConfirm] = useState<{ action: 'rollback'; revision: (typeof list)[number] } | { action: 'restart' }>();
  const [busy, setBusy] = useState(false);
  // The diff (Monaco, a few MB) loads only when asked for, not with the page.
  const [comparing, setComparing] = useState(false);
  const [error, setError] = useState<unknown>();
  // Rollback and restart both write the DaemonSet: disabled, with the reason, for whoever may not.
  const canPatch = useCanI('patch', daemonSetKind, ds.metadata.namespace, undefined, ds.metadata.name);
  const refused = canPatch?.allowed === false ? canPatch.message : undefined;
  const podsOn = (hash: string) => podsPerHash.get(hash) ?? 0;

  const a = list.find((r) => r.hash === from) ?? list[1] ?? list[0];
  const b = list.find((r) => r.hash === to) ?? list[0];

  const write = async (change: (next: KubeObject) => void) => {
    setBusy(true);
    setError(undefined);
    try {
      const next = clone(ds);
      change(next);
      // Conditional on the DaemonSet as shown, not on its resourceVersion: during a rollout its status is written all the time.
      await writeAsSeen(conn, daemonSetKind, ds, next);
      setConfirm(undefined);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const run = () => {
    if (!confirm) return;
    if (confirm.action === 'rollback') {
      const template = clone(confirm.revision.template!);
      void write((next) => void ((next.spec as any).template = template));
    } else {
      void write((next) => {
        const t = (next.spec as any).template;
        t.metadata ??= {};
        t.metadata.annotations = { ...t.metadata.annotations, [RESTARTED_AT]: rfc3339(new Date()) };
      });
    }
  };

  return (
    <section className="panel rollout-live below-fold" aria-label="History">
      <h2>
        History{' '}
        <span className="muted">
          {list.length} revision{list.length === 1 ? '' : 's'}
        </span>
        <span style={{ flex: 1 }} />
        <button className="btn" onClick={() => setConfirm({ action: 'restart' })} disabled={!!refused} title={refused}>
          Restart
        </button>
      </h2>
      <div className="body">
        <ErrorAlert error={error} />
        {list.length === 0 ? (
          <p className="muted">No ControllerRevisions yet: the DaemonSet controller writes one per template.</p>
        ) : (
          <table className="simple">
            <thead>
              <tr>
                <th>Revision</th>
                <th>Hash</th>
                <th>Images</th>
                <th>Pods</th>
                <th>Age</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.hash} data-revision={r.revision}>
                  <td>
                    {r.revision} {r.hash === current && <Badge tone="info">current</Badge>}
                  </td>
                  <td className="mono">{r.hash}</td>
                  <td className="mono">{images(r.template)}</td>
                  <td>{podsOn(r.hash)}</td>
                  <td>
                    <Age time={r.object.metadata.creationTimestamp} />
                  </td>
                  <td>
                    {r.hash !== current && r.template && (
                      <button className="btn" onClick={() => setConfirm({ action: 'rollback', revision: r })} disabled={!!refused} title={refused}>
                        Roll back to {r.revision}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list.length > 1 && a && b && (
          <div className="history-diff">
            <div className="toolbar">
              <button className="btn" aria-expanded={comparing} onClick={() => setComparing((c) => !c)}>
                {comparing ? 'Hide comparison' : 'Compare revisions'}
              </button>
              {comparing && (
                <>
                  <RevisionSelect label="Compare revision" aria="Older revision" value={a.hash} list={list} onChange={setFrom} />
                  <RevisionSelect label="with" aria="Newer revision" value={b.hash} list={list} onChange={setTo} />
                </>
              )}
            </div>
            {comparing && (
              <LazyDiffEditor original={sortedYaml(a.template)} modified={sortedYaml(b.template)} originalLabel={`Revision ${a.revision}`} modifiedLabel={`Revision ${b.revision}`} height={300} />
            )}
          </div>
        )}
      </div>
      <ConfirmDialog
        open={!!confirm}
        title={confirm?.action === 'rollback' ? `Roll back ${ds.metadata.name} to revision ${confirm.revision.revision}?` : `Restart ${ds.metadata.name}?`}
        confirmLabel={confirm?.action === 'rollback' ? 'Roll back' : 'Restart'}
        busy={busy}
        onConfirm={run}
        onCancel={() => setConfirm(undefined)}
      >
        {confirm?.action === 'rollback' ? (
          <p>
            The pod template of revision {confirm.revision.revision} ({images(confirm.revision.template)}) becomes the DaemonSet's template again, and its pods roll out under the current update
            strategy.
          </p>
        ) : (
          <p>
            Every pod is replaced under the current update strategy: the template gets the <code>{RESTARTED_AT}</code> annotation, as <code>kubectl rollout restart</code> sets it.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function RevisionSelect({ label, aria, value, list, onChange }: { label: string; aria: string; value: string; list: { hash: string; revision: number }[]; onChange(hash: string): void }) {
  return (
    <label className="check">
      {label}{' '}
      <select className="input" value={value} onChange={(e) => onChange(e.target.value)} aria-label={aria}>
        {list.map((r) => (
          <option key={r.hash} value={r.hash}>
            {r.revision}
          </option>
        ))}
      </select>
    </label>
  );
}
