// Credentials for a connection: a bearer token typed in, or one taken from
// a kubeconfig pasted or dropped in (its contexts listed, with the reason a
// browser cannot use the ones that sign in otherwise). What is entered is
// tried (SelfSubjectReview, else discovery) before it is kept, so a wrong
// token is said at once rather than as a page that will not load.
import { useId, useMemo, useState, type DragEvent } from 'react';
import { KubeError, kubeFetch, type Connection } from '../../api/client.ts';
import { reviewSelf, type Identity } from '../../api/access.ts';
import { KubeconfigError, parseKubeconfig, type KubeconfigContext } from '../../api/kubeconfig.ts';
import { Badge } from '../../components/common.tsx';
import './connections.css';

export interface NewCredentials extends Connection {
  name: string;
  identity: Identity;
}

/** Tries a connection: who it signs in as, or a message saying why it cannot. */
export async function tryConnection(conn: Connection): Promise<Identity> {
  try {
    const identity = await reviewSelf(conn);
    // Without SelfSubjectReview, discovery tells a refused token from a good one.
    if (identity.unknownBecause) await kubeFetch(conn, '/api');
    return identity;
  } catch (e) {
    if (e instanceof KubeError && e.code === 401)
      throw new Error(conn.token ? 'The server did not accept this token (401 Unauthorized).' : 'The server needs credentials (401 Unauthorized): enter a token.');
    if (e instanceof KubeError && e.code === 0) throw new Error(`${e.message}. Is the address right, and does the server allow this page's origin (CORS)?`);
    throw e;
  }
}

/**
 * The address to use for a kubeconfig's server: this page's own when it names
 * the same host and port (our server answers TLS for API clients and plain
 * HTTP for the app on one port, and the browser trusts only the latter).
 */
function sameServer(server: string | undefined, pageBase: string): string | undefined {
  if (!server) return undefined;
  try {
    return new URL(server).host === new URL(pageBase).host ? pageBase : server;
  } catch {
    return server;
  }
}

const credentialBadge = (c: KubeconfigContext) =>
  c.problem ? (
    <Badge tone="bad">unusable</Badge>
  ) : c.credential.kind === 'token' ? (
    <Badge tone="ok">token</Badge>
  ) : c.credential.kind === 'none' ? (
    <Badge tone="warn">no credentials</Badge>
  ) : (
    <Badge tone="bad">not usable in a browser</Badge>
  );

export function CredentialsForm({
  baseUrl,
  submitLabel,
  askName,
  onDone,
}: {
  /** The address a token is for; a kubeconfig brings its own. */
  baseUrl: string;
  submitLabel: string;
  /** Ask for a name (when a new connection is added). */
  askName?: boolean;
  onDone(c: NewCredentials): void;
}) {
  const id = useId();
  const [mode, setMode] = useState<'token' | 'kubeconfig'>('token');
  const [url, setUrl] = useState(baseUrl);
  const [token, setToken] = useState('');
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [dragging, setDragging] = useState(false);

  const parsed = useMemo((): { contexts?: KubeconfigContext[]; error?: string } => {
    if (!text.trim()) return {};
    try {
      return { contexts: parseKubeconfig(text) };
    } catch (e) {
      return { error: e instanceof KubeconfigError ? e.message : String(e) };
    }
  }, [text]);
  const usable = (c: KubeconfigContext) => !c.problem && c.credential.kind !== 'unusable';
  const context = parsed.contexts?.find((c) => c.name === chosen) ?? parsed.contexts?.find(usable);
  // The kubeconfig's server, unless the user overrides it (for example to reach it through this page's own server).
  const [serverOverride, setServerOverride] = useState<string>();
  const server = serverOverride ?? sameServer(context?.server, baseUrl) ?? '';

  const submit = async () => {
    setError(undefined);
    let conn: Connection & { name: string };
    if (mode === 'token') {
      if (!token.trim()) return setError('Enter a token.');
      conn = { baseUrl: url.trim(), token: token.trim(), name: name.trim() || url.trim() };
    } else {
      if (!context) return setError(parsed.error ?? 'Paste or drop a kubeconfig.');
      if (!usable(context)) return setError(context.problem ?? (context.credential.kind === 'unusable' ? context.credential.why : ''));
      conn = { baseUrl: server.trim(), token: context.credential.kind === 'token' ? context.credential.token : undefined, name: name.trim() || context.name };
    }
    try {
      new URL(conn.baseUrl);
    } catch {
      return setError(`"${conn.baseUrl}" is not a full URL such as https://cluster.example:6443.`);
    }
    setBusy(true);
    try {
      const identity = await tryConnection(conn);
      onDone({ ...conn, identity });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setText(await file.text());
    setChosen(undefined);
    setServerOverride(undefined);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void readFile(e.dataTransfer.files[0]);
  };

  return (
    <form
      className="credentials"
      aria-label="Credentials"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      noValidate
    >
      <div className="tabs" role="tablist" aria-label="Sign in with">
        <button type="button" role="tab" aria-selected={mode === 'token'} onClick={() => (setMode('token'), setError(undefined))}>
          Token
        </button>
        <button type="button" role="tab" aria-selected={mode === 'kubeconfig'} onClick={() => (setMode('kubeconfig'), setError(undefined))}>
          Kubeconfig
        </button>
      </div>
      {askName && (
        <div className="form-row">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder={mode === 'token' ? 'e.g. staging as viewer' : (context?.name ?? 'the context name')} />
        </div>
      )}
      {mode === 'token' ? (
        <>
          <div className="form-row">
            <label htmlFor={`${id}-url`}>API base URL</label>
            <input id={`${id}-url`} className="input" value={url} onChange={(e) => setUrl(e.target.value)} />
          </div>
          <div className="form-row">
            <label htmlFor={`${id}-token`}>Bearer token</label>
            <input id={`${id}-token`} className="input mono" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
            <div className="hint">
              Sent as <code>Authorization: Bearer …</code> and kept in this browser's local storage. The server's admin token is in <code>&lt;data-dir&gt;/admin-token</code>; a
              service account's comes from <code>kubectl create token NAME</code>.
            </div>
          </div>
        </>
      ) : (
        <>
          <div className={`dropzone${dragging ? ' over' : ''}`} onDragOver={(e) => (e.preventDefault(), setDragging(true))} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
            <label htmlFor={`${id}-kubeconfig`}>Kubeconfig</label>
            <textarea
              id={`${id}-kubeconfig`}
              className="input mono"
              rows={7}
              spellCheck={false}
              placeholder="Paste a kubeconfig here, or drop the file (for example ~/.kube/config)"
              value={text}
              onChange={(e) => (setText(e.target.value), setChosen(undefined), setServerOverride(undefined))}
            />
            <div className="row hint">
              <label className="btn small">
                Choose file…
                <input type="file" className="visually-hidden" onChange={(e) => void readFile(e.target.files?.[0])} />
              </label>
              <span>Read here in the browser; only the chosen context's token is kept.</span>
            </div>
          </div>
          {parsed.error && (
            <div className="field-error" role="alert">
              {parsed.error}
            </div>
          )}
          {parsed.contexts && (
            <fieldset className="contexts">
              <legend>Context</legend>
              {parsed.contexts.map((c) => (
                <label key={c.name} className={`context${context?.name === c.name ? ' chosen' : ''}`}>
                  <input
                    type="radio"
                    name={`${id}-context`}
                    value={c.name}
                    aria-label={c.name}
                    aria-describedby={`${id}-ctx-${c.name}`}
                    checked={context?.name === c.name}
                    onChange={() => (setChosen(c.name), setServerOverride(undefined))}
                  />
                  <span className="context-text" id={`${id}-ctx-${c.name}`}>
                    <span className="row">
                      <strong>{c.name}</strong>
                      {c.current && <Badge>current</Badge>}
                      {credentialBadge(c)}
                    </span>
                    <span className="muted">
                      user {c.user || <em>none</em>} · {c.server ?? 'no server'}
                      {c.namespace && ` · namespace ${c.namespace}`}
                    </span>
                    {context?.name === c.name && (c.problem || c.credential.kind !== 'token') && (
                      <span className={c.problem || c.credential.kind === 'unusable' ? 'why bad' : 'why'}>
                        {c.problem ?? (c.credential.kind === 'unusable' ? c.credential.why : 'This user has no credentials: requests will be anonymous, which the server may refuse.')}
                      </span>
                    )}
                  </span>
                </label>
              ))}
            </fieldset>
          )}
          {context && usable(context) && (
            <div className="form-row">
              <label htmlFor={`${id}-server`}>API base URL</label>
              <input id={`${id}-server`} className="input" value={server} onChange={(e) => setServerOverride(e.target.value)} />
              {context.tlsNote && <div className="hint">{context.tlsNote}</div>}
              {server && server !== baseUrl && (
                <div className="hint">
                  The kubeconfig's server differs from this page's ({baseUrl}); it must allow this origin (CORS).{' '}
                  <button type="button" className="linkish" onClick={() => setServerOverride(baseUrl)}>
                    Use {baseUrl}
                  </button>
                </div>
              )}
            </div>
          )}
        </>
      )}
      {error && (
        <div className="alert bad" role="alert">
          {error}
        </div>
      )}
      <div className="row">
        <button className="btn primary" type="submit" disabled={busy}>
          {busy ? 'Checking…' : submitLabel}
        </button>
      </div>
    </form>
  );
}

/** Who a connection signs in as, in one line. */
export function IdentityLine({ identity }: { identity: Identity | undefined }) {
  if (!identity) return <span className="muted">…</span>;
  if (!identity.username) return <span className="muted">{identity.unknownBecause ?? 'unknown'}</span>;
  return (
    <span className="identity">
      <strong>{identity.username}</strong>
      {identity.groups.length > 0 && (
        <span className="chips">
          {identity.groups.map((g) => (
            <span className="chip" key={g}>
              {g}
            </span>
          ))}
        </span>
      )}
    </span>
  );
}
