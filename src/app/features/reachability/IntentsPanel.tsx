// The Intents view of /reachability: every intent stored in the cluster,
// checked live against the engine (met or violated, with the pod pairs and
// the policies responsible), a focused form to declare one, the YAML of each
// ConfigMap holding them, and a one-click fix for a violated intent.
import { useState } from 'react';
import { describeIntent, endpointText, intentSchema, type Intent } from '../../../lib/reachability/index.ts';
import { useConnection } from '../../api/connection.ts';
import { LazyYamlEditor } from '../../editors/monaco/index.ts';
import type { ClusterSummary, IntentsView, LiveIntent } from './compute.ts';
import { readingText, useWorkerAnswer } from './client.ts';
import { PolicyLink } from './ExplainPanel.tsx';
import { FixPanel } from './FixPanel.tsx';
import { DEFAULT_STORE, intentsJSONSchema, saveIntents, selectorFromText, useLiveIntents, withIntent, withoutIntent, type IntentStore } from './intents.ts';
import { parseIntents } from '../../../lib/reachability/index.ts';

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function IntentForm({ store, onDone }: { store?: IntentStore; onDone(): void }) {
  const conn = useConnection();
  const [f, setF] = useState({ name: '', expect: 'allowed', fromNs: '', fromPods: '', toNs: '', toPods: '', port: '', protocol: 'TCP' });
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async () => {
    let candidate: unknown;
    try {
      const side = (ns: string, pods: string) => ({ ...(ns.trim() ? { namespace: ns.trim() } : {}), ...(selectorFromText(pods) ? { podSelector: selectorFromText(pods) } : {}) });
      candidate = {
        name: f.name.trim(),
        expect: f.expect,
        from: side(f.fromNs, f.fromPods),
        to: side(f.toNs, f.toPods),
        ...(f.port.trim() ? { ports: [{ port: Number(f.port), protocol: f.protocol }] } : {}),
      };
    } catch (e) {
      setErrors([`pods: ${errorText(e)}`]);
      return;
    }
    const r = intentSchema.safeParse(candidate);
    if (!r.success) {
      setErrors(r.error.issues.map((i) => `${i.path.join('.') || 'intent'}: ${i.message}`));
      return;
    }
    setBusy(true);
    try {
      await saveIntents(conn, store, withIntent(store?.text ?? '', r.data));
      onDone();
    } catch (e) {
      setErrors([errorText(e)]);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel rx-intent-form" aria-label="New intent" onSubmit={(e) => (e.preventDefault(), void submit())}>
      <h2>New intent</h2>
      <div className="body">
        <p className="muted">
          Saved in ConfigMap <code>{store?.source ?? `${DEFAULT_STORE.namespace}/${DEFAULT_STORE.name}`}</code>. Pods are label selectors as for <code>kubectl -l</code> (<code>app=web,tier in (a,b)</code>); empty means every pod, an empty namespace every namespace.
        </p>
        <div className="rx-intent-grid">
          <label>
            <span>Name</span>
            <input className="input mono" value={f.name} onChange={set('name')} aria-label="Intent name" placeholder="web-reaches-api" />
          </label>
          <label>
            <span>Expect</span>
            <select className="input" value={f.expect} onChange={set('expect')} aria-label="Expect">
              <option value="allowed">must reach (allowed)</option>
              <option value="denied">must not reach (denied)</option>
            </select>
          </label>
          <label>
            <span>From namespace</span>
            <input className="input mono" value={f.fromNs} onChange={set('fromNs')} aria-label="From namespace" placeholder="every namespace" />
          </label>
          <label>
            <span>From pods</span>
            <input className="input mono" value={f.fromPods} onChange={set('fromPods')} aria-label="From pods" placeholder="app=web" />
          </label>
          <label>
            <span>To namespace</span>
            <input className="input mono" value={f.toNs} onChange={set('toNs')} aria-label="To namespace" placeholder="every namespace" />
          </label>
          <label>
            <span>To pods</span>
            <input className="input mono" value={f.toPods} onChange={set('toPods')} aria-label="To pods" placeholder="app=api" />
          </label>
          <label>
            <span>Port</span>
            <input className="input mono" type="number" min={1} max={65535} value={f.port} onChange={set('port')} aria-label="Intent port" placeholder="every port" />
          </label>
          <label>
            <span>Protocol</span>
            <select className="input" value={f.protocol} onChange={set('protocol')} aria-label="Intent protocol">
              <option>TCP</option>
              <option>UDP</option>
              <option>SCTP</option>
            </select>
          </label>
        </div>
        {errors.length > 0 && (
          <div className="alert bad" role="alert">
            <ul className="error-list">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        <div className="row">
          <button className="btn primary" type="submit" disabled={busy}>
            Save intent
          </button>
          <button className="btn" type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}

function IntentsYaml({ store, onDone }: { store?: IntentStore; onDone(): void }) {
  const conn = useConnection();
  const [text, setText] = useState(store?.text ?? 'intents: []\n');
  const [error, setError] = useState<string>();
  const parsed = parseIntents(text);
  const save = async () => {
    if (parsed.errors.length) return;
    try {
      await saveIntents(conn, store, text);
      onDone();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section className="panel" aria-label="Intents YAML">
      <h2>
        <span className="grow">
          <code>{INTENTS_FILE}</code> of ConfigMap <code>{store?.source ?? `${DEFAULT_STORE.namespace}/${DEFAULT_STORE.name}`}</code>
        </span>
      </h2>
      <div className="body">
        <LazyYamlEditor value={text} onChange={setText} schema={intentsJSONSchema()} schemaUri="kw://reachability/intents.yaml" onSave={() => void save()} height={320} label="Intents YAML" />
        {(parsed.errors.length > 0 || error) && (
          <div className="alert bad" role="alert">
            <ul className="error-list">
              {[...parsed.errors, ...(error ? [error] : [])].map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
        <div className="row" style={{ marginTop: 8 }}>
          <button className="btn primary" onClick={() => void save()} disabled={parsed.errors.length > 0}>
            Save
          </button>
          <button className="btn" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
}

const INTENTS_FILE = 'intents.yaml';

/** `reading`: pods read so far (of how many) while the list is still read; intents are checked once it is whole (a must-reach intent would seem broken by the pods not read yet). */
export function IntentsPanel({ summary, reading }: { summary?: ClusterSummary; reading?: { read: number; of?: number } }) {
  const conn = useConnection();
  const live = useLiveIntents();
  const answer = useWorkerAnswer<IntentsView>(summary, `intents/${live.key}`, live.loading || reading !== undefined ? null : { type: 'intents', intents: live.intents });
  const [mode, setMode] = useState<{ kind: 'form' } | { kind: 'yaml'; source?: string } | { kind: 'fix'; intent: LiveIntent }>();
  const [error, setError] = useState<string>();
  const results = answer.data?.results ?? [];
  const met = results.filter((r) => r.status === 'met').length;
  const store = (source: string) => live.stores.find((s) => s.source === source);
  const byKey = new Map(live.intents.map((i) => [`${i.source}/${i.intent.name}`, i.intent] as [string, Intent]));
  return (
    <div className="rx-intents" data-testid="intents">
      <div className="toolbar">
        <span className="muted" role="status" data-testid="intents-summary">
          {live.loading ? 'reading intents…' : reading !== undefined ? readingText(reading) : results.length ? `${met} of ${results.length} intents met` : live.intents.length ? 'checking…' : 'No intents yet.'}
        </span>
        <span className="grow" />
        <button className="btn primary" onClick={() => setMode({ kind: 'form' })}>
          New intent
        </button>
        {(live.stores.length ? live.stores : [undefined]).map((s) => (
          <button key={s?.source ?? 'default'} className="btn" onClick={() => setMode({ kind: 'yaml', source: s?.source })}>
            Edit YAML{live.stores.length > 1 ? ` (${s?.source})` : ''}
          </button>
        ))}
      </div>
      {error && <div className="alert bad">{error}</div>}
      {live.stores.flatMap((s) => s.errors.map((e) => (
        <div key={`${s.source}:${e}`} className="alert warn">
          ConfigMap <code>{s.source}</code> holds an invalid {INTENTS_FILE}, so none of its intents are checked: {e}
        </div>
      )))}
      {mode?.kind === 'form' && <IntentForm store={live.stores[0]} onDone={() => setMode(undefined)} />}
      {mode?.kind === 'yaml' && <IntentsYaml store={mode.source ? store(mode.source) : live.stores[0]} onDone={() => setMode(undefined)} />}
      {mode?.kind === 'fix' && <FixPanel summary={summary} request={{ type: 'fixIntent', intent: mode.intent }} title={`Fix for intent ${mode.intent.intent.name}`} onClose={() => setMode(undefined)} />}
      {results.length === 0 && !live.loading && live.intents.length === 0 && (
        <div className="empty">
          An intent says what should be true — “pods app=web in shop must reach pods app=api on TCP 8080” — and is checked live against every policy change. Intents live in ConfigMaps labelled <code>kube-workbench.io/intents=true</code>.
        </div>
      )}
      <ul className="rx-intent-list">
        {results.map((r) => {
          const intent = byKey.get(`${r.source}/${r.name}`);
          return (
            <li key={`${r.source}/${r.name}`} className={`panel rx-intent ${r.status}`} data-intent={r.name} data-status={r.status}>
              <div className="row">
                <span className={`rx-cell static ${r.status === 'met' ? 'allowed' : 'denied'}`} aria-hidden="true">
                  {r.status === 'met' ? '✓' : '✕'}
                </span>
                <b className="mono">{r.name}</b>
                <span className={`chip ${r.status === 'met' ? 'ok' : 'bad'}`}>{r.status}</span>
                <span className="muted grow">in ConfigMap {r.source}</span>
                {r.status === 'violated' && intent && (
                  <button className="btn primary small" onClick={() => setMode({ kind: 'fix', intent: { source: r.source, intent } })}>
                    Fix
                  </button>
                )}
                <button
                  className="btn small"
                  aria-label={`Delete intent ${r.name}`}
                  onClick={() => {
                    const s = store(r.source);
                    if (s && window.confirm(`Delete intent ${r.name}?`)) saveIntents(conn, s, withoutIntent(s.text, r.name)).catch((e) => setError(errorText(e)));
                  }}
                >
                  Delete
                </button>
              </div>
              {intent && <p className="rx-intent-what">{describeIntent(intent)}</p>}
              {intent?.description && <p className="muted">{intent.description}</p>}
              {r.status === 'violated' && (
                <div className="rx-intent-detail">
                  <p>
                    {r.violationCount} of {r.checked} cases are {r.expect === 'allowed' ? 'denied' : 'allowed'}
                    {r.violations.length < r.violationCount ? ` (first ${r.violations.length} listed)` : ''}:
                  </p>
                  <ul className="rx-intent-pairs">
                    {r.violations.slice(0, 8).map((v) => (
                      <li key={`${endpointText(v.from)}>${endpointText(v.to)}@${v.protocol}/${v.port}`} className="mono">
                        {endpointText(v.from)} → {endpointText(v.to)} <span className="muted">{v.protocol} {v.port}</span>
                      </li>
                    ))}
                  </ul>
                  {r.policies.length > 0 && (
                    <p>
                      {r.expect === 'allowed' ? 'Isolated by ' : 'Let through by '}
                      {r.policies.map((p, i) => (
                        <span key={`${p.namespace}/${p.name}`}>
                          {i > 0 && ', '}
                          <PolicyLink policy={p} />
                        </span>
                      ))}
                    </p>
                  )}
                </div>
              )}
              {r.warnings.map((w) => (
                <p key={w} className="muted">
                  ⚠ {w}
                </p>
              ))}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
