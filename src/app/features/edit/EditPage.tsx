// Editing a resource: a form generated from the kind's schema and a YAML
// editor on one draft, kept in sync; a review of the change (stored against
// proposed, and the server's own dry-run answer) before it is applied;
// Kubernetes errors placed on their fields; and a three-way view with a
// rebase when someone else changed the object meanwhile.
import { useEffect, useMemo, useRef, useState } from 'react';
import { FormProvider, useForm, type FieldValues } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { apiVersionOf } from '../../../kinds/kind.ts';
import { clone, deepEqual } from '../../../lib/json.ts';
import { applyMergePatch, createMergePatch } from '../../../lib/patch/mergepatch.ts';
import { mergeYaml, parseYaml, toYaml } from '../../../lib/yaml.ts';
import { api, KubeError } from '../../api/client.ts';
import { useConnection } from '../../api/connection.ts';
import { useCanI, useObject } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/common.tsx';
import { buildFields } from '../../editors/form/fields.ts';
import { kindForms } from '../../editors/form/layouts.ts';
import { Fields } from '../../editors/form/SchemaForm.tsx';
import { formPath, kindResolver, validateObject } from '../../editors/form/validation.ts';
import { LazyDiffEditor, LazyYamlEditor, jsonSchemaFor, schemaUriFor } from '../../editors/monaco/index.ts';
import { navigate, setNavigationGuard, withSearch } from '../../routes/router.tsx';
import { detailPath, type KindView } from '../resources/types.ts';

type Tab = 'form' | 'yaml' | 'status';

interface Marker {
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

/** The order kube-apiserver writes an object's top level and metadata in. */
const TOP_ORDER = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];
const META_ORDER = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers'];
const ordered = (o: Record<string, unknown>, order: string[]) => {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => rank(a) - rank(b)));
};

/**
 * An object as the diff shows it: keys in the server's order, so that both
 * sides line up whoever built them, and without managedFields, which only the
 * server writes.
 */
const forDiff = (o: KubeObject | undefined) => {
  if (!o) return '';
  const { managedFields: _, ...metadata } = o.metadata;
  return toYaml(ordered({ ...o, metadata: ordered(metadata, META_ORDER) }, TOP_ORDER));
};

/** An object without what only the system writes: status and the bookkeeping of every write. */
const userFields = (o: KubeObject) => {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
  const { status: _status, ...rest } = o;
  return { ...rest, metadata };
};

/** Loads the object (edit) or the template (create), then hands over to the editor. */
export function EditPage({ view, namespace, name }: { view: KindView; namespace?: string; name?: string }) {
  const form = kindForms.get(view.kind);
  const live = useObject(view.kind, namespace, name ?? '');
  if (!name) {
    const ns = view.kind.scope === 'Namespaced' ? (namespace ?? 'default') : undefined;
    return <Editor view={view} initial={form ? form.template(ns ?? 'default') : { apiVersion: apiVersionOf(view.kind), kind: view.kind.kind, metadata: { name: '', namespace: ns } }} />;
  }
  if (!live.object) return <div className="alert info">{live.isPending ? 'Loading…' : `${view.kind.kind} "${name}" does not exist.`}</div>;
  return <Editor view={view} initial={live.object} stored={live.object} live={live.object} />;
}

function Editor({ view, initial, stored, live }: { view: KindView; initial: KubeObject; stored?: KubeObject; live?: KubeObject }) {
  const { kind } = view;
  const conn = useConnection();
  const qc = useQueryClient();
  const layout = kindForms.get(kind);
  const creating = !stored;
  const [base, setBase] = useState<KubeObject | undefined>(stored);
  const [draft, setDraft] = useState<KubeObject>(() => clone(initial));
  const [yamlText, setYamlText] = useState(() => toYaml(initial));
  const [yamlError, setYamlError] = useState<string>();
  const [tab, setTab] = useState<Tab>(layout ? 'form' : 'yaml');
  const [markers, setMarkers] = useState<Marker[]>([]);
  const [review, setReview] = useState<{ dryRun: KubeObject }>();
  const [conflict, setConflict] = useState<{ theirs: KubeObject }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [statusText, setStatusText] = useState(() => toYaml(initial.status ?? {}));

  const fields = useMemo(() => (layout ? buildFields(kind.schema, { ...layout, readOnly: creating ? layout.readOnly : [...(layout.readOnly ?? []), 'metadata.name', 'metadata.namespace'] }) : []), [kind, layout, creating]);
  const methods = useForm<FieldValues>({ defaultValues: clone(initial), resolver: kindResolver(kind, layout, base), mode: 'onChange' });
  // Unsaved: the draft differs from what the edit began with in what the user
  // edits (the live object's status moving on is not an edit of ours).
  const [start] = useState(initial);
  const dirty = !deepEqual(userFields(draft), userFields(start)) || !!conflict;

  // Form -> draft (and the YAML text, keeping its comments), only while the
  // form is on screen: its fields unmounting when another tab opens must not
  // count as an edit.
  const tabRef = useRef(tab);
  tabRef.current = tab;
  useEffect(() => {
    const sub = methods.watch((values) => {
      if (tabRef.current !== 'form') return;
      const next = clone(values) as KubeObject;
      setDraft(next);
      setYamlText((t) => mergeYaml(t, next));
    });
    return () => sub.unsubscribe();
  }, [methods]);

  // Unsaved-changes guard for in-app navigation and for leaving the page.
  useEffect(() => {
    setNavigationGuard(() => (dirty ? 'You have unsaved changes. Leave and discard them?' : undefined));
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (dirty) e.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      setNavigationGuard(undefined);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty]);

  const onYamlChange = (text: string) => {
    setYamlText(text);
    const parsed = parseYaml(text);
    if (parsed.error) return setYamlError(`Line ${parsed.error.line ?? '?'}: ${parsed.error.message}`);
    if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return setYamlError('The document must be a mapping (an object).');
    setYamlError(undefined);
    const next = parsed.value as KubeObject;
    next.metadata ??= {};
    setDraft(next);
    setMarkers(validateObject(kind, next, base).map((e) => ({ path: e.field, message: e.field ? `${e.field}: ${e.detail ?? ''}` : String(e.detail), severity: 'error' })));
  };

  const switchTab = (t: Tab) => {
    if (t === tab) return;
    if (tab === 'yaml' && t === 'form') {
      // The YAML alert already says what is wrong; the form returns once it parses.
      if (yamlError) return;
      methods.reset(clone(draft), { keepDefaultValues: true });
      void methods.trigger();
    }
    setError(undefined);
    setTab(t);
  };

  /** Places a 422's causes on the form and in the YAML. */
  const showInvalid = (e: unknown) => {
    if (e instanceof KubeError && e.code === 422) {
      const causes = e.status?.details?.causes ?? [];
      for (const c of causes) if (c.field) methods.setError(formPath(layout, c.field).replace(/\[(\d+)\]/g, '.$1'), { type: 'server', message: c.message });
      setMarkers(causes.map((c) => ({ path: c.field ?? '', message: `${c.field ?? ''}: ${c.message ?? ''}`, severity: 'error' as const })));
    }
    setError(e);
  };

  /**
   * Creates, or replaces carrying the resourceVersion the edit began from. A
   * 409 caused only by writes to what the user does not edit (status, by
   * controllers and node agents) is not a conflict: the edit moves onto the
   * server's version and is sent once more. Any other change is shown.
   */
  const send = async (dryRun: boolean): Promise<KubeObject> => {
    if (creating) return api.create(conn, kind, draft, dryRun);
    const attempt = (resourceVersion?: string) => api.replace(conn, kind, { ...draft, metadata: { ...draft.metadata, resourceVersion } }, undefined, dryRun);
    try {
      return await attempt(base!.metadata.resourceVersion);
    } catch (e) {
      if (!(e instanceof KubeError && e.code === 409)) throw e;
      const theirs = await api.get(conn, kind, draft.metadata.namespace, draft.metadata.name!);
      if (!deepEqual(userFields(base!), userFields(theirs))) throw e;
      setBase(theirs);
      return attempt(theirs.metadata.resourceVersion);
    }
  };

  const startReview = async () => {
    setError(undefined);
    if (tab === 'yaml' && yamlError) return;
    if (tab === 'form' && !(await methods.trigger())) return setError(new Error('Some fields are not valid; see the messages next to them.'));
    setBusy(true);
    try {
      setReview({ dryRun: await send(true) });
    } catch (e) {
      if (e instanceof KubeError && e.code === 409 && !creating) await loadConflict();
      else showInvalid(e);
    } finally {
      setBusy(false);
    }
  };

  const loadConflict = async () => {
    const theirs = await api.get(conn, kind, draft.metadata.namespace, draft.metadata.name!);
    setConflict({ theirs });
    setReview(undefined);
  };

  const apply = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = await send(false);
      setReview(undefined);
      setNavigationGuard(undefined);
      await qc.invalidateQueries({ queryKey: ['discovery'] });
      navigate(withSearch(detailPath(kind, saved)));
    } catch (e) {
      if (e instanceof KubeError && e.code === 409 && !creating) await loadConflict();
      else {
        setReview(undefined);
        showInvalid(e);
      }
    } finally {
      setBusy(false);
    }
  };

  /** Replays my changes (base -> mine) onto the server's current version. */
  const rebase = () => {
    if (!conflict || !base) return;
    const mine = createMergePatch(base, draft);
    const next = applyMergePatch(conflict.theirs, mine) as KubeObject;
    next.metadata.resourceVersion = conflict.theirs.metadata.resourceVersion;
    setBase(conflict.theirs);
    setDraft(next);
    setYamlText((t) => mergeYaml(t, next));
    methods.reset(clone(next), { keepDefaultValues: true });
    setConflict(undefined);
  };

  const applyStatus = async () => {
    const parsed = parseYaml(statusText);
    if (parsed.error) return setError(new Error(`Status YAML: ${parsed.error.message}`));
    setBusy(true);
    setError(undefined);
    try {
      const current = live ?? base!;
      await api.replace(conn, kind, { ...current, status: parsed.value as object }, 'status');
      navigate(withSearch(detailPath(kind, current)));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  // Ctrl/Cmd+S reviews and applies from anywhere on the page.
  const saveRef = useRef(startReview);
  saveRef.current = review ? apply : startReview;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 's') {
        e.preventDefault();
        void saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const title = creating ? `New ${kind.kind}` : `Edit ${draft.metadata.name}`;
  const hasStatus = !creating && !!kind.subresources.status;
  const statusWrite = useCanI('update', kind, initial.metadata.namespace, 'status');
  const statusEditable = statusWrite?.allowed === true;
  const schema = jsonSchemaFor(kind);

  return (
    <>
      <div className="breadcrumb">
        {view.label} / {title}
      </div>
      <div className="page-head">
        <h1>{title}</h1>
        <span className="badge">{kind.kind}</span>
        {dirty && <span className="badge warn">unsaved changes</span>}
      </div>
      <div className="tabs" role="tablist">
        {layout && (
          <button role="tab" aria-selected={tab === 'form'} onClick={() => switchTab('form')}>
            Form
          </button>
        )}
        <button role="tab" aria-selected={tab === 'yaml'} onClick={() => switchTab('yaml')}>
          YAML
        </button>
        {hasStatus && (
          <button role="tab" aria-selected={tab === 'status'} onClick={() => switchTab('status')}>
            Status
          </button>
        )}
      </div>
      {view.EditorAside && <view.EditorAside draft={draft} original={base} />}
      <ErrorAlert error={error} />
      {conflict && base && (
        <section className="panel" aria-label="Conflict">
          <h2>Someone else changed this {kind.kind} while you were editing</h2>
          <div className="body">
            <p className="muted" style={{ marginTop: 0 }}>
              Left: what changed on the server since you began (resourceVersion {base.metadata.resourceVersion} → {conflict.theirs.metadata.resourceVersion}). Right: your changes. Rebasing replays your
              changes on top of the server's version; review it again before applying.
            </p>
            <div className="grid2">
              <LazyDiffEditor original={forDiff(base)} modified={forDiff(conflict.theirs)} originalLabel="When you began" modifiedLabel="On the server now" height={320} />
              <LazyDiffEditor original={forDiff(base)} modified={forDiff(draft)} originalLabel="When you began" modifiedLabel="Yours" height={320} />
            </div>
            <div className="row" style={{ marginTop: 12 }}>
              <button className="btn primary" onClick={rebase}>
                Rebase my changes onto theirs
              </button>
              <button className="btn" onClick={() => navigate(withSearch(detailPath(kind, conflict.theirs)))}>
                Discard mine
              </button>
            </div>
          </div>
        </section>
      )}
      {review && (
        <section className="panel" aria-label="Review">
          <h2>Review: {creating ? 'the object the server would create' : 'stored against what the server would store'}</h2>
          <div className="body">
            <p className="muted" style={{ marginTop: 0 }}>
              The right side is the server's own answer to a dry run of this request, with its defaults and the fields it sets.
            </p>
            <LazyDiffEditor original={creating ? '' : forDiff(base)} modified={forDiff(review.dryRun)} originalLabel={creating ? 'Nothing' : 'Stored'} modifiedLabel="After apply" height={380} />
            <div className="row" style={{ marginTop: 12 }}>
              <button className="btn primary" onClick={() => void apply()} disabled={busy}>
                {creating ? 'Create' : 'Apply'}
              </button>
              <button className="btn" onClick={() => setReview(undefined)} disabled={busy}>
                Keep editing
              </button>
            </div>
          </div>
        </section>
      )}
      {!review && !conflict && (
        <>
          {tab === 'form' && layout && (
            <FormProvider {...methods}>
              <form className="form" onSubmit={(e) => (e.preventDefault(), void startReview())} noValidate aria-label={`${kind.kind} form`}>
                <Fields nodes={fields} base="" topLevel />
                {!creating && base && (
                  <p className="muted">
                    Editing resourceVersion {base.metadata.resourceVersion} (uid {base.metadata.uid}). Fields only the system writes are not in the form.
                  </p>
                )}
              </form>
            </FormProvider>
          )}
          {tab === 'yaml' && (
            <>
              {yamlError && (
                <div className="alert bad" role="alert">
                  {yamlError} — the form and review are available again once the YAML parses.
                </div>
              )}
              <LazyYamlEditor value={yamlText} onChange={onYamlChange} schema={schema} schemaUri={schemaUriFor(kind)} markers={markers} onSave={() => void saveRef.current()} height={560} />
            </>
          )}
          {tab === 'status' && hasStatus && (
            <>
              <div className="alert info">
                {statusEditable ? (
                  <>
                    Status is written through its own endpoint (<code>{kind.plural}/status</code>), normally only by controllers and node agents. Change it here only to test or repair.
                  </>
                ) : (
                  <>
                    Read-only: you may not update <code>{kind.plural}/status</code>
                    {statusWrite?.reason ? ` (${statusWrite.reason})` : ''}. Controllers and node agents write it.
                  </>
                )}
              </div>
              <LazyYamlEditor value={statusText} onChange={setStatusText} readOnly={!statusEditable} schema={{}} schemaUri={`${schemaUriFor(kind)}#status`} height={420} />
            </>
          )}
          <div className="editor-bar">
            {tab === 'status' ? (
              <button className="btn primary" onClick={() => void applyStatus()} disabled={busy || !statusEditable}>
                Apply status
              </button>
            ) : (
              <button className="btn primary" onClick={() => void startReview()} disabled={busy}>
                Review {creating ? 'and create' : 'changes'} <span className="kbd">Ctrl S</span>
              </button>
            )}
            <button className="btn" onClick={() => navigate(withSearch(creating ? `/${kind.plural}` : detailPath(kind, initial)))}>
              Cancel
            </button>
          </div>
        </>
      )}
    </>
  );
}

