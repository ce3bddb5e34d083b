// The reach command on manifest folders: workloads read as their pods, the
// matrix equal to the engine's on the same objects, the diff against a base,
// intents from a file and from ConfigMaps, and exit statuses.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeReachability, matrixAllowed, type PodLike } from '../lib/reachability/index.ts';
import { main } from './main.ts';
import { readManifests } from './manifests.ts';
import { buildReport } from './reach.ts';

const data = (...p: string[]) => join(import.meta.dirname, 'testdata', ...p);

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('kube-workbench reach', () => {
  it('reads workloads as the pods they would create, from YAML, multi-document files, JSON and Lists', () => {
    const r = buildReport([data('shop/next')], {});
    expect(r.pods.map((p) => `${p.namespace}/${p.name}:${p.from ?? 'Pod'}`)).toEqual([
      'db/agent:DaemonSet agent',
      'db/cache:ReplicaSet cache',
      'db/migrate:Job migrate',
      'db/postgres:Pod',
      'shop/api:StatefulSet api',
      'shop/report:CronJob report',
      'shop/web:Deployment web',
    ]);
    expect(r.matrices.map((m) => `${m.protocol}/${m.port}`)).toEqual(['TCP/5432', 'TCP/8080']);
  });

  it('answers exactly what the engine answers on the same objects (as the app feeds it)', () => {
    const tpl = (ns: string, name: string, app: string, ports: { name?: string; containerPort: number }[] = []): PodLike => ({ metadata: { namespace: ns, name, labels: { app } }, spec: { containers: [{ ports }] } });
    const pods = [
      tpl('shop', 'web', 'web', [{ name: 'http', containerPort: 8080 }]),
      tpl('shop', 'api', 'api', [{ name: 'http', containerPort: 8080 }]),
      tpl('shop', 'report', 'report'),
      tpl('db', 'agent', 'agent'),
      tpl('db', 'postgres', 'postgres', [{ containerPort: 5432 }]),
      tpl('db', 'migrate', 'migrate'),
      tpl('db', 'cache', 'cache'),
    ];
    const r = buildReport([data('shop/next')], {});
    const { policies } = readManifests([data('shop/next')]).input;
    const a = analyzeReachability({
      namespaces: [
        { metadata: { name: 'shop', labels: { team: 'shop' } } },
        { metadata: { name: 'db', labels: { team: 'data' } } },
      ],
      pods,
      policies,
      nodes: [],
    });
    for (const m of r.matrices) {
      const mx = a.matrix(m.port, m.protocol);
      expect(mx.pods.map((p) => `${p.namespace}/${p.name}`)).toEqual(r.pods.map((p) => `${p.namespace}/${p.name}`));
      expect(m.rows).toEqual(mx.pods.map((_, i) => mx.pods.map((__, j) => (matrixAllowed(mx, i, j) ? '1' : '0')).join('')));
    }
    // The api's named port admits the web front only.
    const m8080 = r.matrices.find((m) => m.port === 8080)!;
    const col = r.pods.findIndex((p) => p.name === 'api');
    expect(r.pods.filter((_, i) => m8080.rows[i][col] === '1').map((p) => p.name)).toEqual(['web']);
  });

  it('prints the diff against --base and the intents, and exits 1 when one is violated', async () => {
    const r = await run('reach', data('shop/next'), '--base', data('shop/base'), '--intents', data('shop/intents.yaml'));
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    expect(r.out).toContain('Newly denied (7 pod pairs):');
    expect(r.out).toContain('shop/web → shop/api  TCP 1-8079, TCP 8081-65535, UDP any port, SCTP any port');
    expect(r.out).toContain('db/agent → shop/api  TCP any port, UDP any port, SCTP any port');
    expect(r.out).toMatch(/✓ met\s+web-reaches-api/);
    expect(r.out).toMatch(/✓ met\s+only-api-reaches-postgres/);
    expect(r.out).toMatch(/✗ VIOLATED report-reaches-api/);
    expect(r.out).toContain('isolated by: shop/api-from-web');
  });

  it('exits 0 when the intents are met (base manifests: nothing isolates the api yet)', async () => {
    const r = await run('reach', data('shop/base'), '--intents', data('shop/intents.yaml'), '--format', 'json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.intents.map((i: { name: string; status: string }) => `${i.name}:${i.status}`)).toEqual(['web-reaches-api:met', 'only-api-reaches-postgres:met', 'report-reaches-api:met']);
  });

  it('checks intents carried in a labelled ConfigMap among the manifests', async () => {
    const r = await run('reach', data('configmap-intents'), '--format', 'md');
    expect(r.code).toBe(0);
    expect(r.out).toContain('| TCP 80: source \\ destination | default/client | default/secret |');
    expect(r.out).toContain('- ✓ met      `nothing-reaches-secret`');
  });

  it('exits 2 on unreadable manifests, bad intents and bad options', async () => {
    const bad = await run('reach', data('broken'));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bad.yaml');
    const badIntents = await run('reach', data('shop/base'), '--intents', data('broken/bad.yaml'));
    expect(badIntents.code).toBe(2);
    expect((await run('reach', data('shop/base'), '--format', 'xml')).code).toBe(2);
    expect((await run('reach', data('shop/base'), '--port', '99999')).err).toContain('--port');
    expect((await run('reach')).code).toBe(2);
    expect((await run('nope')).err).toContain('unknown command "nope"');
  });

  it('runs as the kube-workbench program (the bin launcher)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const p = spawnSync(process.execPath, [join(root, 'bin', 'kube-workbench.mjs'), 'reach', data('shop/next'), '--intents', data('shop/intents.yaml'), '--port', '8080'], { encoding: 'utf8' });
    expect(p.status).toBe(1);
    expect(p.stdout).toContain('TCP 8080');
    expect(p.stdout).toContain('report-reaches-api');
  });
});
