// The detail page of any kind: what the kind's view renders readably, the
// metadata, a read-only YAML tab, and deletion with a confirmation that
// names the object. Edit and Delete are disabled, with who may not do what,
// when the server would refuse them for this object.
import { useMemo, useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { KindDefinition, KubeObject } from '../../../kinds/kind.ts';
import { fieldsWithMaturity } from '../../../kinds/schema.ts';
import { api } from '../../api/client.ts';
import { useConnection } from '../../api/connection.ts';
import { useObject } from '../../api/hooks.ts';
import { useCanI, type Access } from '../../api/access.ts';
import { useLastChange } from '../../api/lastchange.ts';
import { userFields } from '../../api/writeasseen.ts';
import { Age, ConfirmDialog, ErrorAlert, KeyValues, MaturityBadge, YamlView } from '../../components/common.tsx';
import { Link, navigate, useSearchParam, withSearch } from '../../routes/router.tsx';
import { detailPath, type KindView } from './types.ts';

export function DetailPage({
  view,
  namespace,
  name,
  ownerLink,
  events,
}: {
  view: KindView;
  namespace?: string;
  name: string;
  ownerLink(kind: string, apiVersion: string, namespace: string | undefined, name: string): string | undefined;
  /** The object's Events section (the events feature's, given by the routes). */
  events?: (object: KubeObject) => ReactNode;
}) {
  const { kind } = view;
  const { object, isPending, error } = useObject(kind, namespace, name);
  const [tab, setTab] = useSearchParam('tab');
  const listHref = withSearch(`/${kind.plural}`);
  // Edits are saved as patches (writeasseen.ts, or server-side apply), as kubectl edit saves them.
  const canPatch = useCanI('patch', kind, namespace, undefined, name);
  const canDelete = useCanI('delete', kind, namespace, undefined, name);

  return (
    <>
      <div className="breadcrumb">
        <Link to={listHref}>{view.label}</Link>
        {namespace && <> / {namespace}</>} / {name}
      </div>
      <div className="page-head">
        <h1>{name}</h1>
        <span className="badge">{kind.kind}</span>
        {object?.metadata.deletionTimestamp && <span className="badge bad">Terminating</span>}
        {canPatch?.allowed === false && canDelete?.allowed === false && (
          <span className="badge" title={`${canPatch.message}. ${canDelete.message}.`}>
            read-only for you
          </span>
        )}
        <span className="spacer" style={{ flex: 1 }} />
        {object && view.Actions && <view.Actions object={object} />}
        {object &&
          (canPatch?.allowed === false ? (
            <button className="btn" disabled title={canPatch.message}>
              Edit
            </button>
          ) : (
            <Link className="btn" to={withSearch(`/edit${detailPath(kind, object)}`)}>
              Edit
            </Link>
          ))}
        {object && <DeleteButton view={view} object={object} allowed={canDelete} onDeleted={() => navigate(listHref)} />}
      </div>
      <ErrorAlert error={error} />
      {!object ? (
        !error && <div className="alert info">{isPending ? 'Loading…' : `${kind.kind} "${name}" does not exist${namespace ? ` in namespace ${namespace}` : ''}.`}</div>
      ) : (
        <>
          <div className="tabs" role="tablist">
            {['Overview', 'YAML'].map((t) => (
              <button key={t} role="tab" aria-selected={(tab || 'Overview') === t} onClick={() => setTab(t === 'Overview' ? '' : t)}>
                {t}
              </button>
            ))}
          </div>
          {tab === 'YAML' ? (
            <YamlView value={object} />
          ) : (
            <>
              {view.Details && <view.Details object={object} />}
              {events?.(object)}
              <Maturity object={object} view={view} />
              <Metadata kind={kind} object={object} ownerLink={ownerLink} />
            </>
          )}
        </>
      )}
    </>
  );
}

function Maturity({ object, view }: { object: KubeObject; view: KindView }) {
  const marked = fieldsWithMaturity(view.kind.schema, object);
  if (!marked.length) return null;
  return (
    <section className="panel">
      <h2>Deprecated and pre-release fields in use</h2>
      <div className="body">
        <table className="simple">
          <tbody>
            {marked.map((m) => (
              <tr key={m.path}>
                <td className="mono">{m.path}</td>
                <td>
                  <MaturityBadge maturity={m.maturity} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Metadata({ kind, object, ownerLink }: { kind: KindDefinition; object: KubeObject; ownerLink: (kind: string, apiVersion: string, ns: string | undefined, name: string) => string | undefined }) {
  const m = object.metadata;
  const conn = useConnection();
  const version = useMemo(() => JSON.stringify(userFields(object)), [object]);
  const { data: change } = useLastChange(conn, kind, m.namespace, m.name!, version);
  return (
    <section className="panel">
      <h2>Metadata</h2>
      <div className="body">
        <dl className="kv">
          <dt>Created</dt>
          <dd>
            <Age time={m.creationTimestamp} suffix=" ago" /> <span className="muted">({m.creationTimestamp})</span>
          </dd>
          {change ? (
            <>
              <dt>Last changed by</dt>
              <dd data-testid="last-changed-by">
                {change.impersonatedUser ? `${change.impersonatedUser.username} (as ${change.user.username} impersonating)` : change.user.username}{' '}
                <span className="muted">
                  ({change.verb}, <Age time={change.time} suffix=" ago" />, from the audit log)
                </span>
              </dd>
            </>
          ) : null}
          <dt>Labels</dt>
          <dd>
            <KeyValues map={m.labels} />
          </dd>
          <dt>Annotations</dt>
          <dd>
            <KeyValues map={m.annotations} />
          </dd>
          {m.ownerReferences?.length ? (
            <>
              <dt>Owned by</dt>
              <dd className="row">
                {m.ownerReferences.map((r) => {
                  const href = ownerLink(r.kind, r.apiVersion, m.namespace, r.name);
                  return (
                    <span key={r.uid}>
                      {r.kind} {href ? <Link to={href}>{r.name}</Link> : r.name}
                      {r.controller && <span className="muted"> (controller)</span>}
                    </span>
                  );
                })}
              </dd>
            </>
          ) : null}
          {m.finalizers?.length ? (
            <>
              <dt>Finalizers</dt>
              <dd className="chips">
                {m.finalizers.map((f) => (
                  <span className="chip" key={f}>
                    {f}
                  </span>
                ))}
              </dd>
            </>
          ) : null}
          <dt>UID</dt>
          <dd className="mono">{m.uid}</dd>
          <dt>Resource version</dt>
          <dd className="mono">{m.resourceVersion}</dd>
        </dl>
      </div>
    </section>
  );
}

const PROPAGATION = [
  ['Background', 'delete them after it (default)'],
  ['Foreground', 'delete them first, then it'],
  ['Orphan', 'keep them, without their owner'],
] as const;

function DeleteButton({ view, object, allowed, onDeleted }: { view: KindView; object: KubeObject; allowed: Access | undefined; onDeleted(): void }) {
  const conn = useConnection();
  const [open, setOpen] = useState(false);
  const [propagation, setPropagation] = useState<(typeof PROPAGATION)[number][0]>('Background');
  const del = useMutation({
    mutationFn: () => api.delete(conn, view.kind, object.metadata.namespace, object.metadata.name!, { propagationPolicy: propagation }),
    onSuccess: () => {
      setOpen(false);
      onDeleted();
    },
  });
  const what = `${view.kind.kind.toLowerCase()} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
  return (
    <>
      <button
        className="btn danger"
        onClick={() => (del.reset(), setOpen(true))}
        disabled={allowed?.allowed === false}
        title={allowed?.allowed === false ? allowed.message : undefined}
      >
        Delete
      </button>
      <ConfirmDialog open={open} title={`Delete ${what}?`} confirmLabel={`Delete ${object.metadata.name}`} danger busy={del.isPending} onConfirm={() => del.mutate()} onCancel={() => setOpen(false)}>
        <p>
          The {view.kind.kind} <strong>{object.metadata.name}</strong> will be deleted
          {object.metadata.finalizers?.length ? ' once its finalizers are released' : ''}. This cannot be undone.
        </p>
        {view.dependents && (
          <fieldset className="propagation">
            <legend>What becomes of {view.dependents}</legend>
            {PROPAGATION.map(([value, label]) => (
              <label key={value} className="check">
                <input type="radio" name="propagation" value={value} checked={propagation === value} onChange={() => setPropagation(value)} /> {label}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorAlert error={del.error} />
      </ConfirmDialog>
    </>
  );
}
