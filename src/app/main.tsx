import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { defaultConnection, kubeFetch } from './api/client.ts';

interface Version {
  gitVersion: string;
}
interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string }[];
}

// A first page that proves the server and the client work end to end; the
// full app (lists, details, editors) replaces it.
function ServerStatus() {
  const [version, setVersion] = useState<string>();
  const [kinds, setKinds] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const conn = defaultConnection();
    const paths = ['/api/v1', '/apis/apps/v1', '/apis/networking.k8s.io/v1', '/apis/storage.k8s.io/v1'];
    kubeFetch<Version>(conn, '/version')
      .then((v) => setVersion(v.gitVersion))
      .then(() => Promise.all(paths.map((p) => kubeFetch<ResourceList>(conn, p))))
      .then((lists) => setKinds(lists.flatMap((l) => l.resources.filter((r) => !r.name.includes('/')).map((r) => r.kind))))
      .catch((e: Error) => setError(e.message));
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', margin: '3rem', maxWidth: 720 }}>
      <h1>Kube Workbench</h1>
      {error ? (
        <p role="alert">The API server did not answer: {error}</p>
      ) : (
        <>
          <p>The API server is up{version ? ` (Kubernetes ${version})` : ''}.</p>
          <p>Serving: {kinds.join(', ') || '…'}</p>
        </>
      )}
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ServerStatus />
  </StrictMode>,
);
