// Editing a resource: a form generated from the kind's schema and a YAML
// editor on one draft, kept in sync; a review of the change (stored against
// proposed, and the server's own dry-run answer) before it is applied;
// Kubernetes errors placed on their fields; and a three-way view with a
// rebase when someone else changed the object meanwhile. Saving is an update
// (the whole object) or a server-side apply as `kube-workbench` (only the
// fields the user changed and those it applied before), which first lists
// the fields it would take over from other managers and asks.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useWatch } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import type { KubeObject } from '../../../kinds/kind.ts';
import { apiVersionOf, groupResourceOf } from '../../../kinds/kind.ts';
import { patchMetaFor } from '../../../kinds/patchmeta.ts';
import { deepEqual } from '../../../lib/json.ts';
import { mergeYaml, parseYaml, toYaml } from '../../../lib/yaml.ts';
import { api, KubeError } from '../../api/client.ts';
import { FIELD_MANAGER, serverSideApply, takeoversOf, type Takeover } from '../../api/apply.ts';
import { userFields, writeAsSeen } from '../../api/writeasseen.ts';
import { applyPlan } from '../../../lib/managedfields/ownership.ts';
import { pathString } from '../../../lib/managedfields/fieldset.ts';
import { ManagersSummary, OwnershipProvider, ownershipMarkdown, ownershipOf } from '../../editors/ownership.tsx';
import { TakeoverList, SaveModeToggle, type SaveMode } from './SaveMode.tsx';
import { useConnection } from '../../api/connection.ts';
import { useCanI, useObject } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/common.tsx';
import { buildFields } from '../../editors/form/fields.ts';
import { kindForms } from '../../editors/form/layouts.ts';
import { Fields, inputId } from '../../editors/form/SchemaForm.tsx';
import { changedPaths, getIn } from '../../editors/form/draft.ts';
import { FormStoreProvider, useDraftForm, type ShownError } from '../../editors/form/store.ts';
import { draftResolver, formKey, pathSegments, resolveErrors, serverErrors, type DraftError } from '../../editors/form/validation.ts';
import { rolloutImpact } from './impact.ts';
import { takeProposedDraft } from './proposed.ts';
import { rebase, threeWay } from './threeway.ts';
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
const takeoverCount = (t: Takeover[]) => {
  const n = t.reduce((sum, x) => sum + x.fields.length, 0);
  return n === 1 ? 'one field' : `${n} fields`;
};

/** A value in the conflict table: scalars as they are, anything else as compact JSON. */
const valueText = (v: unknown) => (v === undefined ? '(not set)' : typeof v === 'string' ? v : JSON.stringify(v));

function ChangeList({ title, fields }: { title: string; fields: string[] }) {
  return (
    <div aria-label={title} role="group">
      <h3 className="small-head">{title}</h3>
      {fields.length === 0 ? (
        <p className="muted">Nothing.</p>
      ) : (
        <ul className="change-list">
          {fields.map((f) => (
            <li key={f}>
              <code>{f}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Loads the object (edit) or the template (create), then hands over to the editor. */
export function EditPage({ view, namespace, name }: { view: KindView; namespace?: string; name?: string }) {
  const form = kindForms.get(view.kind);
  // With its managedFields: the editor tells who owns each field, and what an apply would take over.
  const live = useObject(view.kind, namespace, name ?? '', { managedFields: true });
  // A draft proposed by another page (a reachability fix) opens as the unsaved edit.
  const [proposed] = useState(() => takeProposedDraft(view.kind.plural, view.kind.scope === 'Namespaced' ? (namespace ?? 'default') : undefined, name));
  if (!name) {
    const ns = view.kind.scope === 'Namespaced' ? (namespace ?? 'default') : undefined;
    return <Editor view={view} initial={proposed ?? (form ? form.template(ns ?? 'default') : { apiVersion: apiVersionOf(view.kind), kind: view.kind.kind, metadata: { name: '', namespace: ns } })} />;
  }
  if (!live.object) return <div className="alert info">{live.isPending ? 'Loading…' : `${view.kind.kind} "${name}" does not exist.`}</div>;
  return <Editor view={view} initial={proposed ? { ...live.object, spec: (proposed as { spec?: unknown }).spec } : live.object} stored={live.object} live={live.object} />;
}

/** A list of every error, each a link to its field; the form and the YAML show them where they are. */
function ErrorList({ title, errors, onPick }: { title: string; errors: DraftError[]; onPick?: (e: DraftError) => void }) {
  return (
    <div className="alert bad" role="alert" aria-label="Errors">
      <div>{title}</div>
      <ul className="error-list">
        {errors.map((e, i) => (
          <li key={i}>
            {onPick && e.field ? (
              <button type="button" className="btn link" onClick={() => onPick(e)}>
                <code>{e.field}</code>
              </button>
            ) : (
              e.field && <code>{e.field}</code>
            )}
            {e.field ? ': ' : ''}
            {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Whether an error is near a field the user changed (before a review is asked for, only those show). */
const near = (errorKey: string, touched: Set<string>) => {
  const parent = errorKey.split('.').slice(0, -1).join('.');
  for (const t of touched) if (errorKey === t || errorKey.startsWith(`${t}.`) || t.startsWith(`${errorKey}.`) || t.split('.').slice(0, -1).join('.') === parent) return true;
  return false;
};

const shown = (errors: DraftError[]): ShownError[] => errors.map((e) => ({ key: formKey(e.field), field: e.field, message: e.message }));

function Editor({ view, initial, stored, live }: { view: KindView; initial: KubeObject; stored?: KubeObject; live?: KubeObject }) {
  const { kind } = view;
  const conn = useConnection();
  const qc = useQueryClient();
  const layout = kindForms.get(kind);
  const creating = !stored;
  const [base, setBase] = useState<KubeObject | undefined>(stored);
  const baseRef = useRef(base);
  baseRef.current = base;
  // The draft is react-hook-form's: the stored object plus the user's edits, written by the form and the YAML alike,
  // validated by the kind's Zod schema (zodResolver) and rules against the object the edit is based on.
  const resolver = useMemo(() => draftResolver(kind, layout, () => baseRef.current), [kind, layout]);
  const store = useDraftForm({ initial, stored: initial, resolver });
  const values = useWatch({ control: store.control });
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const draft = useMemo(() => store.draft, [store, values]);
  const [yamlText, setYamlText] = useState(() => toYaml(initial));
  const [yamlError, setYamlError] = useState<string>();
  const [tab, setTab] = useState<Tab>(layout ? 'form' : 'yaml');
  // By apply, the review also holds the fields it would take over (confirming forces) and those it cannot remove.
  const [review, setReview] = useState<{ dryRun: KubeObject; takeovers?: Takeover[]; kept?: string[] }>();
  const [saveMode, setSaveMode] = useState<SaveMode>(creating ? 'apply' : 'update');
  // An apply names its object: one left to generateName is created by POST.
  const byApply = saveMode === 'apply' && !!draft.metadata.name;
  const ownership = useMemo(() => ownershipOf(kind, base, FIELD_MANAGER), [kind, base]);
  const [conflict, setConflict] = useState<{ theirs: KubeObject }>();
  const [choices, setChoices] = useState<Record<string, 'mine' | 'theirs'>>({});
  const [error, setError] = useState<unknown>();
  // The 422 causes of the last request, each with the value its field had then: fixing the field clears it.
  const [rejected, setRejected] = useState<{ error: DraftError; value: unknown }[]>([]);
  const [attempted, setAttempted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [statusText, setStatusText] = useState(() => toYaml(initial.status ?? {}));

  const fields = useMemo(() => (layout ? buildFields(kind.schema, creating ? layout : { ...layout, readOnly: [...(layout.readOnly ?? []), 'metadata.name', 'metadata.namespace'] }) : []), [kind, layout, creating]);
  // Unsaved: the draft differs from what the edit began with in what the user
  // edits (the live object's status moving on is not an edit of ours).
  const [start] = useState(initial);
  const dirty = !deepEqual(userFields(draft), userFields(start)) || !!conflict;

  // Every error of the draft, by the form's resolver, and the server's last answer for fields not changed since.
  const [checked, setChecked] = useState<{ draft?: KubeObject; errors: ShownError[] }>({ errors: [] });
  useEffect(() => {
    let current = true;
    void resolveErrors(resolver, draft).then((errors) => current && setChecked({ draft, errors }));
    return () => {
      current = false;
    };
  }, [resolver, draft, base]);
  const clientErrors = checked.errors;
  /** Until the resolver has answered for this draft, it is not known to be valid. */
  const checking = checked.draft !== draft;
  const serverErrs = useMemo(() => rejected.filter((r) => deepEqual(getIn(draft, pathSegments(r.error.field)), r.value)).map((r) => r.error), [rejected, draft]);
  const allErrors = useMemo(() => {
    const seen = new Set<string>();
    return [...serverErrs, ...clientErrors].filter((e) => {
      const k = `${e.field}\u0000${e.message}`;
      return seen.has(k) ? false : (seen.add(k), true);
    });
  }, [serverErrs, clientErrors]);
  useEffect(() => {
    store.showErrors(shown(attempted ? allErrors : [...serverErrs, ...clientErrors.filter((e) => near(formKey(e.field), store.touched))]));
  }, [store, attempted, allErrors, serverErrs, clientErrors]);
  const markers = useMemo<Marker[]>(() => allErrors.map((e) => ({ path: e.field, message: e.field ? `${e.field}: ${e.message}` : e.message, severity: 'error' })), [allErrors]);

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
    store.replace(next);
  };

  const switchTab = (t: Tab) => {
    if (t === tab) return;
    // The YAML alert already says what is wrong; the form returns once it parses.
    if (tab === 'yaml' && t === 'form' && yamlError) return;
    // The YAML text follows the form's edits, keeping its comments and order.
    if (t === 'yaml') setYamlText((text) => mergeYaml(text, store.draft));
    setError(undefined);
    setTab(t);
  };

  /** Brings a field into view (opening the form on it) from the error list. */
  const focusField = (e: DraftError) => {
    if (tab !== 'form') return;
    const key = formKey(e.field);
    const target = document.getElementById(inputId(key)) ?? document.querySelector(`[data-key="${CSS.escape(key)}"]`) ?? document.querySelector(`[data-field="${CSS.escape(key)}"]`);
    target?.scrollIntoView({ block: 'center' });
    if (target instanceof HTMLElement) target.focus();
  };

  /** Keeps a 422's causes to show them on their fields, in the YAML and in the list. */
  const showInvalid = (e: unknown) => {
    if (e instanceof KubeError && e.code === 422) {
      const causes = serverErrors(layout, e.status?.details?.causes ?? []);
      setRejected(causes.map((c) => ({ error: c, value: getIn(store.draft, pathSegments(c.field)) })));
      setAttempted(true);
      if (causes.length) return setError(undefined);
    }
    setError(e);
  };

  /**
   * Creates, applies, or writes the edit conditional on the fields as the
   * edit began (writeAsSeen): status written meanwhile does not matter, any
   * other change is a 409 and shown.
   */
  const send = async (dryRun: boolean, force = false): Promise<KubeObject> => {
    const draft = store.draft;
    if (byApply) {
      // Apply creates or merges alike: a Create must not change an object that is already there.
      if (creating && (await exists(draft))) throw new KubeError(409, { kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409, message: `${groupResourceOf(kind)} "${draft.metadata.name}" already exists` });
      const { config } = applyPlan(base, draft, ownership?.managed ?? new Map(), FIELD_MANAGER, patchMetaFor(kind));
      return serverSideApply(conn, kind, config as KubeObject, { dryRun, force });
    }
    if (creating) return api.create(conn, kind, draft, dryRun);
    return writeAsSeen(conn, kind, base!, draft, dryRun);
  };

  const exists = async (o: KubeObject) => {
    try {
      await api.get(conn, kind, o.metadata.namespace, o.metadata.name!);
      return true;
    } catch (e) {
      if (e instanceof KubeError && e.code === 404) return false;
      throw e;
    }
  };

  /**
   * The dry run of an apply: without force first; when it would take fields
   * from other managers, those fields, and the forced dry run to show.
   */
  const reviewApply = async () => {
    const kept = creating ? [] : applyPlan(base, store.draft, ownership?.managed ?? new Map(), FIELD_MANAGER, patchMetaFor(kind)).kept.map(pathString);
    try {
      return { dryRun: await send(true), kept };
    } catch (e) {
      const takeovers = takeoversOf(e);
      if (!takeovers) throw e;
      return { dryRun: await send(true, true), takeovers, kept };
    }
  };

  const startReview = async () => {
    setError(undefined);
    setAttempted(true);
    if (tab === 'yaml' && yamlError) return;
    const errors = await store.validate();
    setChecked((c) => ({ ...c, errors }));
    if (errors.length) return;
    setBusy(true);
    setRejected([]);
    try {
      setReview(byApply ? await reviewApply() : { dryRun: await send(true) });
    } catch (e) {
      if (e instanceof KubeError && e.code === 409 && !creating && !byApply) await loadConflict();
      else showInvalid(e);
    } finally {
      setBusy(false);
    }
  };

  const loadConflict = async () => {
    const theirs = await api.get(conn, kind, store.draft.metadata.namespace, store.draft.metadata.name!);
    setConflict({ theirs });
    setChoices({});
    setReview(undefined);
  };

  const apply = async () => {
    setBusy(true);
    setError(undefined);
    try {
      // Forced only once the user saw and confirmed the fields it takes.
      const saved = await send(false, !!review?.takeovers);
      setReview(undefined);
      setNavigationGuard(undefined);
      await qc.invalidateQueries({ queryKey: ['discovery'] });
      navigate(withSearch(detailPath(kind, saved)));
    } catch (e) {
      // Another manager took fields since the review: review again, which asks again.
      if (byApply && takeoversOf(e)) await reviewApply().then(setReview, (again: unknown) => {
          setReview(undefined);
          showInvalid(again);
        });
      else if (e instanceof KubeError && e.code === 409 && !creating && !byApply) await loadConflict();
      else {
        setReview(undefined);
        showInvalid(e);
      }
    } finally {
      setBusy(false);
    }
  };

  const merge = useMemo(() => (conflict && base ? threeWay(base, conflict.theirs, draft) : undefined), [conflict, base, draft]);
  const unsettled = merge ? merge.conflicts.filter((c) => !choices[c.field]) : [];

  /** Replays my changes onto the server's current version, each conflict settled as chosen. */
  const rebaseOnTheirs = () => {
    if (!conflict || !base || unsettled.length) return;
    const next = rebase(base, conflict.theirs, store.draft, choices);
    next.metadata = { ...next.metadata, resourceVersion: conflict.theirs.metadata.resourceVersion };
    setBase(conflict.theirs);
    // Emptied fields now fall back to the server's version.
    store.stored = conflict.theirs;
    store.replace(next);
    setYamlText((t) => mergeYaml(t, next));
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

  const impact = review ? rolloutImpact(kind, base, review.dryRun) : undefined;
  const myChanges = review && base ? changedPaths(userFields(base), userFields(draft)) : [];
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
      {view.EditorAside && <view.EditorAside draft={draft} original={base} invalid={clientErrors.length > 0 || checking || !!yamlError} />}
      <ErrorAlert error={error} />
      {attempted && allErrors.length > 0 && !review && !conflict && (
        <ErrorList title={allErrors.length === 1 ? 'One field is not valid:' : `${allErrors.length} fields are not valid:`} errors={allErrors} onPick={focusField} />
      )}
      {conflict && base && merge && (
        <section className="panel" aria-label="Conflict">
          <h2>Someone else changed this {kind.kind} while you were editing</h2>
          <div className="body">
            <p className="muted" style={{ marginTop: 0 }}>
              Left: what changed on the server since you began (resourceVersion {base.metadata.resourceVersion} → {conflict.theirs.metadata.resourceVersion}). Right: your changes. Rebasing replays your
              changes on top of the server's version; review it again before applying.
            </p>
            <div className="grid2">
              <ChangeList title="Changed on the server" fields={merge.theirChanges} />
              <ChangeList title="Changed by you" fields={merge.myChanges} />
            </div>
            {merge.conflicts.length > 0 && (
              <div className="alert warn" role="group" aria-label="Conflicting fields">
                <strong>
                  {merge.conflicts.length === 1 ? 'One field was' : `${merge.conflicts.length} fields were`} changed on both sides. Choose which value to keep for each before rebasing.
                </strong>
                <table className="conflicts">
                  <thead>
                    <tr>
                      <th>Field</th>
                      <th>When you began</th>
                      <th>On the server now</th>
                      <th>Yours</th>
                    </tr>
                  </thead>
                  <tbody>
                    {merge.conflicts.map((c) => (
                      <tr key={c.field}>
                        <td>
                          <code>{c.field}</code>
                        </td>
                        <td className="mono">{valueText(c.base)}</td>
                        <td>
                          <label className="row">
                            <input type="radio" name={`conflict-${c.field}`} checked={choices[c.field] === 'theirs'} onChange={() => setChoices({ ...choices, [c.field]: 'theirs' })} aria-label={`Keep the server's ${c.field}`} />
                            <span className="mono">{valueText(c.theirs)}</span>
                          </label>
                        </td>
                        <td>
                          <label className="row">
                            <input type="radio" name={`conflict-${c.field}`} checked={choices[c.field] === 'mine'} onChange={() => setChoices({ ...choices, [c.field]: 'mine' })} aria-label={`Use my ${c.field}`} />
                            <span className="mono">{valueText(c.mine)}</span>
                          </label>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <div className="grid2">
              <LazyDiffEditor original={forDiff(base)} modified={forDiff(conflict.theirs)} originalLabel="When you began" modifiedLabel="On the server now" height={320} />
              <LazyDiffEditor original={forDiff(base)} modified={forDiff(draft)} originalLabel="When you began" modifiedLabel="Yours" height={320} />
            </div>
            <div className="row" style={{ marginTop: 12 }}>
              <button className="btn primary" onClick={rebaseOnTheirs} disabled={unsettled.length > 0}>
                Rebase my changes onto theirs
              </button>
              {unsettled.length > 0 && <span className="muted">Choose a value for {unsettled.length === 1 ? 'the conflicting field' : `the ${unsettled.length} conflicting fields`} first.</span>}
              <button className="btn" onClick={() => navigate(withSearch(detailPath(kind, conflict.theirs)))}>
                Discard mine
              </button>
            </div>
          </div>
        </section>
      )}
      {review && (
        <section className="panel" aria-label="Review">
          <h2>
            Review: {creating ? 'the object the server would create' : 'stored against what the server would store'}
            {byApply && <span className="badge info" style={{ marginLeft: 8, verticalAlign: 'middle' }}>server-side apply as {FIELD_MANAGER}</span>}
          </h2>
          <div className="body">
            {byApply && !creating && (
              <p className="muted" style={{ marginTop: 0 }}>
                Applied: the fields you changed and those {FIELD_MANAGER} applied before. Every other field keeps its manager.
              </p>
            )}
            {review.takeovers && <TakeoverList takeovers={review.takeovers} />}
            {review.kept && review.kept.length > 0 && (
              <div className="alert warn" role="status" aria-label="Fields apply keeps">
                Apply does not remove what other managers set, so {review.kept.length === 1 ? 'this field you removed stays' : 'these fields you removed stay'}:{' '}
                {review.kept.map((f, i) => (
                  <code key={f}>
                    {i > 0 ? ', ' : ''}
                    {f}
                  </code>
                ))}
                . Save with update to remove {review.kept.length === 1 ? 'it' : 'them'}.
              </div>
            )}
            {!creating && (
              <p data-testid="changed-fields" style={{ marginTop: 0 }}>
                {myChanges.length === 0 ? (
                  'You changed nothing: applying sends the object as stored.'
                ) : (
                  <>
                    You changed {myChanges.length === 1 ? 'one field' : `${myChanges.length} fields`}: {myChanges.map((f, i) => <code key={f}>{i > 0 ? ', ' : ''}{f}</code>)}. Nothing else is sent changed.
                  </>
                )}
              </p>
            )}
            {impact && (
              <div className={`alert ${impact.rollsOut ? 'warn' : 'info'}`} role="status" data-testid="rollout-impact">
                {impact.summary}
              </div>
            )}
            {view.ReviewAside && <view.ReviewAside stored={creating ? undefined : base} proposed={review.dryRun} />}
            <p className="muted">The right side is the server's own answer to a dry run of this request, with its defaults and the fields it sets.</p>
            <LazyDiffEditor original={creating ? '' : forDiff(base)} modified={forDiff(review.dryRun)} originalLabel={creating ? 'Nothing' : 'Stored'} modifiedLabel="After apply" height={380} />
            <div className="row" style={{ marginTop: 12 }}>
              <button className="btn primary" onClick={() => void apply()} disabled={busy}>
                {review.takeovers ? `Take over ${takeoverCount(review.takeovers)} and ${creating ? 'create' : 'apply'}` : creating ? 'Create' : 'Apply'}
              </button>
              <button className="btn" onClick={() => setReview(undefined)} disabled={busy}>
                {review.takeovers ? 'Cancel' : 'Keep editing'}
              </button>
            </div>
          </div>
        </section>
      )}
      {!review && !conflict && (
        <>
          {tab === 'form' && layout && (
            <FormStoreProvider value={store}>
              <form className="form" onSubmit={(e) => (e.preventDefault(), void startReview())} noValidate aria-label={`${kind.kind} form`}>
                <ManagersSummary ownership={ownership} />
                <OwnershipProvider value={{ ownership, object: base }}>
                  <Fields nodes={fields} base="" topLevel />
                </OwnershipProvider>
                {!creating && base && (
                  <p className="muted">
                    Editing resourceVersion {base.metadata.resourceVersion} (uid {base.metadata.uid}). Fields only the system writes are not in the form.
                  </p>
                )}
              </form>
            </FormStoreProvider>
          )}
          {tab === 'yaml' && (
            <>
              {yamlError && (
                <div className="alert bad" role="alert">
                  {yamlError} — the form and review are available again once the YAML parses.
                </div>
              )}
              <LazyYamlEditor
                value={yamlText}
                onChange={onYamlChange}
                schema={schema}
                schemaUri={schemaUriFor(kind)}
                markers={markers}
                onSave={() => void saveRef.current()}
                height={560}
                fieldHover={ownership ? (path) => ownershipMarkdown(ownership, store.draft, path) : undefined}
              />
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
            {tab !== 'status' && <SaveModeToggle mode={saveMode} onChange={setSaveMode} named={!!draft.metadata.name} />}
          </div>
        </>
      )}
    </>
  );
}

