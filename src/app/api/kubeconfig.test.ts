import { describe, expect, it } from 'vitest';
import { KubeconfigError, parseKubeconfig } from './kubeconfig.ts';

const CONFIG = `
apiVersion: v1
kind: Config
current-context: viewer@local
clusters:
  - name: local
    cluster:
      server: https://127.0.0.1:6443/
      certificate-authority-data: LS0tLS1CRUdJTi...
  - name: proxied
    cluster:
      server: http://127.0.0.1:8001
users:
  - name: admin
    user:
      client-certificate-data: LS0t
      client-key-data: LS0t
  - name: viewer
    user:
      token: abc.def
  - name: cloud
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: gke-gcloud-auth-plugin
  - name: from-file
    user:
      tokenFile: /var/run/secrets/token
contexts:
  - name: admin@local
    context: { cluster: local, user: admin }
  - name: viewer@local
    context: { cluster: local, user: viewer, namespace: shop }
  - name: cloud
    context: { cluster: proxied, user: cloud }
  - name: broken
    context: { cluster: gone, user: nobody }
  - name: anonymous
    context: { cluster: proxied }
  - name: file
    context: { cluster: proxied, user: from-file }
`;

describe('parseKubeconfig', () => {
  const contexts = parseKubeconfig(CONFIG);
  const byName = Object.fromEntries(contexts.map((c) => [c.name, c]));

  it('lists every context, the current one first, with its server and namespace', () => {
    expect(contexts.map((c) => c.name)).toEqual(['viewer@local', 'admin@local', 'cloud', 'broken', 'anonymous', 'file']);
    expect(byName['viewer@local']).toMatchObject({ current: true, server: 'https://127.0.0.1:6443', namespace: 'shop', user: 'viewer', credential: { kind: 'token', token: 'abc.def' } });
  });

  it('says why a browser cannot use a client certificate, an exec plugin or a token file', () => {
    const cert = byName['admin@local'].credential;
    expect(cert.kind).toBe('unusable');
    expect(cert.kind === 'unusable' && cert.why).toMatch(/client certificate.*browser/);
    const exec = byName.cloud.credential;
    expect(exec.kind === 'unusable' && exec.why).toMatch(/gke-gcloud-auth-plugin/);
    const file = byName.file.credential;
    expect(file.kind === 'unusable' && file.why).toMatch(/\/var\/run\/secrets\/token/);
  });

  it('a user-less context is anonymous; a context naming missing entries says so', () => {
    expect(byName.anonymous.credential).toEqual({ kind: 'none' });
    expect(byName.anonymous.problem).toBeUndefined();
    expect(byName.broken.problem).toMatch(/cluster "gone" is not in this kubeconfig; its user "nobody"/);
  });

  it('warns that the browser, not the kubeconfig CA, judges an https certificate', () => {
    expect(byName['viewer@local'].tlsNote).toMatch(/own trust store/);
    expect(byName.cloud.tlsNote).toBeUndefined();
  });

  it('refuses text that is not a kubeconfig with a clear message', () => {
    expect(() => parseKubeconfig('a: [')).toThrow(KubeconfigError);
    expect(() => parseKubeconfig('apiVersion: v1\nkind: Pod\n')).toThrow(/Pod, not a kubeconfig/);
    expect(() => parseKubeconfig('- 1\n- 2\n')).toThrow(/not a kubeconfig/);
    expect(() => parseKubeconfig('apiVersion: v1\nkind: Config\nclusters: []\n')).toThrow(/no contexts/);
  });

  it('reads JSON too', () => {
    const json = JSON.stringify({ kind: 'Config', clusters: [{ name: 'c', cluster: { server: 'http://x' } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }] });
    expect(parseKubeconfig(json)[0]).toMatchObject({ server: 'http://x', credential: { kind: 'token', token: 't' } });
  });
});
