// What kubectl prints when a JSON patch operation cannot be applied: the
// server's cause (the patch library's message), not only the generic line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing.ts';
import { kubectlFor, type Kubectl } from './kubectl.ts';

let s: TestServer;
let kubectl: Kubectl;
beforeAll(async () => {
  s = await startTestServer();
  kubectl = kubectlFor(s);
  await s.api('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'cm' }, data: { k: 'v' } } });
});
afterAll(async () => {
  await s.stop();
});

describe('kubectl patch --type=json', () => {
  it('prints why an operation failed', async () => {
    const replace = await kubectl('patch', 'configmap', 'cm', '--type=json', '-p', '[{"op":"replace","path":"/data/missing","value":"x"}]');
    expect(replace.code).not.toBe(0);
    expect(replace.stderr).toContain('replace operation does not apply: doc is missing key: /data/missing: missing value');
    const test = await kubectl('patch', 'configmap', 'cm', '--type=json', '-p', '[{"op":"test","path":"/data/k","value":"other"}]');
    expect(test.stderr).toContain('testing value /data/k failed: test failed');
    const remove = await kubectl('patch', 'configmap', 'cm', '--type=json', '-p', '[{"op":"remove","path":"/metadata/labels/x"}]');
    expect(remove.stderr).toContain('remove operation does not apply');
  });
});
