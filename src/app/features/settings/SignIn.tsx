// Shown instead of a page when the server answers 401: the connection needs
// credentials. Signing in keeps them on this connection (or saves a new one
// when a kubeconfig points elsewhere); other saved connections are one
// click away.
import { addConnection, getConnection, selectConnection, setConnection, useConnection, useSavedConnections } from '../../api/connection.ts';
import { clearCredentialsNeeded } from '../../api/access.ts';
import { useChangeConnection } from '../../api/hooks.ts';
import { CredentialsForm, type NewCredentials } from './Credentials.tsx';

export function SignIn() {
  const conn = useConnection();
  const saved = useSavedConnections();
  const change = useChangeConnection();
  const others = saved.filter((c) => c.id !== conn.id);

  const done = (c: NewCredentials) =>
    change(() => {
      if (c.baseUrl.replace(/\/+$/, '') === conn.baseUrl) setConnection({ baseUrl: c.baseUrl, token: c.token });
      else addConnection({ name: c.name, baseUrl: c.baseUrl, token: c.token });
      clearCredentialsNeeded(getConnection());
    });

  return (
    <div className="signin">
      <div className="page-head">
        <h1>Sign in</h1>
      </div>
      <div className="alert info">
        <strong>{conn.name}</strong> (<code>{conn.baseUrl}</code>) answered <em>401 Unauthorized</em>:{' '}
        {conn.token ? 'it did not accept the token saved for this connection.' : 'it needs credentials.'} The server prints a link that signs in by itself (its
        token rides in the part after <code>#</code>, which never leaves the browser); or enter a token, or a kubeconfig.
      </div>
      <section className="panel">
        <h2>Credentials</h2>
        <div className="body">
          <CredentialsForm baseUrl={conn.baseUrl} submitLabel="Sign in" onDone={done} />
        </div>
      </section>
      {others.length > 0 && (
        <section className="panel">
          <h2>Or use another saved connection</h2>
          <div className="body row">
            {others.map((c) => (
              <button key={c.id} className="btn" onClick={() => change(() => selectConnection(c.id))}>
                {c.name} <span className="muted">{c.baseUrl}</span>
              </button>
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
