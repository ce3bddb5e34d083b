// Connection settings: API base URL and bearer token, tested against /version
// and discovery before they are saved.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { useQueryClient } from '@tanstack/react-query';
import { kinds } from '../../../kinds/registry.ts';
import { kubeFetch, type Connection } from '../../api/client.ts';
import { resetConnection, setConnection, useConnection } from '../../api/connection.ts';
import { servedKey, stopAllWatches } from '../../api/hooks.ts';
import { ErrorAlert, Badge } from '../../components/common.tsx';

const SettingsForm = z.object({
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
  for (const path of ['/api/v1', '/apis/apps/v1', '/apis/networking.k8s.io/v1', '/apis/storage.k8s.io/v1']) {
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

export function Settings() {
  const conn = useConnection();
  const qc = useQueryClient();
  const [result, setResult] = useState<TestResult>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const form = useForm<SettingsValues>({ resolver: zodResolver(SettingsForm), defaultValues: { baseUrl: conn.baseUrl, token: conn.token ?? '' } });
  const { errors, isSubmitting } = form.formState;

  const apply = (c: Connection) => {
    stopAllWatches(qc);
    qc.clear();
    setConnection(c);
    setSaved(true);
  };

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
      <section className="panel" style={{ maxWidth: 760 }}>
        <h2>Connection</h2>
        <form className="body" onSubmit={onTest} noValidate>
          <p className="muted" style={{ marginTop: 0 }}>
            The Kubernetes API the app talks to. By default it is the server that served this page; any cluster works when reached through{' '}
            <code>kubectl proxy</code> or a server that allows this origin (CORS).
          </p>
          <dl className="kv" style={{ alignItems: 'start' }}>
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
              onClick={form.handleSubmit((v) => apply({ baseUrl: v.baseUrl, token: v.token || undefined }))}
            >
              Save
            </button>
            <button
              className="btn"
              type="button"
              onClick={() => {
                stopAllWatches(qc);
                qc.clear();
                resetConnection();
                form.reset({ baseUrl: window.location.origin, token: '' });
                setSaved(true);
              }}
            >
              Use this server
            </button>
            {saved && <span className="muted" role="status">Saved.</span>}
          </div>
        </form>
      </section>
      <div style={{ maxWidth: 760 }}>
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
