// Settings: who the app is signed in as, the saved connections (switch,
// forget, add with a token or a kubeconfig), and the current connection's
// address and token, tested against /version and discovery before saving.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { kinds } from '../../../kinds/registry.ts';
import { kubeFetch, type Connection } from '../../api/client.ts';
import { addConnection, removeConnection, resetConnection, selectConnection, setConnection, useConnection, useSavedConnections } from '../../api/connection.ts';
import { useWhoAmI } from '../../api/access.ts';
import { servedKey, useChangeConnection } from '../../api/hooks.ts';
import { ErrorAlert, Badge } from '../../components/common.tsx';
import { Link } from '../../routes/router.tsx';
import { CredentialsForm, IdentityLine } from './Credentials.tsx';

const SettingsForm = z.object({
  name: z.string().trim().min(1, 'Give the connection a name'),
  baseUrl: z.string().trim().url('Enter a full URL such as https://cluster.example:6443 or http://127.0.0.1:8001'),
  token: z.string().trim().optional(),
});
type SettingsValues = z.infer<typeof SettingsForm>;

interface TestResult {
  version: string;
  served: Set<string>;
}

async function testConnection(conn: Connection): Promise<TestResult> {
  const version = await kubeFetch<{ gitVersion: string }>(conn, '/version');
  const served = new Set<string>();
  const groupVersions = [...new Set(kinds.map((k) => (k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`)))];
  for (const path of groupVersions) {
    try {
      const list = await kubeFetch<{ groupVersion: string; resources: { name: string }[] }>(conn, path);
      const [g, v] = list.groupVersion.includes('/') ? list.groupVersion.split('/') : ['', list.groupVersion];
      for (const r of list.resources) served.add(`${g}/${v}/${r.name}`);
    } catch {
      /* a group the server lacks */
    }
  }
  return { version: version.gitVersion, served };
}

function Connections() {
  const conn = useConnection();
  const saved = useSavedConnections();
  const me = useWhoAmI();
  const change = useChangeConnection();
  const [adding, setAdding] = useState(false);
  return (
    <section className="panel">
      <h2>Saved connections</h2>
      <div className="body">
        <table className="simple connections">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">API base URL</th>
              <th scope="col">Token</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {saved.map((c) => (
              <tr key={c.id} aria-current={c.id === conn.id ? 'true' : undefined}>
                <td>
                  {c.name} {c.id === conn.id && <Badge tone="info">current</Badge>}
                </td>
                <td className="mono">{c.baseUrl}</td>
                <td>{c.token ? 'saved' : <span className="muted">none</span>}</td>
                <td>
                  <div className="row" style={{ justifyContent: 'flex-end' }}>
                    {c.id !== conn.id && (
                      <button className="btn small" onClick={() => change(() => selectConnection(c.id))}>
                        Use {c.name}
                      </button>
                    )}
                    <button
                      className="btn small danger"
                      onClick={() => change(() => removeConnection(c.id))}
                      aria-label={`Forget ${c.name}`}
                      title="Forget this connection and its token"
                    >
                      Forget
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          {me.data?.username ? (
            <>
              Signed in to <strong>{conn.name}</strong> as <IdentityLine identity={me.data} /> <Link to="/access?tab=mine">What may I do?</Link>
            </>
          ) : me.data ? (
            <>
              Connected to <strong>{conn.name}</strong>; who you are there is unknown: {me.data.unknownBecause}.
            </>
          ) : me.error ? (
            <>
              Not signed in to <strong>{conn.name}</strong>.
            </>
          ) : null}
        </p>
        {adding ? (
          <div className="add-connection">
            <h3>Add a connection</h3>
            <CredentialsForm
              baseUrl={conn.baseUrl}
              askName
              submitLabel="Save and switch"
              onDone={(c) => {
                change(() => addConnection({ name: c.name, baseUrl: c.baseUrl, token: c.token }));
                setAdding(false);
              }}
            />
            <button className="btn" style={{ marginTop: 8 }} onClick={() => setAdding(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <button className="btn" onClick={() => setAdding(true)}>
            Add a connection…
          </button>
        )}
      </div>
    </section>
  );
}

export function Settings() {
  const conn = useConnection();
  const change = useChangeConnection();
  const [result, setResult] = useState<TestResult>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const form = useForm<SettingsValues>({ resolver: zodResolver(SettingsForm), values: { name: conn.name, baseUrl: conn.baseUrl, token: conn.token ?? '' } });
  const { errors, isSubmitting } = form.formState;

  const onTest = form.handleSubmit(async (v) => {
    setError(undefined);
    setResult(undefined);
    setSaved(false);
    try {
      setResult(await testConnection({ baseUrl: v.baseUrl, token: v.token || undefined }));
    } catch (e) {
      setError(e);
    }
  });

  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <div style={{ maxWidth: 860 }}>
        <Connections />
        <section className="panel">
          <h2>Current connection</h2>
          <form className="body" onSubmit={onTest} noValidate aria-label="Current connection">
            <p className="muted" style={{ marginTop: 0 }}>
              The Kubernetes API the app talks to. By default it is the server that served this page; any cluster works when reached through{' '}
              <code>kubectl proxy</code> or a server that allows this origin (CORS).
            </p>
            <dl className="kv" style={{ alignItems: 'start' }}>
              <dt>
                <label htmlFor="connName">Name</label>
              </dt>
              <dd>
                <input id="connName" className={`input${errors.name ? ' invalid' : ''}`} style={{ width: '100%' }} {...form.register('name')} aria-invalid={!!errors.name} />
                {errors.name && <div className="field-error">{errors.name.message}</div>}
              </dd>
              <dt>
                <label htmlFor="baseUrl">API base URL</label>
              </dt>
              <dd>
                <input id="baseUrl" className={`input${errors.baseUrl ? ' invalid' : ''}`} style={{ width: '100%' }} {...form.register('baseUrl')} aria-invalid={!!errors.baseUrl} />
                {errors.baseUrl && <div className="field-error">{errors.baseUrl.message}</div>}
              </dd>
              <dt>
                <label htmlFor="token">Bearer token</label>
              </dt>
              <dd>
                <input id="token" type="password" autoComplete="off" className="input" style={{ width: '100%' }} placeholder="optional" {...form.register('token')} />
                <div className="muted" style={{ fontSize: 12.5, marginTop: 4 }}>
                  Kept in this browser's local storage and sent as <code>Authorization: Bearer …</code>.
                </div>
              </dd>
            </dl>
            <div className="row" style={{ marginTop: 16 }}>
              <button className="btn" type="submit" disabled={isSubmitting}>
                Test connection
              </button>
              <button
                className="btn primary"
                type="button"
                onClick={form.handleSubmit((v) => {
                  change(() => setConnection({ name: v.name, baseUrl: v.baseUrl, token: v.token || undefined }));
                  setSaved(true);
                })}
              >
                Save
              </button>
              <button
                className="btn"
                type="button"
                title="Forget every saved connection and token"
                onClick={() => {
                  change(resetConnection);
                  setSaved(true);
                }}
              >
                Use this server
              </button>
              {saved && (
                <span className="muted" role="status">
                  Saved.
                </span>
              )}
            </div>
          </form>
        </section>
        <ErrorAlert error={error} />
        {result && (
          <section className="panel">
            <h2>
              Connected <Badge tone="ok">Kubernetes {result.version}</Badge>
            </h2>
            <div className="body">
              <table className="simple">
                <tbody>
                  {kinds.map((k) => (
                    <tr key={servedKey(k)}>
                      <td>{k.kind}</td>
                      <td className="mono">{k.group ? `${k.group}/${k.version}` : k.version}</td>
                      <td>{result.served.has(servedKey(k)) ? <Badge tone="ok">served</Badge> : <Badge tone="warn">unavailable</Badge>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        )}
      </div>
    </>
  );
}
