// The update strategy edited in place (type, maxSurge, maxUnavailable,
// minReadySeconds) through the form engine, validated by the server's rules.
import { useMemo, useState } from 'react';
import { useWatch } from 'react-hook-form';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import type { KubeObject } from '../../../kinds/kind.ts';
import { formatHostPort, hostPortsOf } from '../../../lib/nodeports.ts';
import { allowsSurge } from '../../../lib/rollout.ts';
import { KubeError } from '../../api/client.ts';
import { useConnection } from '../../api/connection.ts';
import { writeAsSeen } from '../../api/writeasseen.ts';
import { useCanI } from '../../api/access.ts';
import { ErrorAlert } from '../../components/common.tsx';
import { buildFields, type FormLayout } from '../../editors/form/fields.ts';
import { Fields } from '../../editors/form/SchemaForm.tsx';
import { FormStoreProvider, useDraftForm } from '../../editors/form/store.ts';
import { draftResolver } from '../../editors/form/validation.ts';
import { StrategyPlanPreview } from './RolloutPlanView.tsx';

const layout: FormLayout = {
  exclusive: true,
  show: {
    '': ['spec'],
    spec: ['updateStrategy', 'minReadySeconds'],
    'spec.updateStrategy': ['type', 'rollingUpdate'],
    'spec.updateStrategy.rollingUpdate': ['maxUnavailable', 'maxSurge'],
  },
  labels: { spec: 'Update strategy' },
};

const describe = (ds: KubeObject) => {
  const s = (ds.spec as any) ?? {};
  const ru = s.updateStrategy?.rollingUpdate ?? {};
  const type = s.updateStrategy?.type ?? 'RollingUpdate';
  return `${type}${type === 'RollingUpdate' ? `, maxUnavailable ${ru.maxUnavailable ?? 1}, maxSurge ${ru.maxSurge ?? 0}` : ''}, minReadySeconds ${s.minReadySeconds ?? 0}`;
};

/** Surge with host ports never progresses: the new pod cannot be scheduled while the old one holds the port. */
function surgeHostPortWarning(ds: KubeObject): string | undefined {
  let surge = false;
  try {
    surge = allowsSurge(ds as never);
  } catch {
    // an unparsable maxSurge (validation rejects it) does not surge
  }
  const ports = surge ? hostPortsOf((ds.spec as any)?.template?.spec) : [];
  if (!ports.length) return undefined;
  return `maxSurge with host port ${ports.map(formatHostPort).join(', ')} cannot progress: a new pod cannot be scheduled while the old pod holds the port, and the old pod goes only once the new one is available. Use maxUnavailable.`;
}

export function StrategyEditor({ ds }: { ds: KubeObject }) {
  const [open, setOpen] = useState(false);
  // Bumped to start the form again from the DaemonSet as it is now (after another writer changed it).
  const [opened, setOpened] = useState(0);
  const warning = surgeHostPortWarning(ds);
  const canPatch = useCanI('patch', daemonSetKind, ds.metadata.namespace, undefined, ds.metadata.name);
  const refused = canPatch?.allowed === false ? canPatch.message : undefined;
  return (
    <div className="strategy">
      <span className="muted">Strategy: </span>
      <span data-testid="strategy-summary">{describe(ds)}</span>{' '}
      {!open && (
        <button className="btn" onClick={() => setOpen(true)} disabled={!!refused} title={refused}>
          Edit strategy
        </button>
      )}
      {warning && (
        <div className="alert warn" role="note" data-testid="strategy-warning" style={{ marginTop: 8, marginBottom: 0 }}>
          {warning}
        </div>
      )}
      {open && <StrategyForm key={`${ds.metadata.uid} ${opened}`} ds={ds} onDone={() => setOpen(false)} onRestart={() => setOpened((n) => n + 1)} />}
    </div>
  );
}

function StrategyForm({ ds, onDone, onRestart }: { ds: KubeObject; onDone(): void; onRestart(): void }) {
  const conn = useConnection();
  const fields = useMemo(() => buildFields(daemonSetKind.schema, layout), []);
  // The DaemonSet as the form opened on it. Status moves on all through a rollout (the time one
  // opens this form); the draft stays the user's, and the write is conditional on what they saw.
  const [seen] = useState(ds);
  // The form sends the stored DaemonSet plus the fields edited here, nothing else.
  const [resolver] = useState(() => draftResolver(daemonSetKind, undefined, () => seen));
  const store = useDraftForm({ initial: seen, stored: seen, resolver });
  // The plan follows every edit (before and after), so the draft is read on each change.
  const values = useWatch({ control: store.control });
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const draft = useMemo(() => store.draft, [store, values]);
  const [error, setError] = useState<unknown>();
  const [submitting, setSubmitting] = useState(false);
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const errors = await store.validate();
    store.showErrors(errors);
    if (errors.length) return;
    setSubmitting(true);
    try {
      await writeAsSeen(conn, daemonSetKind, seen, store.draft);
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setSubmitting(false);
    }
  };
  return (
    <FormStoreProvider value={store}>
      <form className="form strategy-form" onSubmit={(e) => void save(e)} noValidate aria-label="Update strategy form">
        <Fields nodes={fields} base="" topLevel />
        <StrategyPlanPreview ds={ds} draft={draft} />
        <ErrorAlert error={error} />
        {error instanceof KubeError && error.code === 409 && (
          <div className="row">
            <button className="btn" type="button" onClick={onRestart}>
              Start again from the server&apos;s version
            </button>
          </div>
        )}
        <div className="row">
          <button className="btn primary" type="submit" disabled={submitting}>
            Apply strategy
          </button>
          <button className="btn" type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
    </FormStoreProvider>
  );
}
